"""Sampler invariants on the real shipped checkpoint."""
import copy
import math

import pytest
import torch

from redraft.model.sampler import EFFORTS, Cancelled, ContextCache, Effort, generate

PREFIX = "def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    "
SUFFIX = "\n\n\nprint(mean([1, 2, 3]))\n"


@pytest.fixture(scope="module")
def io(shipped):
    tok = shipped.tokenizer
    return shipped.model, tok, tok.encode(PREFIX), tok.encode(SUFFIX)


def test_no_mask_left_and_context_untouched(io):
    model, tok, pre, suf = io
    pre0, suf0 = list(pre), list(suf)
    cache = ContextCache()
    res = generate(model, tok, pre, suf, canvas_len=24, cache=cache)
    assert pre == pre0 and suf == suf0
    assert tok.mask_id not in res.token_ids and tok.eom_id not in res.token_ids
    assert not set(res.token_ids) & tok.special_ids
    assert len(res.confidences) == len(res.token_ids)
    assert all(0.0 < c <= 1.0 for c in res.confidences)
    assert 1 <= res.forward_passes <= EFFORTS["medium"].max_steps
    # the cached context is exactly the request's context, and a second request reuses all of it
    # but the last token (always recomputed: one code path); the reused keys are the same bits, the
    # recomputed one the same up to bf16 rounding (a 1-row matmul may accumulate in another order)
    kv_before = [k.clone() for k, _ in cache.kv]
    res2 = generate(model, tok, pre, suf, canvas_len=24, cache=cache)
    n = res2.context_reused
    assert n == res2.context_tokens - 1
    assert res2.text == res.text
    for k0, (k, _) in zip(kv_before, cache.kv):
        assert k.shape == k0.shape and torch.equal(k0[:, :, :n], k[:, :, :n])
        assert torch.allclose(k0[:, :, n:].float(), k[:, :, n:].float(), rtol=0.05, atol=0.05)


def test_deterministic_with_a_seed(io):
    model, tok, pre, suf = io
    a = generate(model, tok, pre, suf, canvas_len=16, temperature=1.0, seed=7)
    b = generate(model, tok, pre, suf, canvas_len=16, temperature=1.0, seed=7)
    assert a.token_ids == b.token_ids and a.confidences == b.confidences


def test_fewer_forward_passes_at_lower_effort(io):
    model, tok, pre, suf = io
    passes = {e: generate(model, tok, pre, suf, canvas_len=32, effort=e).forward_passes for e in EFFORTS}
    assert passes["instant"] <= passes["low"] <= passes["medium"] <= passes["high"]
    assert passes["instant"] <= EFFORTS["instant"].max_steps
    assert passes["instant"] < passes["high"]


def test_should_stop_is_honoured_between_steps(io):
    model, tok, pre, suf = io
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 2

    with pytest.raises(Cancelled):
        generate(model, tok, pre, suf, canvas_len=32, effort="max", should_stop=stop)
    assert len(calls) == 3  # checked before each step; two steps ran


def test_on_step_reports_drafts(io):
    model, tok, pre, suf = io
    drafts = []
    res = generate(model, tok, pre, suf, canvas_len=16, on_step=lambda text, step: drafts.append((step, text)))
    assert [s for s, _ in drafts] == list(range(1, res.forward_passes + 1))
    assert drafts[-1][1] == res.text


def test_pick_decides_filler_against_all_content():
    """<eom> is the single most likely token but the content tokens together outweigh it: content."""
    import torch
    from redraft.model.sampler import pick
    eom = 2
    probs = torch.tensor([[0.0, 0.0, 0.30, 0.25, 0.25, 0.20],    # content 0.70 > filler 0.30
                          [0.0, 0.0, 0.60, 0.20, 0.10, 0.10]])   # filler majority
    tokens, conf = pick(probs.log(), eom, 0.0, None)
    assert tokens.tolist() == [3, eom]
    assert conf[0].item() == pytest.approx(0.25) and conf[1].item() == pytest.approx(0.60)


def test_fixed_length_and_allowed_tokens(io):
    """`length` gives exactly that many infill tokens; `allow` restricts the first and last one."""
    import torch
    model, tok, pre, suf = io
    first = torch.zeros(tok.vocab_size, dtype=torch.bool)
    last = torch.zeros(tok.vocab_size, dtype=torch.bool)
    first[tok.encode("if")[0]] = True
    colon = tok.encode(":")
    assert len(colon) == 1
    last[colon[0]] = True
    for n in (2, 3, 6):
        res = generate(model, tok, pre, suf, canvas_len=16, effort="low", length=n, allow={0: first, -1: last})
        assert len(res.token_ids) == n
        assert res.token_ids[0] == tok.encode("if")[0] and res.token_ids[-1] == colon[0]
    with pytest.raises(ValueError):  # -1 means nothing without a fixed length
        generate(model, tok, pre, suf, canvas_len=16, allow={-1: last})
    with pytest.raises(ValueError):  # one position, two disjoint sets
        generate(model, tok, pre, suf, canvas_len=16, length=1, allow={0: first, -1: last})


def test_an_explicit_context_is_used_as_it_is(io):
    """Next-edit prediction (model/edits.py) brings its own context layout."""
    from redraft.model.data import fim_context
    model, tok, pre, suf = io
    same = generate(model, tok, [], [], canvas_len=16, context=fim_context(tok, pre, suf))
    assert same.token_ids == generate(model, tok, pre, suf, canvas_len=16).token_ids


def test_first_step_logp_is_the_mean_log_probability_before_the_first_filler():
    from redraft.model.sampler import first_step_logp
    eom = 7
    picked = torch.tensor([3, 4, eom, 5, eom])
    conf = torch.tensor([0.5, 0.25, 0.9, 0.01, 0.9])
    assert first_step_logp(picked, conf, eom) == pytest.approx((math.log(0.5) + math.log(0.25)) / 2)
    assert first_step_logp(torch.tensor([eom, 3]), torch.tensor([0.9, 0.1]), eom) == 0.0   # nothing before it
    assert first_step_logp(torch.tensor([3, 4]), torch.tensor([0.1, 1.0]), eom) == pytest.approx(math.log(0.1) / 2)


def test_hurry_finishes_an_unsure_canvas_in_its_first_step(io):
    model, tok, pre, suf = io
    full = generate(model, tok, pre, suf, canvas_len=24, effort="low")
    assert full.forward_passes > 1
    # a bar no first step clears: the canvas is committed whole in one pass, as the first step picked it
    hurried = generate(model, tok, pre, suf, canvas_len=24, effort="low", hurry_below=1.0)
    assert hurried.forward_passes == 1 and tok.mask_id not in hurried.token_ids
    one = generate(model, tok, pre, suf, canvas_len=24, effort=Effort(threshold=0.7, max_steps=1))
    assert hurried.token_ids == one.token_ids
    # a bar every first step clears changes nothing
    same = generate(model, tok, pre, suf, canvas_len=24, effort="low", hurry_below=-1e9)
    assert same.token_ids == full.token_ids and same.forward_passes == full.forward_passes


def test_the_context_tail_and_the_first_step_share_one_pass(io):
    """A keystroke re-encodes the context's last tokens; that pass also runs the first denoising
    step: the same answers and keys/values as two passes (float32, up to rounding), on a fresh and
    on a warm cache, with a fixed length too."""
    model, tok, pre, suf = io
    model = copy.deepcopy(model).float()    # the engine's precision on a CPU without bf16; the fixture's stays
    for extra in ("", "to", "total"):
        grown = tok.encode(PREFIX + extra)
        for warm in (False, True):
            out = {}
            for merge in (True, False):
                cache = ContextCache()
                if warm:
                    generate(model, tok, pre, suf, canvas_len=24, cache=cache, merge_first=merge)
                res = generate(model, tok, grown, suf, canvas_len=24, cache=cache, merge_first=merge)
                fixed = generate(model, tok, grown, suf, canvas_len=24, length=5, merge_first=merge)
                out[merge] = (res, fixed, cache)
            (a, fa, ca), (b, fb, cb) = out[True], out[False]
            assert a.token_ids == b.token_ids and fa.token_ids == fb.token_ids and a.forward_passes == b.forward_passes
            assert a.context_reused == b.context_reused and ca.ids == cb.ids
            assert max(float((x[0] - y[0]).abs().max()) for x, y in zip(ca.kv, cb.kv)) < 1e-4
            assert all(abs(p - q) < 1e-4 for p, q in zip(a.confidences, b.confidences))
