"""Latency through the real server while typing (stdio, `redraft serve`), and its resident memory.

    .venv/bin/python bench/latency.py [--model DIR] [--effort low] [--threads 0] [--lines 12]

Plays an editor on a real file (the standard library's textwrap.py): the model loads, the file is
opened, then at a spread of lines the rest of the line is deleted and retyped one character per
keystroke, each keystroke an incremental didChange followed by textDocument/inlineCompletion, the
next keystroke only after the answer (an editor that waits). Reports:
  first request   the first completion after `initialized` (waits for the model to load)
  new file        the first completion in a newly opened document (cold context cache)
  typing          p50 / p95 / max over every keystroke's completion (warm)
  rss             the server's resident memory (VmRSS, VmHWM) with the model loaded
  cpu, precision  this machine's CPU with the flags that decide the precision, and the precision the
                  server chose (redraft.stats)
  cache hit rate  context tokens whose keys/values came from the cache / context tokens needed
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.lsp.convert import LineIndex  # noqa: E402
from redraft.lsp.stdio_client import DEFAULT_CAPABILITIES, SERVE_CMD, JsonRpcStdioClient  # noqa: E402
from redraft.model.precision import cpu_info  # noqa: E402


def rss_mib(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0]) / 1024
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def complete(client: JsonRpcStdioClient, uri: str, text: str, offset: int) -> float:
    pos = LineIndex(text).position(offset)
    t0 = time.perf_counter()
    client.request("textDocument/inlineCompletion", {
        "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
        "context": {"triggerKind": 2}})
    return (time.perf_counter() - t0) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None)
    ap.add_argument("--effort", default=None, help="default: the server's own default")
    ap.add_argument("--threads", type=int, default=0, help="server torch threads (0 = the server's default)")
    ap.add_argument("--lines", type=int, default=12, help="lines to retype")
    ap.add_argument("--precision", default=None, help="auto | fp32 | bf16 | int8 (default: the server's auto)")
    ap.add_argument("--json", default=None, help="write the figures here too")
    ap.add_argument("--workspace", default=None, metavar="DIR",
                    help="open DIR as the workspace folder (indexed in the background while typing; the "
                         "keystrokes answered while the index was still being built are reported apart)")
    ap.add_argument("--trace", default=None, metavar="FILE",
                    help="write one JSON line per keystroke here: wall-clock start and end, ms, and whether "
                         "the index was still being built (to line slow keystrokes up with the server's work)")
    ap.add_argument("--server", default=None, help="the server's command line instead of `redraft serve`")
    ap.add_argument("--wait-index", action="store_true",
                    help="with --workspace: type only once the index is built (the same keystrokes, for comparing "
                         "typing while indexing with typing beside a finished index)")
    ap.add_argument("--gap-ms", type=float, default=0.0,
                    help="a typist's pause after each answer before the next keystroke (default 0: at once)")
    a = ap.parse_args(argv)
    src = Path(textwrap.__file__).read_text()
    cmd = (a.server.split() if a.server else SERVE_CMD) + (["--model", a.model] if a.model else [])
    trace = open(a.trace, "w", buffering=1) if a.trace else None
    opts = {**({"effort": a.effort} if a.effort else {}), **({"threads": a.threads} if a.threads else {}),
            **({"precision": a.precision} if a.precision else {})}
    client = JsonRpcStdioClient(cmd, timeout=120)
    try:
        t0 = time.perf_counter()
        if a.workspace:
            root = Path(a.workspace).resolve()
            client.request("initialize", {"processId": None, "rootUri": root.as_uri(), "initializationOptions": opts,
                                          "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                                          "capabilities": DEFAULT_CAPABILITIES})
            client.notify("initialized", {})
        else:
            client.initialize(opts)
        init_ms = (time.perf_counter() - t0) * 1000
        uri = "file:///bench/textwrap.py"
        lines = src.split("\n")
        # lines worth retyping: indented code, not comments or docstrings
        cands = [i for i, l in enumerate(lines) if l.startswith("    ") and l.strip()
                 and not l.strip().startswith(("#", '"', "'")) and 12 <= len(l.strip()) <= 60]
        picks = cands[:: max(1, len(cands) // a.lines)][: a.lines]
        first = lines[picks[0]]
        indent = len(first) - len(first.lstrip())
        doc = "\n".join(lines[: picks[0]] + [first[:indent]] + lines[picks[0] + 1:])
        client.open_document(uri, doc)
        first_ms = complete(client, uri, doc, len("\n".join(lines[: picks[0]])) + 1 + indent)
        client.close_document(uri)

        while a.workspace and a.wait_index and (client.request(
                "workspace/executeCommand", {"command": "redraft.stats"})["workspace"] or {}).get("state") == "indexing":
            time.sleep(0.5)
        typing: list[float] = []
        while_indexing: list[float] = []
        version = 1
        for n, i in enumerate(picks):
            cur = lines[i]
            indent = len(cur) - len(cur.lstrip())
            doc_lines = list(lines)
            doc_lines[i] = cur[:indent]
            text = "\n".join(doc_lines)
            u = f"file:///bench/textwrap_{n}.py"
            client.open_document(u, text, version=version)
            offset = len("\n".join(lines[:i])) + 1 + indent
            ms = complete(client, u, text, offset)
            if n == 0:
                new_file_ms = ms
            for ch in cur[indent:]:
                pos = LineIndex(text).position(offset)
                version += 1
                client.notify("textDocument/didChange", {
                    "textDocument": {"uri": u, "version": version},
                    "contentChanges": [{"range": {"start": {"line": pos.line, "character": pos.character},
                                                  "end": {"line": pos.line, "character": pos.character}},
                                        "text": ch}]})
                text = text[:offset] + ch + text[offset:]
                offset += 1
                t_start = time.time()
                typing.append(complete(client, u, text, offset))
                if a.gap_ms:
                    time.sleep(a.gap_ms / 1000)
                if a.workspace and len(typing) % 10 == 1:
                    ws = client.request("workspace/executeCommand", {"command": "redraft.stats"})["workspace"] or {}
                    indexing = ws.get("state") == "indexing"
                if a.workspace and indexing:
                    while_indexing.append(typing[-1])
                if trace:
                    trace.write(json.dumps({"t0": t_start, "ms": round(typing[-1], 2), "line": n,
                                            "indexing": bool(a.workspace and indexing)}) + "\n")
            client.close_document(u)
        mem = rss_mib(client.proc.pid)
        stats = client.request("workspace/executeCommand", {"command": "redraft.stats"})
        counts = stats["requests"]
        res = {"cpu": cpu_info().summary(), "gap_ms": a.gap_ms, "precision": stats["model"]["precision"],
               "effort": a.effort or "server default", "threads": a.threads or "server default", "initialize_ms": round(init_ms, 1),
               "first_request_ms": round(first_ms, 1), "new_file_ms": round(new_file_ms, 1),
               "typing_requests": len(typing), "typing_p50_ms": round(pct(typing, 0.5), 1),
               "typing_p95_ms": round(pct(typing, 0.95), 1), "typing_max_ms": round(max(typing), 1),
               "typing_mean_ms": round(statistics.mean(typing), 1),
               "rss_mib": round(mem.get("VmRSS", 0), 1), "peak_rss_mib": round(mem.get("VmHWM", 0), 1),
               "cache_hit_rate": round(counts.get("context_reused", 0) / max(1, counts.get("context_tokens", 0)), 4),
               "shown": counts.get("completed", 0), "withheld": counts.get("withheld", 0)}
        if a.workspace:
            ws = stats["workspace"] or {}
            res["workspace"] = {k: ws.get(k) for k in ("files", "distinct_lines", "definitions", "build_s", "state")}
            res["typing_while_indexing"] = {"requests": len(while_indexing),
                                            "p50_ms": round(pct(while_indexing, 0.5), 1) if while_indexing else None,
                                            "p95_ms": round(pct(while_indexing, 0.95), 1) if while_indexing else None}
        client.request("shutdown")
        client.notify("exit")
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
    print(json.dumps(res, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
