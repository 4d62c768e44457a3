"""HTTP API latency against the language server's for the same completions, and throughput with
concurrent clients (issue 25).

    .venv/bin/python bench/http_latency.py [--requests 40] [--clients 4]

The same fill-in-the-middle requests (a spread of lines of the standard library's textwrap.py, each
cut after its indentation) go (1) to `redraft serve` over stdio as textDocument/inlineCompletion on
an opened document and (2) to `redraft serve --http` as POST /v1/fim/completions with the text
before and after the cursor; one request at a time, after two warm-up requests each.  Then
`--clients` threads send the HTTP requests at once, each its share, and the wall time gives
requests per second (the model thread serves one at a time: this measures the queueing).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from redraft.lsp.convert import LineIndex  # noqa: E402
from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient  # noqa: E402
from redraft.model.precision import cpu_info  # noqa: E402
from latency import pct  # noqa: E402
from test_http_api import start, stop  # noqa: E402


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



def lsp_times(cs) -> list[float]:
    client = JsonRpcStdioClient(SERVE_CMD, timeout=120)
    out = []
    try:
        client.initialize({})
        for k, (doc, off) in enumerate([cs[0], cs[1]] + cs):
            uri = f"file:///bench/http_{k}.py"
            client.open_document(uri, doc)
            pos = LineIndex(doc).position(off)
            t0 = time.perf_counter()
            client.request("textDocument/inlineCompletion", {
                "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
                "context": {"triggerKind": 1}})
            if k >= 2:
                out.append((time.perf_counter() - t0) * 1000)
            client.close_document(uri)
    finally:
        client.close()
    return out


def http_one(http: httpx.Client, base: str, doc: str, off: int) -> float:
    t0 = time.perf_counter()
    r = http.post(f"{base}/v1/fim/completions", json={"model": "redraft", "prompt": doc[:off], "suffix": doc[off:],
                                                      "language": "python"})
    r.raise_for_status()
    return (time.perf_counter() - t0) * 1000


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    cs = cases(a.requests)
    lsp = lsp_times(cs)
    proc, base = start("--max-queue", str(max(16, a.clients * 2)))
    try:
        with httpx.Client(timeout=120) as http:
            for doc, off in cs[:2]:
                http_one(http, base, doc, off)
            seq = [http_one(http, base, doc, off) for doc, off in cs]
        done: list[float] = []
        lock = threading.Lock()

        def client(share):
            with httpx.Client(timeout=120) as http:
                for doc, off in share:
                    ms = http_one(http, base, doc, off)
                    with lock:
                        done.append(ms)

        threads = [threading.Thread(target=client, args=(cs[k::a.clients],)) for k in range(a.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
    finally:
        stop(proc)
    res = {"cpu": cpu_info().summary(), "date": time.strftime("%Y-%m-%d"), "requests": len(cs),
           "lsp_p50_ms": round(pct(lsp, 0.5), 1), "lsp_p95_ms": round(pct(lsp, 0.95), 1),
           "http_p50_ms": round(pct(seq, 0.5), 1), "http_p95_ms": round(pct(seq, 0.95), 1),
           "http_minus_lsp_p50_ms": round(pct(seq, 0.5) - pct(lsp, 0.5), 1),
           "clients": a.clients, "concurrent_requests_per_s": round(len(done) / wall, 2),
           "concurrent_p50_ms": round(pct(done, 0.5), 1), "concurrent_p95_ms": round(pct(done, 0.95), 1),
           "mean_lsp_ms": round(statistics.mean(lsp), 1), "mean_http_ms": round(statistics.mean(seq), 1)}
    print(json.dumps(res, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
