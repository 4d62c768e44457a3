"""`redraft serve --http HOST:PORT`: the HTTP API in this process, served by uvicorn: alone
(`serve_http`, its own engine), or beside the language server (`--stdio --http`, `serve_beside`:
the language server's engine and model thread).

uvicorn's HTTP protocol is taken as it is but for three things (`_protocol`): a request that has not
fully arrived (its header or body) `request_timeout` seconds after it began gets 408 and its
connection is closed (before the key is even checked: a slow client holds nothing for long); the
400 for malformed HTTP is OpenAI's JSON error shape; and SIGTERM or SIGINT stop the server with exit
status 0 within `SHUTDOWN_S` seconds whatever its connections are doing (`_Server`)."""
from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import threading
import time

from redraft.http.app import create_app
from redraft.http.runner import EngineRunner

API_KEY_ENV = "REDRAFT_API_KEY"
REQUEST_TIMEOUT = 10.0          # seconds a request may take to arrive (its header and body)
SHUTDOWN_S = 3                  # seconds in-flight answers get on SIGTERM before they are cancelled


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

        def send_400_response(self, msg: str) -> None:
            self._disarm()
            self._send_error(400, "malformed HTTP request", "invalid_http")
            self.transport.close()

    return Protocol


def _uvicorn_config(app, host: str, port: int, log_requests: bool, request_timeout: float):
    import uvicorn
    return uvicorn.Config(app, host=host, port=port, access_log=log_requests,
                          log_level="info" if log_requests else "warning",
                          http=_protocol(request_timeout), timeout_graceful_shutdown=SHUTDOWN_S,
                          lifespan="off")


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


def check_bind(host: str, api_key: str | None) -> str | None:
    """The key to require (the argument or REDRAFT_API_KEY); SystemExit(2) with a message when the
    address is not loopback and there is none."""
    api_key = api_key or os.environ.get(API_KEY_ENV) or None
    if not is_loopback(host) and not api_key:
        print(f"redraft serve: binding to {host}, which is not a loopback address, needs an API key "
              f"(--api-key or {API_KEY_ENV})", file=sys.stderr)
        raise SystemExit(2)
    return api_key


def serve_beside(host: str, port: int, source, api_key: str | None = None, effort: str | None = None,
                 max_queue: int = 16, log_requests: bool = False,
                 request_timeout: float = REQUEST_TIMEOUT) -> threading.Thread:
    """The HTTP API on a thread of this process, over the language server's engine (`source`)."""
    import uvicorn
    api_key = check_bind(host, api_key)
    runner = EngineRunner(max_queue=max_queue, source=source)
    app = create_app(runner, api_key=api_key, default_effort=effort or "low")
    config = _uvicorn_config(app, host, port, log_requests, request_timeout)
    t = threading.Thread(target=uvicorn.Server(config).run, name="redraft-http", daemon=True)
    t.start()
    return t


def serve_http(host: str, port: int, model_dir: str | None = None, api_key: str | None = None,
               effort: str | None = None, max_queue: int = 16, log_requests: bool = False,
               request_timeout: float = REQUEST_TIMEOUT) -> int:
    try:
        api_key = check_bind(host, api_key)
    except SystemExit as e:
        return int(e.code)
    import uvicorn
    runner = EngineRunner(model_dir, max_queue=max_queue)
    try:
        runner.load()
    except Exception as e:  # noqa: BLE001 - a bad checkpoint is a one-line error
        print(f"redraft serve: cannot load the model: {e}".split("\n")[0], file=sys.stderr)
        return 2
    app = create_app(runner, api_key=api_key, default_effort=effort or "low")
    print(f"redraft serve: HTTP API on http://{host}:{port}/v1", file=sys.stderr, flush=True)

    class _Server(uvicorn.Server):
        def handle_exit(self, sig, frame) -> None:       # a signal is a request to stop: exit 0,
            super().handle_exit(sig, frame)              # not the signal raised again afterwards
            getattr(self, "_captured_signals", []).clear()
            runner.shutdown()                            # running jobs stop at their next step
            if not getattr(self, "_killer", None):       # and whatever hangs is cut off
                self._killer = threading.Timer(SHUTDOWN_S + 5, _hard_exit)
                self._killer.daemon = True
                self._killer.start()

    _Server(_uvicorn_config(app, host, port, log_requests, request_timeout)).run()
    runner.shutdown()
    deadline = time.time() + 3
    while time.time() < deadline and any(t.is_alive() and not t.daemon and t is not threading.main_thread()
                                         for t in threading.enumerate()):
        time.sleep(0.05)
    if any(t.is_alive() and not t.daemon and t is not threading.main_thread() for t in threading.enumerate()):
        _hard_exit()        # a worker still busy (a merge or a model step): do not wait for it
    return 0


def _hard_exit() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
