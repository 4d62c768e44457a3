"""The HTTP API on Ray Serve (issue 46, part 4): the same app as `redraft serve --http`
(`create_app` over an `EngineRunner`), served by replicas on a Ray cluster, each with its own engine.

    python -m redraft.http.ray_app --replicas 2 --port 8000             # a local Ray instance
    python -m redraft.http.ray_app --address auto --min-replicas 1 --max-replicas 8 --port 8000
    serve run redraft.http.ray_app:build replicas=2 num_cpus=1          # Ray's own launcher

* Every route and wire format is the app's own: each replica builds `create_app(EngineRunner(...))`
  and loads its model before it takes traffic (Ray's `serve.ingress()` with the app built in the
  replica, `__serve_build_asgi_app__`); Ray's HTTP proxy on every node spreads requests over the
  replicas.  Streams (server-sent events, Ollama's JSON lines) go through the proxy as they are.
  Answers carry `x-redraft-replica` (the replica that answered).
* Replicas: a fixed number (`replicas`), or autoscaling on queue depth (`min_replicas` <
  `max_replicas`): Ray counts each replica's ongoing requests (waiting for the model or in its
  batch) and adds replicas while the average is over `target_ongoing_requests`.  Each replica
  reserves `num_cpus` of Ray's CPUs and runs torch on that many threads.  At most
  `max_ongoing_requests` requests go to one replica at once (the rest wait in the proxy); past
  `max_queued_requests` waiting there, Ray answers 429 with Retry-After.  A replica's own queue
  bound (`max_queue`) still answers 429 as the plain server does.
* Per replica, not per deployment: /metrics and /v1/redraft/stats (the replica that answered),
  rate limits (each replica counts its own), the access log (each replica's process).
* A client that disconnects stops its denoising at the next step, as on the plain server: Ray's
  proxy forwards the disconnect to the replica's app; should Ray cancel the request in the replica
  first, `_Tagged` shows the app a disconnect too (tests/test_http_ray.py: a stream closed after its
  first draft); a receive the app is already waiting on (its hang-up watch) wakes then too.

The GPU path (`--backend openai-completions --backend-url http://gpu-host:30000/v1 --backend-model M
--backend-template qwen`, redraft.engine.backends): the replicas load no model and answer every
format through the remote backend (SGLang, vLLM, ...), which does the batching; `--num-cpus 0.5`.

Ray is imported only here: nothing else of redraft needs it (`pip install 'redraft[serve]'`)."""
from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import threading
from typing import Any

from redraft.http.app import create_app
from redraft.http.keys import KeysFileError
from redraft.http.runner import EngineRunner
from redraft.http.serve import SHUTDOWN_S, _ops, check_bind

APP_NAME = "redraft"
DEPLOYMENT = "redraft_http"
REPLICA_HEADER = b"x-redraft-replica"
STOP_GRACE = 2.0                # seconds a cancelled request's app gets to see the disconnect


def _engine_options(model_dir: str | None = None, effort: str | None = None, max_queue: int = 16,
                    num_cpus: float = 1.0, api_key: str | None = None, keys_file: str | None = None,
                    rate_limit: float = 0.0, rate_burst: float = 0.0, access_log: str | None = None,
                    log_bodies: bool = False, max_batch: int | None = None,
                    backend: Any = None) -> dict[str, Any]:
    return {"backend": backend, "model_dir": model_dir, "effort": effort, "max_queue": max_queue,
            "threads": max(1, int(num_cpus)), "api_key": api_key, "keys_file": keys_file,
            "rate_limit": rate_limit, "rate_burst": rate_burst, "access_log": access_log,
            "log_bodies": log_bodies, "max_batch": max_batch}


class _Replica:
    """One replica: its runner and engine (loaded in the constructor, so that Ray routes nothing to
    it before the model is in memory), and the app over them."""

    def __init__(self, options: dict[str, Any]) -> None:
        from ray import serve
        o = dict(options)
        ops = _ops(o["api_key"], o["keys_file"], o["rate_limit"], o["rate_burst"], o["access_log"],
                   False, o["log_bodies"])
        backend = o.get("backend")
        if backend is not None and backend.remote:      # the GPU path: a remote model behind the API
            from concurrent.futures import ThreadPoolExecutor

            from redraft.engine.backends.remote import RemoteEngine
            remote = RemoteEngine(backend)
            pool = ThreadPoolExecutor(max_workers=o["max_batch"] or 8, thread_name_prefix="redraft-remote")
            self.runner = EngineRunner(max_queue=o["max_queue"], source=lambda: (remote, pool))
        else:
            self.runner = EngineRunner(o["model_dir"], max_queue=o["max_queue"], threads=o["threads"],
                                       max_batch=o["max_batch"])
            self.runner.load()
        self.http_app = create_app(self.runner, default_effort=o["effort"] or "low", **ops)
        try:
            self.replica_id = serve.get_replica_context().replica_id.unique_id
        except Exception:  # noqa: BLE001 - a name only for the header
            self.replica_id = f"pid{os.getpid()}"

    def __serve_build_asgi_app__(self) -> Any:
        return _Tagged(self.http_app, self.replica_id)

    def check_health(self) -> None:
        """Ray's health check: the model is loaded and the replica is not draining."""
        if (self.runner.engine is None and self.runner.source is None) or self.http_app.api.draining:
            raise RuntimeError("redraft replica not ready")

    def __del__(self) -> None:
        runner = getattr(self, "runner", None)
        if runner is not None:
            runner.shutdown()


class _Tagged:
    """The app as a replica serves it: every answer carries `x-redraft-replica`; a request that Ray
    cancels (its client went away) is shown to the app as `http.disconnect`, and the app gets
    STOP_GRACE seconds to stop its denoising (at the next step) and give back its queue place."""

    def __init__(self, app: Any, replica_id: str) -> None:
        self.app, self.api = app, app.api
        self.tag = replica_id.encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        gone = asyncio.Event()

        async def recv():
            """Ray's receive, or a disconnect once Ray cancels the request: a receive already
            waiting (the app's hang-up watch) wakes then too."""
            if gone.is_set():
                return {"type": "http.disconnect"}
            got, went = asyncio.ensure_future(receive()), asyncio.ensure_future(gone.wait())
            try:
                await asyncio.wait({got, went}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                went.cancel()
            if got.done():
                return got.result()
            got.cancel()
            return {"type": "http.disconnect"}

        async def tagged(message):
            if gone.is_set():
                return
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (REPLICA_HEADER, self.tag)]}
            await send(message)

        task = asyncio.ensure_future(self.app(scope, recv, tagged))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            gone.set()
            try:
                await asyncio.wait_for(task, STOP_GRACE)
            except BaseException:  # noqa: BLE001 - the client is gone; cancelled past the grace
                pass
            raise


def deployment(replicas: int = 1, min_replicas: int | None = None, max_replicas: int | None = None,
               target_ongoing_requests: float = 4.0, num_cpus: float = 1.0, max_ongoing_requests: int = 16,
               max_queued_requests: int = -1, **engine: Any):
    """The bound Ray Serve application (`serve.run` it): `replicas` fixed, or autoscaling between
    `min_replicas` and `max_replicas` on `target_ongoing_requests` a replica; `engine`: model_dir,
    effort, max_queue, api_key, keys_file, rate_limit, rate_burst, access_log, log_bodies, max_batch, and
    `backend` (a remote BackendConfig, redraft.engine.backends: each replica answers through it, on
    `max_batch` threads at once, instead of loading a model: the GPU path)."""
    from ray import serve
    from ray.serve.config import BackpressureConfig
    options = _engine_options(num_cpus=num_cpus, **engine)
    scale: dict[str, Any] = {"num_replicas": replicas}
    if max_replicas is not None and max_replicas > (min_replicas if min_replicas is not None else replicas):
        lo = min_replicas if min_replicas is not None else 1
        scale = {"autoscaling_config": {"min_replicas": lo, "max_replicas": max_replicas,
                                        "initial_replicas": max(lo, min(replicas, max_replicas)),
                                        "target_ongoing_requests": target_ongoing_requests}}
    cls = serve.deployment(
        serve.ingress()(type("RedraftHTTP", (_Replica,), {"__module__": __name__})),
        name=DEPLOYMENT, ray_actor_options={"num_cpus": num_cpus},
        max_ongoing_requests=max_ongoing_requests, max_queued_requests=max_queued_requests,
        backpressure_config=BackpressureConfig(status_code=429, retry_after_s=1),
        graceful_shutdown_timeout_s=SHUTDOWN_S, health_check_period_s=5.0, **scale)
    return cls.bind(options)


def build(args: dict[str, str]):
    """`serve run redraft.http.ray_app:build replicas=2 num_cpus=1 ...` (Ray's application builder:
    every value arrives as a string)."""
    ints = {"replicas", "min_replicas", "max_replicas", "max_ongoing_requests", "max_queued_requests",
            "max_queue", "max_batch"}
    floats = {"target_ongoing_requests", "num_cpus", "rate_limit", "rate_burst"}
    kw: dict[str, Any] = {}
    for k, v in args.items():
        kw[k] = int(v) if k in ints else float(v) if k in floats else \
            str(v).lower() in ("1", "true", "yes") if k == "log_bodies" else v
    return deployment(**kw)


def start(port: int, host: str = "127.0.0.1", address: str | None = None, ray_init: dict | None = None,
          timeout_s: float = 300.0, **kw: Any) -> str:
    """Starts (or joins, `address`) Ray, Serve's HTTP proxy on host:port and the deployment, and
    waits until every replica has loaded its model; the base URL.  `kw`: `deployment`'s."""
    import ray
    from ray import serve
    if not ray.is_initialized():
        ray.init(address=address, **(ray_init or {}))
    serve.start(http_options={"host": host, "port": port})
    serve.run(deployment(**kw), name=APP_NAME, route_prefix="/", blocking=False)
    _wait_running(timeout_s)
    return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{port}"


def _wait_running(timeout_s: float) -> None:
    import time

    from ray import serve
    deadline = time.monotonic() + timeout_s
    while True:
        app = serve.status().applications.get(APP_NAME)
        status = str(getattr(app, "status", "")).rsplit(".", 1)[-1]
        if status == "RUNNING":
            return
        if status in ("DEPLOY_FAILED", "UNHEALTHY") or time.monotonic() > deadline:
            raise RuntimeError(f"the Ray Serve deployment is {status or 'missing'}: "
                               f"{getattr(app, 'message', '')}".split("\n")[0])
        time.sleep(0.5)


def stop() -> None:
    """Shuts down Serve and this driver's connection to Ray (and Ray itself when it started it)."""
    import ray
    from ray import serve
    if ray.is_initialized():
        try:
            serve.shutdown()
        finally:
            ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m redraft.http.ray_app",
                                 description="redraft's HTTP API on Ray Serve: replicas each with their own engine")
    ap.add_argument("--host", default="127.0.0.1", help="the proxies' address (0.0.0.0 for a cluster)")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--address", help="an existing Ray cluster (`auto`, or HOST:6379); default: a local instance")
    ap.add_argument("--replicas", type=int, default=1, help="fixed replicas (the initial ones when autoscaling)")
    ap.add_argument("--min-replicas", type=int)
    ap.add_argument("--max-replicas", type=int, help="autoscale on queue depth up to this many")
    ap.add_argument("--target-ongoing-requests", type=float, default=4.0,
                    help="autoscaling: requests waiting or running a replica should average (default 4)")
    ap.add_argument("--num-cpus", type=float, default=1.0, help="Ray CPUs (and torch threads) a replica takes")
    ap.add_argument("--max-ongoing-requests", type=int, default=16, help="requests one replica holds at once")
    ap.add_argument("--max-queued-requests", type=int, default=-1,
                    help="requests waiting in a proxy past which it answers 429 (default: no bound)")
    ap.add_argument("--num-cpus-total", type=float, metavar="N",
                    help="a local instance: the CPUs Ray may use (default: every core)")
    ap.add_argument("--dashboard", action="store_true", help="a local instance: start Ray's dashboard too")
    ap.add_argument("--model", metavar="DIR")
    ap.add_argument("--effort")
    ap.add_argument("--max-queue", type=int, default=16)
    ap.add_argument("--max-batch", type=int)
    ap.add_argument("--api-key")
    ap.add_argument("--keys-file", metavar="PATH")
    ap.add_argument("--rate-limit", type=float, default=0.0)
    ap.add_argument("--rate-burst", type=float, default=0.0)
    ap.add_argument("--access-log", metavar="PATH")
    ap.add_argument("--log-bodies", action="store_true")
    from redraft.engine.backends.config import add_flags, flags_of
    add_flags(ap)       # --backend openai-completions --backend-url ...: the GPU path
    a = ap.parse_args(argv)
    backend, problems = flags_of(a)
    if problems:
        for p in problems:
            print(f"redraft ray_app: --backend: {p}", file=sys.stderr)
        return 2
    try:
        api_key = check_bind(a.host, a.api_key, a.keys_file)
        _ops(api_key, a.keys_file, a.rate_limit, a.rate_burst, a.access_log, False, a.log_bodies)
    except SystemExit as e:
        return int(e.code)
    except (KeysFileError, OSError, ValueError) as e:
        print(f"redraft ray_app: {e}".split("\n")[0], file=sys.stderr)
        return 2
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    try:
        local = {} if a.address else {"include_dashboard": a.dashboard, "num_cpus": a.num_cpus_total}
        url = start(a.port, a.host, a.address, ray_init=local, replicas=a.replicas, min_replicas=a.min_replicas,
                    max_replicas=a.max_replicas, target_ongoing_requests=a.target_ongoing_requests,
                    num_cpus=a.num_cpus, max_ongoing_requests=a.max_ongoing_requests,
                    max_queued_requests=a.max_queued_requests, model_dir=a.model, effort=a.effort,
                    max_queue=a.max_queue, max_batch=a.max_batch, api_key=api_key, keys_file=a.keys_file,
                    rate_limit=a.rate_limit, rate_burst=a.rate_burst, access_log=a.access_log,
                    log_bodies=a.log_bodies, backend=backend)
        print(f"redraft ray_app: HTTP API on {url}/v1 (Ray Serve)", file=sys.stderr, flush=True)
        done.wait()
    except RuntimeError as e:
        print(f"redraft ray_app: {e}", file=sys.stderr)
        return 1
    finally:
        stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
