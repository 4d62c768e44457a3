"""Absorbing-state masked diffusion objective (MDLM / LLaDA) on [context | canvas] rows.

Per row draw t in (eps, 1] (stratified across the batch: row i gets U((i + u)/B), so every batch
covers the whole noise range), replace each canvas token by <mask> with probability t (at least one),
and take cross-entropy on the masked positions normalised by the number of masked positions.

Design decision: MDLM / LLaDA weight each masked token by 1/(t * L); the realised count of masked
tokens has that same expectation (t * L), so dividing by it estimates the same quantity without the
1000x weights a row with t near eps gets (with 16-row batches those outliers dominated the gradient
norm, and clipping then throttled every other row and the next-token term).

Design decision: the context is encoded causally (for exact, reusable key/value caching), so each
context position can also predict the next context token at no extra forward cost. That auxiliary
next-token loss (weight `ar_weight`) supervises every context token instead of only the handful of
masked canvas tokens in a fill-in-the-middle row, which is what makes training on two CPU cores
worthwhile. Set ar_weight=0 for the pure diffusion objective.

Design decision (next-edit rows, model/edits.py): a row may carry a draft, a first guess per canvas
position (the region as it is). Its canvas positions that are not masked show the draft token
instead of the target, and are supervised like the masked ones: the model learns, at every
position, to keep a draft token or to replace it. Without this, a masked-diffusion model's output
at an unmasked position is untrained, and decoding could not start from the region as it is
(model/sampler.py `draft`): it would have to rewrite a whole region from masks to change a word.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .transformer import Transformer, context_canvas_mask


def collate(examples, pad_id: int, seq_len: int):
    """-> tokens (B,T), n_ctx (B,), n_canvas (B,), and, when an example has a draft, draft (B,T):
    the draft token at its canvas positions, -1 elsewhere."""
    B = len(examples)
    tokens = torch.full((B, seq_len), pad_id, dtype=torch.long)
    n_ctx = torch.zeros(B, dtype=torch.long)
    n_can = torch.zeros(B, dtype=torch.long)
    draft = torch.full((B, seq_len), -1, dtype=torch.long) if any(ex.draft for ex in examples) else None
    for i, ex in enumerate(examples):
        ids = ex.tokens[:seq_len]
        tokens[i, :len(ids)] = torch.tensor(ids)
        n_ctx[i] = min(ex.n_ctx, len(ids))
        n_can[i] = len(ids) - n_ctx[i]
        if draft is not None and ex.draft:
            d = ex.draft[:int(n_can[i])]
            draft[i, int(n_ctx[i]):int(n_ctx[i]) + len(d)] = torch.tensor(d)
    return (tokens, n_ctx, n_can) if draft is None else (tokens, n_ctx, n_can, draft)


def noise(tokens, n_ctx, n_can, mask_id: int, gen: torch.Generator, t: torch.Tensor | None = None, eps: float = 1e-3,
          draft: torch.Tensor | None = None):
    """Mask canvas tokens. Returns noisy tokens, bool supervised (B,T): the masked positions, and in
    draft rows also the positions showing the draft, t (B,)."""
    B, T = tokens.shape
    if t is None:  # stratified: one draw per stratum of (0, 1], strata shuffled across rows
        u = (torch.randperm(B, generator=gen) + torch.rand(B, generator=gen)) / B
        t = eps + (1 - eps) * u
    t = t.to(tokens.device)
    pos = torch.arange(T, device=tokens.device)[None]
    canvas = (pos >= n_ctx[:, None]) & (pos < (n_ctx + n_can)[:, None])
    u = torch.rand(B, T, generator=gen).to(tokens.device)
    masked = canvas & (u < t[:, None])
    # at least one masked position per row with a canvas: force the canvas position with smallest u
    none = ~masked.any(1) & (n_can > 0)
    if none.any():
        first = torch.where(canvas, u, torch.full_like(u, 2.0)).argmin(1)
        masked[none, first[none]] = True
    noisy = torch.where(masked, torch.full_like(tokens, mask_id), tokens)
    if draft is not None:   # draft rows: what is not masked shows the draft, and is supervised too
        drafted = canvas & ~masked & (draft >= 0)
        noisy = torch.where(drafted, draft, noisy)
        masked = masked | drafted
    return noisy, masked, t


def loss_fn(model: Transformer, tokens, n_ctx, n_can, mask_id: int, gen: torch.Generator,
            ar_weight: float = 0.5, t: torch.Tensor | None = None,
            draft: torch.Tensor | None = None) -> tuple[torch.Tensor, dict]:
    B, T = tokens.shape
    noisy, masked, t = noise(tokens, n_ctx, n_can, mask_id, gen, t, draft=draft)
    pos = torch.arange(T, device=tokens.device).expand(B, T)
    h, _ = model(noisy, pos, mask=context_canvas_mask(n_ctx, n_can, T))
    # Masked canvas positions (diffusion term) and context positions i < n_ctx - 1, which predict
    # context token i+1 (next-token term), are disjoint, so one cross-entropy over just those rows
    # serves both terms: the (B, T, vocab) logits of unsupervised positions are never built (a
    # quarter of a CPU step went to those, their float copies and the argmax for the log).
    ar = torch.arange(T, device=tokens.device)[None] < (n_ctx - 1)[:, None] if ar_weight > 0 else torch.zeros_like(masked)
    w_diff = masked.float() / masked.sum(1, keepdim=True).clamp(min=1) / B   # mean over each row's masked tokens
    w_ar = ar.float() * (ar_weight / ar.sum().clamp(min=1))                    # mean over all context tokens
    b, p = (masked | ar).nonzero(as_tuple=True)
    target = torch.where(masked, tokens, torch.roll(tokens, -1, dims=1))[b, p]   # (N,)
    logits = model.logits(h[b, p])                                            # (N, V)
    ce = F.cross_entropy(logits.float(), target, reduction="none")            # (N,)
    diff, ar_ce = (ce * w_diff[b, p]).sum(), (ce * w_ar[b, p]).sum()
    loss = diff + ar_ce
    with torch.no_grad():
        m = masked[b, p]
        acc = (logits[m].argmax(-1) == target[m]).float().mean() if m.any() else ce.new_zeros(())
    stats = {"diff": diff.item(), "masked_acc": acc.item()}
    if ar_weight > 0:
        stats["ar"] = ar_ce.item() / ar_weight
    stats["loss"] = loss.item()
    return loss, stats


@torch.no_grad()
def masked_metrics(model: Transformer, batches, mask_id: int, ratio: float, seed: int = 0) -> dict:
    """Held-out cross-entropy and accuracy on canvas tokens masked at a fixed ratio."""
    gen = torch.Generator().manual_seed(seed)
    tot_ce, tot_ok, n = 0.0, 0, 0
    for tokens, n_ctx, n_can in batches:
        B, T = tokens.shape
        noisy, masked, _ = noise(tokens, n_ctx, n_can, mask_id, gen, t=torch.full((B,), ratio))
        pos = torch.arange(T, device=tokens.device).expand(B, T)
        with torch.autocast(tokens.device.type, dtype=torch.bfloat16):
            h, _ = model(noisy, pos, mask=context_canvas_mask(n_ctx, n_can, T))
            b_idx, p_idx = masked.nonzero(as_tuple=True)
            logits = model.logits(h[b_idx, p_idx]).float()
        tgt = tokens[b_idx, p_idx]
        tot_ce += F.cross_entropy(logits, tgt, reduction="sum").item()
        tot_ok += (logits.argmax(-1) == tgt).sum().item()
        n += len(tgt)
    return {"ratio": ratio, "loss": tot_ce / max(n, 1), "acc": tot_ok / max(n, 1), "tokens": n}
