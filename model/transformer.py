"""Bidirectional transformer for masked diffusion over code.

Layout of one sequence (see model/data.py):  [context tokens | canvas tokens]
  context = <fim_suffix> suffix <fim_prefix> prefix <fim_middle>   (suffix first: typing only
            appends to the end of the context, so its keys/values can be reused across keystrokes)
  canvas  = the span being denoised: <mask> tokens at first, then committed tokens and <eom> fillers.

Attention: context attends causally to context only; the canvas attends to everything (context and
canvas, no causal mask). So the context's keys/values never depend on the canvas and can be computed
once per request, and a context that grew at its end reuses the keys/values of its unchanged start.

`forward` is pure: keys/values of an earlier part of the sequence come in as an argument and the
new part's keys/values go out; the sampler owns the cache.
"""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from redraft import kernels

from redraft.model.config import ModelConfig

KV = tuple[torch.Tensor, torch.Tensor]  # (k, v), each (B, n_kv_heads, T, head_dim)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor, residual: torch.Tensor | None = None):
        """rmsnorm(x); with residual: (rmsnorm(x + residual), x + residual), one fused pass on a GPU
        (kernels/: Triton on CUDA, the plain torch ops elsewhere)."""
        return kernels.rms_norm(x, self.weight, self.eps, residual)


def rope_tables(positions: torch.Tensor, head_dim: int, theta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """positions (B, T) int -> cos, sin (B, 1, T, head_dim/2) in float32."""
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float32) / head_dim))
    ang = positions.float()[..., None] * inv  # (B, T, hd/2)
    return ang.cos()[:, None], ang.sin()[:, None]


def apply_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x (B, H, T, hd): rotate the two halves of each head (GPT-NeoX convention; kernels/ops/rope.py)."""
    return kernels.rope(x, cos, sin)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        hd = cfg.head_dim
        self.wq = nn.Linear(cfg.d_model, cfg.n_heads * hd, bias=False)
        self.wkv = nn.Linear(cfg.d_model, 2 * cfg.n_kv_heads * hd, bias=False)
        self.wo = nn.Linear(cfg.n_heads * hd, cfg.d_model, bias=False)
        self.q_norm = RMSNorm(hd, cfg.norm_eps) if cfg.qk_norm else None
        self.k_norm = RMSNorm(hd, cfg.norm_eps) if cfg.qk_norm else None

    def forward(self, x, cos, sin, past: KV | None, mask: torch.Tensor | None) -> tuple[torch.Tensor, KV]:
        B, T, _ = x.shape
        c = self.cfg
        q = self.wq(x).view(B, T, c.n_heads, c.head_dim)
        k, v = self.wkv(x).view(B, T, 2, c.n_kv_heads, c.head_dim).unbind(2)
        if self.q_norm is not None:  # per head, before the transpose (a norm over a transposed view is ~3x slower on CPU)
            q, k = self.q_norm(q), self.k_norm(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)   # (B, H, T, hd)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        new = (k, v)
        if past is not None and mask is None:  # a denoising step: the canvas sees the context and itself
            y = kernels.canvas_attention(q, past[0].to(k.dtype), past[1].to(v.dtype), k, v)
            return self.wo(y.transpose(1, 2).reshape(B, T, -1)), new
        if past is not None:
            k = torch.cat([past[0].to(k.dtype), k], dim=2)
            v = torch.cat([past[1].to(v.dtype), v], dim=2)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=c.n_kv_heads != c.n_heads)
        return self.wo(y.transpose(1, 2).reshape(B, T, -1)), new


class SwiGLU(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.w13 = nn.Linear(cfg.d_model, 2 * cfg.ffn_dim, bias=False)
        self.w2 = nn.Linear(cfg.ffn_dim, cfg.d_model, bias=False)

    def forward(self, x):
        a, b = self.w13(x).chunk(2, dim=-1)
        return self.w2(F.silu(a) * b)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg)

    def forward(self, x, cos, sin, past, mask):
        a, kv = self.attn(self.attn_norm(x), cos, sin, past, mask)
        h, x = self.mlp_norm(a, residual=x)  # x + a and its norm in one pass
        return x + self.mlp(h), kv


class Transformer(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.reset_parameters()

    def reset_parameters(self):
        std = self.cfg.d_model ** -0.5
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, std=std)
            if name.endswith("wo.weight") or name.endswith("w2.weight"):  # residual branches start small
                nn.init.normal_(p, std=std / (2 * self.cfg.n_layers) ** 0.5)

    def forward(
        self,
        tokens: torch.Tensor,                 # (B, T) int64
        positions: torch.Tensor,              # (B, T) int64 absolute positions (rotary)
        past: list[KV] | None = None,         # per layer, keys/values of earlier tokens (B, KVH, P, hd)
        mask: torch.Tensor | None = None,     # bool (B, 1, T, P+T), True = may attend; None = attend all
    ) -> tuple[torch.Tensor, list[KV]]:
        """Returns the final normed hidden states (B, T, d) and this call's keys/values per layer."""
        x = self.tok_emb(tokens)
        cos, sin = rope_tables(positions, self.cfg.head_dim, self.cfg.rope_theta)
        new_kv = []
        for i, blk in enumerate(self.blocks):
            x, kv = blk(x, cos, sin, past[i] if past is not None else None, mask)
            new_kv.append(kv)
        return self.norm(x), new_kv

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        """Tied LM head: (..., d) -> (..., vocab)."""
        return h @ self.tok_emb.weight.to(h.dtype).t()


def context_canvas_mask(n_ctx: torch.Tensor, n_canvas: torch.Tensor, T: int) -> torch.Tensor:
    """Training mask for rows laid out [context (n_ctx) | canvas (n_canvas) | padding].

    n_ctx, n_canvas: (B,) int. Returns bool (B, 1, T, T): context rows attend causally within the
    context; canvas rows attend to the whole context and the whole canvas; padding rows attend to
    themselves only (so no row is empty) and no real row attends to padding.
    """
    i = torch.arange(T, device=n_ctx.device)
    q, k = i[None, :, None], i[None, None, :]
    c, e = n_ctx[:, None, None], (n_ctx + n_canvas)[:, None, None]
    ctx_q = (q < c) & (k <= q)
    canvas_q = (q >= c) & (q < e) & (k < e)
    pad_q = (q >= e) & (k == q)
    return (ctx_q | canvas_q | pad_q)[:, None]
