"""`redraft average OUT CKPT CKPT... [--weights W...] [--store same|bf16|fp32|int8]`: the (weighted)
mean of checkpoints of one architecture, written to OUT."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    import torch

    from redraft.model import checkpoint
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
