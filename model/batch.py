"""Several independent forward calls of one Transformer as one pass (step-level batching, issue 46).

Each call is what `Transformer.forward` takes for a batch-1 sequence: its tokens (1, T), positions
(1, T), its own past keys/values (a context cache, or None) and its own mask (or None: a denoising
step, the canvas seeing its context and itself).  The calls are laid out ragged, one after another
on a single row of sum(T) tokens: every position-wise part of a block (embedding, norms, the
query/key/value and output projections, the MLP: almost all of the compute, and on a CPU almost all
of the per-operation overhead) runs once for all of them, and only attention runs per call, against
that call's own keys/values and with its own mask, exactly as `Attention.forward` does.  Nothing is
padded, and no call sees another's tokens.

`forward_many(model, [call])` computes what `model(*call)` computes; with several calls, each
call's rows equal its lone pass up to the float rounding of a wider matrix product (the tests check
that every request's answer is the same).
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from redraft import kernels
from redraft.model.transformer import KV, Transformer, apply_rope, rope_tables


@dataclass
class Call:
    tokens: torch.Tensor              # (1, T) int64
    positions: torch.Tensor           # (1, T) int64
    past: list[KV] | None = None      # per layer (1, KVH, P, hd), this call's own
    mask: torch.Tensor | None = None  # bool (1, 1, T, P+T) or None (attend to all)
    scratch: dict | None = None       # the caller's, kept across its calls: [past | canvas] buffers


def _buffers(c: Call, n_layers: int) -> list | None:
    """A denoising step's per-layer [context | canvas] key/value buffers, reused across the steps
    of one canvas (same `past`, same width): the torch reference of canvas attention concatenates
    the whole context's keys/values to the canvas's at every step of every layer; here only the
    canvas part is written, and attention reads the very same values (bit for bit the same
    answer). None: no scratch, or a backend other than the torch reference."""
    if c.scratch is None or c.past is None or c.mask is not None or kernels.backend(c.past[0][0]) != "torch":
        return None
    T = c.tokens.shape[1]
    got = c.scratch.get("canvas_kv")
    if got is None or got[0] is not c.past or got[1] != T:
        got = (c.past, T, [None] * n_layers)
        c.scratch["canvas_kv"] = got
    return got[2]


def _attend(attn, q, k, v, past: KV | None, mask, bufs: list | None = None, layer: int = 0) -> torch.Tensor:
    """One call's attention, the branches of Attention.forward: q, k, v (1, H|KVH, T, hd)."""
    if bufs is not None and past[0].dtype == k.dtype == q.dtype:
        P = past[0].shape[2]
        if bufs[layer] is None:       # kernels/ops canvas_attention_ref's cat, once per canvas
            bufs[layer] = (torch.cat([past[0], k], dim=2), torch.cat([past[1], v], dim=2))
        else:
            bufs[layer][0][:, :, P:] = k
            bufs[layer][1][:, :, P:] = v
        kb, vb = bufs[layer]
        return F.scaled_dot_product_attention(q, kb, vb, enable_gqa=kb.shape[1] != q.shape[1])
    if past is not None and mask is None:
        return kernels.canvas_attention(q, past[0].to(k.dtype), past[1].to(v.dtype), k, v)
    if past is not None:
        k = torch.cat([past[0].to(k.dtype), k], dim=2)
        v = torch.cat([past[1].to(v.dtype), v], dim=2)
    c = attn.cfg
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=c.n_kv_heads != c.n_heads)


@torch.inference_mode()
def forward_many(model: Transformer, calls: list[Call]) -> list[tuple[torch.Tensor, list[KV]]]:
    """Each call's (final normed hidden states (1, T, d), its new keys/values per layer)."""
    if not calls:
        return []
    spans, at = [], 0
    for c in calls:
        spans.append((at, at + c.tokens.shape[1]))
        at += c.tokens.shape[1]
    tokens = torch.cat([c.tokens for c in calls], 1) if len(calls) > 1 else calls[0].tokens
    positions = torch.cat([c.positions for c in calls], 1) if len(calls) > 1 else calls[0].positions
    cfg = model.cfg
    x = model.tok_emb(tokens)
    cos, sin = rope_tables(positions, cfg.head_dim, cfg.rope_theta)
    N = x.shape[1]
    new: list[list[KV]] = [[] for _ in calls]
    bufs = [_buffers(c, len(model.blocks)) for c in calls]
    for i, blk in enumerate(model.blocks):
        a = blk.attn
        h = blk.attn_norm(x)
        q = a.wq(h).view(1, N, cfg.n_heads, cfg.head_dim)
        k, v = a.wkv(h).view(1, N, 2, cfg.n_kv_heads, cfg.head_dim).unbind(2)
        if a.q_norm is not None:
            q, k = a.q_norm(q), a.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)   # (1, H, N, hd)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        ys = []
        for j, (c, (s, e)) in enumerate(zip(calls, spans)):
            kj, vj = k[:, :, s:e], v[:, :, s:e]
            new[j].append((kj, vj))
            ys.append(_attend(a, q[:, :, s:e], kj, vj, c.past[i] if c.past is not None else None, c.mask,
                              bufs[j], i))
        y = torch.cat(ys, 2) if len(ys) > 1 else ys[0]
        out = a.wo(y.transpose(1, 2).reshape(1, N, -1))
        hh, x = blk.mlp_norm(out, residual=x)
        x = x + blk.mlp(hh)
    x = model.norm(x)
    return [(x[:, s:e], kv) for (s, e), kv in zip(spans, new)]
