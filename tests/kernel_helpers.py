"""Shared by tests/test_kernels*.py: inputs, poisoned outputs, tolerances and float64 ground truth.

Each Triton launcher and each torch reference is compared against a float64 computation.

Runs the Triton kernels in Triton's CPU interpreter (TRITON_INTERPRET=1, set below before anything
imports triton). On a CUDA machine, `TRITON_INTERPRET=0 pytest tests/test_kernels.py` runs the same
tests compiled, on the GPU. Sizes are tiny: the interpreter runs every program in Python.

Every launcher writes into output buffers the test has filled with NaN (or -1 for token ids), so a
program that skips a row or a column shows up.
"""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from redraft import kernels  # noqa: E402
from redraft.kernels import dispatch  # noqa: E402
from redraft.kernels.ops import canvas_attention as attn_op  # noqa: E402
from redraft.kernels.ops import logits_decision as logits_op  # noqa: E402
from redraft.kernels.ops import rms_norm as rms_op  # noqa: E402
from redraft.kernels.ops import rope as rope_op  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
INTERPRET = os.environ.get("TRITON_INTERPRET", "") not in ("", "0")
DEVICE = "cuda" if (not INTERPRET and torch.cuda.is_available()) else "cpu"
DTYPES = [torch.float32, torch.bfloat16]
# (atol, rtol) for values that went through one rounding to the dtype (bf16: 2^-8 relative)
TOL = {torch.float32: (1e-5, 1e-5), torch.bfloat16: (2e-2, 1.6e-2)}


def dt_id(v):
    return {torch.float32: "f32", torch.bfloat16: "bf16"}.get(v) if isinstance(v, torch.dtype) else None


def needs_triton():
    pytest.importorskip("triton")
    if DEVICE == "cpu" and not INTERPRET:
        pytest.skip("no CUDA device and TRITON_INTERPRET is off")


def rnd(*shape, dtype=torch.float32, scale=1.0, gen=None):
    return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).to(dtype).to(DEVICE)


def nan_like(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device=DEVICE)


def close(got, want64, dtype, what):
    atol, rtol = TOL[dtype]
    got = got.double().cpu()
    want64 = want64.cpu()
    assert not got.isnan().any(), f"{what}: NaN left in the output"
    torch.testing.assert_close(got, want64, atol=atol, rtol=rtol, msg=lambda m: f"{what}: {m}")


# ---------------------------------------------------------------- float64 ground truth

def rms_norm64(x, w, eps):
    x = x.double()
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.double()


def rope64(x, cos, sin):
    x = x.double()
    h = x.shape[-1] // 2
    x1, x2, c, s = x[..., :h], x[..., h:], cos.double(), sin.double()
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)


def attention64(q, k_ctx, v_ctx, k_can, v_can, scale):
    H, KVH = q.shape[1], k_can.shape[1]
    k = torch.cat([k_ctx, k_can], 2).double().repeat_interleave(H // KVH, dim=1)
    v = torch.cat([v_ctx, v_can], 2).double().repeat_interleave(H // KVH, dim=1)
    p = torch.softmax(q.double() @ k.transpose(-1, -2) * scale, -1)
    return p @ v


def logits64(h, w, bias, norm_weight, eps, row_ban, ban_token):
    """float64 logits, on the CPU."""
    h, w = h.cpu(), w.cpu()
    if norm_weight is not None:  # the normalized rows are rounded to h.dtype before the LM head (as the model does)
        h = rms_norm64(h, norm_weight.cpu().to(h.dtype), eps).to(h.dtype)
    z = h.double() @ w.double().t()
    if bias is not None:
        z = z + bias.double().cpu()
    if row_ban is not None and ban_token >= 0:
        row_ban = row_ban.cpu()
        z[:, ban_token] = z[:, ban_token].masked_fill(row_ban, float("-inf"))
    return z


def check_decision(tok, conf, ent, z, entropy, what, tol, eom=-1):
    """Against float64 logits z: tok is an argmax (up to tol: the kernel does not see float64), or
    with eom >= 0 the filler rule (eom iff p[eom] > 1/2, else an argmax of the other ids); conf =
    p[tok]; entropy of p. Returns the rows decided as filler."""
    assert tok.dtype == torch.int64 and conf.dtype == torch.float32
    tok, conf, z = tok.cpu(), conf.double().cpu(), z.cpu()
    N, V = z.shape
    assert ((tok >= 0) & (tok < V)).all(), f"{what}: token out of range {tok}"
    p = torch.softmax(z, -1)
    fill = torch.zeros(N, dtype=torch.bool)
    if eom >= 0:
        p_eom = p[:, eom]
        fill = p_eom > 0.5
        sure = (p_eom - 0.5).abs() > tol  # rows this close to the threshold may go either way
        assert torch.equal((tok == eom)[sure], fill[sure]), f"{what}: filler rule"
        z = z.clone()
        z[:, eom] = float("-inf")  # the content argmax is taken without it
    picked = z.gather(1, tok[:, None]).squeeze(1)
    content = tok != eom if eom >= 0 else torch.ones(N, dtype=torch.bool)
    assert torch.isfinite(picked[content]).all(), f"{what}: picked a banned token"
    assert (picked >= z.max(1).values - tol)[content].all(), f"{what}: not the argmax"
    torch.testing.assert_close(conf, p.gather(1, tok[:, None]).squeeze(1), atol=tol, rtol=tol)
    if entropy:
        assert ent is not None and ent.dtype == torch.float32
        torch.testing.assert_close(ent.double().cpu(), torch.special.entr(p).sum(-1), atol=5 * tol, rtol=tol)
    else:
        assert ent is None
    return fill
