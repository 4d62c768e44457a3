"""`redraft` console script: serve | complete | apply | next-edit | ci | train | eval | demo."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

USAGE = """usage: redraft COMMAND [ARGS]

commands:
  serve      run the language server (stdio; --tcp HOST:PORT)
  complete   FILE LINE COL: print one completion (LINE and COL are 1-based; COL counts characters)
  apply      FILE SNIPPET: apply a lazy edit snippet (`# ... existing code ...`) (redraft apply --help)
  next-edit  FILE --line L --col C [--history DIFF]: print the predicted next edit as JSON
             (LINE and COL are 0-based; COL counts characters) (redraft next-edit --help)
  ci         the CI refactor bot: propagate --base REF | apply FILE=SNIPPET... (redraft ci --help)
  train      train or fine-tune the model (redraft train --help)
  eval       evaluation: humaneval-infill (redraft eval humaneval-infill --help), heldout,
             dev-lines (exact match on held-out functions' lines)
  demo       run the shipped model on a sample file and print completions with latency
  average    OUT CKPT CKPT...: write the (weighted) mean of checkpoints of one architecture to OUT
             (--store int8: matrices in int8, half the size)
"""


def cmd_complete(argv: list[str]) -> int:
    from .pipeline import Engine, Request
    from .settings import EFFORT_NAMES
    ap = argparse.ArgumentParser(prog="redraft complete", description="Print one completion at FILE:LINE:COL.")
    ap.add_argument("file", type=Path)
    ap.add_argument("line", type=int, help="1-based line")
    ap.add_argument("col", type=int, help="1-based column, in characters")
    ap.add_argument("--model", default=None, help="checkpoint directory, or an open-weight model's hub-format "
                    "directory (default: the shipped model)")
    ap.add_argument("--effort", default="low", choices=EFFORT_NAMES)
    ap.add_argument("--json", action="store_true", help="print a JSON record instead of the bare text")
    a = ap.parse_args(argv)
    try:
        text = a.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"redraft complete: cannot read {a.file}: {e}", file=sys.stderr)
        return 2
    lines = text.split("\n")
    if not 1 <= a.line <= len(lines) or not 1 <= a.col <= len(lines[a.line - 1]) + 1:
        print(f"redraft complete: {a.line}:{a.col} is outside {a.file} ({len(lines)} lines)", file=sys.stderr)
        return 2
    offset = sum(len(l) + 1 for l in lines[: a.line - 1]) + a.col - 1
    from model.checkpoint import CheckpointError
    from model.hub import HubError
    try:
        engine = Engine(a.model)
    except (CheckpointError, HubError) as e:
        print(f"redraft complete: cannot load the model: {e}", file=sys.stderr)
        return 2
    comp = engine.complete(Request(text=text, offset=offset, uri=str(a.file), effort=a.effort))
    if a.json:
        print(json.dumps(None if comp is None else {
            "text": comp.text, "scope": comp.plan.scope, "forward_passes": comp.forward_passes,
            "latency_ms": round(comp.latency_ms, 1)}))
    else:
        print("" if comp is None else comp.text)
    return 0


def cmd_average(argv: list[str]) -> int:
    import torch

    from model import checkpoint
    ap = argparse.ArgumentParser(prog="redraft average",
                                 description="Write the weighted mean of checkpoints (same config and tokenizer) to OUT.")
    ap.add_argument("out", type=Path)
    ap.add_argument("checkpoints", nargs="+", type=Path)
    ap.add_argument("--weights", type=float, nargs="+", default=None, help="one per checkpoint (default: equal)")
    ap.add_argument("--store", choices=("same", "bf16", "fp32", "int8"), default="same",
                    help="how OUT stores its weights: as the first checkpoint (same), or int8 matrices with a "
                         "scale per row (half of bf16's size; one checkpoint given: a copy stored so)")
    a = ap.parse_args(argv)
    if a.out.resolve() in {c.resolve() for c in a.checkpoints}:
        print("redraft average: OUT must not be one of the checkpoints", file=sys.stderr)
        return 2
    weights = a.weights or [1.0] * len(a.checkpoints)
    try:
        mean = checkpoint.average(a.checkpoints, weights)
    except checkpoint.CheckpointError as e:
        print(f"redraft average: {e}", file=sys.stderr)
        return 2
    info = {"average_of": [str(c) for c in a.checkpoints], "weights": weights}
    dtype = {"bf16": torch.bfloat16, "fp32": torch.float32, "int8": torch.int8}.get(
        a.store, next(mean.model.parameters()).dtype)
    checkpoint.save(mean.model, mean.tokenizer, a.out, dtype=dtype, extra=info | {"stored": str(dtype)})
    print(f"wrote {a.out}: mean of {len(a.checkpoints)} checkpoints, stored as {dtype}")
    return 0


def cmd_demo(argv: list[str]) -> int:
    from .demo import main as demo_main
    return demo_main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "train":
        from model.train import main as train_main
        train_main(rest)
        return 0
    if cmd == "complete":
        return cmd_complete(rest)
    if cmd == "demo":
        return cmd_demo(rest)
    if cmd == "apply":
        from .apply.cli import main as apply_main
        return apply_main(rest)
    if cmd == "next-edit":
        from .next_edit.cli import main as next_edit_main
        return next_edit_main(rest)
    if cmd == "average":
        return cmd_average(rest)
    if cmd == "ci":
        from .ci.cli import main as ci_main
        return ci_main(rest)
    if cmd == "serve":
        from .server import main as serve_main
        return serve_main(rest) or 0
    if cmd == "eval" and rest[:1] == ["heldout"]:
        from model.train import main_heldout
        return main_heldout(rest[1:])
    if cmd == "eval" and rest[:1] == ["dev-lines"]:
        from .devlines import main as dev_main
        return dev_main(rest[1:])
    if cmd == "eval":
        from .evaluate import main as eval_main
        return eval_main(rest) or 0
    print(f"redraft: unknown command {cmd!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
