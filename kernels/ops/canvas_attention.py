"""Canvas attention: the canvas's queries over [cached context keys/values | canvas keys/values].

    q (B, H, Tq, hd); k_ctx, v_ctx (B, KVH, Tc, hd), Tc may be 0; k_can, v_can (B, KVH, Tq, hd)
    out = softmax(q k^T * scale) v over all Tc + Tq keys (no mask: the canvas sees everything),
    query head h reads kv head h // (H // KVH) (grouped-query attention); out (B, H, Tq, hd) q.dtype.

Flash-decoding: a canvas is short (tens of queries) and the context long (hundreds to thousands of
keys), so one program per (batch, head, query block) would leave most of the GPU idle. Instead:
  * the query heads of one kv group are packed into the rows of one tile (rows = (g, t) pairs, G*Tq
    of them), so each key/value tile is read once per kv head, not once per query head;
  * the keys are split into S chunks; one program per (batch*kv head, row block, split) runs an
    online softmax over its chunk (base-2 exponentials, running max m, sum l, unnormalized acc)
    and writes partial (m, l, acc); `_canvas_attention_reduce_kernel` rescales and sums the S partials
    (per row: w_s = 2^(m_s - max m), out = sum w_s acc_s / sum w_s l_s).
    With S = 1 the main kernel normalizes and writes the output itself.
  * the two key sources are never concatenated: a key index n < Tc reads the context cache, the
    rest the canvas (each tile issues both loads under complementary masks: masked-off lanes read
    no memory, and only the tile that straddles Tc has lanes in both).
Every split holds at least one key, so the running max is finite after the first tile.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from redraft.kernels._triton import dot_upcast, jit, next_pow2, num_sms, static_trips, tl

LOG2E = 1.4426950408889634


@jit
def _canvas_attention_kernel(
    Q, KC, VC, KN, VN, O, PO, PM, PL,
    Tq, Tc, n_rows, G, KVH, n_splits, chunk, n_tiles, hd, qk_scale,
    sqb, sqh, sqt, sqd,
    skcb, skch, skct, skcd, svcb, svch, svct, svcd,
    sknb, sknh, sknt, sknd, svnb, svnh, svnt, svnd,
    sob, soh, sot, sod,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
    SINGLE: tl.constexpr, UPCAST: tl.constexpr, PREC: tl.constexpr, TILES: tl.constexpr,
):
    bk = tl.program_id(0)  # batch * KVH + kv head
    b = bk // KVH
    kvh = bk % KVH
    split = tl.program_id(2)
    rows = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < n_rows
    head = kvh * G + rows // Tq
    t = rows % Tq
    d = tl.arange(0, BLOCK_D)
    d_ok = d < hd

    q = tl.load(Q + b * sqb + head[:, None] * sqh + t[:, None] * sqt + d[None, :] * sqd,
                mask=row_ok[:, None] & d_ok[None, :], other=0.0)
    if UPCAST:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)

    lo = split * chunk
    hi = tl.minimum(lo + chunk, Tc + Tq)
    kc = KC + b * skcb + kvh * skch
    vc = VC + b * svcb + kvh * svch
    kn = KN + b * sknb + kvh * sknh
    vn = VN + b * svnb + kvh * svnh
    # n_tiles = chunk / BLOCK_N for every split; tiles past the last key are fully masked (the first
    # tile of a split always holds a key, so the running max is finite before any such tile)
    for it in range(TILES if TILES >= 0 else n_tiles):
        n = lo + it * BLOCK_N + tl.arange(0, BLOCK_N)
        in_ctx = n < Tc
        in_can = (n >= Tc) & (n < hi)
        j = n - Tc
        # K^T tile (BLOCK_D, BLOCK_N) and V tile (BLOCK_N, BLOCK_D), each from whichever source holds n
        k = tl.where(in_ctx[None, :],
                     tl.load(kc + n[None, :] * skct + d[:, None] * skcd, mask=d_ok[:, None] & in_ctx[None, :], other=0.0),
                     tl.load(kn + j[None, :] * sknt + d[:, None] * sknd, mask=d_ok[:, None] & in_can[None, :], other=0.0))
        v = tl.where(in_ctx[:, None],
                     tl.load(vc + n[:, None] * svct + d[None, :] * svcd, mask=in_ctx[:, None] & d_ok[None, :], other=0.0),
                     tl.load(vn + j[:, None] * svnt + d[None, :] * svnd, mask=in_can[:, None] & d_ok[None, :], other=0.0))
        if UPCAST:
            k = k.to(tl.float32)
            v = v.to(tl.float32)
        s = tl.dot(q, k, input_precision=PREC) * qk_scale
        s = tl.where((n < hi)[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PREC)
        m_i = m_new

    if SINGLE:
        out = acc / l_i[:, None]
        tl.store(O + b * sob + head[:, None] * soh + t[:, None] * sot + d[None, :] * sod,
                 out.to(O.dtype.element_ty), mask=row_ok[:, None] & d_ok[None, :])
    else:
        base = (bk * n_splits + split) * n_rows + rows  # partials: (B*KVH, S, n_rows[, BLOCK_D])
        tl.store(PM + base, m_i, mask=row_ok)
        tl.store(PL + base, l_i, mask=row_ok)
        tl.store(PO + base[:, None] * BLOCK_D + d[None, :], acc, mask=row_ok[:, None])


@jit
def _canvas_attention_reduce_kernel(
    O, PO, PM, PL,
    Tq, n_rows, G, KVH, n_splits, hd,
    sob, soh, sot, sod,
    BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr, SPLITS: tl.constexpr,
):
    bk = tl.program_id(0)  # batch * KVH + kv head
    rows = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < n_rows
    d = tl.arange(0, BLOCK_D)
    d_ok = d < hd
    m_max = tl.full([BLOCK_R], float("-inf"), tl.float32)
    for sp in range(SPLITS if SPLITS >= 0 else n_splits):
        m_max = tl.maximum(m_max, tl.load(PM + (bk * n_splits + sp) * n_rows + rows, mask=row_ok, other=0.0))
    l_tot = tl.zeros([BLOCK_R], tl.float32)
    acc = tl.zeros([BLOCK_R, BLOCK_D], tl.float32)
    for sp in range(SPLITS if SPLITS >= 0 else n_splits):
        at = (bk * n_splits + sp) * n_rows + rows
        w = tl.exp2(tl.load(PM + at, mask=row_ok, other=0.0) - m_max)
        l_tot += w * tl.load(PL + at, mask=row_ok, other=0.0)
        acc += w[:, None] * tl.load(PO + at[:, None] * BLOCK_D + d[None, :], mask=row_ok[:, None], other=0.0)
    l_tot = tl.where(row_ok, l_tot, 1.0)  # padding rows: avoid 0/0
    b = bk // KVH
    head = (bk % KVH) * G + rows // Tq
    t = rows % Tq
    tl.store(O + b * sob + head[:, None] * soh + t[:, None] * sot + d[None, :] * sod,
             (acc / l_tot[:, None]).to(O.dtype.element_ty), mask=row_ok[:, None] & d_ok[None, :])


def _check(q, k_ctx, v_ctx, k_can, v_can):
    B, H, Tq, hd = q.shape
    if k_ctx.dim() != 4 or k_ctx.shape[0] != B or k_ctx.shape[3] != hd or v_ctx.shape != k_ctx.shape:
        raise ValueError(f"k_ctx/v_ctx {tuple(k_ctx.shape)}/{tuple(v_ctx.shape)} do not fit q {tuple(q.shape)}")
    KVH = k_ctx.shape[1]
    if k_can.shape != (B, KVH, Tq, hd) or v_can.shape != k_can.shape:
        raise ValueError(f"k_can/v_can must be {(B, KVH, Tq, hd)}")
    if H % KVH:
        raise ValueError(f"{H} query heads are not a multiple of {KVH} kv heads")
    return B, H, Tq, hd, KVH, k_ctx.shape[2]


def canvas_attention_triton(q, k_ctx, v_ctx, k_can, v_can, scale: float | None = None, out=None,
                            num_splits: int | None = None, block_m: int | None = None,
                            block_n: int | None = None, num_warps: int = 4):
    """Launcher. num_splits: key splits (default: enough programs for ~2 per SM); block_m / block_n:
    rows (query head x canvas position pairs) and keys per tile; out: optional preallocated output."""
    B, H, Tq, hd, KVH, Tc = _check(q, k_ctx, v_ctx, k_can, v_can)
    G = H // KVH
    dtype = q.dtype
    # one dtype for the dots (the model passes a cache that may be stored wider: cast like the model)
    k_ctx, v_ctx, k_can, v_can = (t if t.dtype == dtype else t.to(dtype) for t in (k_ctx, v_ctx, k_can, v_can))
    if Tc == 0:  # keep valid pointers; no key index reads them
        k_ctx, v_ctx = k_can, v_can
    o = torch.empty((B, H, Tq, hd), dtype=dtype, device=q.device) if out is None else out
    if o.shape != q.shape or o.dtype != dtype:
        raise ValueError("out must have q's shape and dtype")
    if B == 0 or Tq == 0:
        return o
    scale = hd ** -0.5 if scale is None else float(scale)
    n_rows, Tk = G * Tq, Tc + Tq
    BLOCK_D = max(16, next_pow2(hd))
    BLOCK_M = block_m or min(64, max(16, next_pow2(n_rows)))
    BLOCK_N = block_n or (64 if BLOCK_D <= 64 else 32)
    m_blocks = -(-n_rows // BLOCK_M)
    if num_splits is None:
        want = -(-2 * num_sms(q.device) // (B * KVH * m_blocks))
        num_splits = min(want, -(-Tk // BLOCK_N))
    num_splits = max(1, min(int(num_splits), Tk))
    chunk = -(-Tk // num_splits)
    chunk = -(-chunk // BLOCK_N) * BLOCK_N  # whole tiles per split
    S = -(-Tk // chunk)  # every split non-empty
    single = S == 1
    if single:
        po = pm = pl = o  # unused
    else:
        po = torch.empty((B * KVH, S, n_rows, BLOCK_D), dtype=torch.float32, device=q.device)
        pm = torch.empty((B * KVH, S, n_rows), dtype=torch.float32, device=q.device)
        pl = torch.empty_like(pm)
    upcast = dot_upcast()
    prec = "ieee" if dtype == torch.float32 else "tf32"
    _canvas_attention_kernel[(B * KVH, m_blocks, S)](
        q, k_ctx, v_ctx, k_can, v_can, o, po, pm, pl,
        Tq, Tc, n_rows, G, KVH, S, chunk, chunk // BLOCK_N, hd, scale * LOG2E,
        *q.stride(), *k_ctx.stride(), *v_ctx.stride(), *k_can.stride(), *v_can.stride(), *o.stride(),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D, SINGLE=single, UPCAST=upcast, PREC=prec,
        TILES=static_trips(chunk // BLOCK_N), num_warps=num_warps,
    )
    if not single:
        BLOCK_R = min(32, next_pow2(n_rows))
        _canvas_attention_reduce_kernel[(B * KVH, -(-n_rows // BLOCK_R))](
            o, po, pm, pl, Tq, n_rows, G, KVH, S, hd, *o.stride(),
            BLOCK_R=BLOCK_R, BLOCK_D=BLOCK_D, SPLITS=static_trips(S), num_warps=4,
        )
    return o


def canvas_attention_ref(q, k_ctx, v_ctx, k_can, v_can, scale: float | None = None):
    """The model's computation (model/transformer.py Attention): concatenate, then SDPA."""
    B, H, Tq, hd, KVH, Tc = _check(q, k_ctx, v_ctx, k_can, v_can)
    k = torch.cat([k_ctx.to(k_can.dtype), k_can], dim=2)
    v = torch.cat([v_ctx.to(v_can.dtype), v_can], dim=2)
    return F.scaled_dot_product_attention(q, k.to(q.dtype), v.to(q.dtype), scale=scale, enable_gqa=KVH != H)

