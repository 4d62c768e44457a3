"""How much text around the cursor a completion sees (issue 27: a model trained on 1,024 tokens of
context must get them): by default the model's own training length less a typical canvas (320
tokens for the shipped model, as before), a setting overrides it, and 0 means "the model's own"."""
from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from redraft.engine.pipeline import Engine, Request
from redraft.engine.settings import parse_settings
from redraft.model import checkpoint
from redraft.model.config import preset
from redraft.model.transformer import Transformer

_FILE = Path(textwrap.__file__).read_text()
_AT = _FILE.index("\n", len(_FILE) // 2) + 1
SOURCE = _FILE[:_AT] + "        \n" + _FILE[_AT:]   # a fresh line in the middle of a long file
CURSOR = _AT + 8


def context_of(engine: Engine, **kw) -> int:
    """Tokens of text the model saw (the prefix starts at a line, so a few under the budget)."""
    comp = engine.complete(Request(text=SOURCE, offset=CURSOR, uri="textwrap.py", effort="instant", **kw))
    assert comp is not None
    return comp.context_tokens - 3   # less the three sentinels


def test_the_shipped_model_sees_320_tokens_unless_told_otherwise():
    engine = Engine(threads=1)
    assert engine.max_seq_len == 384 and engine.context_tokens == 320
    default = context_of(engine)
    assert 250 < default <= 320 and default == context_of(engine, context_tokens=320)
    assert context_of(engine, context_tokens=160) <= 160
    assert context_of(engine, context_tokens=4096) <= 384 - 16 - 3   # never past what it was trained on


def test_a_model_trained_longer_gets_its_longer_context(tmp_path: Path):
    shipped = checkpoint.load()
    cfg = replace(preset("tiny"), vocab_size=shipped.tokenizer.vocab_size, max_seq_len=1152)
    torch.manual_seed(0)
    checkpoint.save(Transformer(cfg), shipped.tokenizer, tmp_path, dtype=torch.float32)
    engine = Engine(model_dir=str(tmp_path), threads=1)
    assert engine.context_tokens == 1088
    assert 1000 < context_of(engine) <= 1088
    assert context_of(engine, context_tokens=320) <= 320


def test_the_setting_takes_0_for_the_models_own_and_refuses_nonsense():
    settings, problems, _ = parse_settings({"contextTokens": 0})
    assert settings.context_tokens == 0 and not problems
    assert parse_settings({"contextTokens": 1024})[0].context_tokens == 1024
    for bad in (5, -1, 5000, True, "many"):
        settings, problems, _ = parse_settings({"contextTokens": bad})
        assert settings.context_tokens == 0 and len(problems) == 1 and "contextTokens" in problems[0], bad
    assert "or 0 for the model's own" in parse_settings({"contextTokens": 5})[1][0]
