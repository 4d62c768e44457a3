"""`redraft serve --http HOST:PORT`: the HTTP API in this process, served by uvicorn: alone
(`serve_http`, its own engine), or beside the language server (`--stdio --http`, `serve_beside`:
the language server's engine and model thread).

uvicorn's HTTP protocol is taken as it is but for three things (`_protocol`): a request that has not
fully arrived (its header or body) `request_timeout` seconds after it began gets 408 and its
connection is closed (before the key is even checked: a slow client holds nothing for long); the
400 for malformed HTTP is OpenAI's JSON error shape; and on shutdown a request still arriving is
dropped at once (there is nothing to finish).

Graceful shutdown (SIGTERM or SIGINT, `_Server`): the listening socket closes (no new connections),
/health answers 503 "draining", idle keep-alive connections close, and every request already in
flight (streams included) is answered in full for up to `shutdown_timeout` seconds (default
SHUTDOWN_S); then what is left is stopped at its next denoising step and the process exits 0.

Operations (keyword arguments; main.py's `redraft serve` flags): `keys_file` (per-user
keys, keys.py, re-read when it changes), `rate_limit`/`rate_burst` (each key's default token
bucket), `access_log` (JSON lines: a path, or "-" for stderr; `log_requests` is "-"), `log_bodies`
(request bodies in the access log: code; off by default)."""
from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from redraft.http.app import create_app
from redraft.http.keys import KeyStore, KeysFileError, RateLimits
from redraft.http.metrics import AccessLog
from redraft.http.runner import EngineRunner

API_KEY_ENV = "REDRAFT_API_KEY"
REQUEST_TIMEOUT = 10.0          # seconds a request may take to arrive (its header and body)
SHUTDOWN_S = 20.0               # seconds in-flight answers get on SIGTERM before they are stopped
                                # (a request's model work is cut at 20 s anyway: runner.DEADLINE)


def _error_bytes(status: int, message: str, code: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error", "param": None,
                                 "code": code}}).encode()


def _protocol(request_timeout: float):
    """uvicorn's h11 protocol with a deadline for incomplete requests and JSON errors."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Protocol(H11Protocol):
        _deadline = None

        def connection_made(self, transport) -> None:      # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                return self._disarm()
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
                self._disarm()          # the whole request is here: the app takes its time
            elif self.conn.their_state is h11.SEND_BODY or self.conn.trailing_data[0]:
                self._arm()             # a request has begun and is not complete

        def connection_lost(self, exc) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(request_timeout, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
                return
            started = self.cycle is not None and self.cycle.response_started
            if self.cycle is not None:
                self.cycle.disconnected = True        # the app's receive() sees the client gone
                self.cycle.message_event.set()
            if not started and (self.conn.their_state is h11.SEND_BODY or self.conn.trailing_data[0]):
                msg = f"the request did not arrive within {request_timeout:g} seconds"
                self._send_error(408, msg, "request_timeout")
            self.transport.close()

        def _send_error(self, status: int, message: str, code: str) -> None:
            body = _error_bytes(status, message, code)
            try:
                self.transport.write(
                    f"HTTP/1.1 {status} {'Bad Request' if status == 400 else 'Request Timeout'}\r\n"
                    f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
                    "connection: close\r\n\r\n".encode() + body)
            except Exception:  # noqa: BLE001 - the connection is going anyway
                pass

        def shutdown(self) -> None:
            """Graceful shutdown: a request still arriving (its body not all here) is dropped now,
            as if its client had gone; an answer being sent is finished (uvicorn's own way)."""
            if self.cycle is not None and not self.cycle.response_started \
                    and self.conn.their_state is h11.SEND_BODY:
                self._disarm()
                self.cycle.disconnected = True
                self.cycle.message_event.set()
                self.transport.close()
                return
            super().shutdown()

        def send_400_response(self, msg: str) -> None:
            self._disarm()
            self._send_error(400, "malformed HTTP request", "invalid_http")
            self.transport.close()

    return Protocol


def _uvicorn_config(app, host: str, port: int, request_timeout: float, shutdown_timeout: float = SHUTDOWN_S):
    import uvicorn
    return uvicorn.Config(app, host=host, port=port, access_log=False, log_level="warning",
                          http=_protocol(request_timeout), timeout_graceful_shutdown=shutdown_timeout,
                          lifespan="off", loop="asyncio")   # the same loop whether or not uvloop is installed


def _ops(api_key: str | None, keys_file: str | None, rate_limit: float, rate_burst: float,
         access_log: str | None, log_requests: bool, log_bodies: bool) -> dict:
    """create_app's operations arguments; KeysFileError or OSError (a log that cannot be opened)."""
    for name, v in (("--rate-limit", rate_limit), ("--rate-burst", rate_burst)):
        if not (v >= 0 and v != float("inf")):          # NaN fails this too
            raise ValueError(f"{name} must be a number >= 0, got {v}")
    keys = KeyStore(keys_file, api_key)
    if keys_file:
        mode = os.stat(keys_file).st_mode
        if mode & 0o077:
            print(f"redraft serve: warning: the keys file {keys_file} can be read by others (chmod 600 it)",
                  file=sys.stderr, flush=True)
    log = None
    if access_log == "-" or (log_requests and not access_log):
        log = AccessLog(sys.stderr, log_bodies)
    elif access_log:
        log = AccessLog(open(access_log, "a", encoding="utf-8", buffering=1), log_bodies)
    return {"keys": keys, "limits": RateLimits(rate_limit, rate_burst), "access_log": log}


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            return all(ipaddress.ip_address(a[4][0]).is_loopback for a in socket.getaddrinfo(host, None))
        except (OSError, ValueError):
            return False


def check_bind(host: str, api_key: str | None, keys_file: str | None = None) -> str | None:
    """The key to require (the argument or REDRAFT_API_KEY); SystemExit(2) with a message when the
    address is not loopback and there is neither a key nor a keys file."""
    api_key = api_key or os.environ.get(API_KEY_ENV) or None
    if not is_loopback(host) and not api_key and not keys_file:
        print(f"redraft serve: binding to {host}, which is not a loopback address, needs an API key "
              f"(--api-key or {API_KEY_ENV}) or a keys file (--keys-file)", file=sys.stderr)
        raise SystemExit(2)
    return api_key


def serve_beside(host: str, port: int, source, api_key: str | None = None, effort: str | None = None,
                 max_queue: int = 16, log_requests: bool = False,
                 request_timeout: float = REQUEST_TIMEOUT, keys_file: str | None = None, rate_limit: float = 0.0,
                 rate_burst: float = 0.0, access_log: str | None = None, log_bodies: bool = False) -> threading.Thread:
    """The HTTP API on a thread of this process, over the language server's engine (`source`)."""
    import uvicorn
    api_key = check_bind(host, api_key, keys_file)
    try:
        ops = _ops(api_key, keys_file, rate_limit, rate_burst, access_log, log_requests, log_bodies)
    except (KeysFileError, OSError, ValueError) as e:
        print(f"redraft serve: {e}".split("\n")[0], file=sys.stderr)
        raise SystemExit(2) from None
    runner = EngineRunner(max_queue=max_queue, source=source)
    app = create_app(runner, default_effort=effort or "low", **ops)
    config = _uvicorn_config(app, host, port, request_timeout)
    t = threading.Thread(target=uvicorn.Server(config).run, name="redraft-http", daemon=True)
    t.start()
    return t


def serve_http(host: str, port: int, model_dir: str | None = None, api_key: str | None = None,
               effort: str | None = None, max_queue: int = 16, log_requests: bool = False,
               request_timeout: float = REQUEST_TIMEOUT, keys_file: str | None = None, rate_limit: float = 0.0,
               rate_burst: float = 0.0, access_log: str | None = None, log_bodies: bool = False,
               shutdown_timeout: float = SHUTDOWN_S, backend: Any = None, max_batch: int | None = None,
               threads: int = 0, workspace: str | None = None, gate: float = 0.0) -> int:
    """`backend`: a remote BackendConfig (`--backend*`): the API in front of that model (a team's
    vLLM or SGLang behind `openai-completions`, Mercury, another redraft), no model loaded here
    unless its `fallback` is "local". `workspace`: a directory indexed in the background (every
    language with a grammar), whose lines every completion gets as candidates, as the language
    server's workspace folder; `gate`: the completions' default threshold (0: all answered)."""
    try:
        api_key = check_bind(host, api_key, keys_file)
        ops = _ops(api_key, keys_file, rate_limit, rate_burst, access_log, log_requests, log_bodies)
    except SystemExit as e:
        return int(e.code)
    except (KeysFileError, OSError, ValueError) as e:
        print(f"redraft serve: {e}".split("\n")[0], file=sys.stderr)
        return 2
    if not shutdown_timeout >= 0:
        print(f"redraft serve: --shutdown-timeout must be >= 0, got {shutdown_timeout}", file=sys.stderr)
        return 2
    if (max_batch is not None and max_batch < 1) or threads < 0:
        print("redraft serve: --max-batch must be >= 1 and --threads >= 0", file=sys.stderr)
        return 2
    import uvicorn
    try:
        runner = _remote_runner(backend, model_dir, max_queue) if backend is not None and backend.remote \
            else EngineRunner(model_dir, max_queue=max_queue, threads=threads, max_batch=max_batch)
        runner.load()
    except Exception as e:  # noqa: BLE001 - a bad checkpoint is a one-line error
        print(f"redraft serve: cannot load the model: {e}".split("\n")[0], file=sys.stderr)
        return 2
    index = None
    if workspace is not None:
        from redraft.engine.syntax.languages import LANGUAGE_IDS
        from redraft.engine.workspace.index import WorkspaceIndex
        index = WorkspaceIndex([Path(workspace).resolve()], list(LANGUAGE_IDS))
        index.start()         # in the background: no request waits for it
    app = create_app(runner, default_effort=effort or "low", workspace=index, gate=gate, **ops)
    print(f"redraft serve: HTTP API on http://{host}:{port}/v1", file=sys.stderr, flush=True)

    class _Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:       # a signal is a request to stop: exit 0,
            super().handle_exit(sig, frame)              # not the signal raised again afterwards
            getattr(self, "_captured_signals", []).clear()
            app.api.draining = True                      # /health: 503 from now on
            if not getattr(self, "_timers", None):       # in-flight answers get shutdown_timeout s,
                self._timers = [threading.Timer(shutdown_timeout, runner.shutdown),   # then stop at
                                threading.Timer(shutdown_timeout + 5, _hard_exit)]    # their next step
                for t in self._timers:
                    t.daemon = True
                    t.start()

    _Server(_uvicorn_config(app, host, port, request_timeout, shutdown_timeout)).run()
    runner.shutdown()
    deadline = time.time() + 3
    while time.time() < deadline and any(t.is_alive() and not t.daemon and t is not threading.main_thread()
                                         for t in threading.enumerate()):
        time.sleep(0.05)
    if any(t.is_alive() and not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        _hard_exit()        # a worker still busy (a merge or a model step): do not wait for it
    return 0


def _remote_runner(backend: Any, model_dir: str | None, max_queue: int) -> EngineRunner:
    """A runner over a remote backend: its requests wait on the network, not on a model thread, so
    up to `max_queue` run at once; the backend's log lines and health go to stderr."""
    from concurrent.futures import ThreadPoolExecutor

    from redraft.engine.backends.remote import RemoteEngine
    local = None
    if backend.fallback == "local":
        from redraft.engine.pipeline import Engine
        local = Engine(model_dir)

    def event(level: str, message: str, changed: bool) -> None:
        print(f"redraft serve: {message}", file=sys.stderr, flush=True)

    engine = RemoteEngine(backend, local, event)
    if engine.key_missing:
        print(f"redraft serve: backend {backend.kind}: the environment variable {backend.api_key_env} is not set; "
              "requests go without a key", file=sys.stderr)
    pool = ThreadPoolExecutor(max_workers=max(1, max_queue), thread_name_prefix="redraft-http-remote")
    print(f"redraft serve: answering through {engine.describe()}", file=sys.stderr, flush=True)
    return EngineRunner(model_dir, max_queue=max_queue, source=lambda: (engine, pool))


def _hard_exit() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
