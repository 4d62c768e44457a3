"""A minimal synchronous LSP client over stdio, for the eval harness (`redraft eval --via lsp`).

It starts a server command, initializes it (the constructor returns a ready session), opens and
closes documents, asks for `textDocument/inlineCompletion` at a code-point offset, and shuts the
server down. Positions travel as plain dicts ({"line", "character"}) in the negotiated position
encoding (UTF-16 unless the server picked another one).

NOTE: reconstructed from its call sites in lsp_server/evaluate.py and tests/test_eval_harness.py
after the original file was accidentally overwritten; the API is the one those call.
"""
from __future__ import annotations

import itertools
import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["LspError", "StdioLspClient", "from_position", "to_position", "path_uri"]


class LspError(RuntimeError):
    """A JSON-RPC error response, a timeout, or a server that died."""


def _units(s: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(s)
    if encoding == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def to_position(text: str, offset: int, encoding: str = "utf-16") -> dict[str, int]:
    """Code-point offset -> LSP position dict (lines end at "\\n")."""
    offset = max(0, min(offset, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    return {"line": text.count("\n", 0, offset), "character": _units(text[line_start:offset], encoding)}


def from_position(text: str, pos: dict[str, int], encoding: str = "utf-16") -> int:
    """LSP position dict -> code-point offset. A character past the line end clamps to the line end,
    a line past the last one to the end of the text; a cut inside a character rounds down."""
    line, char = int(pos.get("line", 0)), int(pos.get("character", 0))
    start = 0
    for _ in range(line):
        nl = text.find("\n", start)
        if nl < 0:
            return len(text)
        start = nl + 1
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    count = 0
    for i in range(start, end):
        count += _units(text[i], encoding)
        if count > char:
            return i
    return end


def path_uri(name: str) -> str:
    """A file URI for a document that exists only in the editor (nothing is written)."""
    return (Path.cwd() / "redraft-eval" / name).as_uri()


class StdioLspClient:
    def __init__(self, cmd: list[str], timeout: float = 120.0, initialization_options: Any = None,
                 language_id: str = "python") -> None:
        self.timeout, self.language_id = timeout, language_id
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._ids = itertools.count(1)
        self._responses: dict[Any, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self._wlock = threading.Lock()
        self._versions: dict[str, int] = {}
        self._closed = False
        threading.Thread(target=self._reader, daemon=True).start()
        result = self.request("initialize", {
            "processId": None, "rootUri": None, "initializationOptions": initialization_options,
            "capabilities": {"general": {"positionEncodings": ["utf-16"]},
                             "textDocument": {"inlineCompletion": {}, "synchronization": {}}},
        })
        caps = (result or {}).get("capabilities", {})
        self.position_encoding: str = caps.get("positionEncoding") or "utf-16"
        self.notify("initialized", {})

    # -- documents and requests -------------------------------------------------------------------
    def open(self, uri: str, text: str) -> None:
        self._versions[uri] = 1
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": self.language_id, "version": 1, "text": text}})

    def close_document(self, uri: str) -> None:
        self._versions.pop(uri, None)
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def inline_completion(self, uri: str, text: str, offset: int) -> Any:
        return self.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": to_position(text, offset, self.position_encoding),
            "context": {"triggerKind": 1}})

    def close(self) -> None:
        """shutdown + exit, then wait for the process (kill it if it does not go)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None)
                self.notify("exit", None)
            self.proc.wait(10)
        except (LspError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()

    # -- JSON-RPC ---------------------------------------------------------------------------------
    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        msg_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        with self._cond:
            while msg_id not in self._responses:
                if self.proc.poll() is not None:
                    raise LspError(f"{method}: the server exited with code {self.proc.returncode}")
                if time.monotonic() > deadline:
                    raise LspError(f"{method}: no answer in {self.timeout} s")
                self._cond.wait(0.2)
            resp = self._responses.pop(msg_id)
        if "error" in resp:
            raise LspError(f"{method}: {resp['error']}")
        return resp.get("result")

    def _send(self, msg: dict[str, Any]) -> None:
        body = json.dumps(msg).encode("utf-8")
        try:
            with self._wlock:
                assert self.proc.stdin is not None
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise LspError(f"cannot write to the server: {e}") from e

    def _reader(self) -> None:
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
                if not line.strip():
                    break
                name, _, value = line.decode("ascii", "replace").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            msg = json.loads(out.read(length))
            if "method" in msg:
                if "id" in msg:  # a request from the server: progress tokens, configuration, ...
                    result = [None] * len((msg.get("params") or {}).get("items", [])) \
                        if msg["method"] == "workspace/configuration" else None
                    self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            with self._cond:
                self._responses[msg.get("id")] = msg
                self._cond.notify_all()
