"""Typing through a shown suggestion (lsp_server/engine/type_through.py), on the real checkpoint:
the rest of the suggestion with no model work while the typed characters match it; a new run as
soon as they do not, or when anything else in the document changed."""
from __future__ import annotations

import pytest

from redraft.engine.pipeline import Engine, Request

DOC = "def mean(values):\n    total = sum(values)\n    return total / len(values)\n\n\ndef median(values):\n    ordered = sorted("


@pytest.fixture(scope="module")
def engine():
    return Engine(None, threads=2)


def test_typing_the_suggestion_costs_no_model_pass(engine):
    first = engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///t.py"))
    assert first is not None and len(first.text) >= 2 and first.forward_passes > 0
    typed = DOC + first.text[0]
    again = engine.complete(Request(text=typed, offset=len(typed), uri="file:///t.py"))
    assert (again.text, again.forward_passes, again.start) == (first.text[1:], 0, len(typed))
    # a character the suggestion does not begin with: the model runs again
    other = "#" if first.text[1] != "#" else "@"
    wrong = typed + other
    fresh = engine.complete(Request(text=wrong, offset=len(wrong), uri="file:///t.py"))
    assert fresh is None or fresh.forward_passes > 0


def test_no_reuse_across_documents_edits_or_settings(engine):
    first = engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///u.py"))
    assert first is not None and len(first.text) >= 2
    typed = DOC + first.text[0]
    elsewhere = engine.complete(Request(text=typed, offset=len(typed), uri="file:///v.py"))
    assert elsewhere.forward_passes > 0                    # another document has its own history
    engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///u.py"))
    edited = "import math\n" + typed                       # typed, and an edit above the cursor
    again = engine.complete(Request(text=edited, offset=len(edited), uri="file:///u.py"))
    assert again.forward_passes > 0
    engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///u.py"))
    medium = engine.complete(Request(text=typed, offset=len(typed), uri="file:///u.py", effort="medium"))
    assert medium.forward_passes > 0                       # other settings: judged again
    engine.forget("file:///u.py")
    engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///u.py"))
    engine.forget("file:///u.py")                          # a closed document keeps nothing
    assert engine.complete(Request(text=typed, offset=len(typed), uri="file:///u.py")).forward_passes > 0


def test_a_withheld_suggestion_is_judged_again(engine):
    first = engine.complete(Request(text=DOC, offset=len(DOC), uri="file:///w.py", min_confidence=1.01))
    assert first is not None and first.withheld and first.text
    typed = DOC + first.text[0]
    again = engine.complete(Request(text=typed, offset=len(typed), uri="file:///w.py", min_confidence=1.01))
    assert again.forward_passes > 0
