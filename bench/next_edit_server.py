"""Next-edit latency through the real server (stdio, `redraft serve`), issue 24's p50/p95 goal.

    .venv/bin/python bench/next_edit_server.py [--n 40] [--json out.json]

The held-out cases of bench/next_edit.py (N per edit category and the silences), each replayed as
an editor would: the document is opened as it was before the user's last edit, that edit arrives as
an incremental didChange (so the server's own edit history holds it), then `redraft/nextEdit` is
asked at the cursor and timed to its answer, one request at a time.  Reports p50/p95/max per
category and overall, the share of answers with an edit, the server's CPU and the date.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from latency import pct  # noqa: E402
from next_edit import CATEGORIES, build_cases, heldout_records  # noqa: E402

from redraft.lsp.convert import LineIndex  # noqa: E402
from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient  # noqa: E402
from redraft.model.data import build_corpus  # noqa: E402
from redraft.model.precision import cpu_info  # noqa: E402


def last_edit(text: str, history: list[tuple[str, str]]) -> tuple[str, int, int, str] | None:
    """(the document before the newest edit, its first line, its line count there, the new lines):
    the newest (before, after) pair located in the text by its after-lines."""
    if not history:
        return None
    before, after = history[-1]
    lines, new = text.split("\n"), after.split("\n")
    at = next((i for i in range(len(lines) - len(new) + 1) if lines[i:i + len(new)] == new), None)
    if at is None:
        return None
    old = before.split("\n")
    return "\n".join(lines[:at] + old + lines[at + len(new):]), at, len(old), after



def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=40, help="cases per category")
    ap.add_argument("--data", default="data/corpus")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    if not (Path(a.data) / "heldout.jsonl.gz").exists():
        build_corpus(Path(a.data))
    from redraft.model import checkpoint
    tok = checkpoint.load(None).tokenizer
    cases = build_cases(heldout_records(Path(a.data)), tok, a.n, 0)
    client = JsonRpcStdioClient(SERVE_CMD, timeout=120)
    rows = []
    try:
        client.initialize({})
        for k, case in enumerate(cases):
            t = case.task
            replay = last_edit(t.text, t.history)
            if replay is None:
                continue
            old_text, at, n_old, new_lines = replay
            uri = f"file:///bench/next_edit_{k}.py"
            client.open_document(uri, old_text)
            old_lines = old_text.split("\n")
            end = (at + n_old - 1, len(old_lines[at + n_old - 1]))
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": 2},
                "contentChanges": [{"range": {"start": {"line": at, "character": 0},
                                              "end": {"line": end[0], "character": end[1]}}, "text": new_lines}]})
            line, col = t.position()
            pos = LineIndex(t.text).position(sum(len(x) + 1 for x in t.text.split("\n")[:line]) + col)
            t0 = time.perf_counter()
            out = client.request("redraft/nextEdit", {"textDocument": {"uri": uri, "version": 2},
                                                      "position": {"line": pos.line, "character": pos.character}})
            ms = (time.perf_counter() - t0) * 1000
            rows.append({"category": case.category, "ms": ms, "edit": bool(out["edits"])})
            client.close_document(uri)
    finally:
        client.close()
    res = {"cpu": cpu_info().summary(), "date": time.strftime("%Y-%m-%d"), "requests": len(rows)}
    for cat in list(CATEGORIES) + ["all"]:
        ms = [r["ms"] for r in rows if cat in ("all", r["category"])]
        if ms:
            res[cat] = {"n": len(ms), "p50_ms": round(pct(ms, 0.5), 2), "p95_ms": round(pct(ms, 0.95), 2),
                        "max_ms": round(max(ms), 2), "mean_ms": round(statistics.mean(ms), 2),
                        "with_edit": round(sum(r["edit"] for r in rows if cat in ("all", r["category"])) / len(ms), 3)}
    print(json.dumps(res, indent=2))
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    random.seed(0)
    sys.exit(main())
