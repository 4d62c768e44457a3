"""Latency the remote-backend path adds on loopback (issue 45): redraft's planning, request
building, HTTP client, answer parsing and post-processing around a backend that answers at once.

    .venv/bin/python bench/backend_latency.py [--requests 60] [--json out.json]

A stub backend (a standard-library HTTP server on 127.0.0.1) answers every request at once, in
each kind's own format, whole or streamed (server-sent events / Ollama's JSON lines in one write).
For each kind and streaming mode, every case (a spread of lines of the standard library's
textwrap.py, 480 lines, each cut after its indentation: a fresh-line completion) is sent two ways,
alternately, on kept-alive connections:
  direct  the exact request body RemoteEngine sends, POSTed with http.client and the answer read
          and parsed: the backend's own time as a client on this machine sees it;
  remote  `RemoteEngine.complete` on the document: window, plan (syntax-aware, on the document's
          tree as the language server keeps it), request, answer, post-processing.
added = remote - direct, per case (paired); the acceptance is its p50 <= 5 ms. `shared
post-processing` is the syntax-aware truncation of the same answer at the same place timed alone
(its caches cleared, as for a new request): what the local model's answer costs after its
denoising too; `added less it` is the remote path's own part. `fresh parse` runs
`remote` without the server's tree (a tree-sitter parse of the whole file per request: the CLI's
case); `a backend that takes 20 ms` shows the check window's parse done while the backend
works; `line rules` with the `syntax` setting off, which leaves the transport alone (the
syntax-aware trimming, a tree-sitter parse and a CPython compile of the check window, is the
pipeline's own cost, which the local model pays after its denoising too). The last table is the language server end to end (`redraft serve` over stdio with the
backend) against the direct call: that adds JSON-RPC over stdio, which the local model pays too.
"""
from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.engine.backends.config import parse_backend  # noqa: E402
from redraft.engine.backends.remote import RemoteEngine, Request  # noqa: E402
from redraft.engine.infill import plan_infill  # noqa: E402
from redraft.engine.syntax.languages import language_for  # noqa: E402
from redraft.engine.syntax.trees import SyntaxTree  # noqa: E402

ANSWER = "result = len(text)"   # a statement: valid on any of the cases' fresh lines
KINDS = [("openai-completions", {"model": "m", "template": "qwen"}, "/v1"), ("mercury", {}, "/v1"),
         ("redraft", {}, "/v1"), ("llama.cpp", {}, ""), ("ollama", {"model": "m"}, "")]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def cases(n: int) -> list[tuple[str, int]]:
    lines = Path(textwrap.__file__).read_text().split("\n")
    picks = [i for i, l in enumerate(lines) if l.startswith("    ") and l.strip()
             and not l.strip().startswith(("#", '"', "'")) and 12 <= len(l.strip()) <= 60]
    picks = picks[:: max(1, len(picks) // n)][:n]
    out = []
    for i in picks:
        indent = len(lines[i]) - len(lines[i].lstrip())
        doc = "\n".join(lines[:i] + [lines[i][:indent]] + lines[i + 1:])
        out.append((doc, len("\n".join(lines[:i])) + 1 + indent))
    return out


def answer_bytes(path: str, stream: bool) -> tuple[str, bytes]:
    """(content type, body) of an instant answer in the format `path` implies."""
    if path.endswith("/infill"):
        whole, events = {"content": ANSWER, "stop": True}, [{"content": ANSWER, "stop": False}, {"content": "", "stop": True}]
    elif path.endswith("/api/generate"):
        whole = {"response": ANSWER, "done": True}
        events = [{"response": ANSWER, "done": False}, {"response": "", "done": True}]
    else:
        whole = {"choices": [{"text": ANSWER, "index": 0, "finish_reason": "stop"}]}
        events = [{"choices": [{"text": ANSWER, "index": 0, "finish_reason": None}]},
                  {"choices": [{"text": "", "index": 0, "finish_reason": "stop"}]}]
    if not stream:
        return "application/json", json.dumps(whole).encode()
    if path.endswith("/api/generate"):
        return "application/x-ndjson", b"".join(json.dumps(e).encode() + b"\n" for e in events)
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return "text/event-stream", body + (b"" if path.endswith("/infill") else b"data: [DONE]\n\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path.startswith("/slow20/"):      # a backend that works 20 ms
            time.sleep(0.02)
        ctype, data = answer_bytes(self.path, bool(body.get("stream")))
        self.wfile.write(f"HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)


def direct(conn: http.client.HTTPConnection, path: str, body: dict) -> float:
    data = json.dumps(body).encode()
    t0 = time.perf_counter()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    raw = r.read()
    if r.status != 200:
        raise RuntimeError(raw[:200])
    for line in raw.split(b"\n"):             # parse what a client must parse
        line = line.strip()
        if line.startswith(b"data: {"):
            json.loads(line[6:])
        elif line.startswith(b"{"):
            json.loads(line)
    return (time.perf_counter() - t0) * 1000


def shared_post(doc: str, off: int, tree, plan) -> float:
    """ms of the post-processing the local model's answer gets too (the syntax-aware truncation of
    the same answer at the same place), its caches cleared first as for a new request."""
    from redraft.engine.infill import postprocess
    from redraft.engine.syntax import truncate
    truncate._compiles.cache_clear()
    truncate._WINDOWS.clear()
    t0 = time.perf_counter()
    postprocess(ANSWER, plan, doc, off, tree, True)
    ms = (time.perf_counter() - t0) * 1000
    truncate._compiles.cache_clear()
    truncate._WINDOWS.clear()
    return ms


def bench_kind(base: str, kind: str, extra: dict, suffix: str, stream: bool, cs, trees, fresh: bool,
               syntax: bool = True):
    cfg, problems = parse_backend({"kind": kind, "url": base + suffix, "stream": stream, **extra})
    assert cfg is not None, problems
    eng = RemoteEngine(cfg, on_event=lambda *a: None)
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rows = []
    for k, ((doc, off), tree) in enumerate(zip(cs[:3] + cs, trees[:3] + trees)):
        req = Request(doc, off, uri="file:///bench/textwrap.py", language_id="python", tree=None if fresh else tree,
                      syntax=syntax)
        plan = plan_infill(doc, off, 32, syntax_tree=tree if syntax else None)
        endpoint, body = eng.kind.fim_request(cfg, eng.infill(req, plan), stream)
        d = direct(conn, eng.client.path(endpoint), body)
        t0 = time.perf_counter()
        comp = eng.complete(req)
        r = (time.perf_counter() - t0) * 1000
        if comp is None or comp.error:
            raise RuntimeError(f"{kind}: {comp and comp.error}")
        post = shared_post(doc, off, tree if syntax else None, plan) if syntax and not fresh else 0.0
        if k >= 3:                            # three warm-up requests
            rows.append((d, r, r - d, r - comp.backend_ms, post))
    conn.close()
    eng.close()
    return rows


def lsp_rows(base: str, cs, n: int):
    """The language server end to end (inline completion over stdio) with an openai-completions
    backend, against the direct call of the same body."""
    from redraft.lsp.convert import LineIndex
    from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient
    cfg, _ = parse_backend({"kind": "openai-completions", "url": base + "/v1", "model": "m", "template": "qwen",
                            "stream": False})
    eng = RemoteEngine(cfg)
    client = JsonRpcStdioClient(SERVE_CMD, timeout=60)
    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rows = []
    try:
        client.initialize({"backend": {"kind": "openai-completions", "url": base + "/v1", "model": "m",
                                       "template": "qwen", "stream": False}, "workspaceIndex": False, "gate": "always"})
        client.notify("initialized", {})
        for k, (doc, off) in enumerate((cs[:3] + cs)[:n + 3]):
            uri = f"file:///bench/lsp_{k}.py"
            client.open_document(uri, doc)
            time.sleep(0.01)
            tree = SyntaxTree.parse(language_for("python"), doc)
            endpoint, body = eng.kind.fim_request(cfg, eng.infill(Request(doc, off, uri=uri, language_id="python"),
                                                                  plan_infill(doc, off, 32, syntax_tree=tree)), False)
            d = direct(conn, eng.client.path(endpoint), body)
            pos = LineIndex(doc).position(off)
            t0 = time.perf_counter()
            out = client.request("textDocument/inlineCompletion", {
                "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
                "context": {"triggerKind": 1}})
            r = (time.perf_counter() - t0) * 1000
            if out is None:      # (an empty list is a post-processed answer: the path was the same)
                raise RuntimeError("the language server answered nothing")
            if k >= 3:
                rows.append((d, r, r - d, float("nan"), float("nan")))
            client.close_document(uri)
        st = client.request("workspace/executeCommand", {"command": "redraft.stats"})
        if st["model"]["backendStats"]["failed"]:
            raise RuntimeError(f"backend failures: {st['model']['backendStats']}")
    finally:
        client.close()
        conn.close()
    return rows


def line(name: str, rows) -> str:
    d, r, added, inside, post = (list(x) for x in zip(*rows))
    inside_txt = f"{pct(inside, 0.5):.2f}" if inside[0] == inside[0] else "-"
    own = [a - p for a, p in zip(added, post)]
    post_txt = f"{pct(post, 0.5):.2f} | {pct(own, 0.5):.2f}" if post[0] == post[0] and any(post) else "- | -"
    return (f"| {name} | {len(rows)} | {pct(d, 0.5):.2f} | {pct(r, 0.5):.2f} | **{pct(added, 0.5):.2f}** | "
            f"{pct(added, 0.95):.2f} | {inside_txt} | {post_txt} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=60)
    ap.add_argument("--lsp-requests", type=int, default=30)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    cs = cases(a.requests)
    lang = language_for("python")
    trees = [SyntaxTree.parse(lang, doc) for doc, _ in cs]
    results: dict[str, list] = {}
    for kind, extra, suffix in KINDS:
        for stream in (False, True):
            results[f"{kind} ({'streamed' if stream else 'whole'})"] = bench_kind(base, kind, extra, suffix, stream,
                                                                                  cs, trees, False)
    results["openai-completions (whole), fresh parse"] = bench_kind(base, *KINDS[0], False, cs, trees, True)
    results["openai-completions (whole), a backend that takes 20 ms"] = bench_kind(
        base, "openai-completions", KINDS[0][1], "/slow20/v1", False, cs, trees, False)
    results["openai-completions (whole), line rules (syntax off)"] = bench_kind(base, *KINDS[0], False, cs, trees,
                                                                                False, syntax=False)
    lsp = lsp_rows(base, cs, a.lsp_requests)
    from redraft.model.precision import cpu_info
    head = ["| path | n | direct p50 ms | remote p50 ms | added p50 ms | added p95 ms | outside HTTP p50 ms | "
            "shared post-processing p50 ms | added less it, p50 ms |", "|---|---|---|---|---|---|---|---|---|"]
    out = [f"CPU: {cpu_info().summary()}; {time.strftime('%Y-%m-%d')}; Python {sys.version.split()[0]}", "",
           *head, *(line(k, v) for k, v in results.items()), "", *head, line("language server over stdio "
                                                                             "(openai-completions, whole)", lsp)]
    text = "\n".join(out)
    print(text)
    worst = max(pct([x[2] for x in v], 0.5) for k, v in results.items() if "," not in k)
    print(f"\nworst added p50 (server's tree): {worst:.2f} ms (acceptance: <= 5 ms)")
    if a.json:
        Path(a.json).write_text(json.dumps({k: [list(r) for r in v] for k, v in {**results, "lsp": lsp}.items()}))
    server.shutdown()
    return 0 if worst <= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
