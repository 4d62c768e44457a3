"""Confidence-ordered unmasking for the open-weight families (model/hub.py, model/hub_adapter.py):
the same decisions as model/sampler.py (`pick`, `choose_commits`, the effort dial, cancellation
between steps, the draft streamed after each step), over an in-place canvas
[prefix | canvas | suffix] that attends both ways.

Caching. These models attend bidirectionally, so the context's keys/values depend on the canvas and
change at every step: only recomputing the whole sequence (`refresh=1`, the exact path) gives the
model's own answer. `refresh=k` is the approximation such models use in practice (Fast-dLLM's dual
cache): a full pass computes every key/value, the context's (prefix and suffix) are kept, and the
next k-1 steps only run the canvas against them; a step whose canvas changed length refreshes too.
With k steps per refresh a step costs about canvas/(context + canvas) of a full pass
(bench/hub_infill.py measures both paths; bench/RESULTS.md).

The logit shift (Dream family: position i predicts token i+1) is handled here: the canvas's first
position is predicted by the last context token, so the canvas pass carries that token along.
"""
from __future__ import annotations

from typing import Callable

import torch

from redraft.model.hub import HubModel
from redraft.model.hub_adapter import Adapter
from redraft.model.sampler import EFFORTS, Effort, SampleResult, check_cancelled, choose_commits, pick

REFRESH = 4            # default: context keys/values recomputed every 4th step (1: exact)
DREAMON_START = 8      # DreamOn: the canvas starts with this many masks (at most the plan's length)


def _hidden(hm: HubModel, ids: list[int] | torch.Tensor, start: int, past=None):
    """Hidden states of `ids` at positions start.. attending to each other and to `past` (a list of
    per-layer (k, v) of context positions), all bidirectional. Returns (hidden (n, d), the cache)."""
    from transformers import DynamicCache
    dev = hm.model.device
    x = torch.as_tensor(ids, dtype=torch.long, device=dev)[None]
    n, old = x.shape[1], (past[0][0].shape[2] if past else 0)
    dtype = next(hm.model.parameters()).dtype
    mask = torch.zeros(1, 1, n, old + n, dtype=dtype, device=dev)      # every position sees every other
    cache = DynamicCache(ddp_cache_data=past) if past else DynamicCache()
    out = hm.model.model(input_ids=x, position_ids=torch.arange(start, start + n, device=dev)[None],
                         attention_mask=mask, past_key_values=cache, use_cache=True)
    return out.last_hidden_state[0], out.past_key_values


def _context_kv(cache, lo: int, hi: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """The per-layer keys/values of every position but [lo, hi) (the canvas and its predictor)."""
    keep = []
    for k, v in cache.to_legacy_cache():
        keep.append((torch.cat([k[:, :, :lo], k[:, :, hi:]], 2), torch.cat([v[:, :, :lo], v[:, :, hi:]], 2)))
    return keep


class _Canvas:
    """The canvas's state: tokens (mask where undecided) and the confidence each was committed at."""

    def __init__(self, ad: Adapter, n: int) -> None:
        self.ad = ad
        self.tokens = [ad.tok.mask_id] * n
        self.conf = [0.0] * n

    def masked(self) -> list[int]:
        return [i for i, t in enumerate(self.tokens) if t == self.ad.tok.mask_id]

    def draft(self) -> str:
        out = []
        for t in self.tokens:
            if t in (self.ad.tok.mask_id, self.ad.tok.eom_id):
                break
            out.append(t)
        return self.ad.tok.decode(out)

    def fixed_length_tail(self) -> None:
        """Everything after the first filler is filler (the canvas is [infill | filler ...])."""
        eom, mask = self.ad.tok.eom_id, self.ad.tok.mask_id
        if eom in self.tokens:
            first = self.tokens.index(eom)
            for i in range(first + 1, len(self.tokens)):
                if self.tokens[i] == mask:
                    self.tokens[i], self.conf[i] = eom, self.conf[first]

    def expand_delete(self, committed: list[int], cap: int) -> bool:
        """DreamOn: a position just committed to expand becomes two masks (while the canvas is under
        `cap`), one committed to the filler is deleted. Returns whether the length changed."""
        tok, out, conf = self.ad.tok, [], []
        now = set(committed)
        for i, (t, c) in enumerate(zip(self.tokens, self.conf)):
            if i in now and t == tok.expand_id:
                grow = len(self.tokens) + (len(out) - i) < cap
                out += [tok.mask_id, tok.mask_id] if grow else [tok.mask_id]
                conf += [0.0, 0.0] if grow else [0.0]
            elif i in now and t == tok.eom_id:
                continue
            else:
                out.append(t)
                conf.append(c)
        changed = len(out) != len(self.tokens)
        self.tokens, self.conf = out, conf
        return changed


@torch.inference_mode()
def generate(hm: HubModel, ad: Adapter, prefix_ids: list[int], suffix_ids: list[int], canvas_len: int = 32,
             effort: str | Effort = "low", refresh: int = REFRESH, min_tokens: int = 0,
             should_stop: Callable[[], bool] | None = None,
             on_step: Callable[[str, int], None] | None = None) -> SampleResult:
    """Infill between prefix_ids and suffix_ids in at most canvas_len tokens (DreamOn: starting
    shorter, growing up to canvas_len). refresh: 1 = exact (every step a full pass), k > 1 = the
    context's keys/values reused for k-1 steps in between."""
    eff = EFFORTS[effort] if isinstance(effort, str) else effort
    if refresh < 1:
        raise ValueError("refresh must be >= 1 (1: exact)")
    tok, dev, grow = ad.tok, hm.model.device, ad.variable_length
    head = hm.model.lm_head.weight
    cv = _Canvas(ad, min(canvas_len, DREAMON_START) if grow else canvas_len)
    steps, since, ctx_kv = 0, 0, None
    seq_len = 0
    bias = {e: ad.bias(dev, expand=e) for e in (False, True)}
    while masked := cv.masked():
        check_cancelled(should_stop)
        last = steps + 1 >= eff.max_steps
        ids, at = ad.layout(prefix_ids, cv.tokens, suffix_ids)
        seq_len = len(ids)
        lo = max(at - (1 if ad.shift else 0), 0)          # the canvas's predictors start here
        if ctx_kv is None or since >= refresh:
            h, cache = _hidden(hm, ids, 0)
            h = h[lo: at + len(cv.tokens)]
            ctx_kv = _context_kv(cache, lo, at + len(cv.tokens)) if refresh > 1 else None
            since = 0
        else:
            h, _ = _hidden(hm, ids[lo: at + len(cv.tokens)], lo, ctx_kv)
        since += 1
        rows = torch.tensor([min(max(at + i - (1 if ad.shift else 0), 0) - lo, len(h) - 1) for i in masked], device=dev)
        logits = ad.fold((h[rows] @ head.T).float())
        logits += bias[grow and not last and len(cv.tokens) < canvas_len]
        idx = torch.tensor(masked, device=dev)
        if grow:      # DreamOn deletes with the filler (so none stays in the canvas): never below min_tokens
            if len(cv.tokens) <= min_tokens:
                logits[:, tok.eom_id] = float("-inf")
        else:
            logits[idx < min_tokens, tok.eom_id] = float("-inf")
        picked, conf = pick(logits, tok.eom_id, 0.0, None)
        steps += 1
        full_conf = torch.full((len(cv.tokens),), -1.0)
        full_conf[idx.cpu()] = conf.cpu()
        mask_t = torch.zeros(len(cv.tokens), dtype=torch.bool)
        mask_t[idx.cpu()] = True
        commit = choose_commits(full_conf, mask_t, eff.threshold, last=last).nonzero().squeeze(1).tolist()
        chosen = dict(zip(masked, picked.tolist()))
        for i in commit:
            cv.tokens[i], cv.conf[i] = chosen[i], float(full_conf[i])
        if grow:
            changed = cv.expand_delete(commit, canvas_len)
            while len(cv.tokens) < min_tokens:          # deleted below the minimum in one step
                cv.tokens.append(tok.mask_id)
                cv.conf.append(0.0)
                changed = True
            if changed:
                ctx_kv = None                               # the suffix moved: recompute
        else:
            cv.fixed_length_tail()
        if on_step is not None:
            on_step(cv.draft(), steps)
    ids = cv.tokens
    n = ids.index(tok.eom_id) if tok.eom_id in ids else len(ids)
    return SampleResult(text=tok.decode(ids[:n]), token_ids=ids[:n], confidences=cv.conf[:n], forward_passes=steps,
                        context_tokens=seq_len - len(ids), context_reused=0, canvas_len=len(ids))
