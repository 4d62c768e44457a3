"""The next edit: from the recent edits and the cursor, the edit the user is about to make.

First by analogy (analogy.py): the last edit read as a rule and carried to the nearest lines it
fits, in well under a millisecond, silent where nothing fits.  Then, only when the checkpoint was
trained for next edits (`trained_for_next_edits`: its config names model/edits.py's FORMAT), the
model: it writes the edit of a region of the document left to right on its causal path
(model/edits.py: the layout shared with training) as hunks, each a block of the region's lines
and what it becomes, the region around the cursor first; `apply_hunks` makes them (a hunk whose
lines are not in the region is left out; an answer of <eom> alone is "no edit"). When the
cursor's region stays unchanged, the places where the last edit's removed words still occur (a
rename carried on further down) are tried as regions too, nearest first (`MAX_JUMPS`): a jump.

`NextEdit` is the answer in document terms: the changed span of lines and its new text, trimmed to
the characters that differ, so a client shows (and applies) only the change.

Design decision: analogy needs no model, so this module imports torch only where the model runs
(`rewrite`): `by_analogy` and `model_may_answer` (a look at the model directory's config.json) let
`redraft next-edit`, the server and the bot answer by analogy without loading a model, and build
one only when analogy has nothing and a model trained for next edits exists (issue 44).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from redraft.model.edits import EDIT_ANSWER, FORMAT, REGION_LINES, EditTask, context_budget, edit_context, task_for
from redraft.model.hunks import answer_markers, apply_hunks, block_guide, parse_answer

from redraft.engine.next_edit import analogy

if TYPE_CHECKING:   # torch: imported where the model runs
    from redraft.model.sampler import ContextCache

MAX_JUMPS = 2            # regions tried beyond the cursor's when it stays unchanged
SIZES = (REGION_LINES, 7, 5, 3)   # region sizes tried, largest first, until one fits a row
MIN_CONFIDENCE = 0.0     # an edit whose least sure token is below this is not proposed (silence)
SILENCE = 0.0            # the model is silent only when it rates "no edit" at least this likely
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class NextEdit:
    start: int               # character offsets in the document: text[start:end] becomes `text`
    end: int
    text: str
    region_start_line: int   # the region rewritten (lines [start, end))
    region_end_line: int
    new_region: str
    confidence: float        # the lowest probability among the tokens it changed (1.0 if none)
    forward_passes: int


@dataclass(frozen=True)
class Attempt:
    """What one region gave: the region's lines and text, the model's text for it, passes."""
    start_line: int
    end_line: int
    region: str
    new_region: str
    confidence: float
    forward_passes: int


def trained_for_next_edits(model) -> bool:
    """Whether the model writes next edits in this format (a checkpoint trained with `redraft train
    --edit-share` says so in its config); other models are never asked, analogy answers alone."""
    return model is not None and getattr(model.cfg, "next_edit", "") == FORMAT


COMPANION = "next-edit"   # a checkpoint directory's next-edit checkpoint, beside its own files


def default_dir() -> Path:
    """The shipped model's directory (redraft.model.checkpoint.DEFAULT_DIR, without importing torch)."""
    import redraft.model
    return Path(redraft.model.__file__).resolve().parent / "weights"


def _config(d: Path) -> dict | None:
    try:
        cfg = json.loads((d / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cfg if isinstance(cfg, dict) else None


def next_edit_dir(model_dir: str | Path | None) -> Path | None:
    """The checkpoint that answers next edits for the model in `model_dir` (None: the shipped one):
    the model itself when trained for them, else the checkpoint in its `next-edit/` subdirectory
    when that one is (the shipped model's model/weights/next-edit), else None: analogy alone.
    Design decision: a companion checkpoint, because next-edit training cost a 10M-parameter model
    17 of its 120 HumanEval single-line passes (runs/sr1, bench/RESULTS.md); a model that serves
    both keeps answering both."""
    base = Path(model_dir) if model_dir else default_dir()
    for d in (base, base / COMPANION):
        cfg = _config(d)
        if cfg is not None and cfg.get("next_edit") == FORMAT:
            return d
    return None


def model_may_answer(model_dir: str | Path | None) -> bool:
    """Whether the Engine for `model_dir` (None: the shipped model) could answer a next edit that
    analogy leaves open, read from config.json files alone (no torch, no weights): a redraft
    checkpoint with a `next_edit_dir`. A hub-format model (a `model_type` in its config) never
    answers next edits (Engine.next_edit_model). When False, `by_analogy`'s answer is the answer."""
    if model_dir is not None:
        cfg = _config(Path(model_dir).expanduser())
        if cfg is not None and "model_type" in cfg:
            return False
        return next_edit_dir(Path(model_dir).expanduser()) is not None
    return next_edit_dir(None) is not None


def rewrite(model, tok, seq_len: int, task: EditTask, cache: ContextCache | None = None,
            should_stop: Callable[[], bool] | None = None, silence: float = SILENCE) -> tuple[str, float, int] | None:
    """(the model's text for the task's region, the lowest confidence among the tokens it wrote,
    forward passes), or None when the region cannot fit a row. The answer is "no edit" only when
    the model rates it at least `silence` likely (else its likeliest edit)."""
    from redraft.model import causal
    from redraft.model.sampler import ContextCache
    ctx = edit_context(tok, task, context_budget(seq_len))
    if ctx is None:
        return None
    kv, _ = (cache if cache is not None else ContextCache()).encode(model, ctx)
    # a hunk's block is held to lines of the region (model/hunks.py block_guide)
    ids, probs, passes = causal.greedy(model, tok, ctx, kv, EDIT_ANSWER, tok.eom_id, should_stop, answer_markers(tok),
                                       guide=block_guide(tok, task.region), stop_first=silence)
    new = apply_hunks(task.region, parse_answer(tok, ids), task.region[:task.cursor].count("\n"))
    return new, min(probs, default=1.0), passes


def rewrite_region(model, tok, seq_len: int, text: str, line: int, col: int, history: list[tuple[str, str]],
                   cache: ContextCache | None = None,
                   should_stop: Callable[[], bool] | None = None, silence: float = SILENCE) -> Attempt | None:
    """The model's text for the region around (line, col), the region shrunk (SIZES) until it fits a
    row; None when not even the smallest does (very long lines)."""
    for size in SIZES:
        task = task_for(text, line, col, history, size=size)
        out = rewrite(model, tok, seq_len, task, cache, should_stop, silence)
        if out is not None:
            break
    else:
        return None
    a = task.prefix.count("\n")
    return Attempt(a, a + task.region.count("\n") + 1, task.region, out[0], out[1], out[2])


def jump_lines(text: str, line: int, history: list[tuple[str, str]], skip: tuple[int, int]) -> list[int]:
    """Lines outside `skip` that still hold a word the last edit removed, nearest first."""
    if not history:
        return []
    before, after = history[-1]
    gone = set(_WORD.findall(before)) - set(_WORD.findall(after))
    if not gone:
        return []
    lines = text.split("\n")
    hits = [i for i, l in enumerate(lines) if not skip[0] <= i < skip[1] and gone & set(_WORD.findall(l))]
    return sorted(hits, key=lambda i: (abs(i - line), i))[:MAX_JUMPS]


def to_edit(text: str, att: Attempt, min_confidence: float = MIN_CONFIDENCE) -> NextEdit | None:
    """The attempt as a change of the document, trimmed to the characters that differ (None: no
    change, or one the model is not sure enough of)."""
    if att.new_region == att.region or att.confidence < min_confidence:
        return None
    lines = text.split("\n")
    base = sum(len(l) + 1 for l in lines[:att.start_line])
    old, new = att.region, att.new_region
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    s = 0
    while s < min(len(old), len(new)) - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    return NextEdit(base + p, base + len(old) - s, new[p:len(new) - s], att.start_line, att.end_line, new,
                    att.confidence, att.forward_passes)


def by_analogy(text: str, line: int, col: int, history: list[tuple[str, str]],
               min_confidence: float = MIN_CONFIDENCE) -> NextEdit | None:
    """Analogy's next edit (no model): what `next_edit` answers first, when it is not None."""
    found = analogy.propose(text, line, history, col=col)
    if found is None:
        return None
    a, b, new, confidence = found
    lines = text.split("\n")
    return to_edit(text, Attempt(a, b, "\n".join(lines[a:b]), "\n".join(new), confidence, 0), min_confidence)


def next_edit(model, tok, seq_len: int, text: str, line: int, col: int, history: list[tuple[str, str]],
              cache: ContextCache | None = None,
              should_stop: Callable[[], bool] | None = None,
              min_confidence: float = MIN_CONFIDENCE, use_analogy: bool = True,
              silence: float = SILENCE) -> tuple[NextEdit | None, int]:
    """(the next edit or None, forward passes spent): analogy's (use_analogy), else, when the
    model was trained for next edits, the model's for the cursor's region, then for the jumps.
    The model's answer is greedy on its causal path: the effort setting does not change it."""
    if should_stop is not None and should_stop():
        return None, 0
    edit = by_analogy(text, line, col, history, min_confidence) if use_analogy else None
    if edit is not None:
        return edit, 0
    if not trained_for_next_edits(model):
        return None, 0
    passes = 0
    first = rewrite_region(model, tok, seq_len, text, line, col, history, cache, should_stop, silence)
    if first is None:
        return None, 0
    passes += first.forward_passes
    edit = to_edit(text, first, min_confidence)
    if edit is not None:
        return edit, passes
    for j in jump_lines(text, line, history, (first.start_line, first.end_line)):
        att = rewrite_region(model, tok, seq_len, text, j, 0, history, None, should_stop, silence)
        if att is None:
            continue
        passes += att.forward_passes
        edit = to_edit(text, att, min_confidence)
        if edit is not None:
            return edit, passes
    return None, passes


# ---------------------------------------------------------------------------------------------
# bench/next_edit.py's predictor API: the shipped model, or REDRAFT_MODEL's, with
# REDRAFT_MIN_CONFIDENCE (calibrate it with `bench/next_edit.py --split train`); REDRAFT_NEXT_EDIT
# picks who answers: "both" (the server's way, the default), "analogy" or "model" alone.

_LOADED = None


def _env(name: str, default: str) -> str:
    import os
    return os.environ.get(name) or default


def _model():
    """REDRAFT_MODEL's (default: the shipped model's) next-edit checkpoint (`next_edit_dir`), or the
    model itself when it has none (then only analogy answers)."""
    global _LOADED
    if _LOADED is None:
        from redraft.model import checkpoint
        base = _env("REDRAFT_MODEL", "") or None
        _LOADED = checkpoint.load(next_edit_dir(base) or base)
    return _LOADED


def _min_confidence() -> float:
    return float(_env("REDRAFT_MIN_CONFIDENCE", str(MIN_CONFIDENCE)))


def _silence() -> float:
    return float(_env("REDRAFT_SILENCE", str(SILENCE)))


def _who() -> str:
    who = _env("REDRAFT_NEXT_EDIT", "both")
    if who not in ("both", "analogy", "model"):
        raise SystemExit(f"REDRAFT_NEXT_EDIT={who!r}: choose both, analogy or model")
    return who


def predict(task: EditTask) -> str:
    who = _who()
    new = analogy.rewrite(task) if who != "model" else task.region
    if new != task.region or who == "analogy" or not trained_for_next_edits(_model().model):
        return new
    m = _model()
    out = rewrite(m.model, m.tokenizer, m.model.cfg.max_seq_len, task, silence=_silence())
    if out is None or out[1] < _min_confidence():
        return task.region
    return out[0]


def anywhere(text: str, line: int, col: int, history: list[tuple[str, str]]) -> NextEdit | None:
    """The next edit as the server finds it (bench/next_edit_real.py reads its confidence)."""
    who = _who()
    m = _model() if who != "analogy" else None
    edit, _ = next_edit(m and m.model, m and m.tokenizer, m and m.model.cfg.max_seq_len, text, line, col, history,
                        min_confidence=_min_confidence(), use_analogy=who != "model", silence=_silence())
    return edit


def predict_anywhere(text: str, line: int, col: int, history: list[tuple[str, str]]):
    edit = anywhere(text, line, col, history)
    if edit is None:
        return None
    return edit.region_start_line, edit.region_end_line, edit.new_region
