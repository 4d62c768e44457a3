"""The project's one synchronous JSON-RPC-over-stdio LSP client: `redraft demo`, the eval harness
(`redraft eval --via lsp`) and tests that must write raw bytes (malformed JSON) to the server.

It starts the server as a subprocess, reads its stdout (and stderr) on threads, answers the
server's own requests (progress tokens, configuration) and hands responses back by id. Every
failure raises an `LspError`: an error response, a request that timed out (`RequestTimeout`, also a
TimeoutError) or a server that died or can no longer be written to (`ServerDied`). Besides raw
messages it has the few helpers a plain editor session needs: `initialize` (records the negotiated
position encoding), `open_document` / `close_document`, `inline_completion` at a code-point offset
(positions via redraft.lsp.convert) and `close` (shutdown + exit). Deliberately small and
synchronous; pytest-lsp drives the server in the other tests.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
import time
from typing import Any

from redraft.lsp.convert import normalize_encoding, offset_to_position

SERVE_CMD = [sys.executable, "-m", "redraft", "serve"]

# what `initialize` offers unless told otherwise: UTF-16 positions, inline completion, open/close
DEFAULT_CAPABILITIES: dict[str, Any] = {"general": {"positionEncodings": ["utf-16"]},
                                        "textDocument": {"inlineCompletion": {}, "synchronization": {}}}


class LspError(RuntimeError):
    """A JSON-RPC error response, a request that timed out, or a server that died."""


class ServerDied(LspError):
    pass


class RequestTimeout(LspError, TimeoutError):
    pass


class JsonRpcStdioClient:
    def __init__(self, cmd: list[str] | None = None, configuration: Any = None, cwd: str | None = None,
                 timeout: float = 60.0) -> None:
        """`timeout`: seconds a request waits for its answer unless the call says otherwise."""
        self.proc = subprocess.Popen(cmd or SERVE_CMD, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        self.configuration = configuration if configuration is not None else {}
        self.timeout = timeout
        self.position_encoding = "utf-16"  # until `initialize` learns the negotiated one
        self.notifications: list[dict[str, Any]] = []
        self.null_id_responses: list[dict[str, Any]] = []  # errors about messages the server could not read
        self.stderr: list[str] = []
        self._responses: dict[Any, dict[str, Any]] = {}
        self._methods: dict[int, str] = {}  # pending request id -> method, for error messages
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._write_lock = threading.Lock()
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # -- sending ----------------------------------------------------------------------------------
    def send_bytes(self, body: bytes) -> None:
        """Write one framed message whose body is `body` exactly (may be invalid JSON)."""
        try:
            with self._write_lock:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
        except (OSError, ValueError) as e:  # a broken pipe, or stdin already closed
            raise ServerDied(f"cannot write to the server: {e}") from e

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode("utf-8"))

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method: str, params: Any = None) -> int:
        msg_id = next(self._ids)
        self._methods[msg_id] = method
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return msg_id

    def wait(self, msg_id: Any, timeout: float | None = None) -> dict[str, Any]:
        """The whole response message (with "result" or "error") for `msg_id`."""
        timeout = self.timeout if timeout is None else timeout
        what = f"{self._methods.get(msg_id, 'request')} (id {msg_id})"
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._responses:
                if self.proc.poll() is not None:
                    raise ServerDied(f"{what}: the server exited with code {self.proc.returncode}: "
                                     f"{''.join(self.stderr[-20:])}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RequestTimeout(f"{what}: no answer in {timeout} s")
                self._cond.wait(min(left, 0.5))
            self._methods.pop(msg_id, None)
            return self._responses.pop(msg_id)

    def request(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request and return its result; a JSON-RPC error raises LspError."""
        resp = self.wait(self.request_async(method, params), timeout)
        if "error" in resp:
            raise LspError(f"{method} failed: {resp['error']}")
        return resp.get("result")

    def wait_for_notification(self, method: str, timeout: float | None = None,
                              where=lambda params: True) -> dict[str, Any]:
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for n in self.notifications:
                    if n.get("method") == method and where(n.get("params")):
                        return n
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise RequestTimeout(f"no {method} notification in {timeout} s")
                self._cond.wait(min(left, 0.5))

    # -- an editor session ------------------------------------------------------------------------
    def initialize(self, initialization_options: Any = None, capabilities: Any = None) -> Any:
        """initialize + initialized; returns the InitializeResult and records the negotiated
        position encoding (`self.position_encoding`, UTF-16 unless the server picked another)."""
        result = self.request("initialize", {
            "processId": None, "rootUri": None, "initializationOptions": initialization_options,
            "capabilities": DEFAULT_CAPABILITIES if capabilities is None else capabilities})
        self.position_encoding = normalize_encoding(((result or {}).get("capabilities") or {})
                                                    .get("positionEncoding"))
        self.notify("initialized", {})
        return result

    def open_document(self, uri: str, text: str, language_id: str = "python", version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language_id, "version": version, "text": text}})

    def close_document(self, uri: str) -> None:
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def inline_completion(self, uri: str, text: str, offset: int, trigger_kind: int = 1,
                          timeout: float | None = None) -> Any:
        """textDocument/inlineCompletion at code-point `offset` of `text` (the document's content)."""
        pos = offset_to_position(text, offset, self.position_encoding)
        return self.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
            "context": {"triggerKind": trigger_kind}}, timeout)

    def close(self, timeout: float = 10.0) -> int:
        """shutdown + exit if the server still runs; returns its exit code (kills it if it does
        not go). Safe to call more than once."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit")
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            return self.proc.wait(timeout)
        except (OSError, LspError, subprocess.TimeoutExpired):
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
            if "method" in msg and "id" in msg:  # a request from the server, not a response
                self._answer_server_request(msg)
                continue
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
        try:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        except ServerDied:
            pass  # the reader thread must not die of it; the next request reports the dead server

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in iter(self.proc.stderr.readline, b""):
            self.stderr.append(line.decode("utf-8", "replace"))
            del self.stderr[:-200]
