"""CPU latency of one single-line infill vs model shape (sizing a model for the latency target).

    .venv/bin/python bench/model_size.py [--threads 2] [--requests 14] [--context 288] [--typing]
        [--vocab 8192] [--shapes default,accel]

For each shape: a randomly initialised bf16 model with the shipped tokenizer (speed does not depend
on the weights), `generate` at effort low forced to its full 4 forward passes (threshold above 1),
canvas 32, a context of `--context` tokens (70% prefix, 30% suffix, as the server splits it) over
the standard library's textwrap.py. By default it slides by 3 tokens per request, so it is encoded
afresh each time: the cold-context cost (a new file, a jump). `--typing`: the suffix stays and the
prefix grows by one token per request, as while typing, so the cached keys/values are reused.
`--vocab`: the embedding size (a five-language tokenizer has 16384). Prints the median over the
requests after two warm-ups and the ratio to the first shape.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redraft.model import checkpoint  # noqa: E402
from redraft.model.config import PRESETS, ModelConfig  # noqa: E402
from redraft.model.sampler import EFFORTS, ContextCache, generate  # noqa: E402
from redraft.model.transformer import Transformer  # noqa: E402

SHAPES = {
    "default": PRESETS["default"],
    "accel": PRESETS["accel"],
    "d768 L4": ModelConfig(d_model=768, n_layers=4, n_heads=12, n_kv_heads=4),
    "d384 L8": ModelConfig(d_model=384, n_layers=8, n_heads=6, n_kv_heads=6),
    "d512 L8": ModelConfig(d_model=512, n_layers=8, n_heads=8, n_kv_heads=4),
    "d768 L6": ModelConfig(d_model=768, n_layers=6, n_heads=12, n_kv_heads=4),
    "d512 L12": ModelConfig(d_model=512, n_layers=12, n_heads=8, n_kv_heads=4),
    "d1024 L6": ModelConfig(d_model=1024, n_layers=6, n_heads=16, n_kv_heads=4),
    "base": PRESETS["base"],
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--requests", type=int, default=14)
    ap.add_argument("--context", type=int, default=288, help="context tokens, prefix and suffix (default 288)")
    ap.add_argument("--typing", action="store_true", help="the context grows by a token per request (cache reused)")
    ap.add_argument("--vocab", type=int, default=PRESETS["default"].vocab_size)
    ap.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated names from: " + ", ".join(SHAPES))
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    tok = checkpoint.load().tokenizer
    ids = tok.encode(Path(textwrap.__file__).read_text())
    low = replace(EFFORTS["low"], threshold=2.0)  # never settles early: always the full 4 passes
    base_ms = None
    for name in a.shapes.split(","):
        cfg = replace(SHAPES[name], vocab_size=a.vocab, max_seq_len=max(SHAPES[name].max_seq_len, a.context + 64))
        torch.manual_seed(0)
        m = Transformer(cfg).to(torch.bfloat16).eval()
        cache, ts = ContextCache(), []
        n_suf = int(a.context * 0.3)
        n_pre = a.context - n_suf
        for i in range(a.requests):
            if a.typing:   # one window start, the prefix grows by a token, the suffix stays
                at, start, suf_at = 1500 + i, 1500 + a.requests - n_pre, 1500 + a.requests + 40
            else:          # the window slides: encoded afresh
                at = 1500 + 3 * i
                start, suf_at = at - n_pre, at + 40
            t0 = time.perf_counter()
            generate(m, tok, ids[start:at], ids[suf_at:suf_at + n_suf], canvas_len=32, effort=low, cache=cache,
                     min_tokens=1)
            ts.append((time.perf_counter() - t0) * 1000)
        ms = statistics.median(ts[2:])
        base_ms = base_ms or ms
        print(f"{name:10s} {cfg.num_params() / 1e6:6.1f}M params  context {a.context}{' typing' if a.typing else ''}  "
              f"4-pass infill {ms:6.1f} ms  {ms / base_ms:4.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
