"""A tiny JSON-RPC-over-stdio LSP client for `redraft demo` and for tests that must write raw bytes
(malformed JSON) to the server. It starts the server as a subprocess, reads its stdout on a
thread, answers the server's own requests (progress tokens, configuration) and hands responses
back by id. Deliberately small and synchronous; pytest-lsp drives the server in the other tests.
"""
from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
import time
from typing import Any

SERVE_CMD = [sys.executable, "-m", "lsp_server.cli", "serve"]


class ServerDied(RuntimeError):
    pass


class JsonRpcStdioClient:
    def __init__(self, cmd: list[str] | None = None, configuration: Any = None, cwd: str | None = None) -> None:
        self.proc = subprocess.Popen(cmd or SERVE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        self.configuration = configuration if configuration is not None else {}
        self.notifications: list[dict[str, Any]] = []
        self.null_id_responses: list[dict[str, Any]] = []  # errors about messages the server could not read
        self.stderr: list[str] = []
        self._responses: dict[Any, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- sending ----------------------------------------------------------------------------------
    def send_bytes(self, body: bytes) -> None:
        """Write one framed message whose body is `body` exactly (may be invalid JSON)."""
        with self._write_lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode("utf-8"))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method: str, params: Any = None) -> int:
        msg_id = next(self._ids)
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def wait(self, msg_id: Any, timeout: float = 60.0) -> dict[str, Any]:
        """The whole response message (with "result" or "error") for `msg_id`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._responses:
                if self.proc.poll() is not None:
                    raise ServerDied(f"server exited with {self.proc.returncode}: {''.join(self.stderr[-20:])}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no response to request {msg_id} in {timeout} s")
                self._cond.wait(min(left, 0.5))
            return self._responses.pop(msg_id)

    def request(self, method: str, params: Any = None, timeout: float = 60.0) -> Any:
        """Send a request and return its result; a JSON-RPC error raises RuntimeError."""
        resp = self.wait(self.request_async(method, params), timeout)
        if "error" in resp:
            raise RuntimeError(f"{method} failed: {resp['error']}")
        return resp.get("result")

    def wait_for_notification(self, method: str, timeout: float = 60.0, where=lambda params: True) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for n in self.notifications:
                    if n.get("method") == method and where(n.get("params")):
                        return n
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"no {method} notification in {timeout} s")
                self._cond.wait(min(left, 0.5))

    def close(self, timeout: float = 10.0) -> int:
        """shutdown + exit if the server still runs; returns its exit code."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit")
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            return self.proc.wait(timeout)
        except (OSError, TimeoutError, ServerDied, RuntimeError, subprocess.TimeoutExpired):
            self.proc.kill()
            return self.proc.wait()

    # -- receiving --------------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self._cond:
                        self._cond.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if length is None:
                continue
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:
                self._answer_server_request(msg)
            with self._cond:
                if "method" in msg and "id" not in msg:
                    self.notifications.append(msg)
                elif msg.get("id") is None:
                    self.null_id_responses.append(msg)
                else:
                    self._responses[msg["id"]] = msg
                self._cond.notify_all()

    def _answer_server_request(self, msg: dict[str, Any]) -> None:
        result: Any = None
        if msg["method"] == "workspace/configuration":
            items = (msg.get("params") or {}).get("items", [])
            result = [self.configuration.get(i.get("section"), None) if i.get("section") else self.configuration
                      for i in items]
        self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in iter(self.proc.stderr.readline, b""):
            self.stderr.append(line.decode("utf-8", "replace"))
            del self.stderr[:-200]
