"""`redraft eval humaneval-infill`: pass@1 of the completion pipeline on HumanEval infilling (single-line,
multi-line and random-span subsets, lsp_server/evals/humaneval.py).

    redraft eval humaneval-infill --subset single-line|multi-line|random-span [--layout editor|published]
        [--limit N] [--model DIR] [--effort E] [--workers N] [--baseline truth|empty] [--via inprocess|lsp]
        [--out results.json] [--no-syntax] [--no-syntax-aware] [--oracle-length]

Design decisions
- The completions come from the same pipeline the editor gets: `--via lsp` (the default) starts
  `redraft serve` over stdio and sends didOpen + textDocument/inlineCompletion + didClose per task,
  so the server's own plumbing (positions, UTF-16, ranges, settings) is measured too; `--via
  inprocess` calls `Engine.complete` directly (one model, loaded once; what benchmarks use). Both use
  the server's thread rule and give the same completions (tests/test_eval_harness.py checks it).
- One untimed warm-up completion precedes the tasks (the server loads its model after
  `initialized`; the first request would otherwise carry the load in its latency).
- Each task is its own document (its own URI, closed/forgotten afterwards), so the context cache
  never carries over between tasks: a task's completion does not depend on --limit or on task order,
  and latency is the cold-context latency (pessimistic compared with typing in one file).
- Completions are produced one at a time (the model is not re-entrant), while the completed
  programs run concurrently in sandboxed subprocesses (`humaneval.run_program`) from a thread pool of
  --workers threads; the next completion overlaps the previous executions.
- A program that does not even parse cannot pass, so it is recorded as "syntax" without spawning a
  process (exact, not a heuristic: the *program*, not only the document, is parsed). --no-syntax runs
  every program anyway, as a check of that shortcut.
- --no-syntax-aware turns the pipeline's tree-sitter planning and truncation off (Request.syntax /
  the `syntax` setting = false: the plain line rules), to measure what syntax awareness does.
  (Not to be confused with --no-syntax, which is about the harness's own parse shortcut.)
- The harness checks itself: `--baseline truth` inserts the removed line (must score 100%),
  `--baseline empty` inserts nothing (near 0; Bavarian et al. report ~2.6% for single-line).
- `evaluate_effort` is the entry point for benchmarks that sweep efforts: pass an `Engine` once and
  call it per effort; it returns the metrics dict that the CLI prints.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from redraft.engine.settings import EFFORT_NAMES as EFFORT_CHOICES
from redraft.evals.completers import (Attempt, Completer, EmptyBaseline, EngineCompleter, LspCompleter, TruthBaseline)
from redraft.evals.humaneval import (COUNTS, DEFAULT_TIMEOUT_S, ExecResult, InfillTask, document, parses, program,
                        published_layout, run_program, spread, subset_tasks)

__all__ = ["EvalConfig", "Attempt", "TaskRecord", "EvalReport", "run_eval", "evaluate_effort", "summarize",
           "format_table", "main", "make_completer", "EngineCompleter", "LspCompleter"]

SUBSETS = tuple(COUNTS)
LAYOUTS = ("editor", "published")   # a line task's cursor after the indentation, or at column 0


@dataclass
class EvalConfig:
    subset: str = "single-line"
    limit: int | None = None
    model_dir: str | None = None
    effort: str = "low"
    workers: int = 2
    baseline: str | None = None           # None (the model) | "truth" | "empty"
    via: str = "inprocess"                # "inprocess" | "lsp" (the CLI defaults to "lsp")
    timeout_s: float = DEFAULT_TIMEOUT_S  # per program
    max_tokens: int = 32                  # Request.max_tokens (canvas cap for a line)
    syntax_shortcut: bool = True          # record unparsable programs as failed without running them
    threads: int = 0                      # torch threads (0: the server's auto rule, half the cores, at most 4)
    progress: bool = False                # progress lines on stderr
    syntax_aware: bool = True             # Request.syntax: tree-sitter planning/truncation in the pipeline
    precision: str = "auto"               # the model's numerics (model/precision.py)
    gate: str = "always"                  # the server's gate: always scores every draft; auto what an editor shows
    oracle_length: bool = False           # the canvas gets the true line's length (in process only)
    layout: str = "editor"                # line tasks: "editor" (after the indentation) | "published" (column 0)



@dataclass
class TaskRecord:
    task_id: str
    completion: str
    truth: str
    status: str                           # passed | failed | timeout | syntax
    detail: str
    parses: bool                          # the completed document (not the test program) parses
    empty: bool
    forward_passes: int | None
    tokens: int | None
    latency_ms: float | None
    round_trip_ms: float | None = None
    error: str | None = None
    scope: str | None = None              # plan scope (None: a baseline, or an empty LSP answer)


@dataclass
class EvalReport:
    metrics: dict[str, Any]
    records: list[TaskRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "records": [asdict(r) for r in self.records]}


def make_completer(config: EvalConfig, engine: Any = None) -> Completer:
    if config.baseline == "truth":
        return TruthBaseline()
    if config.baseline == "empty":
        return EmptyBaseline()
    if config.baseline is not None:
        raise ValueError(f"unknown baseline {config.baseline!r}")
    if config.oracle_length and config.via != "inprocess":
        raise ValueError("--oracle-length needs --via inprocess (the LSP request does not carry a length)")
    if config.via == "lsp":
        return LspCompleter(config.effort, config.model_dir, max_tokens=config.max_tokens, threads=config.threads,
                            syntax_aware=config.syntax_aware, precision=config.precision, gate=config.gate)
    if config.via != "inprocess":
        raise ValueError(f"unknown --via {config.via!r}")
    if engine is None:
        from redraft.engine.host import auto_threads
        from redraft.engine.pipeline import Engine
        # the server's thread rule (threads 0 = auto), so that both vias measure the same latency
        engine = Engine(config.model_dir, threads=config.threads or auto_threads(), precision=config.precision)
    return EngineCompleter(engine, config.effort, config.max_tokens, config.syntax_aware, config.oracle_length)


# -- the run -----------------------------------------------------------------------------------------

def _done(result: ExecResult) -> Future:
    fut: Future = Future()
    fut.set_result(result)
    return fut


def load_tasks(subset: str = "single-line", limit: int | None = None, layout: str = "editor") -> list[InfillTask]:
    """The subset's tasks (count checked against the published figure), then the --limit spread;
    `layout` "published" puts a line task's cursor at column 0 (humaneval.published_layout)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; choose from {', '.join(LAYOUTS)}")
    tasks = spread(subset_tasks(subset), limit)
    return [published_layout(t) for t in tasks] if layout == "published" else tasks


def run_eval(config: EvalConfig, engine: Any = None, tasks: list[InfillTask] | None = None,
             completer: Completer | None = None) -> EvalReport:
    """Complete every task, run the completed programs in the sandbox, and summarize.
    `tasks` overrides config.subset/limit; `completer` overrides the one the config names (it is
    closed at the end either way)."""
    tasks = load_tasks(config.subset, config.limit, config.layout) if tasks is None else tasks
    completer = make_completer(config, engine) if completer is None else completer
    pending: list[tuple[InfillTask, Attempt, bool, Future]] = []
    try:
        completer.warm_up()
        t0 = time.perf_counter()  # wall time of the tasks, after model load and warm-up
        with ThreadPoolExecutor(max_workers=max(1, config.workers), thread_name_prefix="eval-exec") as pool:
            for i, task in enumerate(tasks):
                att = completer(task)
                doc = att.document if att.document is not None else document(task, att.text)
                prog = program(doc, task)
                if config.syntax_shortcut and not parses(prog):
                    fut = _done(ExecResult("syntax", "the program does not parse"))
                else:
                    fut = pool.submit(run_program, prog, config.timeout_s)
                pending.append((task, att, parses(doc), fut))
                if config.progress and ((i + 1) % 10 == 0 or i + 1 == len(tasks)):
                    print(f"  completed {i + 1}/{len(tasks)}", file=sys.stderr, flush=True)
            records = [_record(task, att, ok, fut.result()) for task, att, ok, fut in pending]
    finally:
        completer.close()
    metrics = summarize(records, config, label=completer.label, wall_s=time.perf_counter() - t0)
    return EvalReport(metrics, records)


def _record(task: InfillTask, att: Attempt, doc_parses: bool, res: ExecResult) -> TaskRecord:
    return TaskRecord(task_id=task.task_id, completion=att.text, truth=task.truth, status=res.status,
                      detail=res.detail, parses=doc_parses, empty=not att.text.strip() and att.document is None,
                      forward_passes=att.forward_passes, tokens=att.tokens,
                      latency_ms=None if att.latency_ms is None else round(att.latency_ms, 2),
                      round_trip_ms=None if att.round_trip_ms is None else round(att.round_trip_ms, 2),
                      error=att.error, scope=att.scope)


def evaluate_effort(effort: str, *, engine: Any = None, limit: int | None = None, model_dir: str | None = None,
                    via: str = "inprocess", workers: int = 2, timeout_s: float = DEFAULT_TIMEOUT_S,
                    max_tokens: int = 32) -> dict[str, Any]:
    """Metrics of the model at one effort (the dict the CLI prints); for benchmarks sweeping efforts.
    Pass the same `engine` for every effort so that the model is loaded once."""
    config = EvalConfig(limit=limit, model_dir=model_dir, effort=effort, workers=workers, via=via,
                        timeout_s=timeout_s, max_tokens=max_tokens)
    return run_eval(config, engine=engine).metrics


# -- metrics -----------------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolation percentile (numpy's default); None for no values."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _round(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(x, nd)


def summarize(records: list[TaskRecord], config: EvalConfig, label: str = "", wall_s: float = 0.0) -> dict[str, Any]:
    """Aggregate metrics. Model figures (passes, tokens, latency) are over the tasks that report them;
    tokens per forward pass is total committed infill tokens / total forward passes."""
    n = len(records)
    n_empty, n_parsed = sum(r.empty for r in records), sum(r.parses for r in records)
    statuses: dict[str, int] = {}
    for r in records:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    passes = [r.forward_passes for r in records if r.forward_passes is not None]
    tokens = [r.tokens for r in records if r.tokens is not None and r.forward_passes is not None]
    lat = [r.latency_ms for r in records if r.latency_ms is not None]
    rtt = [r.round_trip_ms for r in records if r.round_trip_ms is not None]
    model_dir = None
    if config.baseline is None:
        from redraft.model.checkpoint import DEFAULT_DIR
        model_dir = str(Path(config.model_dir).resolve() if config.model_dir else DEFAULT_DIR)
    return {
        "benchmark": "humaneval-infill", "subset": config.subset, "layout": config.layout, "tasks": n,
        "of": COUNTS.get(config.subset),
        "passed": statuses.get("passed", 0),
        "pass@1": _round(statuses.get("passed", 0) / n) if n else None,
        "empty": n_empty, "parsed": n_parsed,
        "empty_share": _round(n_empty / n) if n else None,
        "parse_share": _round(n_parsed / n) if n else None,
        "forward_passes_mean": _round(_mean(passes), 3),
        "tokens_per_forward_pass": _round(sum(tokens) / sum(passes), 3) if passes and sum(passes) else None,
        "latency_ms_p50": _round(percentile(lat, 50), 1), "latency_ms_p95": _round(percentile(lat, 95), 1),
        "round_trip_ms_p50": _round(percentile(rtt, 50), 1), "round_trip_ms_p95": _round(percentile(rtt, 95), 1),
        "statuses": statuses, "completion_errors": sum(r.error is not None for r in records),
        "effort": None if config.baseline else config.effort, "baseline": config.baseline,
        "via": None if config.baseline else config.via, "completer": label, "model_dir": model_dir,
        "syntax_aware": config.syntax_aware, "precision": None if config.baseline else config.precision,
        "limit": config.limit, "workers": config.workers, "timeout_s": config.timeout_s,
        "wall_s": round(wall_s, 1),
    }


def format_table(m: dict[str, Any]) -> str:
    def fmt(v: Any) -> str:
        return "-" if v is None else str(v)

    def pct(k: int) -> str:
        # from the counts, not from the rounded share: 77/1033 = 7.454% is 7.5%, not round(0.0745) = 7.4%
        return f"{100 * k / m['tasks']:.1f}%" if m["tasks"] else "-"

    rows = [
        ("tasks", f"{m['tasks']} of {m['of']}" + (f" ({m['layout']} layout)" if m.get("layout") != "editor" else "")),
        ("pass@1", f"{pct(m['passed'])} ({m['passed']}/{m['tasks']})"),
        ("empty completions", pct(m["empty"])),
        ("document parses", pct(m["parsed"])),
        ("forward passes / task", fmt(m["forward_passes_mean"])),
        ("tokens / forward pass", fmt(m["tokens_per_forward_pass"])),
        ("latency p50 (ms)", fmt(m["latency_ms_p50"])),
        ("latency p95 (ms)", fmt(m["latency_ms_p95"])),
        *([("LSP round trip p50/p95 (ms)", f"{m['round_trip_ms_p50']} / {m['round_trip_ms_p95']}")]
          if m["round_trip_ms_p50"] is not None else []),
        ("outcomes", ", ".join(f"{k} {v}" for k, v in sorted(m["statuses"].items()))),
        ("completer", m["completer"]),
        ("effort", fmt(m["effort"])),
        ("precision", fmt(m.get("precision"))),
        ("syntax-aware pipeline", "on" if m.get("syntax_aware", True) else "off"),
        ("model", fmt(m["model_dir"])),
        ("wall time (s)", fmt(m["wall_s"])),
    ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# -- CLI -------------------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="redraft eval", description="Evaluation harness.")
    sub = ap.add_subparsers(dest="benchmark", required=True)
    he = sub.add_parser("humaneval-infill", help="HumanEval infilling (Bavarian et al. 2022), pass@1",
                        description="HumanEval infilling: single-line (each non-blank line of each canonical "
                                    "solution removed in turn, 1033 tasks), multi-line (every run of lines, 5815) "
                                    "or random-span (10 character spans per problem, 1640); pass@1 of the "
                                    "completion pipeline, empty completions and documents that parse.")
    he.add_argument("--subset", default="single-line", choices=SUBSETS)
    he.add_argument("--layout", default="editor", choices=LAYOUTS,
                    help="line tasks: the cursor after the removed line's indentation (editor, default) or at "
                         "column 0 with the indentation and the last newline in the truth (published)")
    he.add_argument("--limit", type=int, default=None, help="evaluate an evenly spaced sample of N tasks")
    he.add_argument("--model", default=None, help="checkpoint directory (default: the shipped model)")
    he.add_argument("--effort", default="low", choices=EFFORT_CHOICES)
    he.add_argument("--workers", type=int, default=2, help="programs executed in parallel (default 2)")
    he.add_argument("--baseline", choices=("truth", "empty"), default=None,
                    help="harness self-check: insert the true line (must be 100%%) or nothing (near 0)")
    he.add_argument("--via", choices=("inprocess", "lsp"), default="lsp",
                    help="`redraft serve` over stdio (default), or Engine.complete in this process")
    he.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per program (default 10)")
    he.add_argument("--max-tokens", type=int, default=32, help="canvas cap for a line (default 32)")
    he.add_argument("--threads", type=int, default=0, help="torch threads (0: as the server, half the cores, at most 4)")
    he.add_argument("--precision", default="auto", choices=("auto", "fp32", "bf16", "int8"),
                    help="the model's numerics (default auto: bf16 where the CPU has it, else fp32)")
    he.add_argument("--no-syntax", action="store_true",
                    help="execute programs that do not parse too (they are otherwise recorded as failed)")
    he.add_argument("--no-syntax-aware", action="store_true",
                    help="turn the pipeline's tree-sitter planning and truncation off (the plain line rules)")
    he.add_argument("--oracle-length", action="store_true",
                    help="give the canvas the true line's length in tokens (with --via inprocess): how much "
                         "choosing the infill's length costs")
    he.add_argument("--gate", default="always", help="the server's gate (--via lsp): always (default: every draft "
                    "is scored, the model's quality) or auto (what an editor shows by default; withheld = empty)")
    he.add_argument("--out", type=Path, default=None, help="write metrics and per-task records as JSON")
    he.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return ap


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if a.limit is not None and a.limit <= 0:
        print("redraft eval: --limit must be positive", file=sys.stderr)
        return 2
    if a.oracle_length and a.via != "inprocess":
        print("redraft eval: --oracle-length needs --via inprocess (the LSP request does not carry a length)",
              file=sys.stderr)
        return 2
    config = EvalConfig(subset=a.subset, limit=a.limit, model_dir=a.model, effort=a.effort, workers=a.workers,
                        baseline=a.baseline, via=a.via, timeout_s=a.timeout, max_tokens=a.max_tokens,
                        syntax_shortcut=not a.no_syntax, threads=a.threads, progress=not a.quiet,
                        syntax_aware=not a.no_syntax_aware, precision=a.precision, gate=a.gate,
                        oracle_length=a.oracle_length, layout=a.layout)
    tasks = load_tasks(config.subset, None, config.layout)
    print(f"humaneval-infill {config.subset}: {len(tasks)} tasks (published: {COUNTS[config.subset]})"
          + (f"; evaluating an even spread of {min(a.limit, len(tasks))}" if a.limit else ""), file=sys.stderr)
    report = run_eval(config, tasks=spread(tasks, config.limit))
    print(format_table(report.metrics))
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(report.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
