"""Candidates from the model's causal path, and their likelihood: what the higher efforts spend more
compute on; and the greedy answers of next-edit prediction (model/edits.py).

The context [<suffix> suffix <prefix> prefix] is encoded causally and trained with a next-token loss
(model/objective.py), so the same weights are also a suffix-aware left-to-right model: after the
prefix's last token it predicts how the prefix goes on, having read the suffix. Two uses:

* draw(): k continuations sampled in parallel (row 0 greedy, the others at a temperature), each
  stopped at its first newline (or after max_new tokens);
* score(): log p(candidate + tail | context) on the same path, where `tail` is the text that
  follows the cursor up to the end of the next line. The tail makes the score a judgement of the
  whole line in its place: a candidate that ends too early or runs into what the suffix already has
  makes the known next line unlikely. Summed, not averaged per token: every candidate is scored on
  the same event (its text followed by the same tail), and on the dev set the sum picked best.

Design decision: the k rows share the cached context without copying it. They are laid out as one
batch-1 sequence after the context ([ctx | step 0's rows | step 1's rows | ...], each step holding
the rows still going) with a mask that lets each row see the context and its own earlier tokens;
expanding the context's keys/values to k rows instead cost a copy of the whole cache per step. A row
that has reached its newline leaves the batch, so one that rambles to max_new costs one row per step.
"""
from __future__ import annotations

import math
from typing import Callable, Collection

import torch

from redraft.model.sampler import check_cancelled, vocab_bias
from redraft.model.tokenizer import Tokenizer
from redraft.model.transformer import KV, Transformer


def _head(kv: list[KV], n: int) -> list[KV]:
    return [(k[:, :, :n], v[:, :, :n]) for k, v in kv]


def _cat(a: list[KV], b: list[KV]) -> list[KV]:
    return [(torch.cat([x[0], y[0]], 2), torch.cat([x[1], y[1]], 2)) for x, y in zip(a, b)]


def newline_ids(tok: Tokenizer, vocab_size: int) -> torch.Tensor:
    """bool (vocab_size,): tokens whose text holds a newline (a line's candidate stops there)."""
    out = torch.zeros(vocab_size, dtype=torch.bool)
    special = set(tok.special_ids)
    for i in range(min(tok.vocab_size, vocab_size)):
        if i not in special and "\n" in tok.decode([i]):
            out[i] = True
    return out


@torch.inference_mode()
def draw(model: Transformer, tok: Tokenizer, ctx: list[int], kv: list[KV], k: int, max_new: int,
         temperature: float, gen: torch.Generator, stop: torch.Tensor,
         should_stop: Callable[[], bool] | None = None) -> tuple[list[list[int]], int]:
    """ctx: the fim context ([... prefix, <middle>]) and kv its cached keys/values (batch 1).
    Returns k token lists (each up to and including its first `stop` token) and the forward passes."""
    dev = model.tok_emb.weight.device
    P = len(ctx) - 1                       # the continuation replaces <middle>, at position P
    bias = vocab_bias(tok, model.cfg.vocab_size, dev, eom=False)  # sentinels, mask, filler: never text
    stop = stop.to(dev)
    # the prefix's last token again, to get its hidden state (the cache holds keys/values only)
    h, _ = model(torch.tensor([[ctx[P - 1]]], device=dev), torch.tensor([[P - 1]], device=dev),
                 past=_head(kv, P - 1), mask=torch.ones(1, 1, 1, P, dtype=torch.bool, device=dev))
    h = h[0, -1:].expand(k, -1).clone()    # (k, d): each row's last hidden state
    past = _head(kv, P)
    rows = torch.arange(k, device=dev)
    owner = torch.zeros(0, dtype=torch.long, device=dev)  # the row of each generated position in `past`
    out = torch.zeros(k, 0, dtype=torch.long, device=dev)
    done = torch.zeros(k, dtype=torch.bool, device=dev)
    passes = 0
    for i in range(max_new):
        logits = model.logits(h).float() + bias                          # (k, V)
        # every row draws (finished ones too) so that the generator's stream, hence each row's
        # sample, does not depend on when the other rows stop
        sampled = torch.multinomial(torch.softmax(logits / max(temperature, 1e-6), -1).cpu(), 1,
                                    generator=gen).squeeze(1).to(dev)
        t = torch.where(rows == 0, logits.argmax(-1), sampled)
        t = torch.where(done, torch.zeros_like(t), t)                    # finished rows: ignored padding
        out = torch.cat([out, t[:, None]], 1)
        done = done | stop[t]
        if bool(done.all()) or i == max_new - 1:
            break
        check_cancelled(should_stop)
        # only the unfinished rows go on (a row that rambles to max_new no longer drags the finished
        # ones along): row r's new token sees the context, its own earlier tokens, and itself
        act = rows[~done]
        owner = torch.cat([owner, act])
        mask = torch.cat([torch.ones(len(act), P, dtype=torch.bool, device=dev), owner[None, :] == act[:, None]], 1)
        hh, new = model(t[act][None], torch.full((1, len(act)), P + i, device=dev), past=past,
                        mask=mask[None, None])
        past = _cat(past, new)
        h[act] = hh[0]
        passes += 1
    seqs = []
    for row in out.tolist():
        s = []
        for t in row:
            s.append(t)
            if bool(stop[t]):
                break
        seqs.append(s)
    return seqs, passes + 1


@torch.inference_mode()
def greedy(model: Transformer, tok: Tokenizer, ctx: list[int], kv: list[KV], max_new: int, stop_id: int,
           should_stop: Callable[[], bool] | None = None,
           allow: tuple[int, ...] = (),
           guide: Callable[[list[int]], Collection[int] | None] | None = None,
           stop_first: float = 0.0) -> tuple[list[int], list[float], int]:
    """The greedy continuation of the whole context `ctx` (kv: its cached keys/values, batch 1), up
    to and including stop_id or max_new tokens (next-edit answers, model/edits.py). Text, <eom>
    and the special tokens in `allow` may be written, no other special token; where `guide(tokens
    so far)` gives a non-empty set, the next token is one of it (its probability renormalised
    within the set). stop_id comes first (an empty answer) only when its probability is at least
    `stop_first`; else the likeliest other token does. Returns the tokens, each one's
    probability, and the forward passes."""
    dev = model.tok_emb.weight.device
    C = len(ctx)
    bias = vocab_bias(tok, model.cfg.vocab_size, dev, eom=True, allow=allow)   # text, <eom> and `allow`
    # the context's last token again, to get its hidden state (the cache holds keys/values only)
    h, _ = model(torch.tensor([[ctx[-1]]], device=dev), torch.tensor([[C - 1]], device=dev),
                 past=_head(kv, C - 1), mask=torch.ones(1, 1, 1, C, dtype=torch.bool, device=dev))
    past = _head(kv, C)
    out: list[int] = []
    probs: list[float] = []
    passes = 1
    while True:
        logits = model.logits(h[0, -1]).float() + bias
        only = guide(out) if guide is not None else None
        if only:   # None or empty: no guidance
            keep = torch.full_like(logits, float("-inf"))
            keep[list(only)] = 0.0
            logits = logits + keep
        p = torch.softmax(logits, -1)
        t = int(p.argmax())
        if not out and t == stop_id and float(p[t]) < stop_first:
            t = int(p.index_fill(0, torch.tensor([stop_id], device=dev), -1.0).argmax())
        out.append(t)
        probs.append(float(p[t]))
        if t == stop_id or len(out) >= max_new:
            return out, probs, passes
        check_cancelled(should_stop)
        n = C + len(out)
        h, new = model(torch.tensor([[t]], device=dev), torch.tensor([[n - 1]], device=dev), past=past,
                       mask=torch.ones(1, 1, 1, n, dtype=torch.bool, device=dev))
        past = _cat(past, new)
        passes += 1


@torch.inference_mode()
def score(model: Transformer, tok: Tokenizer, ctx: list[int], kv: list[KV], texts: list[str],
          tail: str) -> tuple[list[float], list[list[float]]]:
    """Sum of log p(text + tail) on the causal path for each text (one forward pass for all), and
    each text's per-token probabilities (the tokens of `text + tail` that overlap `text`)."""
    if not texts:
        return [], []
    dev = model.tok_emb.weight.device
    P = len(ctx) - 1
    bias = vocab_bias(tok, model.cfg.vocab_size, dev, eom=False)  # sentinels, mask, filler: never text
    seqs = [tok.encode(t + tail) or [ctx[P - 1]] for t in texts]
    lens = [len(s) for s in seqs]
    # flattened: [ctx[:P-1] | seq 0 (input: last prefix token + its tokens but the last) | seq 1 | ...]
    inp, tgt, pos, owner = [], [], [], []
    for r, s in enumerate(seqs):
        inp += [ctx[P - 1]] + s[:-1]
        tgt += s
        pos += list(range(P - 1, P - 1 + len(s)))
        owner += [r] * len(s)
    N = len(inp)
    own = torch.tensor(owner, device=dev)
    p_ = torch.tensor(pos, device=dev)
    same = (own[:, None] == own[None, :]) & (p_[None, :] <= p_[:, None])   # own row, causal
    mask = torch.cat([torch.ones(N, P - 1, dtype=torch.bool, device=dev), same], 1)
    h, _ = model(torch.tensor([inp], device=dev), p_[None], past=_head(kv, P - 1), mask=mask[None, None])
    lp = torch.log_softmax(model.logits(h[0]).float() + bias, -1)
    tok_lp = lp.gather(-1, torch.tensor(tgt, device=dev)[:, None]).squeeze(1).tolist()
    sums, probs, at = [], [], 0
    for t, n in zip(texts, lens):
        row = tok_lp[at: at + n]
        at += n
        sums.append(sum(row))
        n_text = len(tok.encode(t)) if t else 0
        probs.append([math.exp(x) for x in row[:n_text]])
    return sums, probs
