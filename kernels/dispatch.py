"""The one place that chooses between the Triton kernels and the torch references.

REDRAFT_KERNELS (read at every call, so tests and benchmarks can flip it):
  auto   (default) Triton when the tensors are on a CUDA device, triton imports and no gradient is
         needed; the torch reference otherwise (CPU, training)
  triton force the kernels; on CPU only under TRITON_INTERPRET=1 (Triton's interpreter, for tests);
         raises if triton is missing, or if a gradient would be needed (the kernels are forward-only)
  torch  force the references

The references are the model's current computations (see each kernels/ops module), so wiring these
functions into the model changes nothing on CPU.

CUDA graphs (a note for wiring the sampler): the launchers are graph-safe — no host syncs, outputs
and split partials allocated with torch.empty (the graph's private pool during capture), block sizes
and split counts derived from shapes only — so one denoising step (canvas forward + decision) can be
captured once per (context length, canvas length) and replayed; REDRAFT_KERNELS is read at capture
time, not at replay. What stops a capture today is the sampler, not the kernels: `masked.any()`,
`masked.nonzero()` and the int() conversions sync with the host and make shapes data-dependent.
For a graph, run the step over all L canvas positions (the decision costs the same per row; rows that
are already committed are ignored afterwards), keep canvas/positions/KV in static buffers, and do the
commit logic (threshold, <eom> tail) on the device or on the host between replays. The context
length varies per request: pad the cached KV to a few bucket lengths (the padded keys need a -inf
bias, which canvas_attention does not take yet) or capture per length and keep an LRU of graphs.
torch.compile: inside a compiled region every function here takes its reference (checked first, before
the environment is read, so Dynamo traces straight through: `train --compile` is unaffected). To run
the Triton kernels inside a compiled region, register the launchers with torch.library.triton_op.
"""
from __future__ import annotations

import os

import torch

from redraft.kernels._triton import HAS_TRITON, interpret_mode
from redraft.kernels.ops import canvas_attention as _attn
from redraft.kernels.ops import logits_decision as _logits
from redraft.kernels.ops import rms_norm as _rms
from redraft.kernels.ops import rope as _rope

ENV = "REDRAFT_KERNELS"
MODES = ("auto", "triton", "torch")


def mode() -> str:
    m = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if m not in MODES:
        raise ValueError(f"{ENV}={m!r}: expected one of {MODES}")
    return m


def backend(*tensors: torch.Tensor | None) -> str:
    """'triton' or 'torch': what a call with these tensors runs on now. The first tensor is the
    operation's main input (never None)."""
    if torch.compiler.is_compiling():
        # inside torch.compile (train --compile, a compiled sampler): the references, which Dynamo
        # traces and Inductor fuses itself; no environment read, no graph break
        return "torch"
    m = mode()
    if m == "torch" or (m == "auto" and not tensors[0].is_cuda):
        return "torch"  # the CPU path: decided from the first tensor, at the cost of one attribute read
    ts = [t for t in tensors if isinstance(t, torch.Tensor)]
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in ts)
    on_cuda = bool(ts) and all(t.is_cuda for t in ts)
    if m == "auto":
        return "triton" if (HAS_TRITON and on_cuda and not needs_grad) else "torch"
    if not HAS_TRITON:
        raise RuntimeError(f"{ENV}=triton but triton is not installed")
    if needs_grad:
        raise RuntimeError(f"{ENV}=triton: the Triton kernels are forward-only (a gradient is required)")
    if not on_cuda and not interpret_mode():
        raise RuntimeError(f"{ENV}=triton with CPU tensors needs TRITON_INTERPRET=1 (set before the first launch)")
    return "triton"


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float, residual: torch.Tensor | None = None):
    """F.rms_norm(x, (d,), weight, eps) in x.dtype; with residual: h = x + residual -> (rms_norm(h), h).
    A residual of another dtype (under autocast: a bfloat16 branch added to a float32 stream, as in
    training's held-out evaluation on a GPU) is added in the promoted dtype, as `x + residual` is."""
    if residual is not None and residual.dtype != x.dtype:
        dt = torch.promote_types(x.dtype, residual.dtype)
        x, residual = x.to(dt), residual.to(dt)
    if backend(x, weight, residual) == "triton":
        return _rms.rms_norm_triton(x, weight, eps, residual)
    return _rms.rms_norm_ref(x, weight, eps, residual)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x (B, H, T, hd); cos/sin (B, 1, T, hd/2) float32; GPT-NeoX halves; returns x.dtype."""
    if backend(x, cos, sin) == "triton":
        return _rope.rope_triton(x, cos, sin)
    return _rope.rope_ref(x, cos, sin)


def canvas_attention(q: torch.Tensor, k_ctx: torch.Tensor, v_ctx: torch.Tensor, k_can: torch.Tensor,
                     v_can: torch.Tensor, scale: float | None = None) -> torch.Tensor:
    """q (B, H, Tq, hd) over concat(ctx, canvas) keys/values (B, KVH, *, hd), non-causal, GQA."""
    if backend(q, k_ctx, v_ctx, k_can, v_can) == "triton":
        return _attn.canvas_attention_triton(q, k_ctx, v_ctx, k_can, v_can, scale)
    return _attn.canvas_attention_ref(q, k_ctx, v_ctx, k_can, v_can, scale)


def logits_decision(h: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                    norm_weight: torch.Tensor | None = None, eps: float = 1e-6,
                    row_ban: torch.Tensor | None = None, ban_token: int = -1, entropy: bool = False,
                    eom_token: int = -1):
    """-> (token int64 (N,), conf float32 (N,), entropy float32 (N,) or None). eom_token >= 0: the
    sampler's filler rule (that token iff its probability > 1/2, else the argmax of the others)."""
    if backend(h, weight, bias, norm_weight, row_ban) == "triton":
        return _logits.logits_decision_triton(h, weight, bias, norm_weight, eps, row_ban, ban_token, entropy, eom_token)
    return _logits.logits_decision_ref(h, weight, bias, norm_weight, eps, row_ban, ban_token, entropy, eom_token)
