"""The parallelism curve: HumanEval single-line infilling pass@1 against forward passes per task,
across effort settings, down to one committed token per forward pass (effort "max", the
autoregressive-like limit of the same model).

    .venv/bin/python bench/parallelism.py [--limit 300] [--model DIR] [--out bench/parallelism.json] [--png bench/parallelism.png]

Completions go through the pipeline in process (the same `Engine.complete` the server calls); the
model loads once for the whole sweep. Uses the eval harness (lsp_server/evals/evaluate.py).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.evals.evaluate import evaluate_effort  # noqa: E402
from redraft.engine.pipeline import Engine  # noqa: E402
from redraft.engine.settings import EFFORT_NAMES  # noqa: E402


def plot(points: list[dict], png: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [p["forward_passes_per_task"] for p in points]
    ys = [100 * p["pass_at_1"] for p in points]
    ax.plot(xs, ys, "o-")
    for i, (p, x, y) in enumerate(zip(points, xs, ys)):
        ax.annotate(p["effort"], (x, y), textcoords="offset points", xytext=(4, 6 if i % 2 else -12), fontsize=8)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())   # 10, not 10^1; minor ticks unlabelled
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks([t for t in (1, 2, 5, 10, 20, 50, 100, 200) if min(xs) / 2 <= t <= max(xs) * 2])
    ax.set_ylim(bottom=0)
    ax.set_xlabel("forward passes per task (mean, log scale)")
    ax.set_ylabel("pass@1 (%)")
    ax.set_title("HumanEval single-line infilling: pass@1 vs forward passes")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=300, help="tasks (an even spread of the 1033)")
    ap.add_argument("--model", default=None)
    ap.add_argument("--efforts", default=",".join(EFFORT_NAMES))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="test-execution subprocesses")
    ap.add_argument("--out", default=str(ROOT / "bench" / "parallelism.json"))
    ap.add_argument("--png", default=str(ROOT / "bench" / "parallelism.png"))
    ap.add_argument("--replot", action="store_true", help="only redraw the PNG from --out")
    a = ap.parse_args(argv)
    if a.replot:
        plot(json.loads(Path(a.out).read_text()), Path(a.png))
        return 0
    engine = Engine(a.model, threads=a.threads)
    points = []
    for effort in a.efforts.split(","):
        m = evaluate_effort(effort, engine=engine, limit=a.limit, workers=a.workers)
        point = {"effort": effort, "tasks": m["tasks"], "pass_at_1": m["pass@1"],
                 "forward_passes_per_task": m["forward_passes_mean"],
                 "tokens_per_forward_pass": m["tokens_per_forward_pass"],
                 "latency_p50_ms": m["latency_ms_p50"], "empty_share": m["empty_share"], "parse_share": m["parse_share"]}
        print(json.dumps(point), flush=True)
        points.append(point)
    Path(a.out).write_text(json.dumps(points, indent=2))
    try:
        plot(points, Path(a.png))
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
