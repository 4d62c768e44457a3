"""The lines the next-edit predictor reads around the cursor, and one prediction there.

The predictor splits its text into lines and scans them all for jump targets, so it gets only the
whole lines within WINDOW_CHARS of the cursor (`window`): a 10 MB document costs what a small one
does. A cursor line longer than MAX_LINE_CHARS (more than any canvas holds) answers nothing without
the model. `predict_at` is what the language server, the HTTP API and `redraft next-edit` call;
`analogy_at` is its answer without a model (no Engine, no torch), which is the whole answer unless
it is open and a model trained for next edits exists (predict.model_may_answer): the server and
`redraft next-edit` ask it first and load the model only then.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from redraft.engine.text import without_lone_surrogates

if TYPE_CHECKING:
    from redraft.engine.next_edit.predict import NextEdit
    from redraft.engine.pipeline import Engine

WINDOW_CHARS = 64_000       # the predictor reads whole lines within this many characters either way
MAX_LINE_CHARS = 16_000     # a longer cursor line fits no canvas (128 tokens of at most ~73 characters)


def window(text: str, offset: int) -> tuple[int, int] | None:
    """[start, end) of the whole lines within WINDOW_CHARS of `offset`, its own line always in
    (start at a line start, end at a "\\n" or the text's end); None when that line is too long."""
    first = text.rfind("\n", 0, offset) + 1
    last = text.find("\n", offset)
    last = len(text) if last < 0 else last
    if last - first > MAX_LINE_CHARS:
        return None
    lo, hi = offset - WINDOW_CHARS, offset + WINDOW_CHARS
    after = text.find("\n", lo - 1) if lo > 0 else -1
    start = 0 if lo <= 0 else (first if after < 0 else min(first, after + 1))
    end = len(text) if hi >= len(text) else max(last, text.rfind("\n", 0, hi + 1))
    return start, end


def _located(text: str, offset: int) -> tuple[int, str, int, int] | None:
    """(the window's start, its text, the cursor's line and column in it), None: no window."""
    span = window(text, offset)
    if span is None:
        return None
    a, b = span
    part = without_lone_surrogates(text[a:b])  # the tokenizer rejects lone surrogates (same length)
    rel = offset - a
    return a, part, part.count("\n", 0, rel), rel - (part.rfind("\n", 0, rel) + 1)


def _in_text(text: str, a: int, edit: "NextEdit | None") -> "NextEdit | None":
    """An edit in the window that starts at `a`, in `text`'s offsets and lines."""
    if edit is None or a == 0:
        return edit
    above = text.count("\n", 0, a)
    return replace(edit, start=edit.start + a, end=edit.end + a, region_start_line=edit.region_start_line + above,
                   region_end_line=edit.region_end_line + above)


def analogy_at(text: str, offset: int, history: list[tuple[str, str]]) -> tuple[bool, "NextEdit | None"]:
    """What `predict_at` answers without a model: (True, the edit or None) when that is its answer
    whatever the model (analogy's edit, or a cursor line too long for any); (False, None) when
    analogy has nothing, so that only a model trained for next edits could still answer."""
    from redraft.engine.next_edit.predict import by_analogy
    at = _located(text, offset)
    if at is None:
        return True, None
    a, part, line, col = at
    edit = by_analogy(part, line, col, history)
    return (True, _in_text(text, a, edit)) if edit is not None else (False, None)


def predict_at(engine: "Engine", text: str, offset: int, history: list[tuple[str, str]], uri: str,
               effort: str, should_stop: Callable[[], bool] | None = None) -> tuple["NextEdit | None", int]:
    """`Engine.next_edit` on the window around `offset` (a code-point offset into `text`): (the
    edit in `text`'s offsets and "\\n"-lines, or None; forward passes)."""
    at = _located(text, offset)
    if at is None:
        return None, 0
    a, part, line, col = at
    edit, passes = engine.next_edit(part, line, col, history, uri, effort, should_stop)
    return _in_text(text, a, edit), passes
