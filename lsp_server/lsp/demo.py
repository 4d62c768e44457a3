"""`redraft demo` (and `make demo`): a real LSP session against `redraft serve`.

Starts the server as a subprocess over stdio (this interpreter, `-m redraft serve`), then
plays an editor: initialize / initialized (the model loads behind `$/progress`), didOpen of the
shipped sample file, then "types" into it with incremental didChange edits, asking for inline
completions (and a popup completion) after each step; accepts one item through its command; sends
a request that the next keystroke makes stale; shuts down. Prints every request (position and the
line with the cursor), the completion, server latency, round trip and forward passes, and a
summary. Exit status 0 when the session completed.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from lsprotocol import types

from redraft.lsp.convert import LineIndex
from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient
from redraft.engine.settings import EFFORT_NAMES

URI = "file:///redraft-demo/inventory.py"

# (what to type at the cursor, which request to make afterwards). The cursor starts at the end of
# the sample; "<" moves it one character left before the request (to complete inside a line).
SCRIPT: list[tuple[str, str]] = [
    ("    for", "inline"),
    (" item in items:\n        if item.quantity == 0:\n            ", "inline"),
    ("", "popup"),
    ("item.quantity += ", "inline"),
    ("amount\n\n\ndef total_value(items: list[Item]) -> float:\n    return ", "inline"),
    ("sum()<", "inline"),
    ("", "popup"),
]


@dataclass
class Row:
    kind: str
    position: types.Position
    line: str
    text: str | None
    scope: str | None = None
    passes: int | None = None
    server_ms: float | None = None
    round_trip_ms: float = 0.0


def _short(s: str, n: int = 70) -> str:
    r = repr(s)
    return r if len(r) <= n else r[: n - 4] + "...'"


class Session:
    def __init__(self, client: JsonRpcStdioClient, text: str) -> None:
        self.c, self.text, self.cursor, self.version = client, text, len(text), 1
        self.rows: list[Row] = []

    def type(self, chunk: str) -> None:
        """Insert `chunk` at the cursor with an incremental didChange ("<" moves the cursor left)."""
        moves = len(chunk) - len(chunk.rstrip("<"))
        chunk = chunk.rstrip("<")
        if chunk:
            pos = LineIndex(self.text).position(self.cursor)
            self.text = self.text[: self.cursor] + chunk + self.text[self.cursor:]
            self.cursor += len(chunk)
            self.version += 1
            rng = {"start": _pos(pos), "end": _pos(pos)}
            self.c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": self.version},
                                                     "contentChanges": [{"range": rng, "text": chunk}]})
        self.cursor -= moves

    def ask(self, kind: str) -> tuple[Row, dict[str, Any] | None]:
        index = LineIndex(self.text)
        pos = index.position(self.cursor)
        start = index.line_start(pos.line) or 0
        line = self.text[start: self.cursor] + "|" + self.text[self.cursor: index.line_end(start)]
        method = "textDocument/inlineCompletion" if kind == "inline" else "textDocument/completion"
        params: dict[str, Any] = {"textDocument": {"uri": URI}, "position": _pos(pos)}
        if kind == "inline":
            params["context"] = {"triggerKind": 1}
        t0 = time.perf_counter()
        result = self.c.request(method, params)
        row = Row(kind, pos, line, None, round_trip_ms=(time.perf_counter() - t0) * 1000)
        item = (result or {}).get("items", [None])[0] if (result or {}).get("items") else None
        if item is not None:
            data = item.get("data") or {}
            row.text = item.get("insertText") if kind == "inline" else item.get("textEdit", {}).get("newText")
            row.scope, row.passes, row.server_ms = data.get("scope"), data.get("forward_passes"), data.get("latency_ms")
        self.rows.append(row)
        return row, item


def _pos(p: types.Position) -> dict[str, int]:
    return {"line": p.line, "character": p.character}


def _print_row(i: int, row: Row, note: str = "") -> None:
    print(f"[{i}] {row.kind} completion at line {row.position.line + 1}, column {row.position.character + 1}"
          f" (LSP {row.position.line}:{row.position.character}){note}")
    print(f"    line:       {_short(row.line)}")
    if row.text is None:
        print(f"    completion: (none)                       round trip {row.round_trip_ms:.0f} ms")
        return
    print(f"    completion: {_short(row.text)}")
    print(f"    scope {row.scope} | {row.passes} forward passes | server {row.server_ms:.0f} ms"
          f" | round trip {row.round_trip_ms:.0f} ms")


def _summary(rows: list[Row], stats: dict[str, Any]) -> None:
    done = [r for r in rows if r.text is not None]
    print("\nsummary")
    print(f"  scripted requests: {len(rows)}, with a completion: {len(done)}, empty: {len(rows) - len(done)}")
    if done:
        server = [r.server_ms for r in done if r.server_ms is not None]
        trip = [r.round_trip_ms for r in done]
        passes = [r.passes for r in done if r.passes is not None]
        print(f"  server latency: median {statistics.median(server):.0f} ms, max {max(server):.0f} ms")
        print(f"  round trip:     median {statistics.median(trip):.0f} ms, max {max(trip):.0f} ms")
        print(f"  forward passes: mean {statistics.mean(passes):.1f}, max {max(passes)}")
    req = stats.get("requests", {})
    print("  server counters: " + ", ".join(f"{k} {v}" for k, v in sorted(req.items())))
    fb = stats.get("feedback", {})
    print(f"  feedback (kept on this machine): shown {fb.get('shown')}, accepted {fb.get('accepted')},"
          f" rejected {fb.get('rejected')}")
    print("  (completion quality is the checkpoint's: the shipped model is small and briefly trained, see model/weights/README.md)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="redraft demo", description=__doc__.split("\n\n")[0])
    ap.add_argument("--effort", default="low", choices=EFFORT_NAMES)
    ap.add_argument("--model", default=None, help="checkpoint directory (default: the shipped model)")
    ap.add_argument("--file", type=Path, default=None, help="start from this Python file instead of the sample")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    text = a.file.read_text(encoding="utf-8") if a.file else \
        resources.files("redraft.lsp").joinpath("samples/demo.py").read_text(encoding="utf-8")
    cmd = SERVE_CMD + (["--model", a.model] if a.model else [])
    print(f"redraft demo: {' '.join(['python'] + cmd[1:])} (stdio), effort {a.effort}")
    client = JsonRpcStdioClient(cmd)
    try:
        return _run(client, text, a.effort)
    except Exception as e:  # noqa: BLE001 - report, do not dump a traceback at the user
        print(f"redraft demo: failed: {type(e).__name__}: {e}", file=sys.stderr)
        print("".join(client.stderr[-20:]), file=sys.stderr)
        return 1
    finally:
        client.close()


def _run(client: JsonRpcStdioClient, text: str, effort: str) -> int:
    t0 = time.perf_counter()
    init = client.request("initialize", {
        # every draft shown (gate "always"): the demo shows what the model writes; in an editor the
        # default gate keeps the ones unlikely to be right to itself
        "processId": None, "rootUri": None, "initializationOptions": {"redraft": {"effort": effort, "gate": "always"}},
        "capabilities": {"window": {"workDoneProgress": True},
                         "textDocument": {"inlineCompletion": {}, "completion": {}, "synchronization": {}}}})
    caps = init["capabilities"]
    print(f"  initialize: {(time.perf_counter() - t0) * 1000:.0f} ms; inline completion advertised: "
          f"{'inlineCompletionProvider' in caps}; position encoding {caps.get('positionEncoding')}")
    client.notify("initialized", {})
    t1 = time.perf_counter()
    end = client.wait_for_notification("$/progress", 120, lambda p: (p or {}).get("value", {}).get("kind") == "end")
    print(f"  model: {end['params']['value'].get('message')} (waited {time.perf_counter() - t1:.1f} s)")
    client.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "python", "version": 1,
                                                            "text": text}})
    print(f"  opened {URI} ({text.count(chr(10))} lines); typing at its end\n")
    s = Session(client, text)
    accepted = None
    for i, (chunk, kind) in enumerate(SCRIPT, 1):
        s.type(chunk)
        row, item = s.ask(kind)
        _print_row(i, row)
        if accepted is None and item is not None and kind == "inline":
            accepted = item
    # typing faster than the model: a request, then a keystroke before its answer
    rid = client.request_async("textDocument/inlineCompletion", {
        "textDocument": {"uri": URI}, "position": _pos(LineIndex(s.text).position(s.cursor)),
        "context": {"triggerKind": 2}})
    s.type("x")
    stale = client.wait(rid)
    got = bool((stale.get("result") or {}).get("items"))
    print(f"[{len(SCRIPT) + 1}] inline request, then a keystroke before the answer: "
          f"{'a completion (the model was faster than the keystroke)' if got else 'empty: stale, never shown'}")
    if accepted is not None:
        cmd = accepted["command"]
        counters = client.request("workspace/executeCommand",
                                  {"command": cmd["command"], "arguments": cmd["arguments"]})
        print(f"\naccepted the first inline item via its command {cmd['command']}: {counters}")
    stats = client.request("workspace/executeCommand", {"command": "redraft.stats"})
    _summary(s.rows, stats)
    code = client.close()
    print(f"\nshutdown + exit: server exit code {code}")
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
