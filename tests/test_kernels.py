"""kernels/ops: each Triton launcher and each torch reference against float64 (tests/kernel_helpers.py);
Triton in its CPU interpreter unless TRITON_INTERPRET=0 on a CUDA machine."""

import pytest
import torch

from kernel_helpers import (  # noqa: F401  (sets TRITON_INTERPRET before triton loads)
    DEVICE, DTYPES, dt_id, needs_triton, rnd, nan_like,
    close, rms_norm64, rope64, attention64, logits64, check_decision,
    attn_op, logits_op, rms_op, rope_op,
)

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
