"""Confidence-ordered parallel unmasking over a canvas (the decoding loop of masked diffusion).

The sampler owns everything stateful: the context key/value cache (reused across requests for the
longest common token prefix, like an autoregressive prompt cache), the RNG, and the schedule.

One request:  context -> keys/values (cached)  ->  canvas of L <mask> tokens  ->  steps:
  forward the canvas against the cached context; for every masked position take the best token and
  its probability (confidence); commit every position whose confidence passes the effort's
  threshold (at least the single most confident one); once a position commits <eom>, every later
  position is filler too (the canvas is [infill | <eom> ... <eom>]), so they settle at once.
Stops when nothing is masked; the last allowed step commits everything left.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Callable

import torch

from redraft import kernels
from redraft.kernels.ops.logits_decision import decide_logits

from redraft.model.data import fim_context
from redraft.model.tokenizer import Tokenizer
from redraft.model.transformer import KV, Transformer


@dataclass(frozen=True)
class Effort:
    threshold: float   # commit every masked position at least this confident
    max_steps: int     # step budget; the last step commits all that is left
    samples: int = 0   # single-line scopes: this many causal-path candidates (model/causal.py) are drawn
                       # and, with the canvas's answer, reranked by likelihood (the pipeline does it)
    fills: int = 0     # a hole in a broken document: this many causal-path continuations, cut where the
                       # file parses (the pipeline's span pass, Engine._span); 0: none


EFFORTS = {
    "instant": Effort(threshold=0.5, max_steps=2),
    "low": Effort(threshold=0.7, max_steps=4, fills=8),
    "medium": Effort(threshold=0.85, max_steps=8, fills=16),
    # medium's canvas, plus 8 causal candidates reranked with it (about 4x low's time on a CPU)
    "high": Effort(threshold=0.85, max_steps=8, samples=8, fills=16),
    # one token per forward pass (no threshold can pass), plus 32 causal candidates
    "max": Effort(threshold=2.0, max_steps=128, samples=32, fills=32),
}


class Cancelled(Exception):
    """should_stop() returned True between two denoising steps."""


def check_cancelled(should_stop: Callable[[], bool] | None) -> None:
    """Raise Cancelled when the caller's should_stop() says so (checked between units of work)."""
    if should_stop is not None and should_stop():
        raise Cancelled()


@dataclass
class SampleResult:
    text: str                   # decoded infill (up to the first <eom>)
    token_ids: list[int]        # infill tokens (no fillers)
    confidences: list[float]    # per infill token, probability when it was committed
    forward_passes: int         # canvas forward passes (denoising steps)
    context_tokens: int         # context length
    context_reused: int         # context tokens whose keys/values came from the cache
    canvas_len: int
    hurried: bool = False       # finished in its first step (generate's `hurry_below`)


@dataclass
class ContextCache:
    """Keys/values of the last context (batch 1), reused for its longest common prefix of tokens."""
    ids: list[int] = field(default_factory=list)
    kv: list[KV] | None = None

    def encode(self, model: Transformer, ids: list[int], canvas: torch.Tensor | None = None,
               canvas_pos: torch.Tensor | None = None):
        """The context's keys/values (and how many tokens of it were reused). With `canvas` (L,)
        and its positions (1, L): the same pass also runs the canvas's first denoising step (it
        sees the whole context and itself, the context rows do not see it), and its hidden states
        come back third: a keystroke's re-encoded context tail costs no pass of its own."""
        n = 0
        if self.kv is not None:
            limit = min(len(ids), len(self.ids))
            while n < limit and ids[n] == self.ids[n]:
                n += 1
        if n == len(ids) and n > 0:
            n -= 1  # always recompute the last token: keeps the code path single
        past = [(k[:, :, :n], v[:, :, :n]) for k, v in self.kv] if (self.kv is not None and n > 0) else None
        dev = model.tok_emb.weight.device
        new = torch.tensor([ids[n:]], dtype=torch.long, device=dev)
        pos = torch.arange(n, len(ids), device=dev)[None]
        T = len(ids) - n
        L = 0 if canvas is None else canvas.shape[0]
        # the new context rows: causal, everything before them visible; the canvas rows: everything
        mask = torch.ones(T + L, n + T + L, dtype=torch.bool, device=dev).tril(diagonal=n)
        mask[T:] = True
        if L:
            new, pos = torch.cat([new, canvas[None]], 1), torch.cat([pos, canvas_pos], 1)
        h, new_kv = model(new, pos, past=past, mask=mask[None, None])
        if L:
            new_kv = [(k[:, :, :T], v[:, :, :T]) for k, v in new_kv]
        kv = new_kv if past is None else [(torch.cat([p[0], q[0]], 2), torch.cat([p[1], q[1]], 2)) for p, q in zip(past, new_kv)]
        self.ids, self.kv = list(ids), kv
        if canvas is None:
            return kv, n
        return kv, n, h[:, T:]


def banned_ids(tok: Tokenizer) -> list[int]:
    """Special tokens the canvas may never hold (everything but <eom>)."""
    return sorted(i for i in tok.special_ids if i != tok.eom_id)


_BIASES: dict[tuple, tuple[weakref.ref, torch.Tensor]] = {}


def vocab_bias(tok: Tokenizer, vocab_size: int, device, eom: bool = True, allow: tuple[int, ...] = ()) -> torch.Tensor:
    """(vocab_size,) logit bias: -inf for what may never be emitted (the special tokens but <eom>
    and those in `allow`, or with eom=False every special token: plain text; and model rows the
    tokenizer never emits), else 0.  A fresh tensor each call, built once per tokenizer and
    arguments (the tokenizer's vocab_size alone costs ~2 ms, paid by every request otherwise)."""
    key = (id(tok), vocab_size, str(device), eom, tuple(allow))
    got = _BIASES.get(key)
    if got is not None and got[0]() is tok:
        return got[1].clone()
    bias = _vocab_bias(tok, vocab_size, device, eom, allow)
    if len(_BIASES) > 64:
        _BIASES.clear()
    _BIASES[key] = (weakref.ref(tok), bias.clone())
    return bias


def _vocab_bias(tok: Tokenizer, vocab_size: int, device, eom: bool, allow: tuple[int, ...]) -> torch.Tensor:
    bias = torch.zeros(vocab_size, device=device)
    bias[banned_ids(tok) if eom else sorted(tok.special_ids)] = float("-inf")
    bias[tok.vocab_size:] = float("-inf")
    bias[list(allow)] = 0.0
    return bias


def pick(logits: torch.Tensor, eom_id: int, temperature: float, gen: torch.Generator | None) -> tuple[torch.Tensor, torch.Tensor]:
    """logits (N, V) float32 -> token (N,), confidence (N,).

    Design decision: whether a position is filler is a yes/no question, decided by the filler's
    probability against all content tokens together (filler iff p(<eom>) > 1/2), and only then which
    content token. Taking the plain argmax instead picks <eom> wherever the content is uncertain
    (its mass spreads over many tokens while the filler's sits on one), and a small model's infills
    then collapse to a single token. Confidence: p(<eom>) for filler, else the token's probability.
    """
    if temperature <= 0:  # the same rule as the fused kernel's (kernels/ops/logits_decision.py)
        return decide_logits(logits.clone(), eom_id)
    probs = torch.softmax(logits, dim=-1)
    p_eom = probs[:, eom_id]
    is_eom = torch.rand(p_eom.shape, generator=gen).to(p_eom.device) < p_eom
    scaled = torch.softmax(logits / temperature, -1)
    scaled[:, eom_id] = 0.0
    ok = scaled.sum(-1, keepdim=True) > 0
    scaled = torch.where(ok, scaled, torch.ones_like(scaled))  # a row with only <eom> allowed
    tokens = torch.multinomial(scaled.cpu(), 1, generator=gen).squeeze(-1).to(p_eom.device)
    tokens = torch.where(is_eom, torch.full_like(tokens, eom_id), tokens)
    conf = torch.where(is_eom, p_eom, probs.gather(-1, tokens[:, None]).squeeze(-1))
    return tokens, conf


def first_step_logp(picked: torch.Tensor, conf: torch.Tensor, eom_id: int) -> float:
    """Mean log-probability of a fully masked canvas's picks before its first filler (the line
    the first step sees; generate's `hurry_below`)."""
    ends = (picked == eom_id).nonzero()
    k = int(ends[0]) if len(ends) else len(picked)
    if k == 0:
        return 0.0
    return float(conf[:k].clamp(min=1e-6).log().mean())


def choose_commits(conf: torch.Tensor, masked: torch.Tensor, threshold: float, last: bool) -> torch.Tensor:
    """conf (L,), masked (L,) bool -> bool (L,) positions to commit this step."""
    if last:
        return masked.clone()
    commit = masked & (conf >= threshold)
    if not commit.any():
        best = torch.where(masked, conf, torch.full_like(conf, -1.0)).argmax()
        commit[best] = True
    return commit


@torch.inference_mode()
def generate(
    model: Transformer,
    tok: Tokenizer,
    prefix_ids: list[int],
    suffix_ids: list[int],
    canvas_len: int = 32,
    effort: str | Effort = "medium",
    seed: int = 0,
    temperature: float = 0.0,
    cache: ContextCache | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_step: Callable[[str, int], None] | None = None,
    min_tokens: int = 0,
    length: int | None = None,
    allow: dict[int, torch.Tensor] | None = None,
    context: list[int] | None = None,
    hurry_below: float | None = None,
    merge_first: bool = True,
) -> SampleResult:
    """min_tokens: no filler in the first min_tokens canvas positions (an editor asking for a
    completion wants one; a small model otherwise falls back on the safe empty answer).
    length: a fixed infill length in tokens: the canvas starts as [<mask> * length | <eom> ...] and
    the model only chooses the content.
    allow: canvas position -> bool (vocab,) mask of the tokens that position may hold (grammar
    constraints, e.g. a block header's first and last token); negative positions count back from
    `length` (-1: the last content token) and need it.
    context: the context's token ids as they are (another task's layout, e.g. next-edit
    prediction's model/edits.py); prefix_ids/suffix_ids are then ignored.
    hurry_below: when the first step's evidence (`first_step_logp`: the mean log-probability of
    what it picked before its first filler) is below this, that step commits everything: the
    canvas is finished in one pass instead of `max_steps` (a draft that unsure is almost never
    right, and a gate downstream withholds it; the steps it would have cost were most of a
    withheld keystroke's time). None: never.
    merge_first: the context's re-encoded tail and the first denoising step in one forward pass
    (ContextCache.encode with the canvas; the same numbers up to float rounding). False: apart."""
    eff = EFFORTS[effort] if isinstance(effort, str) else effort
    gen = torch.Generator().manual_seed(seed) if temperature > 0 else None
    cache = cache if cache is not None else ContextCache()
    ctx = context if context is not None else fim_context(tok, prefix_ids, suffix_ids)
    C, L = len(ctx), canvas_len
    dev = model.tok_emb.weight.device
    canvas = torch.full((L,), tok.mask_id, dtype=torch.long, device=dev)
    conf_of = torch.zeros(L, device=dev)
    steps, hurried = 0, False
    if length is not None:
        length = max(1, min(length, L))
        canvas[length:] = tok.eom_id
        conf_of[length:] = 1.0
        min_tokens = length
    rules: dict[int, torch.Tensor] = {}  # canvas position -> allowed (model vocab,) bool
    for p, m in (allow or {}).items():
        if p < 0:
            if length is None:
                raise ValueError("negative positions in `allow` need a fixed `length`")
            p += length
        if 0 <= p < L:
            full = torch.zeros(model.cfg.vocab_size, dtype=torch.bool, device=dev)  # the model's rows (>= the tokenizer's)
            n = min(len(m), len(full))
            full[:n] = m[:n].to(torch.bool)
            rules[p] = rules[p] & full if p in rules else full
            if not rules[p].any():
                raise ValueError(f"`allow` leaves no token for canvas position {p}")
    pos = torch.arange(C, C + L, device=dev)[None]
    bias = vocab_bias(tok, model.cfg.vocab_size, dev)  # -inf: never in the canvas
    first_h = None        # the first step's hidden states, from the context's own pass
    if merge_first and bool((canvas == tok.mask_id).any()):
        check_cancelled(should_stop)
        kv, reused, first_h = cache.encode(model, ctx, canvas, pos)
    else:
        kv, reused = cache.encode(model, ctx)
    while bool((masked := canvas == tok.mask_id).any()):
        check_cancelled(should_stop)
        if first_h is not None:
            h, first_h = first_h, None
        else:
            h, _ = model(canvas[None], pos, past=kv)
        idx = masked.nonzero().squeeze(1)          # the LM head only where something is undecided
        if temperature <= 0 and not any(p in rules for p in idx.tolist()):
            # final projection + softmax + decision in one pass (a Triton kernel on CUDA)
            picked, picked_conf, _ = kernels.logits_decision(h[0, idx], model.tok_emb.weight, bias,
                                                             row_ban=idx < min_tokens, ban_token=tok.eom_id,
                                                             eom_token=tok.eom_id)
        else:
            logits = model.logits(h[0, idx]).float() + bias   # (M, V)
            logits[idx < min_tokens, tok.eom_id] = float("-inf")  # the infill is at least min_tokens long
            for p, m in rules.items():
                row = (idx == p).nonzero()
                if len(row):
                    logits[int(row[0]), ~m] = float("-inf")
            picked, picked_conf = pick(logits, tok.eom_id, temperature, gen)
        tokens = canvas.clone()
        tokens[idx] = picked
        conf = torch.full((L,), -1.0, device=dev)
        conf[idx] = picked_conf
        steps += 1
        if steps == 1 and hurry_below is not None and steps < eff.max_steps:
            hurried = first_step_logp(picked, picked_conf, tok.eom_id) < hurry_below
        commit = choose_commits(conf, masked, eff.threshold, last=steps >= eff.max_steps or hurried)
        canvas = torch.where(commit, tokens, canvas)
        conf_of = torch.where(commit, conf, conf_of)
        eom = (canvas == tok.eom_id).nonzero()
        if len(eom):  # everything after the first filler is filler
            first = int(eom[0])
            tail = masked.clone()
            tail[: first + 1] = False
            canvas[tail & (canvas == tok.mask_id)] = tok.eom_id
            conf_of[tail] = conf_of[first]
        if on_step is not None:
            on_step(_decode(tok, canvas), steps)
    ids = canvas.tolist()
    n = ids.index(tok.eom_id) if tok.eom_id in ids else L
    return SampleResult(text=tok.decode(ids[:n]), token_ids=ids[:n], confidences=conf_of[:n].tolist(),
                        forward_passes=steps, context_tokens=C, context_reused=reused, canvas_len=L,
                        hurried=hurried)


def _decode(tok: Tokenizer, canvas: torch.Tensor) -> str:
    """Draft text: committed tokens up to the first mask or filler."""
    out = []
    for i in canvas.tolist():
        if i in (tok.mask_id, tok.eom_id):
            break
        out.append(i)
    return tok.decode(out)
