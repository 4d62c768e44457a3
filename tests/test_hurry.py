"""Where the gate is on, a draft the model's first denoising step is very unsure of is finished in
that step (gate.HURRY_BELOW, model/sampler.py `hurry_below`), on the real checkpoint: the
keystroke costs one step and the choice's scoring pass instead of the effort's four steps, and
the gate still judges it; with the gate off ("always") nothing changes."""
from __future__ import annotations

import pytest

from redraft.engine import gate
from redraft.engine.pipeline import Engine, Request

UNSURE = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        data = "


@pytest.fixture(scope="module")
def engine():
    return Engine(None, threads=2)


def test_an_unsure_draft_costs_one_step_where_the_gate_is_on(engine):
    on = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///a.py", min_confidence=gate.DEFAULT_THRESHOLD))
    off = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///b.py"))
    assert off.forward_passes >= 3                 # the effort's steps (low: up to 4), no gate
    assert on.forward_passes == 2                  # one denoising step + the options' scoring pass
    assert on.confidence is not None and on.withheld == (on.confidence < gate.DEFAULT_THRESHOLD)


def test_a_bar_no_draft_falls_below_changes_nothing(engine, monkeypatch):
    monkeypatch.setattr(gate, "HURRY_BELOW", -1e9)
    on = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///c.py", min_confidence=gate.DEFAULT_THRESHOLD))
    off = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///d.py", min_confidence=0.0, keep_options=True))
    assert on.forward_passes == off.forward_passes and on.text == off.text


def test_the_margin_is_over_real_rivals_only():
    line = gate.Option(text="es=None,", line="max_lines=None,", logp=-13.0, tail_logp=-20.0, tokens=4,
                       project=0, document=1, rank=0, typed=7, pool=1)
    alone = gate.choose([line])
    junk = gate.Option(text="es:::::..", line="max_lines:::::..", logp=-41.0, tail_logp=-30.0, tokens=6, draft=True)
    hurried = gate.Option(text="e plain", line="max_line plain", logp=-30.0, tail_logp=-30.0, tokens=3,
                          draft=True, hurried=True)
    assert gate.choose([line, junk]) == (0, alone[1])       # a degenerate draft is no rival
    assert gate.choose([line, hurried]) == (0, alone[1])    # nor one finished in its first step
    rival = gate.Option(text="e plain", line="max_line plain", logp=-30.0, tail_logp=-30.0, tokens=3, draft=True)
    best, conf = gate.choose([line, rival])
    assert best == 0 and conf != alone[1]                   # a real rival moves the confidence


def test_no_hurry_at_instant_where_no_gate_judges(engine):
    """At effort instant the draft is shown without the options' scoring: it keeps its steps."""
    on = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///e.py", effort="instant",
                                 min_confidence=gate.DEFAULT_THRESHOLD))
    off = engine.complete(Request(text=UNSURE, offset=len(UNSURE), uri="file:///f.py", effort="instant"))
    assert on.forward_passes == off.forward_passes == 2 and on.text == off.text
