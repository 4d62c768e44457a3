"""Typing through a suggestion: while the user types exactly the characters that the last shown
completion of a document begins with, the rest of it is still the answer, with no model work
(Copilot and Zed keep ghost text the same way). Each keystroke then costs a string comparison
instead of a denoising run, and the suggestion does not flicker or change under the cursor.

Reused only when the new document is the old one with the typed characters inserted at the old
cursor, the typed characters open the old completion (no newline among them: editors indent a
new line their own way), the request's settings are the same, and the old completion was shown
(a withheld one is judged again: more typed text is more evidence).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Shown:
    text: str           # the document when the completion was made
    offset: int
    key: tuple          # the request's settings (Engine keys what changes the answer)
    completion: Any     # pipeline.Completion


def key_of(req: Any) -> tuple:
    return (req.effort, req.max_tokens, req.context_tokens, req.suffix_share, req.seed, req.min_tokens,
            req.language_id, req.syntax, req.min_confidence, req.context_refresh, id(req.workspace), req.snippets)


def remember(req: Any, completion: Any) -> Shown | None:
    """What a later keystroke may type through: a shown, non-empty insertion at the cursor."""
    c = completion
    if c is None or c.withheld or not c.text or c.start != req.offset or c.end != req.offset:
        return None
    return Shown(req.text, req.offset, key_of(req), c)


def typed_through(last: Shown | None, req: Any) -> Any | None:
    """The rest of the last shown completion if `req` only typed its first characters, else None."""
    if last is None or req.length is not None or req.keep_options or key_of(req) != last.key:
        return None
    t0 = time.perf_counter()
    c = last.completion
    rest = typed_rest(last.text, last.offset, c.text, req.text, req.offset)
    if rest is None:
        return None
    return replace(c, text=rest, start=req.offset, end=req.offset, forward_passes=0, context_reused=0,
                   latency_ms=(time.perf_counter() - t0) * 1000)


def typed_rest(old: str, at: int, answer: str, text: str, offset: int) -> str | None:
    """The rest of `answer`, made for the cursor at `at` in `old`, when `text` is `old` with the
    answer's first characters (some, not all, no newline) typed there and the cursor after them at
    `offset`; else None."""
    n = offset - at
    if n <= 0 or len(text) != len(old) + n or n >= len(answer):
        return None
    typed = text[at:offset]
    if "\n" in typed or not answer.startswith(typed):
        return None
    if not (text.startswith(old[:at]) and text.endswith(old[at:])):
        return None
    return answer[n:]


class Recent:
    """Typing through for clients that send a prefix and a suffix, not a document (the HTTP API):
    the last answer per place, keyed by the suffix and the prefix up to the cursor's line, so that
    many clients' documents are told apart without a name.  `through` gives the rest of the answer
    when the new prefix is the old one plus typed characters that open it (no newline among them)
    and the settings are the same; no model work.  At most `limit` places and `budget` characters
    of text are kept (oldest out)."""

    def __init__(self, limit: int = 512, budget: int = 16 * 1024 * 1024) -> None:
        self.limit, self.budget, self.size = limit, budget, 0
        self.places: dict[tuple, tuple[str, tuple, str]] = {}   # place -> (prefix, settings, answer)

    @staticmethod
    def place(prefix: str, suffix: str) -> tuple:
        """Where a request's cursor is: the text after it and the text before its line."""
        return prefix[: prefix.rfind("\n") + 1], suffix

    def remember(self, prefix: str, suffix: str, settings: tuple, answer: str, place: tuple | None = None) -> None:
        """`place`: place(prefix, suffix) when the caller has it."""
        if not answer:
            return
        place = place or self.place(prefix, suffix)
        self._drop(place)
        self.places[place] = (prefix, settings, answer)
        self.size += len(prefix) + len(suffix)
        while self.places and (len(self.places) > self.limit or self.size > self.budget):
            self._drop(next(iter(self.places)))

    def _drop(self, place: tuple) -> None:
        got = self.places.pop(place, None)
        if got is not None:
            self.size -= len(got[0]) + len(place[1])

    def through(self, prefix: str, suffix: str, settings: tuple, place: tuple | None = None) -> str | None:
        got = self.places.get(place or self.place(prefix, suffix))
        if got is None or got[1] != settings:
            return None
        old, _, answer = got
        return typed_rest(old, len(old), answer, prefix, len(prefix))
