"""Sampler invariants on the real shipped checkpoint."""
import pytest

from model.sampler import EFFORTS, Cancelled, ContextCache, generate

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
    kv_before = [k.clone() for k, _ in cache.kv]
    res2 = generate(model, tok, pre, suf, canvas_len=24, cache=cache)
    assert res2.context_reused == res2.context_tokens - 1
    assert res2.text == res.text
    for k0, (k, _) in zip(kv_before, cache.kv):
        assert (k0 == k).all()


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
        generate(model, tok, pre, suf, canvas_len=32, effort="high", should_stop=stop)
    assert len(calls) == 3  # checked before each step; two steps ran


def test_on_step_reports_drafts(io):
    model, tok, pre, suf = io
    drafts = []
    res = generate(model, tok, pre, suf, canvas_len=16, on_step=lambda text, step: drafts.append((step, text)))
    assert [s for s, _ in drafts] == list(range(1, res.forward_passes + 1))
    assert drafts[-1][1] == res.text
