"""GPU kernels (kernels/) against the device's measured ceilings, and one denoising step end to end.

    .venv/bin/python bench/kernels.py [--context 512] [--canvas 32] [--no-compile] [--json out.json]

On a CUDA device:
  ceilings   device-to-device copy of 1 GiB (bandwidth, read + write counted) and an 8192^3 bf16
             matmul (FLOP/s), both measured here
  kernels    per kernel at the shapes of one denoising step of a 0.5B-class model with random weights
             (canvas of --canvas positions over a --context token KV cache): median time with a
             cold L2 (a 256 MiB buffer is rewritten before every sample), achieved GB/s and TFLOP/s
             and their share of the ceilings, the max deviation from the torch reference, and the
             reference's time (eager; torch.compile too unless --no-compile)
  step       one canvas forward through all layers + the decision, bf16:
               eager            the model with REDRAFT_KERNELS=torch (the references) + the decision
               torch.compile    the same function compiled (default mode), and mode="reduce-overhead"
               kernels          the model with REDRAFT_KERNELS=triton (it calls kernels.* for norms
                                with their residual adds, rotary, canvas attention) + the fused decision
               kernels+graph    that step captured once in a CUDA graph and replayed
             and the bandwidth roofline of the step (every weight and the KV cache read once)
Timing: CUDA events around each sample, torch.cuda.synchronize, warmup first, median of --iters.

Without CUDA it prints "no CUDA device: GPU figures not measured", runs the references of every
kernel and the kernels' step (reference path) on a tiny model on the CPU as a smoke check
(the step must match the eager model exactly), and exits 0.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from redraft import kernels  # noqa: E402
from redraft.kernels.ops import canvas_attention as attn_op  # noqa: E402
from redraft.kernels.ops import logits_decision as logits_op  # noqa: E402
from redraft.kernels.ops import rms_norm as rms_op  # noqa: E402
from redraft.kernels.ops import rope as rope_op  # noqa: E402
from redraft.model.config import ModelConfig  # noqa: E402
from redraft.model.transformer import Transformer, rope_tables  # noqa: E402

BANNED = [0, 1, 3, 4, 5]  # stand-ins for <mask> and the other special ids the canvas never holds
EOM = 2


def model_config(a) -> ModelConfig:
    return ModelConfig(vocab_size=a.vocab, d_model=a.d_model, n_layers=a.layers, n_heads=a.heads,
                       n_kv_heads=a.kv_heads, ffn_mult=a.ffn_mult, max_seq_len=a.context + a.canvas)


# ------------------------------------------------------------------ the step, both ways

def decision_bias(cfg: ModelConfig, device) -> torch.Tensor:
    bias = torch.zeros(cfg.vocab_size, device=device)
    bias[BANNED] = float("-inf")
    return bias


def step_eager(model: Transformer, canvas, pos, past, bias, row_ban):
    """What the sampler does per step today: forward, LM head in the model dtype, -inf on banned
    ids, pick() at temperature 0 (kernels.logits_decision_ref is that computation)."""
    h, _ = model(canvas, pos, past=past)
    return logits_op.logits_decision_ref(h[0], model.tok_emb.weight, bias, row_ban=row_ban, ban_token=EOM,
                                         eom_token=EOM)


def step_kernels(model: Transformer, canvas, pos, past, bias, row_ban):
    """The same step as the sampler runs it: the model's forward (which calls kernels.* for the
    norms with their residual adds, rotary and canvas attention) and the fused decision. Which
    implementation runs is REDRAFT_KERNELS's choice (kernels/dispatch.py)."""
    h, _ = model(canvas, pos, past=past)
    return kernels.logits_decision(h[0], model.tok_emb.weight, bias, row_ban=row_ban, ban_token=EOM,
                                   eom_token=EOM)


def make_inputs(model: Transformer, context: int, canvas_len: int, device, gen):
    cfg = model.cfg
    ctx = torch.randint(6, cfg.vocab_size, (1, context), generator=gen).to(device)
    with torch.inference_mode():
        _, past = model(ctx, torch.arange(context, device=device)[None],
                        mask=torch.ones(context, context, dtype=torch.bool, device=device).tril()[None, None])
    canvas = torch.randint(6, cfg.vocab_size, (1, canvas_len), generator=gen).to(device)
    canvas[0, ::3] = 0  # some positions still masked, as mid-denoising
    pos = torch.arange(context, context + canvas_len, device=device)[None]
    row_ban = torch.zeros(canvas_len, dtype=torch.bool, device=device)
    row_ban[:4] = True  # min_tokens = 4
    return canvas, pos, past, row_ban


# ------------------------------------------------------------------ CPU smoke check

def cpu_smoke() -> int:
    print("no CUDA device: GPU figures not measured")
    print("smoke check of the references on the CPU (tiny shapes)")
    torch.set_num_threads(1)  # small: this machine may be busy
    os.environ["REDRAFT_KERNELS"] = "torch"
    g = torch.Generator().manual_seed(0)
    t0 = time.perf_counter()
    x, r, w = torch.randn(7, 40, generator=g), torch.randn(7, 40, generator=g), torch.rand(40, generator=g) + 0.5
    y, h = rms_op.rms_norm_ref(x, w, 1e-5, r)
    ok = torch.allclose(h, x + r) and bool(torch.isfinite(y).all())
    q = torch.randn(1, 4, 7, 48, generator=g)
    cos, sin = rope_tables(torch.arange(5, 12)[None], 48, 10000.0)
    ok &= rope_op.rope_ref(q, cos, sin).shape == q.shape
    kc, vc, kn, vn = (torch.randn(1, 2, n, 48, generator=g) for n in (5, 5, 7, 7))
    ok &= attn_op.canvas_attention_ref(q, kc, vc, kn, vn).shape == q.shape
    tok, conf, ent = logits_op.logits_decision_ref(torch.randn(7, 40, generator=g), torch.randn(1000, 40, generator=g),
                                                   entropy=True)
    ok &= bool(((conf > 0) & (conf <= 1)).all()) and bool((ent >= 0).all())
    print(f"  kernels' references: {'ok' if ok else 'FAILED'}")

    cfg = ModelConfig(vocab_size=512, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, max_seq_len=64)
    model = Transformer(cfg).eval()
    canvas, pos, past, row_ban = make_inputs(model, 20, 9, torch.device("cpu"), g)
    bias = decision_bias(cfg, "cpu")
    with torch.inference_mode():
        want = step_eager(model, canvas, pos, past, bias, row_ban)
        got = step_kernels(model, canvas, pos, past, bias, row_ban)
    same = torch.equal(want[0], got[0]) and torch.equal(want[1], got[1])
    print(f"  step through kernels.* (reference path) == the eager model step: {'ok' if same else 'FAILED'}")
    print(f"  ({time.perf_counter() - t0:.1f} s)")
    return 0 if (ok and same) else 1


# ------------------------------------------------------------------ GPU timing

class Timer:
    def __init__(self, device, iters: int, warmup: int, flush_mib: int = 256):
        self.iters, self.warmup = iters, warmup
        self.flush = torch.empty(flush_mib << 20, dtype=torch.uint8, device=device)

    def __call__(self, fn, cold_l2: bool = True) -> float:
        """Median seconds of fn() (one call per sample, CUDA events around it)."""
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.iters):
            if cold_l2:
                self.flush.zero_()  # evicts L2: the step streams every weight, so no kernel sees a warm cache
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1e3)
        return statistics.median(times)


def ceilings(timer: Timer, device) -> tuple[float, float]:
    n = 1 << 30
    src = torch.empty(n, dtype=torch.uint8, device=device).random_(0, 255)
    dst = torch.empty_like(src)
    t = timer(lambda: dst.copy_(src), cold_l2=False)
    bw = 2 * n / t
    del src, dst
    m = 8192
    a = torch.randn(m, m, device=device, dtype=torch.bfloat16)
    b = torch.randn(m, m, device=device, dtype=torch.bfloat16)
    t = timer(lambda: a @ b, cold_l2=False)
    flops = 2 * m ** 3 / t
    del a, b
    torch.cuda.empty_cache()
    return bw, flops


def max_dev(a, b) -> float:
    if isinstance(a, tuple):
        return max(max_dev(x, y) for x, y in zip(a, b) if x is not None)
    return float((a.double() - b.double()).abs().max())


def deviation(got, want) -> str:
    """Kernel vs reference: max |difference|; for a decision, token agreement and max |conf diff|."""
    if isinstance(got, tuple) and got[0].dtype == torch.int64:
        agree = float((got[0] == want[0]).float().mean())
        return f"tok {100 * agree:.0f}% conf {max_dev(got[1], want[1]):.1e}"
    return f"{max_dev(got, want):.2e}"


def bench_kernels(args, cfg, model, inputs, timer, bw, flops, can_compile):
    canvas, pos, past, row_ban = inputs
    dev = canvas.device
    dt = torch.bfloat16
    L, C, d, H, KVH, hd, V = args.canvas, args.context, cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.head_dim, cfg.vocab_size
    g = torch.Generator(device=dev).manual_seed(1)

    def rn(*s, dtype=dt):
        return torch.randn(*s, generator=g, device=dev, dtype=torch.float32).to(dtype)

    x, r, wn = rn(1, L, d), rn(1, L, d), model.blocks[0].attn_norm.weight
    xq = rn(1, L, H, hd).transpose(1, 2)
    cos, sin = rope_tables(pos, hd, cfg.rope_theta)
    q, kn, vn = rn(1, H, L, hd), rn(1, KVH, L, hd), rn(1, KVH, L, hd)
    kc, vc = past[0]
    hs = rn(L, d)
    bias = decision_bias(cfg, dev)
    E = 2  # bytes per bf16 element
    cases = [
        # name, triton fn, reference fn, bytes moved (minimum), flops
        ("rms_norm+residual (L x d)", lambda: rms_op.rms_norm_triton(x, wn, 1e-5, r),
         lambda: rms_op.rms_norm_ref(x, wn, 1e-5, r), 4 * L * d * E + d * 4, 0),
        ("rope q (1,H,L,hd)", lambda: rope_op.rope_triton(xq, cos, sin),
         lambda: rope_op.rope_ref(xq, cos, sin), 2 * H * L * hd * E + L * hd * 4, 0),
        (f"canvas_attention ctx {C} + canvas {L}", lambda: attn_op.canvas_attention_triton(q, kc, vc, kn, vn),
         lambda: attn_op.canvas_attention_ref(q, kc, vc, kn, vn),
         (2 * H * L * hd + 2 * KVH * (C + L) * hd) * E, 4 * H * L * (C + L) * hd),
        (f"logits_decision (L x d) . ({V} x d)^T, norm fused",
         lambda: logits_op.logits_decision_triton(hs, model.tok_emb.weight, bias, model.norm.weight, cfg.norm_eps,
                                                  row_ban, EOM, False, EOM),
         lambda: logits_op.logits_decision_ref(hs, model.tok_emb.weight, bias, model.norm.weight, cfg.norm_eps,
                                               row_ban, EOM, False, EOM),
         V * d * E + L * d * E + V * 4, 2 * L * V * d),
    ]
    rows = []
    print(f"\nkernels (bf16, cold L2, median of {args.iters}); ceilings {bw / 1e9:.0f} GB/s, {flops / 1e12:.0f} TFLOP/s")
    print(f"  {'kernel':52s} {'us':>8s} {'GB/s':>7s} {'%bw':>5s} {'TFLOP/s':>8s} {'%fl':>5s} {'vs reference':>20s}"
          f" {'ref us':>8s} {'compiled':>9s}")
    for name, fn, ref, nbytes, nflops in cases:
        with torch.inference_mode():
            dev_err = deviation(fn(), ref())
            t = timer(fn)
            t_ref = timer(ref)
            t_comp = None
            if can_compile:
                try:
                    comp = torch.compile(ref, dynamic=False)
                    t_comp = timer(comp)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print(f"  (torch.compile of {name}: {type(e).__name__}: {e})")
        row = {"kernel": name, "us": t * 1e6, "GB/s": nbytes / t / 1e9, "pct_bw": 100 * nbytes / t / bw,
               "TFLOP/s": nflops / t / 1e12, "pct_flops": 100 * nflops / t / flops, "vs_ref": dev_err,
               "ref_us": t_ref * 1e6, "compiled_ref_us": None if t_comp is None else t_comp * 1e6}
        rows.append(row)
        comp_s = "-" if t_comp is None else f"{t_comp * 1e6:9.1f}"
        print(f"  {name:52s} {t * 1e6:8.1f} {row['GB/s']:7.0f} {row['pct_bw']:5.1f} {row['TFLOP/s']:8.2f}"
              f" {row['pct_flops']:5.1f} {dev_err:>20s} {t_ref * 1e6:8.1f} {comp_s:>9s}")
    return rows


def bench_step(args, cfg, model, inputs, timer, bw, can_compile):
    canvas, pos, past, row_ban = inputs
    bias = decision_bias(cfg, canvas.device)
    nbytes = cfg.num_params() * 2 + sum(k.numel() + v.numel() for k, v in past) * 2
    roof = nbytes / bw
    print(f"\ndenoising step: canvas {args.canvas} over context {args.context}, {cfg.n_layers} layers, bf16 "
          f"(median of {args.iters}); roofline (weights + KV read once at {bw / 1e9:.0f} GB/s): {roof * 1e6:.0f} us")
    results = {}

    def run(name, fn):
        try:
            with torch.inference_mode():
                t0 = time.perf_counter()
                out = fn()  # first call: compiles / captures
                first = time.perf_counter() - t0
                t = timer(fn, cold_l2=False)
            results[name] = {"us": t * 1e6, "pct_roofline": 100 * roof / t, "first_call_s": first}
            print(f"  {name:28s} {t * 1e6:9.0f} us   {100 * roof / t:5.1f}% of roofline   (first call {first:.1f} s)")
            return out
        except Exception as e:  # noqa: BLE001 - one variant failing must not hide the others
            results[name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"  {name:28s} failed: {type(e).__name__}: {str(e)[:200]}")
            return None

    os.environ["REDRAFT_KERNELS"] = "torch"
    want = run("eager", lambda: step_eager(model, canvas, pos, past, bias, row_ban))
    if can_compile:
        torch._dynamo.reset()
        comp = torch.compile(step_eager, dynamic=False)
        run("torch.compile", lambda: comp(model, canvas, pos, past, bias, row_ban))
        torch._dynamo.reset()
        comp_ro = torch.compile(step_eager, mode="reduce-overhead", dynamic=False)
        run("torch.compile reduce-overhead", lambda: tuple(t.clone() if t is not None else None
                                                           for t in comp_ro(model, canvas, pos, past, bias, row_ban)))
    os.environ["REDRAFT_KERNELS"] = "triton"
    got = run("kernels", lambda: step_kernels(model, canvas, pos, past, bias, row_ban))
    if want is not None and got is not None:
        agree = float((want[0] == got[0]).float().mean())
        results["kernels_token_agreement"] = agree
        print(f"  kernels vs eager: same token at {100 * agree:.0f}% of positions "
              f"(bf16 logits rounding differs), max |conf diff| {max_dev(want[1], got[1]):.2e}")

    # the kernel step in a CUDA graph: static inputs, captured once, replayed
    try:
        with torch.inference_mode():
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    step_kernels(model, canvas, pos, past, bias, row_ban)
            torch.cuda.current_stream().wait_stream(s)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                static_out = step_kernels(model, canvas, pos, past, bias, row_ban)
        run("kernels + CUDA graph", graph.replay)
        if got is not None:
            results["graph_matches_kernels"] = bool(torch.equal(static_out[0], got[0]))
    except Exception as e:  # noqa: BLE001
        results["kernels + CUDA graph"] = {"error": f"{type(e).__name__}: {e}"}
        print(f"  kernels + CUDA graph failed: {type(e).__name__}: {str(e)[:200]}")
    os.environ["REDRAFT_KERNELS"] = "auto"
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--context", type=int, default=512, help="cached context tokens")
    ap.add_argument("--canvas", type=int, default=32, help="canvas positions")
    ap.add_argument("--d-model", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--heads", type=int, default=16)
    ap.add_argument("--kv-heads", type=int, default=4)
    ap.add_argument("--ffn-mult", type=float, default=2.75, help="2.75 x 1024 = 2816")
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile variants")
    ap.add_argument("--json", default=None, help="write the figures here too")
    args = ap.parse_args(argv)

    if not torch.cuda.is_available():
        return cpu_smoke()

    dev = torch.device("cuda")
    try:
        import triton  # noqa: F401
        has_triton = True
    except ImportError:
        has_triton = False
    props = torch.cuda.get_device_properties(dev)
    print(f"device: {props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}"
          + (f", triton {triton.__version__}" if has_triton else ", triton missing: kernel figures skipped"))
    cfg = model_config(args)
    print(f"model: {cfg.num_params() / 1e6:.0f}M parameters (d_model {cfg.d_model}, {cfg.n_layers} layers, "
          f"{cfg.n_heads} heads / {cfg.n_kv_heads} kv heads, head_dim {cfg.head_dim}, ffn {cfg.ffn_dim}, "
          f"vocab {cfg.vocab_size}), random weights, bf16")
    torch.manual_seed(0)
    model = Transformer(cfg).to(dev, torch.bfloat16).eval()
    g = torch.Generator().manual_seed(0)
    inputs = make_inputs(model, args.context, args.canvas, dev, g)
    timer = Timer(dev, args.iters, args.warmup)
    bw, flops = ceilings(timer, dev)
    print(f"ceilings: copy {bw / 1e9:.0f} GB/s (read + write), bf16 matmul {flops / 1e12:.0f} TFLOP/s")
    report = {"device": props.name, "params": cfg.num_params(), "context": args.context, "canvas": args.canvas,
              "ceiling_GBps": bw / 1e9, "ceiling_TFLOPs": flops / 1e12}
    can_compile = not args.no_compile
    if has_triton:
        report["kernels"] = bench_kernels(args, cfg, model, inputs, timer, bw, flops, can_compile)
        report["step"] = bench_step(args, cfg, model, inputs, timer, bw, can_compile)
    else:
        os.environ["REDRAFT_KERNELS"] = "torch"
        with torch.inference_mode():
            bias = decision_bias(cfg, dev)
            t = timer(lambda: step_eager(model, *inputs[:3], bias, inputs[3]), cold_l2=False)
        print(f"eager step: {t * 1e6:.0f} us")
        report["step"] = {"eager": {"us": t * 1e6}}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
