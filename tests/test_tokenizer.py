"""The shipped tokenizer round-trips any text and never turns user text into control tokens."""
from hypothesis import given, settings, strategies as st

from redraft.model.tokenizer import SPECIAL_TOKENS


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_round_trip_arbitrary_unicode(shipped, s):
    tok = shipped.tokenizer
    assert tok.decode(tok.encode(s)) == s


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(SPECIAL_TOKENS + ["x", " ", "\n", "é", "🙂"]), max_size=12).map("".join))
def test_special_token_strings_stay_text(shipped, s):
    tok = shipped.tokenizer
    ids = tok.encode(s)
    assert not set(ids) & tok.special_ids
    assert tok.decode(ids) == s


def test_code_compresses_and_specials_exist(shipped):
    tok = shipped.tokenizer
    code = "def f(x):\n    return [i * 2 for i in range(x) if i % 3 == 0]\n"
    assert len(tok.encode(code)) < len(code) / 2
    assert len({tok.mask_id, tok.eom_id, tok.prefix_id, tok.suffix_id, tok.middle_id, tok.pad_id}) == 6
