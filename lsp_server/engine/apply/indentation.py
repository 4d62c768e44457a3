"""The snippet's indentation made the file's (apply's merge): tabs or spaces and the space unit.
A snippet indented with spaces for a tab-indented file is converted when that is exact (a block
comment's inner lines, ` * ...`, keep their one space and tell neither kind), unless its indented lines
are the file's own spaced ones (a bundle that holds a module indented with spaces); one whose
space unit differs from the file's is refused (IndentMismatch), unless its indented lines are the
file's own (the units only seemed to differ) or the file steps by the snippet's unit too, once in
SHARE steps or more (a formatter's deeper step inside conditional types and ternaries).
Whitespace-only lines stay as written, but for converted ones: emptied (their whitespace was in
the other kind)."""
from __future__ import annotations

import re
from collections import Counter

from redraft.engine.apply.definitions import _indent
from redraft.engine.apply.markers import is_marker

__all__ = ["IndentMismatch", "match_indentation", "uses_tabs"]

_WORD = re.compile(r"\w")
SHARE = 5          # a file that steps by the snippet's unit once in SHARE steps or more uses it too


class IndentMismatch(Exception):
    """The snippet's indentation cannot be made the file's; the message is a one-line reason."""


def _space_unit(lines: list[str], opener: str, steps: Counter[int] | None = None) -> int | None:
    """The most common indentation step after a line of code that opens a block (_steps, or
    `steps` when the caller has them)."""
    steps = _steps(lines, opener) if steps is None else steps
    return steps.most_common(1)[0][0] if steps else None


def _steps(lines: list[str], opener: str) -> Counter[int]:
    """The indentation steps after lines of code that open a block (end with `opener`), counted;
    lines in docstrings and comments (`Unix:` in a docstring) do not count."""
    steps: Counter[int] = Counter()
    prev = None
    in_text = False
    for l in lines:
        t = l.strip()
        quotes = t.count('"""') + t.count("'''")
        skip = in_text or quotes or t.startswith(("#", "//", "*", "/*"))
        if quotes % 2:
            in_text = not in_text
        if skip or not t or l.startswith("\t"):
            if not t or l.startswith("\t"):
                continue
            prev = None
            continue
        if prev is not None and _indent(l) > _indent(prev) and prev.rstrip().endswith(opener):
            steps[_indent(l) - _indent(prev)] += 1
        prev = l
    return steps


def _starred(line: str) -> bool:
    """A block comment's inner line (` * @param ...`, ` */`): one space past the comment's indentation
    in a file of tabs as in one of spaces, so it tells neither."""
    return line.lstrip().startswith("*")


def uses_tabs(lines: list[str]) -> bool | None:
    """Whether the lines are indented with tabs (more of them start with a tab than with a space),
    None when none is indented; a block comment's inner lines do not count (_starred)."""
    tabs = sum(1 for l in lines if l.startswith("\t") and l.strip() and not _starred(l))
    spaces = sum(1 for l in lines if l.startswith(" ") and l.strip() and not _starred(l))
    if not tabs and not spaces:
        return None
    return tabs > spaces


def _indented_as_file(orig: list[str], snip: list[str]) -> bool:
    """Two thirds of the snippet's indented lines are lines of the file, indentation and all; or,
    of its indented lines whose text the file has (two at least), two thirds have the file's
    indentation too (the units only seemed to differ: continuation lines, a formatter's deeper
    step inside conditional types; a snippet written in another unit re-indents the file's lines)."""
    known = {l.rstrip() for l in orig}
    ind = [l.rstrip() for l in snip if l.strip() and l[0] == " " and not is_marker(l)]
    if ind and sum(l in known for l in ind) * 3 >= 2 * len(ind):
        return True
    texts = {l.strip() for l in orig if _WORD.search(l)}
    shared = [l for l in ind if l.strip() in texts]
    return len(shared) >= 2 and sum(l in known for l in shared) * 3 >= 2 * len(shared)


def _spaced_here(orig: list[str], snip: list[str]) -> bool:
    """A tab file that also has code indented with spaces (a bundle holding a module written so),
    where more of the snippet's spaced lines with text are found spaced in the file (their text) than
    found there only with tabs: the snippet is for the spaced part (msgpackr's dist/node.cjs, a
    function rewritten there)."""
    def code(l: str, lead: str) -> bool:
        return l.startswith(lead) and bool(_WORD.search(l)) and not _starred(l) and not is_marker(l)
    spaced = {l.strip() for l in orig if code(l, " ")}
    if not spaced:
        return False
    tabbed = {l.strip() for l in orig if code(l, "\t")}
    mine = [l.strip() for l in snip if code(l, " ")]
    return sum(t in spaced for t in mine) > sum(t not in spaced and t in tabbed for t in mine)


def match_indentation(orig: list[str], snip: list[str], opener: str) -> list[str]:
    o_tabs, s_tabs = uses_tabs(orig), uses_tabs(snip)
    if o_tabs is None or s_tabs is None:
        return snip
    if o_tabs and not s_tabs:
        if _indented_as_file(orig, snip) or _spaced_here(orig, snip):
            return snip               # (its lines are the file's own spaced ones: a bundle's module)
        unit = _space_unit(snip, opener) or 4
        out = []
        for l in snip:
            n = len(l) - len(l.lstrip(" "))
            odd = n % unit if l.strip() else 0      # (a block comment's inner line keeps its one space)
            if odd and not (_starred(l) and odd == 1):
                raise IndentMismatch(f"snippet is indented with spaces ({unit}) but the file uses tabs")
            out.append("\t" * (n // unit) + " " * odd + l[n:] if l.strip() else "")
        return out
    if not o_tabs and s_tabs:
        unit = _space_unit(orig, opener) or 4
        return [" " * unit * (len(l) - len(l.lstrip("\t"))) + l.lstrip("\t") if l.strip() else "" for l in snip]
    if not o_tabs:
        steps = _steps(orig, opener)
        ou, su = _space_unit(orig, opener, steps), _space_unit(snip, opener)
        if ou and su and ou != su and SHARE * steps[su] < steps.total() and not _indented_as_file(orig, snip):
            raise IndentMismatch(f"snippet indents by {su} spaces but the file by {ou}")
    return snip
