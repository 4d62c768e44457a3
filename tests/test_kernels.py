"""kernels/: each Triton launcher and each torch reference against a float64 computation.

Runs the Triton kernels in Triton's CPU interpreter (TRITON_INTERPRET=1, set below before anything
imports triton). On a CUDA machine, `TRITON_INTERPRET=0 pytest tests/test_kernels.py` runs the same
tests compiled, on the GPU. Sizes are tiny: the interpreter runs every program in Python.

Every launcher writes into output buffers the test has filled with NaN (or -1 for token ids), so a
program that skips a row or a column shows up.
"""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import kernels  # noqa: E402
from kernels import dispatch  # noqa: E402
from kernels.ops import canvas_attention as attn_op  # noqa: E402
from kernels.ops import logits_decision as logits_op  # noqa: E402
from kernels.ops import rms_norm as rms_op  # noqa: E402
from kernels.ops import rope as rope_op  # noqa: E402

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


# ---------------------------------------------------------------- RMSNorm (+ residual)

# not the full product: every interpreted launch costs ~0.2 s of fixed overhead
@pytest.mark.parametrize("dtype,d,residual", [
    (torch.float32, 40, True), (torch.bfloat16, 1000, True), (torch.float32, 1000, False), (torch.bfloat16, 40, False),
], ids=dt_id)
def test_rms_norm_triton(dtype, d, residual):
    needs_triton()
    g = torch.Generator().manual_seed(d + 7 * residual)
    x = rnd(2, 3, d, dtype=dtype, scale=3.0, gen=g)
    if not residual:  # a transposed view, like the model's per-head q/k under qk-norm
        x = rnd(3, 2, d, dtype=dtype, scale=3.0, gen=g).transpose(0, 1)
    w = rnd(d, gen=g) + 1.0  # float32 weight, as the model stores it
    r = rnd(2, 3, d, dtype=dtype, gen=g) if residual else None
    y = nan_like(x.shape, dtype)
    h = nan_like(x.shape, dtype) if residual else None
    res = rms_op.rms_norm_triton(x, w, 1e-5, r, out=y, residual_out=h)
    assert rms_op.rms_norm_triton(x, w, 1e-5, r) is not None  # allocating its own outputs works too
    if residual:
        assert res[0] is y and res[1] is h
        hsum = x + r  # x.dtype semantics: the sum is rounded before it is normalized
        close(h, hsum.double(), dtype, "residual sum")
        close(y, rms_norm64(hsum, w, 1e-5), dtype, "rms_norm(x + residual)")
    else:
        assert res is y
        close(y, rms_norm64(x, w, 1e-5), dtype, "rms_norm")


@pytest.mark.parametrize("dtype", DTYPES, ids=dt_id)
def test_rms_norm_ref(dtype):
    g = torch.Generator().manual_seed(1)
    x, r, w = rnd(5, 40, dtype=dtype, gen=g), rnd(5, 40, dtype=dtype, gen=g), rnd(40, gen=g)
    close(rms_op.rms_norm_ref(x, w, 1e-6), rms_norm64(x, w.to(dtype), 1e-6), dtype, "ref")
    y, h = rms_op.rms_norm_ref(x, w, 1e-6, r)
    assert torch.equal(h, x + r)
    close(y, rms_norm64(x + r, w.to(dtype), 1e-6), dtype, "ref with residual")


# ---------------------------------------------------------------- rotary embedding

def rope_inputs(B, H, T, hd, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    # a transposed view, as q/k come out of the projection in the model: (B, T, H, hd) -> (B, H, T, hd)
    x = rnd(B, T, H, hd, dtype=dtype, gen=g).transpose(1, 2)
    pos = torch.randint(0, 400, (B, T), generator=g)
    inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
    ang = pos.float()[..., None] * inv
    return x, ang.cos()[:, None].to(DEVICE), ang.sin()[:, None].to(DEVICE)


@pytest.mark.parametrize("dtype,hd,T", [
    (torch.float32, 64, 1), (torch.bfloat16, 48, 33), (torch.float32, 48, 33), (torch.bfloat16, 64, 7),
], ids=dt_id)
def test_rope_triton(dtype, hd, T):
    needs_triton()
    x, cos, sin = rope_inputs(2, 3, T, hd, dtype, seed=hd + T)
    assert T == 1 or not x.is_contiguous()
    y = nan_like(x.shape, dtype)
    assert rope_op.rope_triton(x, cos, sin, out=y) is y
    close(y, rope64(x, cos, sin), dtype, "rope")


def test_rope_triton_broadcast_tables():
    """cos/sin of batch 1 serve every batch row (stride 0)."""
    needs_triton()
    x, cos, sin = rope_inputs(3, 2, 7, 48, torch.float32, seed=3)
    y = rope_op.rope_triton(x, cos[:1], sin[:1])
    close(y, rope64(x, cos[:1], sin[:1]), torch.float32, "rope, batch-1 tables")


@pytest.mark.parametrize("dtype", DTYPES, ids=dt_id)
def test_rope_ref(dtype):
    x, cos, sin = rope_inputs(2, 3, 7, 48, dtype, seed=5)
    close(rope_op.rope_ref(x, cos, sin), rope64(x, cos, sin), dtype, "rope ref")


# ---------------------------------------------------------------- canvas attention

def attn_inputs(B, H, KVH, Tc, Tq, hd, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    q = rnd(B, H, Tq, hd, dtype=dtype, gen=g, scale=2.0)
    kc, vc = rnd(B, KVH, Tc, hd, dtype=dtype, gen=g, scale=2.0), rnd(B, KVH, Tc, hd, dtype=dtype, gen=g)
    kn, vn = rnd(B, KVH, Tq, hd, dtype=dtype, gen=g, scale=2.0), rnd(B, KVH, Tq, hd, dtype=dtype, gen=g)
    return q, kc, vc, kn, vn


# (B, H, KVH, Tc, Tq, hd, num_splits, block_n): context 0 / 5 / 300, canvas 1 / 7 / 33, GQA groups
# 1 / 2 / 4, head dims 64 and 48 (padded to 64 with masks), one and several key splits, tiles that
# straddle the context/canvas boundary
ATTN_CASES = [
    (1, 2, 2, 0, 1, 64, None, None),
    (2, 4, 2, 5, 7, 48, 2, 16),
    (1, 4, 1, 300, 33, 48, 3, 64),
    (1, 2, 1, 300, 33, 64, 1, 64),
    (1, 2, 2, 5, 33, 64, 4, 16),
]
ATTN_PARAMS = [(torch.float32, c) for c in ATTN_CASES] + [(torch.bfloat16, c) for c in ATTN_CASES[1:4]]


@pytest.mark.parametrize("dtype,case", ATTN_PARAMS,
                         ids=lambda c: "B{}H{}KV{}ctx{}can{}hd{}s{}n{}".format(*c) if isinstance(c, tuple) else dt_id(c))
def test_canvas_attention_triton(dtype, case):
    needs_triton()
    B, H, KVH, Tc, Tq, hd, splits, block_n = case
    q, kc, vc, kn, vn = attn_inputs(B, H, KVH, Tc, Tq, hd, dtype, seed=Tc + Tq + hd)
    o = nan_like(q.shape, dtype)
    assert attn_op.canvas_attention_triton(q, kc, vc, kn, vn, out=o, num_splits=splits, block_n=block_n) is o
    close(o, attention64(q, kc, vc, kn, vn, hd ** -0.5), dtype, f"attention {case}")


def test_canvas_attention_triton_scale_and_strides():
    """An explicit scale, and non-contiguous inputs (q as a transposed view, a sliced context cache)."""
    needs_triton()
    g = torch.Generator().manual_seed(11)
    q = rnd(1, 9, 4, 48, gen=g).transpose(1, 2)  # (1, 4, 9, 48) view
    kc_full, vc_full = rnd(1, 2, 20, 48, gen=g), rnd(1, 2, 20, 48, gen=g)
    kc, vc = kc_full[:, :, :13], vc_full[:, :, :13]  # the sampler slices its cache like this
    kn, vn = rnd(1, 2, 9, 48, gen=g), rnd(1, 2, 9, 48, gen=g)
    o = attn_op.canvas_attention_triton(q, kc, vc, kn, vn, scale=0.3, num_splits=2, block_n=16)
    close(o, attention64(q, kc, vc, kn, vn, 0.3), torch.float32, "attention, strides")


@pytest.mark.parametrize("dtype", DTYPES, ids=dt_id)
def test_canvas_attention_ref(dtype):
    q, kc, vc, kn, vn = attn_inputs(1, 4, 2, 5, 7, 48, dtype, seed=2)
    close(attn_op.canvas_attention_ref(q, kc, vc, kn, vn), attention64(q, kc, vc, kn, vn, 48 ** -0.5), dtype, "ref")
    q, kc, vc, kn, vn = attn_inputs(1, 2, 2, 0, 3, 64, dtype, seed=3)
    close(attn_op.canvas_attention_ref(q, kc, vc, kn, vn), attention64(q, kc, vc, kn, vn, 64 ** -0.5), dtype, "ref, no ctx")


# ---------------------------------------------------------------- logits -> decision

def decision_inputs(N, V, d, dtype, seed, norm, bias, ban, eom):
    g = torch.Generator().manual_seed(seed)
    h = rnd(N, d, dtype=dtype, gen=g, scale=1.5)
    w = rnd(V, d, dtype=dtype, gen=g, scale=d ** -0.25)  # logits of std ~ 2-4: confidences spread out
    nw = (rnd(d, gen=g) * 0.2 + 1.0) if norm else None
    e = V // 3 if eom else -1
    b, rb, bt = None, None, -1
    z = logits64(h, w, None, nw, 1e-6, None, -1)
    if eom:
        z[:, e] = float("-inf")
    top = z.argmax(1)
    if bias:  # ban the unconstrained winner of the first rows, a few fixed ids, the last (padding) ids
        b = rnd(V, gen=g) * 0.5
        b[top[: max(1, N // 2)]] = float("-inf")
        b[[0, 3, V - 1]] = float("-inf")
        z = z + b.double().cpu()
    if eom:  # the filler's logit = log-sum-exp of the rest + delta, delta spread over [-4, 4]: p(eom) ~ sigmoid(delta)
        delta = torch.linspace(-4, 4, N, dtype=torch.float64)[torch.randperm(N, generator=g)]
        want = z.logsumexp(1) + delta - (b[e].double().cpu() if bias else 0.0)
        hn = (rms_norm64(h, nw.to(dtype), 1e-6).to(dtype) if norm else h).double().cpu()  # as logits64 rounds it
        w[e] = torch.linalg.lstsq(hn, want[:, None]).solution[:, 0].to(dtype).to(DEVICE)
    if ban:  # a per-row ban of one token in every other row: the filler (min_tokens), else row 0's winner
        bt = e if eom else int(top[0])
        rb = (torch.arange(N) % 2 == 0).to(DEVICE)
    return h, w, b, nw, rb, bt, e


# (dtype, N, V, d, num_splits, block_m, block_v, norm, bias, ban, entropy, eom): vocab 1000 / 8191,
# canvas rows 1 / 7 / 33, d 40 / 72 (one and two K tiles), a single and a split vocabulary, the fused
# norm, banned ids, a per-row ban, entropy, the filler rule
DECISION_CASES = [
    (torch.float32, 1, 1000, 40, 1, 16, 256, False, False, False, False, False),
    (torch.float32, 7, 1000, 40, 3, 16, 128, True, True, True, True, False),
    (torch.bfloat16, 7, 1000, 40, 3, 16, 128, True, True, True, True, False),
    (torch.float32, 33, 8191, 40, 4, 64, 512, False, True, False, True, False),
    (torch.bfloat16, 33, 8191, 72, 1, 32, 1024, True, False, True, False, True),
    (torch.bfloat16, 7, 8191, 72, None, 16, 512, True, True, True, True, False),
    (torch.float32, 33, 1000, 40, 3, 64, 128, False, True, True, True, True),
    (torch.bfloat16, 33, 1000, 72, 2, 64, 256, True, True, True, True, True),
    (torch.float32, 33, 8191, 40, 5, 32, 512, False, False, False, False, True),
]


@pytest.mark.parametrize("dtype,case", [(c[0], c[1:]) for c in DECISION_CASES],
                         ids=lambda c: "N{}V{}d{}s{}m{}v{}-n{:d}b{:d}r{:d}e{:d}f{:d}".format(*c)
                         if isinstance(c, tuple) else dt_id(c))
def test_logits_decision_triton(dtype, case):
    needs_triton()
    N, V, d, splits, bm, bv, norm, bias, ban, entropy, eom = case
    h, w, b, nw, rb, bt, e = decision_inputs(N, V, d, dtype, N + V + d, norm, bias, ban, eom)
    out = (torch.full((N,), -1, dtype=torch.int64, device=DEVICE), nan_like((N,), torch.float32),
           nan_like((N,), torch.float32) if entropy else None)
    tok, conf, ent = logits_op.logits_decision_triton(h, w, b, nw, 1e-6, rb, bt, entropy, e, out=out,
                                                      num_splits=splits, block_m=bm, block_v=bv)
    assert tok is out[0] and conf is out[1] and ent is out[2]
    z = logits64(h, w, b, nw, 1e-6, rb, bt)
    # bf16 with the fused norm: the normalized rows are rounded to bf16 from float32 in the kernel and
    # from float64 here, and one-ulp flips (2^-8) move a logit by ~1e-3 each
    tol = 1e-4 if dtype == torch.float32 else (1e-2 if norm else 2e-3)
    fill = check_decision(tok, conf, ent, z, entropy, f"decision {case}", tol=tol, eom=e)
    if eom:  # the data exercise both sides of the rule
        assert 0 < int(fill.sum()) < N - int(rb.sum() if ban else 0)
    if ban:
        assert not (tok.cpu()[rb.cpu()] == bt).any()
    if bias:
        assert torch.isfinite(b.cpu()[tok.cpu()]).all()


@pytest.mark.parametrize("dtype", [torch.bfloat16], ids=dt_id)
def test_logits_decision_ties_lowest_index(dtype):
    """Exactly tied maxima (entries in {-1, 0, 1}: every logit is an exact integer) across splits,
    within one tile, and across tiles of one split: the lowest id wins, as with torch.argmax."""
    needs_triton()
    g = torch.Generator().manual_seed(0)
    V, d = 1000, 16
    h = (torch.randint(0, 2, (3, d), generator=g) * 2 - 1).to(dtype)  # +-1: the best logit is d
    w = torch.randint(-1, 2, (V, d), generator=g).to(dtype)
    # 4 splits of 256 ids, tiles of 128: 700 | 900 other splits; 5, 7 one tile; 100 | 200 other tiles
    winners = [[700, 900], [5, 7], [100, 200]]
    for r, ids in enumerate(winners):
        w[ids] = h[r]
    z = h.double() @ w.double().t()
    for r, ids in enumerate(winners):
        assert z[r].max() == d and (z[r] == d).nonzero().squeeze(1).tolist() == ids  # the ties are real
    out = (torch.full((3,), -1, dtype=torch.int64, device=DEVICE), nan_like((3,), torch.float32), None)
    tok, conf, _ = logits_op.logits_decision_triton(h.to(DEVICE), w.to(DEVICE), out=out,
                                                    num_splits=4, block_m=16, block_v=128)
    assert tok.cpu().tolist() == [700, 5, 100] == z.argmax(1).tolist()
    torch.testing.assert_close(conf.double().cpu(), torch.softmax(z, -1).max(1).values, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=dt_id)
@pytest.mark.parametrize("eom", [False, True])
def test_logits_decision_ref(dtype, eom):
    h, w, b, nw, rb, bt, e = decision_inputs(33, 1000, 40, dtype, 3, True, True, True, eom)
    tok, conf, ent = logits_op.logits_decision_ref(h, w, b, nw, 1e-6, rb, bt, True, e)
    # the reference rounds the logits to the dtype (as the model's bf16 matmul does): looser for bf16
    check_decision(tok, conf, ent, logits64(h, w, b, nw, 1e-6, rb, bt), True, "ref",
                   tol=1e-4 if dtype == torch.float32 else 3e-2, eom=e)


# ---------------------------------------------------------------- the references are the model's ops

def test_references_match_the_model_bitwise():
    """Wiring kernels.* into the model must not change its CPU outputs: the references are exactly
    the model's current computations."""
    from model.config import ModelConfig
    from model.sampler import pick
    from model.transformer import RMSNorm, Transformer, apply_rope, rope_tables

    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 5, 64, generator=g).bfloat16()
    r = torch.randn(2, 5, 64, generator=g).bfloat16()
    norm = RMSNorm(64, 1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.rand(64, generator=g) + 0.5)
        assert torch.equal(rms_op.rms_norm_ref(x, norm.weight, 1e-5), norm(x))
        y, hsum = rms_op.rms_norm_ref(x, norm.weight, 1e-5, r)
        assert torch.equal(hsum, r + x) and torch.equal(y, norm(r + x))

    q = torch.randn(2, 7, 4, 48, generator=g).bfloat16().transpose(1, 2)
    cos, sin = rope_tables(torch.arange(3, 10)[None].expand(2, 7), 48, 10000.0)
    assert torch.equal(rope_op.rope_ref(q, cos, sin), apply_rope(q, cos, sin))

    cfg = ModelConfig(vocab_size=300, d_model=64, n_layers=1, n_heads=4, n_kv_heads=2, max_seq_len=64)
    model = Transformer(cfg).eval()
    with torch.no_grad():
        toks = torch.randint(0, 300, (1, 12), generator=g)
        _, kv = model(toks[:, :8], torch.arange(8)[None])
        h, new = model(toks[:, 8:], torch.arange(8, 12)[None], past=kv)
        # layer 0's attention output, recomputed with the reference from the model's own q/k/v
        att = model.blocks[0].attn
        xin = model.blocks[0].attn_norm(model.tok_emb(toks[:, 8:]))
        qq = att.q_norm(att.wq(xin).view(1, 4, 4, 16).transpose(1, 2))
        c2, s2 = rope_tables(torch.arange(8, 12)[None], 16, cfg.rope_theta)
        qq = apply_rope(qq, c2, s2)
        yref = attn_op.canvas_attention_ref(qq, kv[0][0], kv[0][1], new[0][0], new[0][1])
        ymodel = F.scaled_dot_product_attention(qq, torch.cat([kv[0][0], new[0][0]], 2),
                                                torch.cat([kv[0][1], new[0][1]], 2), enable_gqa=True)
        assert torch.equal(yref, ymodel)

        logits = model.logits(h[0]).float()
        bias = torch.zeros(300)
        bias[[1, 2]] = float("-inf")
        logits[:, [1, 2]] = float("-inf")
        row_ban = torch.tensor([True, False, True, False])
        logits[row_ban, 7] = float("-inf")  # the sampler's min_tokens ban of <eom> (here id 7)
        tok, conf, _ = logits_op.logits_decision_ref(h[0], model.tok_emb.weight, bias, row_ban=row_ban,
                                                     ban_token=7, eom_token=7)
        want_tok, want_conf = pick(logits, 7, 0.0, None)
        assert torch.equal(tok, want_tok) and torch.equal(conf, want_conf)


# ---------------------------------------------------------------- dispatch

@pytest.fixture
def spy(monkeypatch):
    """Replace every Triton launcher with a recorder that calls the reference instead."""
    calls = []
    for mod, name, ref in ((rms_op, "rms_norm_triton", "rms_norm_ref"), (rope_op, "rope_triton", "rope_ref"),
                           (attn_op, "canvas_attention_triton", "canvas_attention_ref"),
                           (logits_op, "logits_decision_triton", "logits_decision_ref")):
        def fake(*a, _name=name, _ref=getattr(mod, ref), **k):
            calls.append(_name)
            return _ref(*a, **k)
        monkeypatch.setattr(mod, name, fake)
    return calls


def all_inputs():
    g = torch.Generator().manual_seed(0)
    ang = torch.arange(3.0)[None, None, :, None] * torch.ones(8)
    return (torch.randn(3, 40, generator=g), torch.rand(40, generator=g) + 0.5, torch.randn(1, 2, 3, 16, generator=g),
            ang.cos(), ang.sin(), *(torch.randn(1, 1, n, 16, generator=g) for n in (2, 2, 3, 3)),
            torch.randn(50, 40, generator=g))


def call_all_values(x, w, q, cos, sin, kc, vc, kn, vn, emb):
    """Every public function once (CPU tensors)."""
    y1 = kernels.rms_norm(x, w, 1e-5)
    y2, h = kernels.rms_norm(x, w, 1e-5, residual=x)
    r = kernels.rope(q, cos, sin)
    a = kernels.canvas_attention(q, kc, vc, kn, vn)
    tok, conf, _ = kernels.logits_decision(x, emb, eom_token=7)
    return y1, y2, h, r, a, tok, conf


def call_all():
    call_all_values(*all_inputs())


def test_dispatch_torch_forces_reference(monkeypatch, spy):
    monkeypatch.setenv("REDRAFT_KERNELS", "torch")
    assert kernels.mode() == "torch" and kernels.backend(torch.zeros(1)) == "torch"
    call_all()
    assert spy == []


def test_dispatch_auto_uses_reference_on_cpu(monkeypatch, spy):
    monkeypatch.delenv("REDRAFT_KERNELS", raising=False)
    assert kernels.mode() == "auto" and kernels.backend(torch.zeros(1)) == "torch"
    call_all()
    assert spy == []


def test_dispatch_triton_forces_kernels(monkeypatch, spy):
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert kernels.backend(torch.zeros(1)) == "triton"
    call_all()
    assert spy == ["rms_norm_triton", "rms_norm_triton", "rope_triton", "canvas_attention_triton",
                   "logits_decision_triton"]


def test_dispatch_triton_runs_the_kernel(monkeypatch):
    """Forced through the public API (no spy), the kernel runs and agrees with float64."""
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    x = torch.randn(3, 24)
    close(kernels.rms_norm(x, torch.ones(24), 1e-5), rms_norm64(x, torch.ones(24), 1e-5), torch.float32, "dispatched")


def test_dispatch_refusals(monkeypatch):
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "bogus")
    with pytest.raises(ValueError):
        kernels.backend(torch.zeros(1))
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET"):
        kernels.backend(torch.zeros(1))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with pytest.raises(RuntimeError, match="forward-only"):
        kernels.backend(torch.zeros(1, requires_grad=True))
    monkeypatch.setenv("REDRAFT_KERNELS", "auto")  # auto falls back to the reference for training
    assert dispatch.backend(torch.zeros(1, requires_grad=True)) == "torch"


def test_dispatch_traces_under_torch_compile(monkeypatch, spy):
    """Inside torch.compile the references run and Dynamo traces them without a graph break (the
    model is compiled for training), even with REDRAFT_KERNELS=triton."""
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    inputs = all_inputs()
    torch._dynamo.reset()
    try:
        got = torch.compile(call_all_values, backend="eager", fullgraph=True)(*inputs)
    finally:
        torch._dynamo.reset()
    assert spy == []
    want = call_all_values(*inputs)  # outside a compiled region the (spied) launchers are called
    assert len(spy) == 5
    for a, b in zip(got, want):
        assert torch.equal(a, b)


def test_package_imports_without_triton():
    """The references need torch only: hide triton and use the package."""
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'triton' or name.startswith('triton.'):\n"
        "            raise ImportError('hidden')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import torch, kernels\n"
        "from kernels import _triton\n"
        "assert not _triton.HAS_TRITON\n"
        "y = kernels.rms_norm(torch.randn(2, 8), torch.ones(8), 1e-5)\n"
        "t, c, e = kernels.logits_decision(torch.randn(2, 8), torch.randn(10, 8), entropy=True)\n"
        "assert y.shape == (2, 8) and t.shape == (2,) and e.shape == (2,)\n"
        "import os; os.environ['REDRAFT_KERNELS'] = 'triton'\n"
        "try:\n"
        "    kernels.rms_norm(torch.randn(2, 8), torch.ones(8), 1e-5)\n"
        "except RuntimeError as err:\n"
        "    assert 'not installed' in str(err)\n"
        "else:\n"
        "    raise SystemExit('forced triton without triton did not raise')\n"
        "print('ok')\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("REDRAFT_KERNELS", None)
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]
