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

Next-edit rows (model/edits.py) answer on the causal path: their context ends in
`answer_id` (<|edit_region_end|>) and then the answer (hunks of lines and their new text, then <eom>), and
their canvas is one <eom>. With `answer_id` given, the answer tokens leave the context-wide mean of
the next-token term for a term of their own: the mean over all answer tokens of the batch, weighted
by the share of its rows that have one (as if those rows' canvases). At the context-wide mean a
13-token answer among 6,000 context tokens of a batch got 0.2% of that term. Design decision: a
mean over tokens, not each row's mean like the diffusion term: a silent row's answer is one
<eom>, so per row it weighed as much as a whole edit's thirteen tokens, and the first token (edit
or silence?) was pulled to <eom> thirteen times harder than to an edit; a run so weighted
(runs/nc1, bench/RESULTS.md) answered <eom> to everything.

`answer_weights` (`redraft train --changed-weight`) multiplies the weight of single answer tokens:
the training loop weighs up the tokens where a hunk's new text leaves the copy of its block
(model/hunks.py changed_tokens). Most answer tokens are copies, which the model gets right (90%
teacher-forced on held-out rows, runs/sr1); the token where the new text first differs was right
61% of the time, and a hunk copied unchanged is silence.

`filler_weight` < 1 (`redraft train --filler-weight`) weighs the <eom> fillers after a canvas's
first one down in the diffusion term (canvases padded far beyond their text); the first <eom>
(where the answer ends) keeps full weight.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from redraft.model.transformer import Transformer, context_canvas_mask


def collate(examples, pad_id: int, seq_len: int):
    """-> tokens (B,T), n_ctx (B,), n_canvas (B,)."""
    B = len(examples)
    tokens = torch.full((B, seq_len), pad_id, dtype=torch.long)
    n_ctx = torch.zeros(B, dtype=torch.long)
    n_can = torch.zeros(B, dtype=torch.long)
    for i, ex in enumerate(examples):
        ids = ex.tokens[:seq_len]
        tokens[i, :len(ids)] = torch.tensor(ids)
        n_ctx[i] = min(ex.n_ctx, len(ids))
        n_can[i] = len(ids) - n_ctx[i]
    return tokens, n_ctx, n_can


def noise(tokens, n_ctx, n_can, mask_id: int, gen: torch.Generator, t: torch.Tensor | None = None, eps: float = 1e-3):
    """Mask canvas tokens. Returns noisy tokens, bool masked (B,T), t (B,)."""
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
    return noisy, masked, t


def loss_fn(model: Transformer, tokens, n_ctx, n_can, mask_id: int, gen: torch.Generator,
            ar_weight: float = 0.5, t: torch.Tensor | None = None, eom_id: int = -1,
            filler_weight: float = 1.0, answer_id: int = -1,
            answer_weights: torch.Tensor | None = None) -> tuple[torch.Tensor, dict]:
    B, T = tokens.shape
    noisy, masked, t = noise(tokens, n_ctx, n_can, mask_id, gen, t)
    pos = torch.arange(T, device=tokens.device).expand(B, T)
    h, _ = model(noisy, pos, mask=context_canvas_mask(n_ctx, n_can, T))
    # Masked canvas positions (diffusion term) and context positions i < n_ctx - 1, which predict
    # context token i+1 (next-token term), are disjoint, so one cross-entropy over just those rows
    # serves both terms: the (B, T, vocab) logits of unsupervised positions are never built (a
    # quarter of a CPU step went to those, their float copies and the argmax for the log).
    in_ctx = pos < (n_ctx - 1)[:, None]   # predicting context token i+1
    # next-edit rows: the positions predicting the causal answer after answer_id (model/edits.py)
    ans = in_ctx & ((tokens == answer_id).long().cumsum(1) > 0) if answer_id >= 0 else torch.zeros_like(masked)
    ar = in_ctx & ~ans if ar_weight > 0 else torch.zeros_like(masked)
    w = masked.float()
    if filler_weight != 1.0:   # fillers after the first <eom> of the canvas (a next-edit answer's is not)
        eom = (tokens == eom_id) & (pos >= n_ctx[:, None])
        after_first = (eom.long().cumsum(1) > 1) & eom
        w = torch.where(after_first, w * filler_weight, w)
    w_diff = w / w.sum(1, keepdim=True).clamp(min=1e-6) / B   # weighted mean over each row's masked tokens
    w_ar = ar.float() * (ar_weight / ar.sum().clamp(min=1))                    # mean over all context tokens
    # every answer token alike (a batch-wide mean), the term weighing as much as its rows' share of B
    w_ans = ans.float() * (ans.any(1).sum() / B / ans.sum().clamp(min=1))
    if answer_weights is not None:   # the answer's changed tokens weighed up (model/hunks.py changed_weights)
        w_ans = w_ans * answer_weights.to(w_ans.device)
    ar = ar | ans
    b, p = (masked | ar).nonzero(as_tuple=True)
    target = torch.where(masked, tokens, torch.roll(tokens, -1, dims=1))[b, p]   # (N,)
    logits = model.logits(h[b, p])                                            # (N, V)
    ce = F.cross_entropy(logits.float(), target, reduction="none")            # (N,)
    diff, ar_ce, ans_ce = (ce * w_diff[b, p]).sum(), (ce * w_ar[b, p]).sum(), (ce * w_ans[b, p]).sum()
    loss = diff + ar_ce + ans_ce
    with torch.no_grad():
        m = masked[b, p]
        acc = (logits[m].argmax(-1) == target[m]).float().mean() if m.any() else ce.new_zeros(())
        a = w_ans[b, p] > 0
        stats = {"diff": diff.item(), "masked_acc": acc.item()}
        if bool(a.any()):
            stats["answer"] = ce[a].mean().item()
            stats["answer_acc"] = (logits[a].argmax(-1) == target[a]).float().mean().item()
        if answer_weights is not None:
            c = a & (answer_weights.to(w_ans.device)[b, p] != 1)
            if bool(c.any()):
                stats["changed_acc"] = (logits[c].argmax(-1) == target[c]).float().mean().item()
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
