"""`redraft eval dev-lines`: exact-match single-line infilling on the corpus's held-out functions.

    redraft eval dev-lines [--data data/corpus] [--limit N] [--model DIR] [--effort E ...] [--out F]

A development set for decoding decisions, so that they are not tuned on HumanEval: the held-out
split of the corpus (never trained on), its top-level functions that have a docstring and qualify
under the "broad" rules of model/functions.py, each as its own small module (the imports it needs +
the function). Every non-blank, non-comment line after the docstring is one task, shaped like a
HumanEval single-line task: the document with that line's text removed and its indentation kept, the
cursor after the indentation. Nothing here runs: a task counts when the completion equals the line
(surrounding whitespace ignored). Exact match undercounts (an equivalent line fails), equally for
every effort, which is what a comparison needs.

The completions come from `Engine.complete`, the pipeline the server runs (in process, one model for
every effort).
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

from redraft.evals.evaluate import percentile
from redraft.evals.humaneval import InfillTask, single_line_tasks, spread


def dev_tasks(corpus_dir: str | Path = "data/corpus") -> list[InfillTask]:
    """Every task of the held-out split, in corpus order: the function's body after its docstring
    plays HumanEval's canonical solution and everything before it the prompt (humaneval's
    single_line_tasks cuts the lines); comment lines are left out."""
    from redraft.model.data import read_split
    from redraft.model.functions import RULES, extract, pseudo_module
    tasks: list[InfillTask] = []
    for rec in read_split(Path(corpus_dir), "heldout"):
        path = rec.get("path", "")
        for fn in extract(rec["text"], path, RULES["broad"]):
            if not fn.docstring:
                continue
            doc = pseudo_module([fn])
            node = next(n for n in ast.parse(doc).body if isinstance(n, ast.FunctionDef))
            if len(node.body) < 2:
                continue  # a docstring and nothing else
            cut = sum(len(line) + 1 for line in doc.split("\n")[: node.body[1].lineno - 1])
            problem = {"task_id": f"dev/{path}/{node.name}", "prompt": doc[:cut], "canonical_solution": doc[cut:],
                       "test": "", "entry_point": node.name}
            tasks += [t for t in single_line_tasks({problem["task_id"]: problem}) if not t.truth.startswith("#")]
    return tasks


def run(engine, tasks: list[InfillTask], effort: str) -> dict:
    from redraft.engine.pipeline import Request
    hits, passes, ms, out = 0, [], [], []
    for t in tasks:
        uri = f"dev/{len(out)}.py"
        t0 = time.perf_counter()
        try:
            comp = engine.complete(Request(text=t.text, offset=t.offset, uri=uri, effort=effort))
        finally:
            engine.forget(uri)
        ms.append((time.perf_counter() - t0) * 1000)
        text = comp.text if comp is not None else ""
        passes.append(comp.forward_passes if comp is not None else 0)
        truth = t.truth.strip()
        ok = text.strip() == truth
        hits += ok
        out.append({"task_id": t.task_id, "completion": text, "truth": truth, "exact": ok})
    n = max(len(tasks), 1)
    return {"effort": effort, "tasks": len(tasks), "exact": hits, "exact_rate": round(hits / n, 4),
            "empty": sum(not r["completion"] for r in out), "forward_passes_mean": round(sum(passes) / n, 2),
            "latency_p50_ms": round(percentile(ms, 50) or 0.0, 1), "records": out}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="redraft eval dev-lines", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="data/corpus", help="corpus directory with heldout.jsonl.gz")
    ap.add_argument("--limit", type=int, default=None, help="an evenly spread sample of N tasks")
    ap.add_argument("--model", default=None, help="checkpoint directory (default: the shipped model)")
    ap.add_argument("--effort", nargs="+", default=["low"], help="one or more efforts, one run each")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=None, help="write every completion here (JSON)")
    a = ap.parse_args(argv)
    from redraft.model.sampler import EFFORTS
    bad = [e for e in a.effort if e not in EFFORTS]
    if bad:
        raise SystemExit(f"redraft eval dev-lines: unknown effort {bad[0]!r}; choose from {list(EFFORTS)}")
    try:
        tasks = dev_tasks(a.data)
    except FileNotFoundError as e:
        raise SystemExit(f"redraft eval dev-lines: {e}")
    total = len(tasks)
    tasks = spread(tasks, a.limit)
    from redraft.engine.pipeline import Engine
    engine = Engine(a.model, threads=a.threads)
    runs = []
    for effort in a.effort:
        r = run(engine, tasks, effort)
        runs.append(r)
        print(json.dumps({k: v for k, v in r.items() if k != "records"} | {"of": total}), flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(runs, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
