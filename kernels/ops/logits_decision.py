"""Logits to decision: per canvas position the chosen token, its probability and optionally the entropy.

    [h = rmsnorm(h) * norm_weight]          (optional fused final norm)
    logits = h @ weight.T (+ bias)          weight (V, d) = the tied embedding; bias (V,) float32,
                                            -inf on ids the canvas may never hold (<mask>, specials)
    logits[row, ban_token] = -inf where row_ban[row]   (e.g. no <eom> in the first min_tokens slots)
    p = softmax(logits) over the allowed ids (float32); entropy = -sum p log p
    eom_token < 0:  token = argmax p, conf = p[token]
    eom_token >= 0: the sampler's filler rule (model/sampler.py pick at temperature 0): token =
                    eom_token if p[eom_token] > 1/2, else the argmax over the other ids; conf = p[token]

The kernel never materializes the (N, V) logits or probabilities: each program multiplies a block
of rows by a chunk of the vocabulary, tile by tile (BLOCK_V ids x BLOCK_K of d at a time, float32
accumulation), and keeps per row an online softmax over the tiles it has seen:
    m  running max logit                  s  sum exp(l - m)       t  sum exp(l - m) * (l - m)
    c  running max logit among the candidates (all ids, or all but eom_token)   idx  its first index
    e  the logit of eom_token (-inf until its tile is seen)
When m grows by delta: s *= exp(-delta), t = exp(-delta) * (t - delta * s_old). At the end
p[idx] = exp(c - m) / s, p[eom] = exp(e - m) / s, entropy = log s - t / s. The vocabulary is split
over S programs per row block (flash-decoding: a canvas of 32 rows is one row block, so the split is
what fills the GPU); `_logits_decision_reduce_kernel` merges the S partials.

Ties: the lowest id among equal maximal logits wins (within a tile by tl.max's left tie-break,
across tiles because a later tile must be strictly larger, across splits by taking the minimum id).
torch.argmax also returns the first maximum; the reference applies it to the probabilities, as the
sampler does, so the two can differ only where two logits differ by less than float32 softmax
resolution. A row whose every id is banned is undefined.

Numerics vs the reference: the kernel does not round the logits to h.dtype (the model's
`h @ W.T` in bf16 does) — it is the more accurate of the two.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from redraft.kernels._triton import dot_upcast, jit, next_pow2, num_sms, static_trips, tl

@jit
def _logits_decision_kernel(
    Hs, W, BIAS, NW, RBAN, TOK, CONF, ENT, PM, PS, PT, PC, PI, PE,
    N, V, D, ban_token, eom_token, eps, chunk, n_splits, k_tiles, v_tiles,
    shn, shd, swv, swd,
    BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr, BLOCK_K: tl.constexpr,
    HAS_BIAS: tl.constexpr, HAS_NORM: tl.constexpr, HAS_BAN: tl.constexpr, HAS_EOM: tl.constexpr,
    ENTROPY: tl.constexpr, SINGLE: tl.constexpr, UPCAST: tl.constexpr, PREC: tl.constexpr,
    K_TILES: tl.constexpr, V_TILES: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    split = tl.program_id(1)
    row_ok = rows < N
    kk = tl.arange(0, BLOCK_K)
    if HAS_NORM:
        ss = tl.zeros([BLOCK_M], tl.float32)
        for kt in range(K_TILES if K_TILES >= 0 else k_tiles):
            k = kt * BLOCK_K + kk
            x = tl.load(Hs + rows[:, None] * shn + k[None, :] * shd,
                        mask=row_ok[:, None] & (k < D)[None, :], other=0.0).to(tl.float32)
            ss += tl.sum(x * x, axis=1)
        rstd = tl.rsqrt(ss / D + eps)
    if HAS_BAN:
        banned = tl.load(RBAN + rows, mask=row_ok, other=0) != 0

    # a finite "nothing seen yet" keeps exp(m_old - m_new) defined when a whole tile is -inf
    m_i = tl.full([BLOCK_M], -1.0e30, tl.float32)
    s_i = tl.zeros([BLOCK_M], tl.float32)
    t_i = tl.zeros([BLOCK_M], tl.float32)
    c_i = tl.full([BLOCK_M], -1.0e30, tl.float32)
    e_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    idx = tl.zeros([BLOCK_M], tl.int32)
    lo = split * chunk
    hi = tl.minimum(lo + chunk, V)
    for vt in range(V_TILES if V_TILES >= 0 else v_tiles):  # chunk / BLOCK_V tiles in every split
        v0 = lo + vt * BLOCK_V
        cols = v0 + tl.arange(0, BLOCK_V)
        col_ok = cols < hi
        acc = tl.zeros([BLOCK_M, BLOCK_V], tl.float32)
        for kt in range(K_TILES if K_TILES >= 0 else k_tiles):
            k = kt * BLOCK_K + kk
            k_ok = k < D
            x = tl.load(Hs + rows[:, None] * shn + k[None, :] * shd, mask=row_ok[:, None] & k_ok[None, :], other=0.0)
            if HAS_NORM:
                nw = tl.load(NW + k, mask=k_ok, other=0.0).to(tl.float32)
                x = (x.to(tl.float32) * rstd[:, None] * nw[None, :]).to(Hs.dtype.element_ty)
            w = tl.load(W + cols[None, :] * swv + k[:, None] * swd, mask=k_ok[:, None] & col_ok[None, :], other=0.0)
            if UPCAST:
                x = x.to(tl.float32)
                w = w.to(tl.float32)
            acc += tl.dot(x, w, input_precision=PREC)
        logit = acc
        if HAS_BIAS:
            logit += tl.load(BIAS + cols, mask=col_ok, other=0.0)[None, :]
        if HAS_BAN:
            logit = tl.where(banned[:, None] & (cols == ban_token)[None, :], float("-inf"), logit)
        logit = tl.where(col_ok[None, :], logit, float("-inf"))
        if HAS_EOM:
            is_eom = (cols == eom_token)[None, :]
            e_i = tl.maximum(e_i, tl.max(tl.where(is_eom, logit, float("-inf")), axis=1))
            cmax, carg = tl.max(tl.where(is_eom, float("-inf"), logit), axis=1,
                                return_indices=True, return_indices_tie_break_left=True)
            tmax = tl.max(logit, axis=1)
        else:
            cmax, carg = tl.max(logit, axis=1, return_indices=True, return_indices_tie_break_left=True)
            tmax = cmax
        idx = tl.where(cmax > c_i, v0 + carg, idx)
        c_i = tl.maximum(c_i, cmax)
        m_new = tl.maximum(m_i, tmax)
        alpha = tl.exp(m_i - m_new)
        u = logit - m_new[:, None]
        p = tl.exp(u)
        if ENTROPY:
            t_i = alpha * (t_i - (m_new - m_i) * s_i) + tl.sum(p * tl.where(p > 0.0, u, 0.0), axis=1)  # p log p -> 0 at p = 0
        s_i = s_i * alpha + tl.sum(p, axis=1)
        m_i = m_new

    if SINGLE:
        p_c = tl.exp(c_i - m_i) / s_i
        if HAS_EOM:
            p_e = tl.exp(e_i - m_i) / s_i
            fill = p_e > 0.5
            tl.store(TOK + rows, tl.where(fill, eom_token, idx).to(tl.int64), mask=row_ok)
            tl.store(CONF + rows, tl.where(fill, p_e, p_c), mask=row_ok)
        else:
            tl.store(TOK + rows, idx.to(tl.int64), mask=row_ok)
            tl.store(CONF + rows, p_c, mask=row_ok)
        if ENTROPY:
            tl.store(ENT + rows, tl.log(s_i) - t_i / s_i, mask=row_ok)
    else:
        base = split * N + rows  # partials (S, N)
        tl.store(PM + base, m_i, mask=row_ok)
        tl.store(PS + base, s_i, mask=row_ok)
        tl.store(PC + base, c_i, mask=row_ok)
        tl.store(PI + base, idx, mask=row_ok)
        if HAS_EOM:
            tl.store(PE + base, e_i, mask=row_ok)
        if ENTROPY:
            tl.store(PT + base, t_i, mask=row_ok)


@jit
def _logits_decision_reduce_kernel(
    TOK, CONF, ENT, PM, PS, PT, PC, PI, PE, N, n_splits, eom_token,
    BLOCK_R: tl.constexpr, BLOCK_S: tl.constexpr, HAS_EOM: tl.constexpr, ENTROPY: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < N
    sp = tl.arange(0, BLOCK_S)
    ok = (sp < n_splits)[:, None] & row_ok[None, :]
    at = sp[:, None] * N + rows[None, :]
    m = tl.load(PM + at, mask=ok, other=-1.0e30)  # finite: padding rows stay NaN-free
    s = tl.load(PS + at, mask=ok, other=0.0)
    c = tl.load(PC + at, mask=ok, other=-1.0e30)
    i = tl.load(PI + at, mask=ok, other=0)
    m_max = tl.max(m, axis=0)
    w = tl.exp(m - m_max[None, :])  # padding splits carry s = t = 0
    s_tot = tl.where(row_ok, tl.sum(w * s, axis=0), 1.0)
    c_max = tl.max(c, axis=0)
    # splits are in vocabulary order and each keeps its first maximum: the smallest id wins ties
    idx = tl.min(tl.where(ok & (c == c_max[None, :]), i, 2147483647), axis=0)
    p_c = tl.exp(c_max - m_max) / s_tot
    if HAS_EOM:
        e = tl.max(tl.load(PE + at, mask=ok, other=float("-inf")), axis=0)  # -inf but in eom's split
        p_e = tl.exp(e - m_max) / s_tot
        fill = p_e > 0.5
        tl.store(TOK + rows, tl.where(fill, eom_token, idx).to(tl.int64), mask=row_ok)
        tl.store(CONF + rows, tl.where(fill, p_e, p_c), mask=row_ok)
    else:
        tl.store(TOK + rows, idx.to(tl.int64), mask=row_ok)
        tl.store(CONF + rows, p_c, mask=row_ok)
    if ENTROPY:
        t = tl.load(PT + at, mask=ok, other=0.0)
        t_tot = tl.sum(tl.where(ok, w * (t + (m - m_max[None, :]) * s), 0.0), axis=0)
        tl.store(ENT + rows, tl.log(s_tot) - t_tot / s_tot, mask=row_ok)


def _check(h, weight, bias, norm_weight, row_ban, ban_token, eom_token):
    if h.dim() != 2 or weight.dim() != 2 or h.shape[1] != weight.shape[1]:
        raise ValueError(f"h {tuple(h.shape)} and weight {tuple(weight.shape)} must be (N, d) and (V, d)")
    N, V = h.shape[0], weight.shape[0]
    if bias is not None and (bias.shape != (V,) or bias.dtype != torch.float32):
        raise ValueError("bias must be float32 of shape (V,)")
    if norm_weight is not None and norm_weight.shape != (h.shape[1],):
        raise ValueError("norm_weight must be (d,)")
    if row_ban is not None and (row_ban.shape != (N,) or row_ban.dtype != torch.bool):
        raise ValueError("row_ban must be bool of shape (N,)")
    if V == 0:
        raise ValueError("empty vocabulary")
    for name, t in (("ban_token", ban_token), ("eom_token", eom_token)):
        if t >= V:
            raise ValueError(f"{name} {t} is outside the vocabulary ({V})")
    return N, V, h.shape[1]


def logits_decision_triton(h, weight, bias=None, norm_weight=None, eps: float = 1e-6, row_ban=None,
                           ban_token: int = -1, entropy: bool = False, eom_token: int = -1, out=None,
                           num_splits: int | None = None, block_m: int | None = None, block_v: int | None = None,
                           block_k: int | None = None, num_warps: int = 4):
    """Launcher. out: optional preallocated (token int64 (N,), conf float32 (N,), entropy float32 (N,)
    or None); num_splits / block_*: tiling (defaults: about 2 programs per SM)."""
    N, V, D = _check(h, weight, bias, norm_weight, row_ban, ban_token, eom_token)
    dev = h.device
    if weight.dtype != h.dtype:
        weight = weight.to(h.dtype)  # the model's `weight.to(h.dtype)`; store them alike to avoid this copy
    if norm_weight is not None:
        norm_weight = norm_weight.to(h.dtype).contiguous()  # as RMSNorm.forward: weight.to(x.dtype)
    if out is None:
        tok = torch.empty(N, dtype=torch.int64, device=dev)
        conf = torch.empty(N, dtype=torch.float32, device=dev)
        ent = torch.empty(N, dtype=torch.float32, device=dev) if entropy else None
    else:
        tok, conf, ent = out
        if entropy and ent is None:
            raise ValueError("entropy=True needs an entropy buffer in out")
    if N == 0:
        return tok, conf, (ent if entropy else None)
    BLOCK_M = block_m or min(64, max(16, next_pow2(N)))
    BLOCK_V = block_v or (64 if dev.type == "cuda" else 256)  # bigger tiles: fewer interpreter steps
    BLOCK_K = block_k or min(64, max(16, next_pow2(D)))
    m_blocks = -(-N // BLOCK_M)
    k_tiles = -(-D // BLOCK_K)
    if num_splits is None:
        num_splits = -(-2 * num_sms(dev) // m_blocks)
    num_splits = max(1, min(int(num_splits), -(-V // BLOCK_V)))
    chunk = -(-V // num_splits)
    chunk = -(-chunk // BLOCK_V) * BLOCK_V  # whole tiles per split
    S = -(-V // chunk)  # every split non-empty
    single = S == 1
    has_ban = row_ban is not None and ban_token >= 0
    has_eom = eom_token >= 0
    ent_buf = ent if entropy else conf  # placeholders below are never read (constexpr flags)
    if single:
        pm = ps = pt = pc = pe = conf
        pi = tok
    else:
        pm, ps, pc = (torch.empty((S, N), dtype=torch.float32, device=dev) for _ in range(3))
        pt = torch.empty_like(pm) if entropy else pm
        pe = torch.empty_like(pm) if has_eom else pm
        pi = torch.empty((S, N), dtype=torch.int32, device=dev)
    _logits_decision_kernel[(m_blocks, S)](
        h, weight, bias if bias is not None else conf, norm_weight if norm_weight is not None else conf,
        row_ban.view(torch.uint8) if has_ban else conf,
        tok, conf, ent_buf, pm, ps, pt, pc, pi, pe,
        N, V, D, int(ban_token), int(eom_token), float(eps), chunk, S, k_tiles, chunk // BLOCK_V,
        h.stride(0), h.stride(1), weight.stride(0), weight.stride(1),
        BLOCK_M=BLOCK_M, BLOCK_V=BLOCK_V, BLOCK_K=BLOCK_K,
        HAS_BIAS=bias is not None, HAS_NORM=norm_weight is not None, HAS_BAN=has_ban, HAS_EOM=has_eom,
        ENTROPY=bool(entropy), SINGLE=single, UPCAST=dot_upcast(),
        PREC="ieee" if h.dtype == torch.float32 else "tf32",
        K_TILES=static_trips(k_tiles), V_TILES=static_trips(chunk // BLOCK_V), num_warps=num_warps,
    )
    if not single:
        BLOCK_R = min(64, next_pow2(N))
        _logits_decision_reduce_kernel[(-(-N // BLOCK_R),)](
            tok, conf, ent_buf, pm, ps, pt, pc, pi, pe, N, S, int(eom_token),
            BLOCK_R=BLOCK_R, BLOCK_S=next_pow2(S), HAS_EOM=has_eom, ENTROPY=bool(entropy), num_warps=1,
        )
    return tok, conf, (ent if entropy else None)


def logits_decision_ref(h, weight, bias=None, norm_weight=None, eps: float = 1e-6, row_ban=None,
                        ban_token: int = -1, entropy: bool = False, eom_token: int = -1):
    """The sampler's computation: model.logits(h).float(), -inf on banned ids, then pick() at
    temperature 0 (the plain argmax, or with eom_token the filler-majority rule)."""
    _check(h, weight, bias, norm_weight, row_ban, ban_token, eom_token)
    if norm_weight is not None:
        h = F.rms_norm(h, (h.shape[-1],), norm_weight.to(h.dtype), eps)
    logits = (h @ weight.to(h.dtype).t()).float()
    if bias is not None:
        logits = logits + bias
    if row_ban is not None and ban_token >= 0:
        logits[:, ban_token] = logits[:, ban_token].masked_fill(row_ban, float("-inf"))
    ent = torch.special.entr(torch.softmax(logits, dim=-1)).sum(-1) if entropy else None
    tok, conf = decide_logits(logits, eom_token)
    return tok, conf, ent


def decide_logits(logits: torch.Tensor, eom_token: int = -1) -> tuple[torch.Tensor, torch.Tensor]:
    """logits (N, V) -> (token, its probability): the argmax, or with eom_token >= 0 the filler rule
    (that token iff its probability > 1/2, else the argmax of the others). The sampler's greedy
    decision (model/sampler.py pick) and this module's reference both use it. Computed from the
    logits and their log-sum-exp: no (N, V) probabilities and no copy of them (about half the CPU
    time of a denoising step's decision at a 32-token canvas). Overwrites logits[:, eom_token]."""
    lse = logits.logsumexp(-1)
    if eom_token < 0:
        top, tok = logits.max(-1)
        return tok, (top - lse).exp()
    p_eom = (logits[:, eom_token] - lse).exp()
    logits[:, eom_token] = float("-inf")
    top, tok = logits.max(-1)
    fill = p_eom > 0.5
    tok = torch.where(fill, torch.full_like(tok, eom_token), tok)
    return tok, torch.where(fill, p_eom, (top - lse).exp())

