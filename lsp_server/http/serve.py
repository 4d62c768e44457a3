"""`redraft serve --http HOST:PORT`: the HTTP API in this process, served by uvicorn: alone
(`serve_http`, its own engine), or beside the language server (`--stdio --http`, `serve_beside`:
the language server's engine and model thread)."""
from __future__ import annotations

import ipaddress
import os
import socket
import sys
import threading

from redraft.http.app import create_app
from redraft.http.runner import EngineRunner

API_KEY_ENV = "REDRAFT_API_KEY"


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
                 max_queue: int = 16, log_requests: bool = False) -> threading.Thread:
    """The HTTP API on a thread of this process, over the language server's engine (`source`)."""
    import uvicorn
    api_key = check_bind(host, api_key)
    runner = EngineRunner(max_queue=max_queue, source=source)
    app = create_app(runner, api_key=api_key, default_effort=effort or "low")
    config = uvicorn.Config(app, host=host, port=port, access_log=log_requests,
                            log_level="info" if log_requests else "warning")
    t = threading.Thread(target=uvicorn.Server(config).run, name="redraft-http", daemon=True)
    t.start()
    return t


def serve_http(host: str, port: int, model_dir: str | None = None, api_key: str | None = None,
               effort: str | None = None, max_queue: int = 16, log_requests: bool = False) -> int:
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
    uvicorn.run(app, host=host, port=port, access_log=log_requests, log_level="info" if log_requests else "warning")
    runner.shutdown()
    return 0
