"""Next-edit benchmark (issue 24): synthetic edit sequences cut from the corpus's held-out split.

    .venv/bin/python bench/next_edit.py [--predictor copy|model|MODULE] [--n 60] [--seed 0]
                                        [--data data/corpus] [--json out.json] [--dump-cases cases.jsonl]

Cases (model/edit_data.py generators, model/edits.py case_from_steps) are drawn from the held-out
files only (`read_split(data, "heldout")`; the corpus is built first if absent), N per category,
at most 2 per file and category, with a fixed seed; only cases the model's format can hold are
kept (the region and its new text within 128 tokens each, the region within a 256-token context).

* below / above: the next edit lies in the cursor's region, below or above the cursor line;
* cursor: a fill-in: the user has typed part of the cursor line's change; the edit completes it;
* jump: the next edit is outside the cursor's region (its line is the case's target_line);
* noise: no edit is due (complete edits, comment edits, new lines, no edits at all).

A predictor is a module with `predict(task: EditTask) -> str` (the region's new text; the region
unchanged means no edit) and optionally `predict_anywhere(text, line, col, history) ->
(start_line, end_line, new_text) | None` (lines [start, end) of the document become new_text).
`copy` returns the region unchanged (the floor: all silence, no edit); `model` is
lsp_server/engine/next_edit/predict.py, which must define `predict` (and may define `predict_anywhere`).

Scores: exact = the predicted region equals the target (noise: the region unchanged). A jump
is exact only through predict_anywhere: its result applied to the document must give the document
with the target region in place (the region at target_line, model/edits.py region_lines); without
predict_anywhere the jump is scored by predict at the cursor, where silence is the right answer
for a region-only predictor (`silent`) and exact is 0. silent = no change predicted; latency =
wall time of the one call per case, p50 / p95.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from redraft.model.data import CANVAS_BUCKETS, build_corpus, read_split  # noqa: E402
from redraft.model.edit_data import KINDS, NOISE, PROPAGATIONS, sample_case  # noqa: E402
from redraft.model.edits import EditCase, EditTask, edit_context, region_lines  # noqa: E402

CATEGORIES = ("below", "above", "cursor", "jump", "noise")
MAX_PER_FILE = 2
SEQ_LEN = 384
# which generator kinds to try for a category still short of cases
KINDS_FOR = {"below": list(PROPAGATIONS), "above": list(PROPAGATIONS), "jump": list(PROPAGATIONS),
             "cursor": ["fill"], "noise": list(NOISE)}
EXTENSIONS = {".py": "python", ".pyi": "python", ".js": "javascript", ".ts": "typescript", ".rs": "rust", ".go": "go"}


def heldout_records(data: Path, split: str = "heldout", limit: int = 0) -> list[dict]:
    """The held-out split's {path, text} rows (what the benchmark reads; `--split train` only to
    calibrate the predictor on cases it will never be scored on; `limit` files, spread evenly)."""
    if not (Path(data) / "heldout.jsonl.gz").exists():
        print(f"no corpus at {data}: building it (a few minutes)", file=sys.stderr, flush=True)
        build_corpus(Path(data))
    rows = list(read_split(Path(data), split))
    return rows[::max(1, len(rows) // limit)] if limit else rows


def fits(tok, case: EditCase) -> bool:
    top = CANVAS_BUCKETS[-1]
    return (len(tok.encode(case.task.region)) <= top and len(tok.encode(case.target_region)) <= top
            and edit_context(tok, case.task, SEQ_LEN - top) is not None)


def build_cases(records: list[dict], tok, n: int, seed: int, rounds: int = 30) -> list[EditCase]:
    """n cases per category (fewer if the files run out), deterministic for (records, n, seed)."""
    rng = random.Random(seed)
    order = list(range(len(records)))
    rng.shuffle(order)
    got: dict[str, list[EditCase]] = {c: [] for c in CATEGORIES}
    per_file: Counter = Counter()
    for _ in range(rounds):
        for i in order:
            need = [c for c in CATEGORIES if len(got[c]) < n]
            if not need:
                return [c for cat in CATEGORIES for c in got[cat]]
            want = rng.choice(need)
            path, text = records[i]["path"], records[i]["text"]
            lang = EXTENSIONS.get(Path(path).suffix, "python")
            case = sample_case(text, rng, rng.choice(KINDS_FOR[want]), lang=lang, file_id=path)
            if case is None or case.category not in need or per_file[path, case.category] >= MAX_PER_FILE:
                continue
            if not fits(tok, case):
                continue
            per_file[path, case.category] += 1
            got[case.category].append(case)
    return [c for cat in CATEGORIES for c in got[cat]]


def expected_document(case: EditCase) -> str:
    """The document after the case's next edit (jump: the region at target_line replaced)."""
    lines = case.task.text.split("\n")
    if case.target_line is None:
        return case.task.text
    if case.category == "jump":
        a, b = region_lines(len(lines), case.target_line)
    else:
        a = case.task.start_line()
        b = a + case.task.region.count("\n") + 1
    return "\n".join(lines[:a] + case.target_region.split("\n") + lines[b:])


def load_predictor(spec: str):
    """(predict, predict_anywhere or None) for --predictor."""
    if spec == "copy":
        return (lambda task: task.region), None
    name = "redraft.engine.next_edit.predict" if spec == "model" else spec
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        raise SystemExit(f"--predictor {spec}: cannot import {name} ({e})") from e
    predict = getattr(mod, "predict", None)
    if not callable(predict):
        raise SystemExit(f"--predictor {spec}: {name} defines no predict(task: EditTask) -> str "
                         f"(the region's new text); see this file's docstring for the interface")
    anywhere = getattr(mod, "predict_anywhere", None)
    return predict, anywhere if callable(anywhere) else None


def score(cases: list[EditCase], predict, anywhere=None) -> list[dict]:
    rows = []
    for case in cases:
        t0 = time.perf_counter()
        if case.category == "jump" and anywhere is not None:
            text = case.task.text
            line, col = case.task.position()
            res = anywhere(text, line, col, case.task.history)
            ms = (time.perf_counter() - t0) * 1000
            got = text
            if res is not None:
                s, e, new = res
                lines = text.split("\n")
                got = "\n".join(lines[:s] + new.split("\n") + lines[e:])
            exact, silent = got == expected_document(case), got == text
        else:
            pred = predict(case.task)
            ms = (time.perf_counter() - t0) * 1000
            silent = pred == case.task.region
            exact = pred == case.target_region and case.category != "jump"
        rows.append({"category": case.category, "kind": case.kind, "file": case.file_id, "exact": exact,
                     "silent": silent, "ms": ms})
    return rows


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def summarize(rows: list[dict]) -> dict:
    out = {}
    for cat in CATEGORIES + ("all",):
        rs = [r for r in rows if cat == "all" or r["category"] == cat]
        if not rs:
            continue
        out[cat] = {"cases": len(rs), "exact": sum(r["exact"] for r in rs) / len(rs),
                    "silent": sum(r["silent"] for r in rs) / len(rs),
                    "wrong_edit": sum(not r["exact"] and not r["silent"] for r in rs) / len(rs),
                    "p50_ms": round(_pct([r["ms"] for r in rs], 0.5), 3),
                    "p95_ms": round(_pct([r["ms"] for r in rs], 0.95), 3)}
    edits = [r for r in rows if r["category"] != "noise"]
    if edits:
        out["edits_exact"] = sum(r["exact"] for r in edits) / len(edits)
    return out


def table(summary: dict) -> str:
    head = ["| category | cases | exact | silent | wrong edit | p50 ms | p95 ms |", "|---|---|---|---|---|---|---|"]
    for cat in CATEGORIES + ("all",):
        s = summary.get(cat)
        if s:
            head.append(f"| {cat} | {s['cases']} | {s['exact']:.1%} | {s['silent']:.1%} | {s['wrong_edit']:.1%} "
                        f"| {s['p50_ms']:.2f} | {s['p95_ms']:.2f} |")
    if "edits_exact" in summary:
        head.append(f"\nedit categories (below, above, cursor, jump) exact: {summary['edits_exact']:.1%}; "
                    f"noise silence: {summary.get('noise', {}).get('silent', 0):.1%}")
    return "\n".join(head)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--predictor", default="copy", help="copy | model | a module defining predict (and predict_anywhere)")
    ap.add_argument("--data", default="data/corpus", help="corpus directory (its held-out split is read)")
    ap.add_argument("--n", type=int, default=60, help="cases per category")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tokenizer", default="model/weights", help="tokenizer for the format filter")
    ap.add_argument("--json", help="write the summary and per-case rows here ('-': stdout)")
    ap.add_argument("--dump-cases", help="write the cases as JSON lines here")
    ap.add_argument("--split", default="heldout", choices=["heldout", "train"],
                    help="train: calibration cases only (the figures that count are the held-out ones)")
    a = ap.parse_args(argv)
    from redraft.model.tokenizer import Tokenizer
    predict, anywhere = load_predictor(a.predictor)
    tok = Tokenizer.load(a.tokenizer)
    t0 = time.time()
    records = heldout_records(Path(a.data), a.split, 400 if a.split == "train" else 0)
    cases = build_cases(records, tok, a.n, a.seed)
    built = time.time() - t0
    if a.dump_cases:
        with open(a.dump_cases, "w") as f:
            for c in cases:
                f.write(json.dumps(dataclasses.asdict(c)) + "\n")
    t0 = time.time()
    rows = score(cases, predict, anywhere)
    summary = summarize(rows)
    info = {"predictor": a.predictor, "predict_anywhere": anywhere is not None, "n_per_category": a.n,
            "seed": a.seed, "heldout_files": len(records), "files_used": len({r["file"].rsplit("@", 1)[0] for r in rows}),
            "build_s": round(built, 1), "score_s": round(time.time() - t0, 1)}
    print(f"next-edit bench: predictor {a.predictor}, {len(cases)} cases from {info['files_used']} of "
          f"{len(records)} {a.split} files (seed {a.seed}; built in {built:.1f} s)\n")
    print(table(summary))
    if a.json:
        blob = json.dumps({**info, "summary": summary, "rows": rows}, indent=1)
        if a.json == "-":
            print(blob)
        else:
            Path(a.json).write_text(blob)
    return 0


if __name__ == "__main__":
    sys.exit(main())
