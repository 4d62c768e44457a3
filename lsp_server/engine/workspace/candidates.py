"""Candidates from the project: lines that the project (the workspace index and the document
itself) already writes and that continue what is typed on the cursor's line. The model then
chooses among them and its own draft (pipeline.py `Engine._choose`), and the gate (gate.py) says
whether the winner is worth showing.

Only at the end of a line (nothing but whitespace after the cursor) and after at least
MIN_TYPED characters of the line's code: a line that has barely begun matches thousands of
project lines, and what follows the cursor inside a line must also match the suffix (not done).
"""
from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass
from typing import Any, Sequence

from redraft.engine.workspace.scan import code_lines, is_code_line

MIN_TYPED = 2       # characters of the line's code typed before the project is asked
MAX_CANDIDATES = 3  # lines handed to the model to score (each costs the causal pass a row)
POOL_CAP = 16       # the project's matching lines counted at most (the gate's `pool` feature)
FOLLOW_WEIGHT = 10  # a line that follows the cursor's previous line elsewhere counts this many project lines
DOC_WEIGHT = 3      # a line of the document itself counts this many project lines
DOC_WINDOW = 100_000  # characters of the document either side of the cursor read for its lines
SNIPPET_CHARS = 200_000  # characters of a request's snippets read at most
NAME_WINDOW = 20_000  # characters of the document either side of the cursor read for its names
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# names every Python file may use without defining them (other languages: the document and the
# project's definitions only)
_PY_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"self", "cls"}


@dataclass(frozen=True)
class Candidate:
    text: str           # what to insert at the cursor (the rest of the project's line)
    project: int        # how many times the workspace index holds the whole line
    document: int       # how many times the document holds it
    rank: int = 0       # its place among the project's lines that continue the typed line (0: first)
    pool: int = 0       # how many distinct such lines the project writes (at most POOL_CAP)
    follows: int = 0    # how many times the project writes it right after the cursor's previous code line


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


def project_candidates(text: str, offset: int, index: Any = None, limit: int | None = None,
                       snippets: Sequence[str] = ()) -> list[Candidate]:
    """The best `limit` continuations of the typed line that the project writes elsewhere, by how
    often (the document's own lines weigh DOC_WEIGHT, a line that follows the cursor's previous
    line elsewhere FOLLOW_WEIGHT). `snippets`: other files' text a client sent with the request
    (HTTP `input_extra`, ...), read as project lines. Empty where none apply."""
    limit = MAX_CANDIDATES if limit is None else limit
    got = typed_on_line(text, offset)
    if got is None:
        return []
    _, typed = got
    starting, after = snippet_lines(snippets, typed, previous_code_line(text, offset)) if snippets else ({}, {})
    follow = followers(text, offset, index)
    for s, n in after.items():
        follow[s] = follow.get(s, 0) + n
    follow = {s: n for s, n in follow.items() if len(s) > len(typed) and s.startswith(typed)}
    if len(typed) < MIN_TYPED:
        doc, proj = {}, {}
    else:
        doc = document_lines(text, offset, typed)
        proj = dict(index.lines_starting(typed, limit=max(4 * limit, POOL_CAP))) if index is not None else {}
        for s, n in starting.items():
            proj[s] = proj.get(s, 0) + n
    lines = set(doc) | set(proj) | set(follow)
    pool = min(len(lines), POOL_CAP)
    score = {s: FOLLOW_WEIGHT * follow.get(s, 0) + DOC_WEIGHT * doc.get(s, 0) + proj.get(s, 0) for s in lines}
    ranked = sorted(lines, key=lambda s: (-score[s], len(s), s))
    return [Candidate(s[len(typed):], proj.get(s, 0), doc.get(s, 0), rank, pool, follow.get(s, 0))
            for rank, s in enumerate(ranked[:limit])]


def snippet_lines(snippets: Sequence[str], typed: str, prev: str | None) -> tuple[dict[str, int], dict[str, int]]:
    """From the snippets' code lines (SNIPPET_CHARS in all at most): those that continue `typed`,
    and those that come right after `prev`, each with how often."""
    starting: dict[str, int] = {}
    after: dict[str, int] = {}
    budget = SNIPPET_CHARS
    for snippet in snippets:
        if budget <= 0:
            break
        chunk, budget = snippet[:budget], budget - len(snippet)
        lines = [l for _, l in code_lines(chunk)]
        for i, l in enumerate(lines):
            if len(l) > len(typed) and l.startswith(typed):
                starting[l] = starting.get(l, 0) + 1
            if prev is not None and i and lines[i - 1] == prev:
                after[l] = after.get(l, 0) + 1
    return starting, after


def previous_code_line(text: str, offset: int) -> str | None:
    """The last code line before the cursor's line, stripped, as the index keeps lines
    (is_code_line), or None."""
    end = text.rfind("\n", 0, offset)
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        s = text[start:end].strip()
        if is_code_line(s):
            return s
        end = start - 1
    return None


def followers(text: str, offset: int, index: Any = None) -> dict[str, int]:
    """The lines that come right after the cursor's previous code line elsewhere: in the project
    (the index, which holds the document too) or, without one, in the document."""
    prev = previous_code_line(text, offset)
    if prev is None:
        return {}
    if index is not None:
        return index.followers(prev)
    lo = text.rfind("\n", 0, max(0, offset - DOC_WINDOW)) + 1
    lines = [l for _, l in code_lines(text[lo: offset + DOC_WINDOW])]
    out: dict[str, int] = {}
    for a, b in zip(lines, lines[1:]):
        if a == prev:
            out[b] = out.get(b, 0) + 1
    return out


def document_names(text: str, offset: int, window: int = NAME_WINDOW) -> set[str]:
    """The names written in the document within `window` characters of the cursor."""
    return set(_NAME.findall(text, max(0, offset - window), offset + window))


def unknown_names(line: str, start: int, names: set[str], index: Any = None) -> int:
    """How many names of 3+ characters in `line` that end after `start` (the option's part; a name
    the cursor splits counts whole) neither the document (`names`), Python's builtins and keywords
    nor the project's definitions write: a made-up name, the junk a small model guesses."""
    n = 0
    for m in _NAME.finditer(line):
        w = m.group()
        if m.end() <= start or len(w) < 3 or w in _PY_NAMES or w in names:
            continue
        if index is not None and index.definitions_of(w):
            continue
        n += 1
    return n
