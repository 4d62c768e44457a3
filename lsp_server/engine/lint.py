"""Static checks that help choose among a Python line's candidates (efforts high and max).

A candidate that reads a name the document never defines, or assigns a local that nothing reads, is
rarely the line the programmer wants; one that defines a name the rest of the function reads (which
the document without the line leaves undefined) usually is. pyflakes tells these apart without
running anything: `problems()` counts, for each candidate, the undefined names, locals used before
assignment and unused locals of the document with the candidate inserted. Fewer is better; the
causal score (model/causal.py) breaks ties. On the dev-lines set (K=32 candidates, 430 tasks) this
order took exact matches from 50 to 55; the truth never added a problem there.

Cost is bounded by checking a window, not the document: the statement that holds the cursor (from
the document's tree-sitter tree: a top-level one, or a class's method), up to the next statement. Names
the window does not define but the rest of the document mentions anywhere count as defined (an
over-approximation: a name is only flagged when nothing in the document could define it).
"""
from __future__ import annotations

import ast
import re
import warnings

from pyflakes import checker, messages

from redraft.engine.syntax.trees import encode

__all__ = ["problems", "flaws", "UNPARSED"]

KINDS = (messages.UndefinedName, messages.UndefinedLocal, messages.UnusedVariable)
UNPARSED = 1 << 20  # flaws() of a candidate whose window does not parse: after every one that does
MAX_CHECKED_CHARS = 100_000  # window size x candidates; beyond it the score alone decides (~5-7 us a char here)
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _window(tree, text: str, offset: int) -> tuple[int, int, int]:
    """[start, end) in code points, and the start's column: the statement that holds the cursor, from
    the last statement starting before it to the next one's start (so a function's trailing lines,
    the cursor's among them, belong to it), looked for at the top level and then, while that is a
    class, among the class's statements (a method of a large class is checked alone)."""
    src = tree.source
    at = len(encode(text[:offset]))
    stmts, lo, hi = tree.root.children, 0, len(src)
    while True:
        stmts = [c for c in stmts if c.type != "comment"]
        before = [i for i, c in enumerate(stmts) if c.start_byte <= at]
        if not before:
            break
        i = before[-1]
        lo, hi = stmts[i].start_byte, (stmts[i + 1].start_byte if i + 1 < len(stmts) else hi)
        node = stmts[i]
        if node.type == "decorated_definition":
            node = node.child_by_field_name("definition") or node
        body = node.child_by_field_name("body") if node.type == "class_definition" else None
        if body is None or at <= body.start_byte:
            break
        stmts = body.children
    # code points from the cursor's offset: only the window's bytes are decoded, not the document's
    start = offset - len(src[lo:at].decode("utf-8", "surrogatepass"))
    end = offset + len(src[at:hi].decode("utf-8", "surrogatepass"))
    return start, end, start - (text.rfind("\n", 0, start) + 1)


def _count(source: str, known: set[str]) -> int | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # SyntaxWarning (invalid escapes...) is not ours to show
            parsed = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        found = checker.Checker(parsed, "window.py", builtins=known).messages
    except Exception:   # pyflakes behind the interpreter's grammar: no signal rather than no answer
        return None
    return sum(isinstance(m, KINDS) for m in found)


def problems(tree, text: str, offset: int, candidates: list[str]) -> list[int | None] | None:
    """For each candidate inserted at `offset`: pyflakes' undefined/unused-name findings in the
    cursor's statement (None: that window does not parse with it). None for the whole call
    when the check does not apply: no tree, not Python, a star import (its names are unknowable), or
    a window too large for this many candidates."""
    if tree is None or tree.lang.name != "python" or "import *" in text:
        return None
    lo, hi, col = _window(tree, text, offset)
    if (hi - lo) * len(candidates) > MAX_CHECKED_CHARS:
        return None
    known = set(_NAME.findall(text[:lo])) | set(_NAME.findall(text[hi:]))
    # an indented window (a method) parses under a header of its own
    head = ("if 1:\n" + " " * col if col else "") + text[lo:offset]
    rest = text[offset:hi]
    return [_count(head + c + rest, known) for c in candidates]


def flaws(tree, text: str, offset: int, candidates: list[str]) -> list[int]:
    """problems() as a sort key (fewer is better): UNPARSED where a candidate's window does not
    parse, 0 for every candidate where the check does not apply."""
    found = problems(tree, text, offset, candidates)
    if found is None:
        return [0] * len(candidates)
    return [UNPARSED if n is None else n for n in found]
