"""What apply's merge answers: the result, the deletions it reports, its refusals."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Ambiguous", "Deletion", "MergeResult", "MergeRefused", "NotByName", "Replacement", "MAX_BYTES"]

MAX_BYTES = 2 * 1024 * 1024


@dataclass
class Deletion:
    """Original lines the merge deleted because the snippet omits them without a marker."""

    start: int                        # first deleted line of the original (1-based)
    end: int                          # last deleted line (1-based, inclusive)
    why: str                          # "no marker before the snippet's first line", ...
    definitions: list[str] = field(default_factory=list)   # "class `Foo` (lines 80-112)"

    @property
    def lines(self) -> int:
        return self.end - self.start + 1

    def summary(self) -> str:
        """One line: `deleted 12 lines at 40-51 (no marker ...)`, and the definitions it removes."""
        s = f"deleted {self.lines} line{'s' if self.lines != 1 else ''} at {self.start}-{self.end} ({self.why})"
        return s + "".join(f"; removed {d}" for d in self.definitions)

    def as_json(self) -> dict:
        return {"start": self.start, "end": self.end, "lines": self.lines, "why": self.why,
                "definitions": list(self.definitions), "summary": self.summary()}


class Replacement(list):
    """An edit's new lines that say why the lines they leave out are deleted (when not because the
    snippet omits them between two of its lines); `drops`: so are the lines they replace with
    unlike ones."""

    def __init__(self, lines: list[str], why: str, drops: bool = False):
        super().__init__(lines)
        self.why, self.drops = why, drops


@dataclass
class MergeResult:
    ok: bool
    text: str = ""
    reason: str = ""
    deletions: list[Deletion] = field(default_factory=list)   # what the snippet omitted without a marker
    warnings: list[str] = field(default_factory=list)   # the snippet's own lines the grammar cannot read


class MergeRefused(Exception):
    """A snippet that cannot be applied safely; the message is a one-line reason."""

class NotByName(Exception):
    """The fragment looks like definitions but must be anchored by lines (it looks cut short)."""


class Ambiguous(Exception):
    """Raised with the refusal's text; apply's merge turns it into MergeRefused.  `places`: for a
    fragment that fits several places alike, their (first, last) lines (plan._ordered picks among them)."""

    def __init__(self, why: str, places: tuple[tuple[int, int], ...] = ()):
        super().__init__(why)
        self.places = places
