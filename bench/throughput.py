"""Model throughput of the denoising loop: tokens per second on this machine (CPU by default).

    .venv/bin/python bench/throughput.py [--model DIR] [--device cpu|cuda] [--threads 2] [--requests 40]

Runs `redraft.model.sampler.generate` on fill-in-the-middle requests cut from real code (the standard
library's textwrap.py and json/decoder.py: a line is removed, the cursor sits after its indentation), with a
fresh context cache per request (context encoding included in the time). Reports, per effort:
  infill tok/s   committed infill tokens (fillers excluded) per second of wall time
  canvas tok/s   canvas positions settled per second (fillers included: what the model decided)
  step ms        mean wall time of one canvas forward pass (context encoding excluded)
"""
from __future__ import annotations

import argparse
import json
import json.decoder
import statistics
import sys
import textwrap
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.model import checkpoint  # noqa: E402
from redraft.model.sampler import EFFORTS, ContextCache, generate  # noqa: E402


def requests(tok, n: int, ctx_tokens: int = 320):
    out = []
    for src in (Path(textwrap.__file__).read_text(), Path(json.decoder.__file__).read_text()):
        lines = src.split("\n")
        cands = [i for i, l in enumerate(lines) if l.startswith("    ") and len(l.strip()) > 10]
        for i in cands[:: max(1, len(cands) // (n // 2))][: n // 2]:
            indent = len(lines[i]) - len(lines[i].lstrip())
            pre = "\n".join(lines[:i]) + "\n" + lines[i][:indent]
            suf = "\n" + "\n".join(lines[i + 1:])
            out.append((tok.encode(pre[-8 * ctx_tokens:])[-(ctx_tokens - 96):], tok.encode(suf[: 8 * ctx_tokens])[:96]))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--canvas", type=int, default=32)
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    loaded = checkpoint.load(a.model, device=a.device, dtype=torch.bfloat16)
    model, tok = loaded.model, loaded.tokenizer
    reqs = requests(tok, a.requests)
    generate(model, tok, *reqs[0], canvas_len=a.canvas)  # warm-up
    sync = torch.cuda.synchronize if a.device.startswith("cuda") else (lambda: None)
    rows = []
    for effort in EFFORTS:
        infill = canvas = passes = 0
        steps_ms = []
        t0 = time.perf_counter()
        for pre, suf in reqs:
            stamps = []
            res = generate(model, tok, pre, suf, canvas_len=a.canvas, effort=effort, cache=ContextCache(),
                           on_step=lambda _t, _s: (sync(), stamps.append(time.perf_counter())))
            steps_ms += [1000 * (b - a_) for a_, b in zip(stamps, stamps[1:])]
            infill += len(res.token_ids)
            canvas += res.canvas_len
            passes += res.forward_passes
        sync()
        wall = time.perf_counter() - t0
        rows.append({"effort": effort, "requests": len(reqs), "infill_tok_s": round(infill / wall, 1),
                     "canvas_tok_s": round(canvas / wall, 1), "forward_passes_per_request": round(passes / len(reqs), 2),
                     "step_ms": round(statistics.mean(steps_ms), 2) if steps_ms else None,
                     "request_ms": round(1000 * wall / len(reqs), 1)})
        print(json.dumps(rows[-1]), flush=True)
    info = {"device": a.device, "threads": a.threads, "params": sum(p.numel() for p in model.parameters()),
            "canvas": a.canvas, "rows": rows}
    if a.json:
        Path(a.json).write_text(json.dumps(info, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
