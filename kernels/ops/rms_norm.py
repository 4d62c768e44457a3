"""RMSNorm, optionally fused with the residual add that precedes it.

    y = x / sqrt(mean(x^2) + eps) * weight                       (residual is None)
    h = x + residual;  y = rmsnorm(h)   -> (y, h)                 (fused residual add)

The reference is the model's own computation (model/transformer.py RMSNorm: F.rms_norm with the
weight cast to x.dtype; the residual sum rounded to x.dtype), so the torch path changes nothing.
The kernel reads x (and residual) once, sums in float32, rounds h to x.dtype before normalizing it
(as the unfused model does), takes the weight rounded to x.dtype (as the model does) and multiplies
by it in float32 before the single rounding to x.dtype (F.rms_norm on bf16 rounds twice: after the
normalization and after the weight), so the two agree to about one bf16 ulp.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from redraft.kernels._triton import jit, next_pow2, tl


@jit
def _rms_norm_kernel(
    X, R, W, Y, H,
    n_cols, stride_x, stride_r, stride_y, stride_h, eps,
    BLOCK: tl.constexpr, HAS_RES: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    x = tl.load(X + row * stride_x + cols, mask=ok, other=0.0).to(tl.float32)
    if HAS_RES:
        r = tl.load(R + row * stride_r + cols, mask=ok, other=0.0).to(tl.float32)
        h = (x + r).to(H.dtype.element_ty)
        tl.store(H + row * stride_h + cols, h, mask=ok)
        x = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(W + cols, mask=ok, other=0.0).to(tl.float32)
    tl.store(Y + row * stride_y + cols, (x * rstd * w).to(Y.dtype.element_ty), mask=ok)


def _rows(t: torch.Tensor, d: int) -> torch.Tensor:
    t = t.reshape(-1, d)
    return t if t.stride(-1) == 1 else t.contiguous()


def rms_norm_triton(x: torch.Tensor, weight: torch.Tensor, eps: float, residual: torch.Tensor | None = None,
                    out: torch.Tensor | None = None, residual_out: torch.Tensor | None = None):
    """Launcher. out / residual_out: optional preallocated outputs (x's shape and dtype)."""
    d = x.shape[-1]
    if weight.shape != (d,):
        raise ValueError(f"weight {tuple(weight.shape)} does not match the last dim {d}")
    x2 = _rows(x, d)
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device) if out is None else out  # contiguous, whatever x's strides
    y2 = y.view(-1, d)  # out must be contiguous: view raises otherwise
    if residual is not None:
        if residual.shape != x.shape or residual.dtype != x.dtype:
            raise ValueError("residual must have x's shape and dtype")
        r2 = _rows(residual, d)
        h = torch.empty(x.shape, dtype=x.dtype, device=x.device) if residual_out is None else residual_out
        h2 = h.view(-1, d)
    else:
        r2, h2 = x2, y2  # unused (HAS_RES=False)
    n = x2.shape[0]
    if n:
        BLOCK = next_pow2(d)
        warps = min(16, max(1, BLOCK // 256))
        _rms_norm_kernel[(n,)](
            x2, r2, weight.to(x.dtype).contiguous(), y2, h2,  # as RMSNorm.forward: weight.to(x.dtype)
            d, x2.stride(0), r2.stride(0), y2.stride(0), h2.stride(0), float(eps),
            BLOCK=BLOCK, HAS_RES=residual is not None, num_warps=warps,
        )
    return y if residual is None else (y, h)


def rms_norm_ref(x: torch.Tensor, weight: torch.Tensor, eps: float, residual: torch.Tensor | None = None):
    if residual is None:
        return F.rms_norm(x, (x.shape[-1],), weight.to(x.dtype), eps)
    h = x + residual
    return F.rms_norm(h, (h.shape[-1],), weight.to(h.dtype), eps), h
