"""Who writes next edits (lsp_server/engine/next_edit/predict.py): analogy first; the model only when its
checkpoint says it was trained in model/edits.py's format (`next_edit` in config.json, set by
`redraft train --edit-share`). The shipped checkpoint is not (issue 24: no CPU run has learned
next edits yet, bench/RESULTS.md), so the server never asks it; a checkpoint that says so is asked,
writes its hunks (lines of the region, then what they become) on its causal path, and they are
made in the region."""
from __future__ import annotations

import dataclasses

import torch

from redraft.engine.next_edit.predict import COMPANION, next_edit, next_edit_dir, rewrite, trained_for_next_edits
from redraft.engine.pipeline import Engine
from redraft.model import checkpoint
from redraft.model.config import ModelConfig
from redraft.model import causal
from redraft.model.edits import EDIT_ANSWER, FORMAT, context_budget, edit_context, task_for
from redraft.model.hunks import answer_markers, apply_hunks, parse_answer
from redraft.model.sampler import ContextCache
from redraft.model.transformer import Transformer

TEXT = "def f(a):\n    x = old(a)\n    y = old(a + 1)\n    return x + y\n"
HISTORY = [("    x = old(a)", "    x = new(a)")]


def flagged(shipped, fmt: str) -> Transformer:
    """The shipped weights under a config that says `next_edit = fmt`."""
    m = Transformer(dataclasses.replace(shipped.model.cfg, next_edit=fmt)).eval()
    m.load_state_dict(shipped.model.state_dict())
    return m


def test_the_config_says_which_next_edit_format_a_checkpoint_was_trained_on(shipped, tmp_path):
    assert ModelConfig.from_dict({"next_edit": FORMAT}).next_edit == FORMAT
    assert ModelConfig().next_edit == "" and not trained_for_next_edits(shipped.model)
    assert trained_for_next_edits(flagged(shipped, FORMAT))
    assert not trained_for_next_edits(flagged(shipped, "draft-rows")) and not trained_for_next_edits(None)


def test_a_model_not_trained_for_next_edits_is_never_asked(shipped):
    text = TEXT.replace("x = old(a)", "x = new(a)")
    edit, passes = next_edit(shipped.model, shipped.tokenizer, 384, text, 1, 0, HISTORY, use_analogy=False)
    assert edit is None and passes == 0
    # analogy alone still carries the rename
    edit, passes = next_edit(shipped.model, shipped.tokenizer, 384, text, 1, 0, HISTORY)
    assert edit is not None and edit.text == "new" and passes == 0


def test_a_model_trained_for_next_edits_is_asked_and_its_hunks_are_made_in_the_region(shipped):
    m = flagged(shipped, FORMAT)
    text = TEXT.replace("x = old(a)", "x = new(a)")
    _, passes = next_edit(m, shipped.tokenizer, 384, text, 1, 0, HISTORY, use_analogy=False)
    assert passes >= 1
    task = task_for(text, 1, 0, HISTORY)
    with torch.no_grad():
        new, confidence, passes = rewrite(m, shipped.tokenizer, 384, task)
        ctx = edit_context(shipped.tokenizer, task, context_budget(384))
        ids, probs, want_passes = causal.greedy(m, shipped.tokenizer, ctx, ContextCache().encode(m, ctx)[0],
                                                EDIT_ANSWER, shipped.tokenizer.eom_id,
                                                allow=answer_markers(shipped.tokenizer))
    assert passes == want_passes == len(ids) >= 1 and 0.0 <= confidence <= 1.0
    assert new == apply_hunks(task.region, parse_answer(shipped.tokenizer, ids), 1)


def test_a_models_next_edit_companion_answers_its_next_edits(shipped, tmp_path):
    """A checkpoint not trained for next edits is answered for by the one in its `next-edit/`
    subdirectory (the shipped model's: model/weights/next-edit); one trained for them answers
    itself; a companion that does not load leaves analogy alone, and nothing crashes."""
    base = tmp_path / "mine"
    checkpoint.save(shipped.model, shipped.tokenizer, base)
    assert next_edit_dir(base) is None and Engine(base).next_edit_model() is None
    checkpoint.save(flagged(shipped, FORMAT), shipped.tokenizer, base / COMPANION)
    assert next_edit_dir(base) == base / COMPANION
    engine = Engine(base)
    model, tok, seq_len = engine.next_edit_model()
    assert model is not engine.model and trained_for_next_edits(model) and not trained_for_next_edits(engine.model)
    assert seq_len == 384 and tok.vocab_size == shipped.tokenizer.vocab_size
    text = TEXT.replace("x = old(a)", "x = new(a)")
    assert engine.next_edit(text, 1, 0, HISTORY)[0] is not None     # analogy first, as ever
    both = tmp_path / "both"
    checkpoint.save(flagged(shipped, FORMAT), shipped.tokenizer, both)
    assert next_edit_dir(both) == both
    engine = Engine(both)
    assert engine.next_edit_model()[0] is engine.model
    for f in (base / COMPANION).glob("*.safetensors"):
        f.write_bytes(b"not weights")
    engine = Engine(base)
    assert engine.next_edit_model() is None
    assert engine.next_edit(text, 1, 0, HISTORY)[0].text == "new"   # analogy alone
