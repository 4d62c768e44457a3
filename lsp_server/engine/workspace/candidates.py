"""Candidates from the project: lines that the project (the workspace index and the document
itself) already writes and that continue what is typed on the cursor's line. The model then
chooses among them and its own draft (pipeline.py `Engine._choose`), and the gate (gate.py) says
whether the winner is worth showing.

Only at the end of a line (nothing but whitespace after the cursor) and after at least
MIN_TYPED characters of the line's code: a line that has barely begun matches thousands of
project lines, and what follows the cursor inside a line must also match the suffix (not done).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MIN_TYPED = 2       # characters of the line's code typed before the project is asked
MAX_CANDIDATES = 3  # lines handed to the model to score (each costs the causal pass a row)
DOC_WEIGHT = 3      # a line of the document itself counts this many project lines
DOC_WINDOW = 100_000  # characters of the document either side of the cursor read for its lines


@dataclass(frozen=True)
class Candidate:
    text: str           # what to insert at the cursor (the rest of the project's line)
    project: int        # how many times the workspace index holds the whole line
    document: int       # how many times the document holds it


def typed_on_line(text: str, offset: int) -> tuple[str, str] | None:
    """(indentation, code typed after it) on the cursor's line, or None where candidates do not
    apply (text follows the cursor on its line)."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    rest = text[offset: len(text) if end < 0 else end]
    if rest.strip():
        return None
    line = text[start:offset]
    code = line.lstrip()
    return line[: len(line) - len(code)], code


def document_lines(text: str, offset: int, typed: str, window: int = DOC_WINDOW) -> dict[str, int]:
    """The document's other lines (stripped) within `window` characters of the cursor that start
    with `typed` and are longer: how often."""
    lo = text.rfind("\n", 0, max(0, offset - window)) + 1
    hi = text.find("\n", offset + window)
    hi = len(text) if hi < 0 else hi
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    end = len(text) if end < 0 else end
    out: dict[str, int] = {}
    for part in (text[lo:start], text[end:hi]):     # the cursor's own line left out
        for raw in part.split("\n"):
            s = raw.strip()
            if len(s) > len(typed) and s.startswith(typed):
                out[s] = out.get(s, 0) + 1
    return out


def project_candidates(text: str, offset: int, index: Any = None, limit: int = MAX_CANDIDATES) -> list[Candidate]:
    """The best `limit` continuations of the typed line that the project writes elsewhere, by how
    often (the document's own lines weigh DOC_WEIGHT). Empty where none apply."""
    got = typed_on_line(text, offset)
    if got is None:
        return []
    _, typed = got
    if len(typed) < MIN_TYPED:
        return []
    doc = document_lines(text, offset, typed)
    proj = dict(index.lines_starting(typed, limit=4 * limit)) if index is not None else {}
    lines = set(doc) | set(proj)
    ranked = sorted(lines, key=lambda s: (-(DOC_WEIGHT * doc.get(s, 0) + proj.get(s, 0)), len(s), s))
    return [Candidate(s[len(typed):], proj.get(s, 0), doc.get(s, 0)) for s in ranked[:limit]]
