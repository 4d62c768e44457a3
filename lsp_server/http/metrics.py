"""Operating the HTTP API: Prometheus metrics, JSON access logs, and the ASGI layer that records
both for every request (`Observed`).

`/metrics` is Prometheus's text exposition format (version 0.0.4), written here (no client library
at run time):
  redraft_http_requests_total{route,status}         requests answered, by route template
  redraft_http_request_duration_seconds{route}      a histogram, to the last byte (a stream's end)
  redraft_http_in_flight                            requests being answered now
  redraft_queue_depth                               requests waiting for or in the model (runner.pending)
  redraft_batch_size                                the runner's current batch, where it has one
  redraft_tokens_total{kind}                        prompt / completion tokens (estimated, ~4 characters each)
  redraft_rate_limited_total                        requests refused by a key's rate limit
  redraft_auth_failures_total                       requests refused for a missing or unknown key
  redraft_runner_events_total{event}                the runner's counters (completed, cancelled, ...)
Routes that are not the app's are counted as route="other" (no label per random path).

The access log is one JSON object a line: time, route, method, status, ms, key (the key's NAME,
never the key), client; never the request's code, unless the server runs with `--log-bodies`
(then `body`, the request's JSON text up to 64 KB, is added).
"""
from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, Callable, TextIO

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
BODY_LOG_LIMIT = 64 * 1024


def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(**kv: str) -> str:
    return "{" + ",".join(f'{k}="{_esc(str(v))}"' for k, v in kv.items()) + "}" if kv else ""


def _num(v: float) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() and abs(f) < 1e15 else repr(f)


class Metrics:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: dict[tuple[str, int], int] = {}
        self.hist: dict[str, list] = {}               # route -> [bucket counts..., count, sum]
        self.in_flight = 0
        self.tokens = {"prompt": 0, "completion": 0}
        self.rate_limited = 0
        self.auth_failures = 0

    def observe(self, route: str, status: int, seconds: float) -> None:
        with self.lock:
            self.requests[(route, status)] = self.requests.get((route, status), 0) + 1
            h = self.hist.setdefault(route, [0] * len(BUCKETS) + [0, 0.0])
            for i, b in enumerate(BUCKETS):
                if seconds <= b:
                    h[i] += 1
            h[-2] += 1
            h[-1] += seconds

    def count_tokens(self, prompt_chars: int, completion_chars: int) -> None:
        with self.lock:
            self.tokens["prompt"] += (prompt_chars + 3) // 4
            self.tokens["completion"] += (completion_chars + 3) // 4

    def render(self, runner: Any = None) -> str:
        out: list[str] = []

        def family(name: str, kind: str, help_: str) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")

        with self.lock:
            family("redraft_http_requests_total", "counter", "HTTP requests answered, by route and status.")
            for (route, status), n in sorted(self.requests.items()):
                out.append(f"redraft_http_requests_total{_labels(route=route, status=str(status))} {n}")
            family("redraft_http_request_duration_seconds", "histogram",
                   "Seconds from a request's arrival to its answer's last byte.")
            for route, h in sorted(self.hist.items()):
                for i, b in enumerate(BUCKETS):
                    out.append(f"redraft_http_request_duration_seconds_bucket{_labels(route=route, le=_num(b))} {h[i]}")
                out.append(f"redraft_http_request_duration_seconds_bucket{_labels(route=route, le='+Inf')} {h[-2]}")
                out.append(f"redraft_http_request_duration_seconds_count{_labels(route=route)} {h[-2]}")
                out.append(f"redraft_http_request_duration_seconds_sum{_labels(route=route)} {_num(h[-1])}")
            family("redraft_http_in_flight", "gauge", "Requests being answered now.")
            out.append(f"redraft_http_in_flight {self.in_flight}")
            family("redraft_tokens_total", "counter",
                   "Tokens in prompts and completions (estimated, ~4 characters a token).")
            for kind, n in self.tokens.items():
                out.append(f"redraft_tokens_total{_labels(kind=kind)} {n}")
            family("redraft_rate_limited_total", "counter", "Requests refused by their key's rate limit (429).")
            out.append(f"redraft_rate_limited_total {self.rate_limited}")
            family("redraft_auth_failures_total", "counter", "Requests refused for a missing or unknown API key (401).")
            out.append(f"redraft_auth_failures_total {self.auth_failures}")
        if runner is not None:
            family("redraft_queue_depth", "gauge", "Requests admitted and not yet answered by the model.")
            out.append(f"redraft_queue_depth {_num(getattr(runner, 'pending', 0) or 0)}")
            batch = _batch_size(runner)
            if batch is not None:
                family("redraft_batch_size", "gauge", "Requests in the model's current batch of denoising steps.")
                out.append(f"redraft_batch_size {_num(batch)}")
            stats = getattr(runner, "stats", None) or {}
            family("redraft_runner_events_total", "counter", "The model runner's counters.")
            for k, v in sorted(stats.items()):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    out.append(f"redraft_runner_events_total{_labels(event=k)} {_num(v)}")
        return "\n".join(out) + "\n"


def _batch_size(runner: Any) -> float | None:
    """The runner's batch size if it exposes one (an attribute or a stats entry), read only."""
    for attr in ("batch_size", "current_batch", "last_batch_size"):
        v = getattr(runner, attr, None)
        if callable(v):
            continue
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
        if isinstance(v, (list, tuple, set, dict)):
            return len(v)
    stats = getattr(runner, "stats", None) or {}
    v = stats.get("batch_size") if isinstance(stats, dict) else None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


class AccessLog:
    def __init__(self, stream: TextIO | None = None, bodies: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.bodies = bodies
        self.lock = threading.Lock()

    def write(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False)
        with self.lock:
            try:
                self.stream.write(line + "\n")
                self.stream.flush()
            except (OSError, ValueError):     # a closed or full log never fails a request
                pass


class Observed:
    """ASGI wrapper: times each HTTP request to its last byte, counts it by route template and
    status, writes its access-log line.  Handlers leave the key's name in scope["state"]["key"]."""

    def __init__(self, app: Callable, metrics: Metrics, routes: set[str], log: AccessLog | None = None) -> None:
        self.app, self.metrics, self.routes, self.log = app, metrics, routes, log

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        t0 = time.monotonic()
        scope.setdefault("state", {})
        route = scope.get("path", "") if scope.get("path", "") in self.routes else "other"
        status = {"code": 0, "done": False}
        body: list[bytes] = []
        want_body = self.log is not None and self.log.bodies

        async def logged_receive():
            msg = await receive()
            if want_body and msg.get("type") == "http.request" and sum(map(len, body)) < BODY_LOG_LIMIT:
                body.append(msg.get("body", b"")[:BODY_LOG_LIMIT])
            return msg

        def finish() -> None:
            if status["done"]:
                return
            status["done"] = True
            seconds = time.monotonic() - t0
            code = status["code"] or 499
            self.metrics.observe(route, code, seconds)
            if self.log is not None:
                entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "route": route,
                         "method": scope.get("method"), "status": code, "ms": round(seconds * 1000, 1),
                         "key": scope["state"].get("key"), "client": (scope.get("client") or ("", 0))[0]}
                if want_body:
                    entry["body"] = b"".join(body)[:BODY_LOG_LIMIT].decode("utf-8", "replace")
                self.log.write(entry)

        async def observed_send(msg) -> None:
            if msg["type"] == "http.response.start":
                status["code"] = msg["status"]
            await send(msg)
            if msg["type"] == "http.response.body" and not msg.get("more_body", False):
                finish()

        with self.metrics.lock:
            self.metrics.in_flight += 1
        try:
            await self.app(scope, logged_receive if want_body else receive, observed_send)
        finally:
            with self.metrics.lock:
                self.metrics.in_flight -= 1
            finish()
