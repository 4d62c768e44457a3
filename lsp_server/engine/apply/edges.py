"""Deletions by omission (apply's merge): the file's lines before the snippet's first line (after
its last) when it has no marker there, and lines left out between two shown lines; each reported
as a `Deletion` with the definitions it removes."""
from __future__ import annotations

import difflib
import re
from collections import Counter

from redraft.engine.apply.anchors import LAST_WHY, last_text, same as _same
from redraft.engine.apply.definitions import Def, collect_defs
from redraft.engine.apply.regions import _WORD, definition_name
from redraft.engine.apply.result import Deletion, MergeRefused
from redraft.engine.apply.usage import shows

__all__ = ["FIRST_WHY", "LAST_WHY", "INSIDE_WHY", "edges", "deletions"]


_IMPORT = re.compile(r"""(?:import\b|from\s+\S+\s+import\b|(?:pub\s+)?use\s|extern\s+crate\b|"""
                     r"""export\s.*\bfrom\s*['"])""")
FIRST_WHY = "no marker before the snippet's first line"
INSIDE_WHY = "not shown between two lines of the snippet"


def _shown_before(orig: list[str], s: int, first: list[str], head: str) -> tuple[int, list[str]] | None:
    """A fragment of definitions that shows lines of the file before its first definition (edited
    at `s`, its text starting with `head`): (where those lines start in the file, the fragment's
    lines before `head`), the region [start, s) that they replace; None if not so."""
    q = next((q for q in range(len(first)) if _same(first[q], head)), None)
    if not q:
        return None
    t = next((t for t in range(s - 1, max(-1, s - 1 - 4 * len(first) - 20), -1) if _same(orig[t], first[0])), None)
    return None if t is None else (t, first[:q])


def _shown_after(orig: list[str], e: int, final: list[str], tail: str, last: int) -> tuple[int, list[str]] | None:
    q = next((q for q in range(len(final) - 1, -1, -1) if _same(final[q], tail)), None)
    if q is None or q == len(final) - 1:
        return None
    t = next((t for t in range(e, min(last + 1, e + 4 * len(final) + 20)) if _same(orig[t], final[-1])), None)
    return None if t is None else (t + 1, final[q + 1:])


def _import_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is part of an import statement (one that spans lines too)."""
    out, depth, inside = [], 0, False
    for line in lines:
        if depth == 0:
            inside = bool(_IMPORT.match(line))
        out.append(inside)
        depth = max(0, depth + sum(line.count(c) for c in "({[") - sum(line.count(c) for c in ")}]"))
    return out


def _reshown(lines: list[str], edits, orig: list[str], imports: bool) -> bool:
    """Every line with text in `lines` (a word among them) is brought again by the edits, beyond the
    lines they replace (the snippet moved it: imports sorted at the top), or, when `imports` (the
    snippet's first line is an import), is part of an import statement (the snippet rewrote it)."""
    surplus = Counter(l.strip() for _, _, new in edits for l in new) - \
        Counter(l.strip() for s, e, _ in edits for l in orig[s:e])
    word = False
    for line, imported in zip(lines, _import_lines(lines) if imports else [False] * len(lines)):
        t = line.strip()
        word = word or bool(_WORD.search(t))
        if t and surplus[t] > 0:
            surplus[t] -= 1
        elif t and not imported:
            return False
    return word


def edges(lang, orig: list[str], edits, at_start: bool, at_end: bool, first: list[str] = (), final: list[str] = (),
          open_start: bool = False, open_end: bool = False):
    """The edits, the first one reaching back to the file's first line (at_start) and the last one
    on to its last non-blank line (at_end); and those edge ranges [start, end) that are deleted.
    `first` / `final`: the first and the last fragment's lines (a fragment of definitions may show
    lines of the file before its first definition or after its last: those stay).  `open_start`
    (`open_end`): no marker before the snippet's first line (after its last), yet a local edit: the
    file's lines before (after) the edits stay, unless the edits bring every one of them again, or
    every one they do not is an import and the snippet's first line is one (_reshown)."""
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    edge: list[tuple[int, int, str]] = []
    if not edits:
        return [x for x in edits if x[0] < x[1] or x[2]], edge
    last = last_text(orig)
    at_start = at_start or open_start and 0 < edits[0][0] and \
        _reshown(orig[:edits[0][0]], edits, orig, bool(first) and bool(_IMPORT.match(first[0])))
    at_end = at_end or open_end and edits[-1][1] <= last and _reshown(orig[edits[-1][1]:last + 1], edits, orig, False)
    if at_start and edits[0][0] > 0 and first and edits[0][2] and not _same(edits[0][2][0], first[0]):
        got = _shown_before(orig, edits[0][0], list(first), edits[0][2][0])
        if got is not None:
            edits.insert(0, (got[0], edits[0][0], got[1]))
    if at_end and final and edits[-1][2] and not _same(edits[-1][2][-1], final[-1]):
        got = _shown_after(orig, edits[-1][1], list(final), edits[-1][2][-1], last)
        if got is not None:
            edits.append((edits[-1][1], got[0], got[1]))
    if at_start and edits[0][0] > 0 and not _attached(lang, orig, edits[0][0], edits[0][2]):
        s, e, lines = edits[0]
        edge.append((0, s, FIRST_WHY))
        edits[0:1] = [(0, e, lines)] if s == e else [(0, s, []), (s, e, lines)]
    s, e, lines = edits[-1]
    if at_end and e <= last:
        edge.append((e, last + 1, LAST_WHY))
        if s == e:
            edits[-1] = (s, last + 1, lines)
        else:
            edits.append((e, last + 1, []))
    return [x for x in edits if x[0] < x[1] or x[2]], edge


def _attached(lang, orig: list[str], s: int, lines) -> bool:
    """The file's lines before the snippet's first line (s of them, none blank) are all the comments,
    attributes or decorators of the definition that line starts (Def.comment_start; orjson's
    yyjson.rs: `#[repr(C)]`, then `pub struct` shown first): they are the definition's, kept as a
    definition shown alone keeps them."""
    name = definition_name(lines[0]) if lines else None
    if name is None or not all(l.strip() for l in orig[:s]):
        return False
    return any(d.comment_start == 0 < s <= d.end and definition_name(orig[s]) == d.name == name
               for d in collect_defs(lang, orig))


def _kind(line: str) -> str:
    m = re.match(r"\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:abstract\s+)?"
                 r"(def|class|function|fn|func|struct|impl|enum|trait|interface|type|mod|const|let|var)\b", line)
    if not m:
        return "definition"
    return {"def": "function", "fn": "function", "func": "function", "mod": "module"}.get(m.group(1), m.group(1))


def deletions(lang, orig: list[str], edits, edge, shown: str = "") -> list[Deletion]:
    """Every run of original lines the edits drop with nothing in their place (blank lines at its
    ends aside), with the definitions wholly inside it.  A definition deleted at the file's start
    or end whose name the snippet still uses is refused: the snippet more likely left out a marker
    than deleted what it uses."""
    ranges: list[tuple[int, int, str, int, int]] = []     # (a, b, why, and where it may slide)
    for s, e, lines in edits:
        if s == e:
            continue
        why = next((w for a, b, w in edge if a == s and b == e), None)
        if why is not None:
            ranges.append((s, e, why, s, e))
            continue
        inside = getattr(lines, "why", INSIDE_WHY)
        if not lines:
            ranges.append((s, e, inside, s, e))
            continue
        new = [l.strip() for l in lines]
        sm = difflib.SequenceMatcher(None, [l.strip() for l in orig[s:e]], new, autojunk=False)
        ops = sm.get_opcodes()
        moved = Counter(t for tag, _, _, j1, j2 in ops if tag in ("insert", "replace") for t in new[j1:j2] if t)
        drops = getattr(lines, "drops", False)     # the old tail, after the last kept line with text,
        tail = max((k + 1 for k, (tag, i1, i2, _, _) in enumerate(ops) if tag == "equal" and   # is replaced
                    any(orig[s + q].strip() for q in range(i1, i2))), default=0) if drops else 0
        for k, (tag, i1, i2, _, _) in enumerate(ops):
            if tag != "delete" and not (drops and tag == "replace" and k >= tail):
                continue
            why = INSIDE_WHY if drops and k < tail else inside
            run = None                # a line the fragment shows elsewhere moved: it is not deleted
            for q in range(s + i1, s + i2 + 1):
                t = orig[q].strip() if q < s + i2 else None
                if t is not None and not (t and moved[t] > 0):
                    run = q if run is None else run
                    continue
                if t:
                    moved[t] -= 1
                if run is not None:
                    ranges.append((run, q, why, s, e))
                    run = None
    out: list[Deletion] = []
    defs = defined = None
    for a, b, why, lo, hi in sorted(ranges):
        if not any(orig[q].strip() for q in range(a, b)):
            continue
        if defs is None:
            defs = _all_defs(collect_defs(lang, orig))
        a, b = _slid(orig, a, b, lo, hi, defs)
        while a < b and not orig[a].strip():
            a += 1
        while b > a and not orig[b - 1].strip():
            b -= 1
        inside = [d for d in defs if a <= d.start and d.end < b]
        gone = [d for d in inside if not any(p is not d and p.start <= d.start and d.end <= p.end for p in inside)]
        if defined is None:           # (names the snippet defines again: replaced, not removed or used)
            defined = {n for n in map(definition_name, shown.split("\n")) if n}
        names = [f"{_kind(_header(orig, d))} `{d.name}` (lines {d.start + 1}-{d.end + 1})" for d in gone
                 if d.name not in defined]
        if why != INSIDE_WHY:
            used = next((d for d in gone if d.name not in defined and shows(d.name, shown)), None)
            if used is not None:
                raise MergeRefused(f"would delete `{used.name}` (lines {used.start + 1}-{used.end + 1}), which the "
                                   f"snippet uses, because there is {why}; end the snippet with "
                                   "`... existing code ...` to keep it")
        out.append(Deletion(a + 1, b, why, list(dict.fromkeys(names))))
    return out


def _slid(orig: list[str], a: int, b: int, lo: int, hi: int, defs: list[Def]) -> tuple[int, int]:
    """The deleted lines [a, b) moved over equal lines inside [lo, hi) (the same text results) to
    where they hold the most whole definitions: the report names what the deletion removes."""
    places = [(a, b)]
    while places[0][0] > lo and _same(orig[places[0][0] - 1], orig[places[0][1] - 1]):
        places.insert(0, (places[0][0] - 1, places[0][1] - 1))
    while places[-1][1] < hi and _same(orig[places[-1][0]], orig[places[-1][1]]):
        places.append((places[-1][0] + 1, places[-1][1] + 1))
    if len(places) == 1:
        return a, b
    held = [sum(1 for d in defs if x <= d.start and d.end < y) for x, y in places]
    return places[held.index(max(held))] if max(held) > held[places.index((a, b))] else (a, b)


def _header(orig: list[str], d: Def) -> str:
    """The definition's own line, past decorators and attributes."""
    return next((orig[q] for q in range(d.start, d.end + 1)
                 if orig[q].strip() and not orig[q].lstrip().startswith(("@", "#[", "//", "#"))), orig[d.start])


def _all_defs(defs: list[Def]) -> list[Def]:
    out: list[Def] = []
    for d in defs:
        out.append(d)
        if d.members:
            out.extend(_all_defs(d.members))
    return out
