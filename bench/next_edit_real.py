"""Next-edit prediction on real edits (issue 24): the changes between two releases of packages
nobody here wrote (bench/apply_sources.py), replayed as a user would make them.

    .venv/bin/python bench/next_edit_real.py [--set dev|heldout|all] [--per-file 6] [--json out.json]

For each file changed between the two releases (dist/ builds skipped: copies of src/), the diff's
hunks are made one at a time, top down.  After each hunk k (the history: hunks 1..k as the server
records them, model/edits.py history_of; the cursor at the end of hunk k's new lines) the predictor
(lsp_server/engine/next_edit/predict.py predict_anywhere: analogy, and the model where it was trained for next edits; REDRAFT_NEXT_EDIT picks) is asked
for the next edit.  Its answer is lines [a, b) of the document becoming new text; it is *right* when
it equals those lines after every remaining hunk that lies inside [a, b) (at least one must), else
*wrong*.  After the file's last hunk nothing is due: any proposal there is wrong ("after the last").

Scores: proposals (asks answered with an edit), precision (right / proposals), recall (right /
asks where an edit was due), silence after the last hunk, time per ask; precision by the
proposal's confidence (analogy.py: confirmed rules 1.0, rules seen once 0.5).  Real edits
between releases are mostly not repeats of each other, so recall is low by nature; precision and
silence are what a user feels (a wrong proposal costs a keystroke to dismiss).
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.append(str(Path(__file__).resolve().parent))      # apply_cases (after the repo: bench/kernels.py)

from apply_cases import EXTENSIONS, SOURCES, release_files  # noqa: E402

from redraft.engine.next_edit.predict import anywhere  # noqa: E402
from redraft.model.edits import history_of  # noqa: E402

MAX_LINES = 3000
MAX_HUNKS = 40


def hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def asks(old_text: str, new_text: str, per_file: int):
    """(document, line, col, history, remaining hunks in document lines as (start, end, new lines))
    after each of the first hunks; the last yields nothing due."""
    old, new = old_text.split("\n"), new_text.split("\n")
    hs = hunks(old, new)
    if not hs or len(hs) > MAX_HUNKS:
        return
    steps, doc = [], list(old)
    for k, (i1, i2, j1, j2) in enumerate(hs):
        shift = len(doc) - len(old)
        before = "\n".join(doc)
        doc = doc[:i1 + shift] + new[j1:j2] + doc[i2 + shift:]
        after = "\n".join(doc)
        end_line = min(max(j1, j2 - 1), len(doc) - 1)
        steps.append((before, after, sum(len(l) + 1 for l in doc[:end_line]) + len(doc[end_line]) if doc else 0))
        if k >= per_file and k + 1 < len(hs):
            continue
        shift = len(doc) - len(old)
        rest = [(a1 + shift, a2 + shift, new[b1:b2]) for a1, a2, b1, b2 in hs[k + 1:]]
        line = min(end_line, len(doc) - 1)
        yield "\n".join(doc), line, len(doc[line]), history_of(steps), rest


def judge(doc: str, proposal, rest) -> str:
    if proposal is None:
        return "silent"
    a, b, text = proposal
    lines = doc.split("\n")
    inside = [h for h in rest if a <= h[0] and h[1] <= b and (h[0] < b or h[0] == h[1] == b)]
    if not inside:
        return "wrong"
    out = list(lines)
    for s, e, new in sorted(inside, key=lambda h: -h[0]):
        out[s:e] = new
    grown = len(out) - len(lines)
    return "right" if "\n".join(out[a:b + grown]) == text else "wrong"


def run(sets: tuple[str, ...], per_file: int):
    rows = []
    for set_name, registry, project, v_old, v_new in SOURCES:
        if set_name not in sets:
            continue
        a, b = release_files(registry, project, v_old), release_files(registry, project, v_new)
        for path in sorted(a.keys() & b.keys()):
            if "/dist/" in f"/{path}" or os.path.splitext(path)[1] not in EXTENSIONS or a[path] == b[path]:
                continue
            if max(a[path].count("\n"), b[path].count("\n")) > MAX_LINES:
                continue
            for doc, line, col, history, rest in asks(a[path], b[path], per_file):
                t0 = time.perf_counter()
                e = anywhere(doc, line, col, history)
                dt = time.perf_counter() - t0
                p = None if e is None else (e.region_start_line, e.region_end_line, e.new_region)
                rows.append({"set": set_name, "project": project, "path": path, "due": bool(rest),
                             "verdict": judge(doc, p, rest), "confidence": e and e.confidence, "seconds": dt})
    return rows


def summary(rows) -> str:
    out = ["| set | asks | edit due | proposals | right | wrong | precision | recall | silent after the last | p50 ms | p95 ms |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in sorted({r["set"] for r in rows}) + ["all"]:
        rs = [r for r in rows if name in ("all", r["set"])]
        due = [r for r in rs if r["due"]]
        last = [r for r in rs if not r["due"]]
        prop = [r for r in rs if r["verdict"] != "silent"]
        right = [r for r in rs if r["verdict"] == "right"]
        t = sorted(r["seconds"] for r in rs) or [0.0]
        out.append(f"| {name} | {len(rs)} | {len(due)} | {len(prop)} | {len(right)} | {len(prop) - len(right)} | "
                   f"{100 * len(right) / max(1, len(prop)):.1f}% | {100 * len(right) / max(1, len(due)):.1f}% | "
                   f"{100 * sum(r['verdict'] == 'silent' for r in last) / max(1, len(last)):.1f}% | "
                   f"{1000 * statistics.median(t):.2f} | {1000 * t[int(0.95 * (len(t) - 1))]:.2f} |")
    for c in sorted({r["confidence"] for r in rows if r["confidence"] is not None}, reverse=True):
        rs = [r for r in rows if r["confidence"] == c]
        right = sum(r["verdict"] == "right" for r in rs)
        out.append(f"\nconfidence {c}: {len(rs)} proposals, {right} right ({100 * right / len(rs):.1f}%)")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="all", choices=["dev", "heldout", "all"])
    ap.add_argument("--per-file", type=int, default=6, help="asks after at most this many hunks per file (+ the last)")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    rows = run(("dev", "heldout") if a.set == "all" else (a.set,), a.per_file)
    print(summary(rows))
    if a.json:
        Path(a.json).write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
