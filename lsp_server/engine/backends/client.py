"""A small HTTP/1.1 JSON client for the remote backends (the standard library's http.client: no new
dependency, and no protocol library in the engine, see tests/test_layout.py).

Design decisions:
* Cancellation closes the connection. A request runs in the caller's thread (the engine host's
  model thread); one watchdog thread looks at every request in flight every WATCH_S seconds and
  shuts its socket down when its `should_stop()` turns true (`$/cancelRequest`, a newer keystroke,
  a didChange) or its deadline (`timeoutMs`, from the first byte sent to the last byte read)
  passes: the blocked read returns at once, the server sees the connection go and can stop
  generating. Nothing polls on the happy path but the watchdog.
* Keep-alive: a connection whose answer was read to its end goes back to a small pool (a TLS
  handshake to a hosted API costs more than most local answers). A pooled connection the server
  has closed meanwhile is retried once on a fresh one, before any answer byte was read.
* Streaming: server-sent events (`data: {...}`, OpenAI, Mercury, llama.cpp) or JSON lines
  (Ollama); each event goes to a callback that may end the answer early (the plan's stop rule has
  what it needs): the connection is then closed rather than read to its end.
* Limits: an answer over `max_answer_bytes` (streamed or not) is refused as oversized; an error
  body is read up to 64 KB for its one-line message.
* Security: plain http to a host that is not loopback is refused unless `allow_insecure`; no
  redirect is followed (a 3xx is an error, so a key never follows one to another host); every
  message this module makes passes through `redact`, which blanks the key wherever it appears
  (a server that echoes the header it refused), and no message ever quotes a header.
"""
from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlsplit

from redraft.engine.backends.config import display_url, is_loopback_host

__all__ = ["BackendError", "HttpClient", "WATCH_S"]

WATCH_S = 0.005                 # how often the watchdog looks at the requests in flight
ERROR_BODY = 64 * 1024          # an error answer is read this far for its message
POOL = 4                        # idle keep-alive connections kept per client
USER_AGENT = "redraft-backend/1"


class BackendError(Exception):
    """A request that gave no answer. `reason`: timeout | refused | unreachable | closed | auth |
    http | malformed | oversized | cancelled | insecure | tls. The message is one line, redacted."""

    def __init__(self, reason: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.status = reason, message, status


@dataclass(eq=False)
class _Watch:
    conn: http.client.HTTPConnection
    should_stop: Callable[[], bool] | None
    deadline: float
    fired: str | None = None
    shut: bool = False              # the socket was shut down (it may not exist yet when fired)

    def fire(self, reason: str) -> None:
        self.fired = self.fired or reason
        sock = self.conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)     # wakes the blocked read; the owner closes it
            except OSError:
                pass
            self.shut = True


class _Watchdog:
    """One daemon thread for every client: shuts down the sockets of stopped or late requests."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._items: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def add(self, w: _Watch) -> None:
        with self._cv:
            self._items.add(w)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="redraft-backend-watchdog", daemon=True)
                self._thread.start()
            self._cv.notify()

    def remove(self, w: _Watch) -> None:
        with self._cv:
            self._items.discard(w)

    def _run(self) -> None:
        while True:
            with self._cv:
                while not self._items:
                    self._cv.wait()
                items = list(self._items)
            now = time.monotonic()
            for w in items:
                if w.fired:
                    if not w.shut:          # fired while connecting: shut the socket once it exists
                        w.fire(w.fired)
                    continue
                if now >= w.deadline:
                    w.fire("timeout")
                    continue
                try:
                    stop = w.should_stop is not None and w.should_stop()
                except Exception:  # noqa: BLE001 - a broken predicate must not kill the watchdog
                    stop = False
                if stop:
                    w.fire("cancelled")
            time.sleep(WATCH_S)


WATCHDOG = _Watchdog()


@dataclass
class Answer:
    """What a request gave: the parsed JSON (non-streamed), the events read (streamed)."""
    status: int
    body: Any = None
    events: int = 0
    ended_early: bool = False       # on_event ended it: the connection was closed
    done_marker: bool = False       # the answer is known complete: `data: [DONE]`, or a whole JSON body
    latency_ms: float = 0.0
    reused: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class HttpClient:
    def __init__(self, base_url: str, api_key: str | None = None, allow_insecure: bool = False,
                 max_answer_bytes: int = 256 * 1024, extra_headers: dict[str, str] | None = None) -> None:
        p = urlsplit(base_url)
        if p.scheme not in ("http", "https") or not p.hostname:
            raise BackendError("insecure", f"the backend url must be http(s)://host...: {display_url(base_url)}")
        if p.scheme == "http" and not is_loopback_host(p.hostname) and not allow_insecure:
            raise BackendError("insecure", f"plain http to {p.hostname}, which is not a loopback address, is "
                               "refused without allowInsecure")
        self.scheme, self.host, self.port = p.scheme, p.hostname, p.port or (443 if p.scheme == "https" else 80)
        self.base_path = p.path.rstrip("/")
        self.query = p.query
        self.shown = display_url(base_url)
        self._secret = api_key or None
        self.max_answer_bytes = max_answer_bytes
        self._headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **(extra_headers or {})}
        if self._secret:
            self._headers["Authorization"] = f"Bearer {self._secret}"
        self._pool: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._ssl = ssl.create_default_context() if self.scheme == "https" else None

    def __repr__(self) -> str:          # never the headers
        return f"HttpClient({self.shown})"

    # ------------------------------------------------------------------ messages

    def redact(self, text: str) -> str:
        s = self._secret
        if s and len(s) >= 4:
            text = text.replace(s, "***")
        return text.replace("\n", " ").replace("\r", " ")[:300]

    def _error(self, reason: str, message: str, status: int | None = None) -> BackendError:
        return BackendError(reason, self.redact(message), status)

    def path(self, endpoint: str) -> str:
        """The request path for an endpoint ("/fim/completions"): the base URL's path plus the
        endpoint, unless the base URL already ends with it (a user who gave the full endpoint)."""
        base = self.base_path
        if base.endswith(endpoint.rstrip("/")):
            full = base
        else:
            full = base + endpoint
        return (full or "/") + (f"?{self.query}" if self.query else "")

    # ------------------------------------------------------------------ connections

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self._ssl)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def _take(self, timeout: float) -> tuple[http.client.HTTPConnection, bool]:
        with self._lock:
            while self._pool:
                conn = self._pool.pop()
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                    return conn, True
        return self._connect(timeout), False

    def _give_back(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._pool) < POOL and conn.sock is not None:
                self._pool.append(conn)
                return
        conn.close()

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, []
        for c in pool:
            c.close()

    # ------------------------------------------------------------------ requests

    def post(self, endpoint: str, body: dict[str, Any], timeout_s: float,
             should_stop: Callable[[], bool] | None = None, stream: str | None = None,
             on_event: Callable[[dict[str, Any]], bool] | None = None,
             while_waiting: Callable[[], Any] | None = None) -> Answer:
        """POST `body` as JSON. `stream` None: the whole answer parsed as JSON (`Answer.body`);
        "sse" or "ndjson": each event's JSON object goes to `on_event`, which returns True to end
        the answer there (the connection is then closed). `while_waiting` runs once the request is
        sent, before the answer is read (work the answer will need, done while the backend works).
        BackendError on any failure."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        path = self.path(endpoint)
        deadline = time.monotonic() + timeout_s
        t0 = time.perf_counter()
        for attempt in (0, 1):
            if should_stop is not None and should_stop():
                raise self._error("cancelled", "cancelled before it was sent")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._error("timeout", f"no answer within {timeout_s * 1000:.0f} ms ({self.shown})")
            try:
                conn, reused = self._take(remaining + 1.0)
            except Exception as e:  # noqa: BLE001 - constructing a connection does no I/O
                raise self._error("unreachable", f"{type(e).__name__}: {e}") from None
            watch = _Watch(conn, should_stop, deadline)
            WATCHDOG.add(watch)
            sent = False
            try:
                if conn.sock is None:
                    conn.connect()
                    try:        # small requests: never wait for a delayed ACK (Nagle)
                        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    except (OSError, AttributeError):
                        pass
                if watch.fired:                 # stopped (or late) while connecting
                    raise self._fired(watch, timeout_s)
                headers = dict(self._headers)
                headers["Accept"] = "text/event-stream" if stream == "sse" else "application/json"
                conn.request("POST", path, body=data, headers=headers)
                sent = True
                if while_waiting is not None:
                    try:
                        while_waiting()
                        while_waiting = None    # once, even if the request is retried
                    except Exception:  # noqa: BLE001 - an optimisation must never fail the request
                        while_waiting = None
                resp = conn.getresponse()
                answer = self._read(conn, resp, stream, on_event, watch)
                if watch.fired:             # the read ended because the watchdog shut the socket
                    conn.close()
                    raise self._fired(watch, timeout_s)
                answer.latency_ms = (time.perf_counter() - t0) * 1000
                answer.reused = reused
                return answer
            except BackendError:
                conn.close()
                if watch.fired:
                    raise self._fired(watch, timeout_s) from None
                raise
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                conn.close()
                if watch.fired:
                    raise self._fired(watch, timeout_s) from None
                if reused and attempt == 0:     # a kept-alive connection the server had closed
                    continue
                raise self._error("closed", f"the backend closed the connection before answering "
                                  f"({type(e).__name__}; {self.shown})") from None
            except ConnectionRefusedError:
                conn.close()
                raise self._error("refused", f"connection refused ({self.shown})") from None
            except socket.gaierror as e:
                conn.close()
                raise self._error("unreachable", f"cannot resolve {self.host}: {e.strerror or e}") from None
            except ssl.SSLError as e:
                conn.close()
                if watch.fired:
                    raise self._fired(watch, timeout_s) from None
                raise self._error("tls", f"TLS failed with {self.host}: {e.reason or e}") from None
            except (TimeoutError, socket.timeout):
                conn.close()
                if watch.fired:
                    raise self._fired(watch, timeout_s) from None
                raise self._error("timeout", f"no answer within {timeout_s * 1000:.0f} ms ({self.shown})") from None
            except (OSError, http.client.HTTPException, ValueError) as e:
                conn.close()
                if watch.fired:
                    raise self._fired(watch, timeout_s) from None
                what = "connection failed" if not sent else "the answer broke off"
                raise self._error("closed" if sent else "unreachable",
                                  f"{what}: {type(e).__name__}: {e} ({self.shown})") from None
            finally:
                WATCHDOG.remove(watch)
        raise self._error("closed", f"the backend closed the connection ({self.shown})")

    def _fired(self, watch: _Watch, timeout_s: float) -> BackendError:
        if watch.fired == "timeout":
            return self._error("timeout", f"no answer within {timeout_s * 1000:.0f} ms ({self.shown})")
        return self._error("cancelled", "cancelled: the connection was closed")

    def _read(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse, stream: str | None,
              on_event: Callable[[dict[str, Any]], bool] | None, watch: _Watch) -> Answer:
        status = resp.status
        if status >= 300:
            raw = resp.read(ERROR_BODY)
            conn.close()
            raise self._status_error(status, raw, resp.getheader("Location"))
        length = resp.getheader("Content-Length")
        if length and length.isdigit() and int(length) > self.max_answer_bytes:
            raise self._error("oversized", f"the answer has {int(length)} bytes, over the limit of "
                              f"{self.max_answer_bytes} ({self.shown})")
        ctype = (resp.getheader("Content-Type") or "").lower()
        if stream is None or "json" in ctype and "ndjson" not in ctype and stream == "sse":
            # a server that does not stream (or answered an error-free JSON object) is read whole
            raw = resp.read(self.max_answer_bytes + 1)
            if len(raw) > self.max_answer_bytes:
                raise self._error("oversized", f"the answer is over the limit of {self.max_answer_bytes} "
                                  f"bytes ({self.shown})")
            body = self._json(raw)
            if stream is not None and on_event is not None:
                on_event(body)
                out = Answer(status, body, events=1, done_marker=True)   # a whole answer is complete
            else:
                out = Answer(status, body)
            self._finish(conn, resp)
            return out
        return self._read_stream(conn, resp, stream, on_event, status)

    def _read_stream(self, conn, resp, stream: str, on_event, status: int) -> Answer:
        total, events = 0, 0
        while True:
            line = resp.readline(self.max_answer_bytes + 1)
            if not line:
                break                                   # end of the body
            total += len(line)
            if total > self.max_answer_bytes:
                raise self._error("oversized", f"the streamed answer is over the limit of "
                                  f"{self.max_answer_bytes} bytes ({self.shown})")
            text = line.strip()
            if not text:
                continue
            if stream == "sse":
                if not text.startswith(b"data:"):
                    continue                            # event:, id:, retry:, comments
                text = text[5:].strip()
                if text == b"[DONE]":
                    self._finish(conn, resp)
                    return Answer(status, None, events, done_marker=True)
            event = self._json(text)
            events += 1
            if on_event is not None and on_event(event):
                conn.close()                            # enough: the server may stop generating
                return Answer(status, None, events, ended_early=True)
        self._finish(conn, resp)
        return Answer(status, None, events)

    def _finish(self, conn: http.client.HTTPConnection, resp: http.client.HTTPResponse) -> None:
        """The answer is read: keep the connection if the body is at its end and the server keeps it."""
        try:
            rest = resp.read(ERROR_BODY)
        except Exception:  # noqa: BLE001 - nothing more to read that matters
            rest = b"x"
        if rest.strip() or resp.will_close or not resp.isclosed():
            conn.close()
        else:
            self._give_back(conn)

    def _json(self, raw: bytes) -> Any:
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            shown = raw[:60].decode("utf-8", "replace")
            raise self._error("malformed", f"the answer is not JSON (starts {shown!r}; {self.shown})") from None

    def _status_error(self, status: int, raw: bytes, location: str | None) -> BackendError:
        message = _error_message(raw)
        if 300 <= status < 400:
            return self._error("http", f"HTTP {status}: redirects are not followed (to "
                               f"{display_url(location or '?')}); give the final url", status)
        if status in (401, 403):
            return self._error("auth", f"the backend refused the API key (HTTP {status}"
                               + (f": {message}" if message else "") + f"; {self.shown})", status)
        return self._error("http", f"HTTP {status}" + (f": {message}" if message else "") + f" ({self.shown})", status)


def _error_message(raw: bytes) -> str:
    """The one-line message of an error body: OpenAI's `{"error": {"message"}}`, Ollama's
    `{"error": "..."}`, FastAPI's `{"detail": ...}`, or the start of the text."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text.split("\n", 1)[0][:160]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            err = err.get("message", "")
        if isinstance(err, list):
            err = json.dumps(err)[:160]
        return str(err or "").split("\n", 1)[0][:160]
    return text[:160]
