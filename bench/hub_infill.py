"""Single-line infill latency of an open-weight model's shape (issue 26), random weights, through
the engine every front door uses (`Engine.complete`).

    .venv/bin/python bench/hub_infill.py [--shape 0.5b|7b] [--device cpu|cuda] [--precision auto|fp32|bf16]
                                         [--refresh 1,4] [--effort low] [--n 20] [--context 320]

Writes a hub-format directory with the real shape (Qwen2.5-Coder-0.5B: 24 layers, width 896, 14 heads,
2 key/value heads, FFN 4864, vocabulary 151936, tied; 7B: Qwen2.5-Coder-7B's 28 x 3584) as Dream's
config and key names, random bfloat16 weights, and a small byte-level tokenizer (the context is
capped in tokens, so the vocabulary does not change the work). Then completes `--n` line ends of
the standard library's textwrap.py, each after its own prefix and suffix, at each context refresh
interval (1: the exact path, every step a full pass; k: the context's keys/values reused for k-1
steps). Random weights are never confident, so every infill takes the effort's whole step budget:
the step count is the worst case of a real model's. Reports p50 / p95 latency, forward passes, the
context length, the load time and the CPU with its flags."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import torch  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

from bench.latency import pct  # noqa: E402
from hub_helpers import write_tokenizer  # noqa: E402
from redraft.model.precision import cpu_info  # noqa: E402

SHAPES = {
    "0.5b": dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                 num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True),
    "7b": dict(hidden_size=3584, intermediate_size=18944, num_hidden_layers=28, num_attention_heads=28,
               num_key_value_heads=4, vocab_size=152064, tie_word_embeddings=False),
}


def write_model(d: Path, shape: str) -> None:
    """Random weights in Dream's hub layout, written tensor by tensor (never the whole model in float32)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM
    s = SHAPES[shape]
    ids = write_tokenizer(d, "dream")
    (d / "config.json").write_text(json.dumps({
        "model_type": "Dream", "architectures": ["DreamModel"], **s, "rms_norm_eps": 1e-6, "rope_theta": 1e6,
        "max_position_embeddings": 32768, "mask_token_id": ids["<|mask|>"], "eos_token_id": ids["<|endoftext|>"]}))
    with torch.device("meta"):
        shapes = {k: (v.shape, v.dtype) for k, v in Qwen2ForCausalLM(Qwen2Config(**s)).state_dict().items()}
    gen = torch.Generator().manual_seed(0)
    state = {}
    for k, (shp, _) in shapes.items():
        if s["tie_word_embeddings"] and k == "lm_head.weight":
            continue
        t = torch.ones(shp) if k.endswith("norm.weight") else torch.randn(shp, generator=gen) * 0.02
        state[k] = t.to(torch.bfloat16)
    save_file(state, str(d / "model.safetensors"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", default="0.5b", choices=list(SHAPES))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--precision", default="auto")
    ap.add_argument("--refresh", default="1,4")
    ap.add_argument("--effort", default="low")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--context", type=int, default=320)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--dir", help="reuse (or keep) the model directory here")
    a = ap.parse_args()
    from redraft.engine.host import auto_threads
    from redraft.engine.pipeline import Engine, Request

    d = Path(a.dir) if a.dir else Path(tempfile.mkdtemp(prefix="redraft-hub-"))
    d.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not (d / "model.safetensors").exists():
        write_model(d, a.shape)
    written = time.perf_counter() - t0
    t0 = time.perf_counter()
    engine = Engine(str(d), device=a.device, threads=a.threads or auto_threads(), precision=a.precision)
    loaded = time.perf_counter() - t0
    src = (Path(textwrap.__file__)).read_text()
    lines = [i for i, ln in enumerate(src.splitlines(keepends=True)) if len(ln.strip()) > 20][40:]
    starts = [sum(len(x) for x in src.splitlines(keepends=True)[:i]) for i in lines]
    cases = []      # (text with the rest of a line deleted, cursor): the line is being typed
    for s in starts[:: max(1, len(starts) // a.n)][: a.n]:
        end = src.index("\n", s)
        cut = src.rfind(" ", s, s + (end - s) // 2 + 8) + 1
        cases.append((src[:cut] + src[end:], cut))
    out = {"shape": a.shape, "device": engine.device, "precision": engine.precision, "effort": a.effort,
           "threads": torch.get_num_threads(), "cpu": cpu_info().summary(), "write_s": round(written, 1),
           "load_s": round(loaded, 1), "runs": {}}
    for refresh in [int(x) for x in a.refresh.split(",")]:
        req = lambda case: Request(text=case[0], offset=case[1], uri="file:///textwrap.py", effort=a.effort,  # noqa: E731
                                  context_tokens=a.context, language_id="python", context_refresh=refresh)
        t = time.perf_counter()
        engine.complete(req(cases[0]))       # warm-up (the first one also faults the weights in)
        first = (time.perf_counter() - t) * 1000
        ms, passes, ctx, declined = [], [], [], 0
        for case in cases:
            if a.device.startswith("cuda"):
                torch.cuda.synchronize()
            t = time.perf_counter()
            comp = engine.complete(req(case))
            if a.device.startswith("cuda"):
                torch.cuda.synchronize()
            if comp is None:            # the planner declined (no model call): not a latency
                declined += 1
                continue
            ms.append((time.perf_counter() - t) * 1000)
            passes.append(comp.forward_passes)
            ctx.append(comp.context_tokens)
        out["runs"][f"refresh={refresh}"] = {
            "n": len(ms), "declined": declined, "first_ms": round(first), "p50_ms": round(pct(ms, 0.5), 1), "p95_ms": round(pct(ms, 0.95), 1),
            "passes_mean": round(sum(passes) / max(len(passes), 1), 2),
            "context_tokens_mean": round(sum(ctx) / max(len(ctx), 1))}
        print(json.dumps({refresh: out["runs"][f"refresh={refresh}"]}), flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
