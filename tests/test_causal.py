"""The causal path's candidates and scores (model/causal.py) on the real shipped checkpoint, checked
against a plain one-row-at-a-time computation."""
import copy

import pytest
import torch

from redraft.model import causal
from redraft.model.data import fim_context
from redraft.model.sampler import Cancelled, ContextCache

PREFIX = "def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    "
SUFFIX = "\n\n\nprint(mean([1, 2, 3]))\n"


@pytest.fixture(scope="module")
def setup(shipped):
    # a float32 copy: the shared layout and the plain computation then agree to float rounding (in
    # the stored bf16 they differ by ~0.01 per token: other reduction orders)
    model, tok = copy.deepcopy(shipped.model).float(), shipped.tokenizer
    ctx = fim_context(tok, tok.encode(PREFIX), tok.encode(SUFFIX))
    kv, _ = ContextCache().encode(model, ctx)
    stop = causal.newline_ids(tok, model.cfg.vocab_size)
    return model, tok, ctx, kv, stop


def bias(model, tok):
    b = torch.zeros(model.cfg.vocab_size)
    b[sorted(tok.special_ids)] = float("-inf")
    b[tok.vocab_size:] = float("-inf")
    return b


@torch.inference_mode()
def plain_logprobs(model, tok, ctx, seq):
    """log p of each token of seq after the prefix: one causal forward over [ctx without <middle> | seq]."""
    ids = ctx[:-1] + seq
    T = len(ids)
    h, _ = model(torch.tensor([ids]), torch.arange(T)[None], mask=torch.ones(T, T, dtype=torch.bool).tril()[None, None])
    lp = torch.log_softmax(model.logits(h[0]).float() + bias(model, tok), -1)
    P = len(ctx) - 1
    return [float(lp[P - 1 + i, t]) for i, t in enumerate(seq)]


def test_newline_ids_are_exactly_the_tokens_with_a_newline(setup):
    model, tok, _, _, stop = setup
    assert stop.shape == (model.cfg.vocab_size,) and stop.any()
    for i in range(tok.vocab_size):
        want = i not in tok.special_ids and "\n" in tok.decode([i])
        assert bool(stop[i]) == want


def test_greedy_row_is_plain_greedy_decoding(setup):
    model, tok, ctx, kv, stop = setup
    seqs, passes = causal.draw(model, tok, ctx, kv, 4, 12, 0.8, torch.Generator().manual_seed(0), stop)
    assert len(seqs) == 4 and 1 <= passes <= 12
    # row 0 token by token, recomputing the whole sequence each time (no cache, no shared layout)
    out = []
    for _ in range(len(seqs[0])):
        lp = plain_logprobs(model, tok, ctx, out + [0])
        ids = ctx[:-1] + out
        T = len(ids)
        h, _ = model(torch.tensor([ids]), torch.arange(T)[None], mask=torch.ones(T, T, dtype=torch.bool).tril()[None, None])
        out.append(int((model.logits(h[0, -1]).float() + bias(model, tok)).argmax()))
        if stop[out[-1]]:
            break
    assert seqs[0] == out
    for s in seqs:  # every row stops at its first newline token or at max_new
        assert all(not stop[t] for t in s[:-1]) and (stop[s[-1]] or len(s) == 12)
        assert not set(s) & tok.special_ids


def test_rows_are_independent_samples(setup):
    """Each sampled row's tokens are probable under a plain computation of its own history: the mask
    keeps the rows apart (a row that saw another row's tokens would not match its own logits)."""
    model, tok, ctx, kv, stop = setup
    seqs, _ = causal.draw(model, tok, ctx, kv, 6, 10, 0.8, torch.Generator().manual_seed(3), stop)
    a, _ = causal.draw(model, tok, ctx, kv, 6, 10, 0.8, torch.Generator().manual_seed(3), stop)
    assert seqs == a  # seeded: deterministic
    sums, _ = causal.score(model, tok, ctx, kv, [tok.decode(s) for s in seqs], "")
    for s, got in zip(seqs, sums):
        want = sum(plain_logprobs(model, tok, ctx, tok.encode(tok.decode(s))))
        assert got == pytest.approx(want, abs=1e-4 * max(1.0, abs(want)))
        assert want > -15 * len(s)  # sampled at temperature 0.8, not noise


def test_score_matches_one_candidate_at_a_time(setup):
    model, tok, ctx, kv, _ = setup
    texts = ["return total / len(xs)", "return total", "pass", "x"]
    tail = "\n\n\nprint(mean([1, 2, 3]))\n"
    sums, probs = causal.score(model, tok, ctx, kv, texts, tail)
    for t, s, p in zip(texts, sums, probs):
        lp = plain_logprobs(model, tok, ctx, tok.encode(t + tail))
        assert s == pytest.approx(sum(lp), abs=1e-4 * max(1.0, abs(sum(lp))))
        assert len(p) == len(tok.encode(t)) and all(0.0 < x <= 1.0 for x in p)


def test_should_stop_cancels_between_steps(setup):
    model, tok, ctx, kv, stop = setup
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > 1

    never = torch.zeros_like(stop)  # no row ever finishes: the loop would run max_new steps
    with pytest.raises(Cancelled):
        causal.draw(model, tok, ctx, kv, 3, 20, 0.8, torch.Generator().manual_seed(0), never, should_stop)
    assert len(calls) == 2


@torch.inference_mode()
def test_greedy_continues_the_whole_context_as_plain_greedy_decoding(setup):
    """greedy() (next-edit answers): the continuation after the context's last token, token by
    token against a plain causal forward over [ctx | out]; it stops at stop_id (kept) or max_new, may
    write <eom> but no other special token, and each probability is the chosen token's."""
    model, tok, ctx, kv, _ = setup
    for stop_id, max_new in ((tok.eom_id, 40), (tok.encode("\n")[0], 40), (tok.eom_id, 3)):
        ids, probs, passes = causal.greedy(model, tok, ctx, kv, max_new, stop_id)
        out, want_p = [], []
        ban = bias(model, tok)
        ban[tok.eom_id] = 0.0
        while True:
            seq = ctx + out
            T = len(seq)
            h, _ = model(torch.tensor([seq]), torch.arange(T)[None], mask=torch.ones(T, T, dtype=torch.bool).tril()[None, None])
            p = torch.softmax(model.logits(h[0, -1]).float() + ban, -1)
            out.append(int(p.argmax()))
            want_p.append(float(p[out[-1]]))
            if out[-1] == stop_id or len(out) == max_new:
                break
        assert ids == out and passes == len(out)
        assert probs == pytest.approx(want_p, abs=1e-4)
        assert not (set(ids) & tok.special_ids) - {tok.eom_id}


@torch.inference_mode()
def test_greedy_writes_the_special_tokens_it_is_allowed(setup):
    """`allow` (a next-edit answer's <|edit_before|> and <|edit_after|>): those special tokens may be
    written, others still not. The marker's embedding is made the first token's, scaled up (the
    head is tied), so the model would write it first where it may."""
    model, tok, ctx, kv, _ = setup
    mark = tok.special["<|edit_before|>"]
    first = causal.greedy(model, tok, ctx, kv, 1, tok.eom_id)[0][0]
    m = copy.deepcopy(model)
    m.tok_emb.weight[mark] = 3.0 * m.tok_emb.weight[first]
    kv2, _ = ContextCache().encode(m, ctx)
    ids, probs, _ = causal.greedy(m, tok, ctx, kv2, 4, tok.eom_id, allow=(mark,))
    assert ids[0] == mark and probs[0] > 0.5
    assert not (set(ids) & tok.special_ids) - {tok.eom_id, mark}
    assert mark not in causal.greedy(m, tok, ctx, kv2, 4, tok.eom_id)[0]


@torch.inference_mode()
def test_greedy_writes_within_what_its_guide_allows(setup):
    """`guide` (next-edit answers' block_guide): where it gives a set, the token is the set's most
    probable, with its probability renormalised within the set; where it gives None or nothing, the
    plain greedy token."""
    model, tok, ctx, kv, _ = setup
    plain, plain_p, _ = causal.greedy(model, tok, ctx, kv, 6, tok.eom_id)
    words = tok.encode(" alpha beta gamma")
    # the second token held to two the model would not pick, the rest free
    pair = {words[0], words[1]} - {plain[1]}
    ids, probs, _ = causal.greedy(model, tok, ctx, kv, 6, tok.eom_id,
                                  guide=lambda out: pair if len(out) == 1 else (set() if out else None))
    assert ids[0] == plain[0] and ids[1] in pair and probs[0] == pytest.approx(plain_p[0], abs=1e-5)
    seq = ctx + ids[:1]
    T = len(seq)
    h, _ = model(torch.tensor([seq]), torch.arange(T)[None], mask=torch.ones(T, T, dtype=torch.bool).tril()[None, None])
    logits = model.logits(h[0, -1]).float()
    within = {t: float(logits[t]) for t in pair}
    best = max(within, key=within.get)
    z = torch.tensor(list(within.values())).softmax(-1).max().item()
    assert ids[1] == best and probs[1] == pytest.approx(z, abs=1e-4)


def test_greedy_should_stop_cancels_between_tokens(setup):
    model, tok, ctx, kv, _ = setup
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        causal.greedy(model, tok, ctx, kv, 20, -1, should_stop)   # stop_id -1: never stops by itself
    assert len(calls) == 3


@torch.inference_mode()
def test_greedy_stops_first_only_when_the_stop_is_likely_enough(setup):
    """`stop_first` (next-edit silence): an answer that would stop at once does so only when the
    stop token's probability reaches the threshold; below it the likeliest other token comes first
    and decoding goes on from there. The first plain token plays the stop token here."""
    model, tok, ctx, kv, _ = setup
    plain, plain_p, _ = causal.greedy(model, tok, ctx, kv, 6, tok.eom_id)
    stop = plain[0]
    assert causal.greedy(model, tok, ctx, kv, 6, stop)[0] == [stop]
    assert causal.greedy(model, tok, ctx, kv, 6, stop, stop_first=plain_p[0] - 1e-3)[0] == [stop]
    ids, probs, _ = causal.greedy(model, tok, ctx, kv, 6, stop, stop_first=plain_p[0] + 1e-3)
    h, _ = model(torch.tensor([ctx]), torch.arange(len(ctx))[None],
                 mask=torch.ones(len(ctx), len(ctx), dtype=torch.bool).tril()[None, None])
    ban = bias(model, tok)
    ban[tok.eom_id] = 0.0
    p = torch.softmax(model.logits(h[0, -1]).float() + ban, -1)
    p[stop] = -1.0
    assert ids[0] == int(p.argmax()) != stop and probs[0] == pytest.approx(float(p.max()), abs=1e-4)
    assert len(ids) > 1
