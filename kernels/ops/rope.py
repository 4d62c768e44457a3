"""Rotary position embedding, GPT-NeoX convention (model/transformer.py apply_rope).

    x1, x2 = the two halves of the head dim (float32)
    out = cat([x1*cos - x2*sin, x2*cos + x1*sin]) in x.dtype
x (B, H, T, hd) with any strides (q and k come out of the projections as transposed views: the
kernel reads them in place, no .contiguous()); cos/sin (B or 1, 1, T, hd/2) float32. The output is a
new contiguous (B, H, T, hd) tensor.
"""
from __future__ import annotations

import torch

from redraft.kernels._triton import jit, next_pow2, tl


@jit
def _rope_kernel(
    X, COS, SIN, Y,
    n_heads, T, HALF,
    sxb, sxh, sxt, sxd,
    scb, sct, scd, ssb, sst, ssd,
    syb, syh, syt,
    BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr,
):
    bh = tl.program_id(0)
    b = bh // n_heads
    h = bh % n_heads
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    d = tl.arange(0, BLOCK_D)
    ok = (t[:, None] < T) & (d[None, :] < HALF)
    xp = X + b * sxb + h * sxh + t[:, None] * sxt + d[None, :] * sxd
    x1 = tl.load(xp, mask=ok, other=0.0).to(tl.float32)
    x2 = tl.load(xp + HALF * sxd, mask=ok, other=0.0).to(tl.float32)
    c = tl.load(COS + b * scb + t[:, None] * sct + d[None, :] * scd, mask=ok, other=0.0)
    s = tl.load(SIN + b * ssb + t[:, None] * sst + d[None, :] * ssd, mask=ok, other=0.0)
    yp = Y + b * syb + h * syh + t[:, None] * syt + d[None, :]
    tl.store(yp, (x1 * c - x2 * s).to(Y.dtype.element_ty), mask=ok)
    tl.store(yp + HALF, (x2 * c + x1 * s).to(Y.dtype.element_ty), mask=ok)


def rope_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """Launcher. out: optional preallocated contiguous output (x's shape and dtype)."""
    B, H, T, hd = x.shape
    if hd % 2:
        raise ValueError(f"head dim {hd} must be even")
    half = hd // 2
    for name, t in (("cos", cos), ("sin", sin)):
        if t.dim() != 4 or t.shape[1] != 1 or t.shape[2] != T or t.shape[3] != half or t.shape[0] not in (1, B):
            raise ValueError(f"{name} {tuple(t.shape)} must be ({B} or 1, 1, {T}, {half})")
        if t.dtype != torch.float32:
            raise ValueError(f"{name} must be float32")
    y = torch.empty((B, H, T, hd), dtype=x.dtype, device=x.device) if out is None else out
    if not y.is_contiguous() or y.shape != x.shape:
        raise ValueError("out must be contiguous with x's shape")
    if y.numel():
        BLOCK_D = next_pow2(half)
        BLOCK_T = max(1, min(next_pow2(T), 2048 // BLOCK_D, 64))
        cb = cos.stride(0) if cos.shape[0] == B else 0
        sb = sin.stride(0) if sin.shape[0] == B else 0
        grid = (B * H, -(-T // BLOCK_T))
        _rope_kernel[grid](
            x, cos, sin, y, H, T, half,
            *x.stride(),
            cb, cos.stride(2), cos.stride(3), sb, sin.stride(2), sin.stride(3),
            y.stride(0), y.stride(1), y.stride(2),
            BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D, num_warps=4,
        )
    return y


def rope_ref(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.float().chunk(2, dim=-1)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(x.dtype)
