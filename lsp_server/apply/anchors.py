"""Where a fragment of a lazy snippet goes in the original, by its lines (apply's merge).

A fragment's first line and its last line are its anchors: both must be original lines (trailing
whitespace ignored), and the fragment replaces the original region from the first to the last.
When either matches several lines, every (head, tail) pair after the previous fragment and inside
the fragment's block (no line indented less than the fragment between them) is a candidate, scored
by how well the region agrees with the fragment: 2 x (the region's lines that the fragment has, in
the same order) - (the region's length), so a region that would drop lines the fragment does not
show scores low.  The best
pair wins when it is the only best; an indented marker right before the fragment (the code it
stands for stays inside that block) breaks ties; otherwise the merge refuses: it never guesses.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter

__all__ = ["anchor", "same"]

MAX_HEADS = 400
GONE = 5                          # see _no_lost_definitions
SLACK = 200                       # a region at most this much longer than twice the fragment


class Ambiguous(Exception):
    """Raised with the refusal's text; apply's merge turns it into MergeRefused."""


def same(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _prefix(orig: list[str], lines: list[str], j: int) -> int:
    k = 0
    while k < len(lines) and j + k < len(orig) and same(orig[j + k], lines[k]):
        k += 1
    return k


def _block_end(orig: list[str], start: int, indent: int) -> int:
    """The first line after `start` indented less than `indent` (len(orig) if none)."""
    for j in range(start + 1, len(orig)):
        if orig[j].strip() and _indent(orig[j]) < indent:
            return j
    return len(orig)


def _pairs(orig: list[str], lines: list[str], heads: list[int], base: int):
    """(score, head, tail) for every candidate region."""
    want = Counter(l.strip() for l in lines)
    last = lines[-1]
    for a in heads:
        limit = min(_block_end(orig, a, base), a + 2 * len(lines) + SLACK)
        have: Counter[str] = Counter()
        matched = 0
        for b in range(a, limit):
            t = orig[b].strip()
            have[t] += 1
            if have[t] <= want[t]:
                matched += 1
            if b > a and same(orig[b], last):
                yield 2 * matched - (b - a + 1), a, b


def _agreement(orig: list[str], want: list[str], a: int, b: int) -> tuple[int, int]:
    """(score, non-blank lines the region would drop) counting only lines that agree in order."""
    region = [l.strip() for l in orig[a:b + 1]]
    blocks = difflib.SequenceMatcher(None, region, want, autojunk=False).get_matching_blocks()
    kept = {i for m in blocks for i in range(m.a, m.a + m.size)}
    dropped = sum(1 for i, l in enumerate(region) if l and i not in kept)
    return 2 * len(kept) - len(region), dropped


def _best(orig: list[str], lines: list[str], cands: list[tuple[int, int, int]], name: str):
    """The candidates with the best in-order score, evaluated from the best multiset score down (an
    upper bound) until no remaining candidate can reach the best found; the best may not drop a
    definition silently (_no_lost_definitions)."""
    want = [l.strip() for l in lines]
    best, top = None, []
    scored = []
    for ub, a, b in sorted(cands, key=lambda c: -c[0]):
        if best is not None and ub < best:
            break
        score, dropped = _agreement(orig, want, a, b)
        scored.append((score, a, b, dropped))
        best = score if best is None else max(best, score)
    top = [t for t in scored if t[0] == best]
    if len(top) == 1 and top[0][3]:
        _no_lost_definitions(orig, lines, top[0][1], top[0][2], name)
    return [t[:3] for t in top]


_HEADER = re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:static\s+)?(?:async\s+)?"
                     r"(?:def|class|function\*?|fn|func|impl|struct|enum|trait|interface)\s+\(?\s*([A-Za-z_$][\w$]*)"
                     r"|^\s*(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*\{\s*$")
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "function", "return", "with", "elif"}


def _no_lost_definitions(orig: list[str], lines: list[str], a: int, b: int, name: str) -> None:
    """A region may not drop the first line of a definition whose name the fragment never shows
    (a whole function gone without a word is the loss users fear most), unless the region starts
    and ends with runs of the fragment's lines that occur nowhere else in the file."""
    region, want = [l.strip() for l in orig[a:b + 1]], [l.strip() for l in lines]
    blocks = difflib.SequenceMatcher(None, region, want, autojunk=False).get_matching_blocks()
    kept = {i for m in blocks for i in range(m.a, m.a + m.size)}
    shown = "\n".join(lines)
    runs = [m for m in blocks if m.size]
    if runs and runs[0].a == 0 and runs[-1].a + runs[-1].size == len(region) and \
            _once(orig, region[:runs[0].size]) and _once(orig, region[runs[-1].a:]):
        return                        # anchored at both ends by text found nowhere else: explicit
    for i in range(b - a + 1):
        m = _HEADER.match(orig[a + i]) if i not in kept else None
        ident = m and (m.group(1) or m.group(2))
        if ident and ident not in _NOT_NAMES and not re.search(rf"(?<![\w$]){re.escape(ident)}(?![\w$])", shown):
            raise Ambiguous(f"{name}: would delete `{ident}` (line {a + i + 1}), which the snippet does not show; "
                            "show it or mark it with `... existing code ...`")
    new = [want[j] for j in range(len(want)) if want[j] and not any(m.b <= j < m.b + m.size for m in runs)]
    gone = [i for i in range(len(region)) if region[i] and i not in kept and not any(
        difflib.SequenceMatcher(None, region[i], n, autojunk=False).ratio() >= 0.5 for n in new)]
    for i in gone:                    # GONE lines in a row deleted outright, nothing like them shown
        if i + GONE - 1 in gone and all(k in gone or not region[k] for k in range(i, i + GONE)):
            raise Ambiguous(f"{name}: would delete lines {a + i + 1}-{a + i + GONE}, which the snippet does not "
                            "show; show them or mark them with `... existing code ...`")


def _once(orig: list[str], seq: list[str]) -> bool:
    """`seq` (stripped lines) occurs exactly once in the file."""
    n, k = len(orig), len(seq)
    hits = 0
    for j in range(n - k + 1):
        if orig[j].strip() == seq[0] and all(orig[j + t].strip() == seq[t] for t in range(1, k)):
            hits += 1
            if hits > 1:
                return False
    return hits == 1


def _replaces(orig: list[str], lines: list[str], a: int, b: int) -> bool:
    """The region agrees with the fragment somewhere, and every line it drops has a like line among
    the fragment's new ones (a replacement, not a deletion)."""
    region, want = [l.strip() for l in orig[a:b + 1]], [l.strip() for l in lines]
    blocks = difflib.SequenceMatcher(None, region, want, autojunk=False).get_matching_blocks()
    kept = {i for m in blocks for i in range(m.a, m.a + m.size)}
    new = [want[j] for j in set(range(len(want))) - {j for m in blocks for j in range(m.b, m.b + m.size)} if want[j]]
    dropped = [l for i, l in enumerate(region) if l and i not in kept]
    return bool(kept) and len(dropped) <= len(new) and all(
        any(difflib.SequenceMatcher(None, d, n, autojunk=False).ratio() >= 0.5 for n in new) for d in dropped)


def _innermost(orig: list[str], items: list, pos: int, marker_before: int | None, head) -> list:
    """Those of several items (heads or candidates) in the innermost block around an indented marker
    (right after the previous fragment) that has any; all of them otherwise."""
    if len(items) > 1 and marker_before:
        for level in range(marker_before, 0, -1):
            inside = [x for x in items if head(x) <= _block_end(orig, pos - 1, level)]
            if inside:
                return inside
    return items


def _to_block_end(orig: list[str], lines: list[str], a: int, base: int) -> tuple[int, int, int]:
    b = _block_end(orig, a, base) - 1
    while b > a and not orig[b].strip():
        b -= 1
    want = Counter(l.strip() for l in lines)
    have = Counter(l.strip() for l in orig[a:b + 1])
    matched = sum(min(n, want[t]) for t, n in have.items())
    return 2 * matched - (b - a + 1), a, b


def anchor(orig: list[str], lines: list[str], pos: int, marker_before: int | None, marker_after: int | None,
           name: str, at_start: bool = False, at_end: bool = False) -> tuple[int, int]:
    """Original line indices (head, tail) of the region that the fragment `lines` replaces.
    `pos`: the first line after the previous fragment; `marker_before`: the indentation of the
    marker right before the fragment when it follows another fragment, else None; `marker_after`:
    the indentation of the marker right after it, None if none.  A fragment whose last line is new
    and that is followed by a less indented marker runs to the end of its block (its first line
    unique, the lines it drops replaced by like ones).  `at_start` (no
    marker or fragment before it) / `at_end` (none after it): a new first / last line makes it
    start / end where the file does, if that replaces about as many lines as it brings."""
    heads = [j for j in range(pos, len(orig)) if same(orig[j], lines[0])]
    edge = False
    if not heads and at_start and orig:
        heads, edge = [0], True
    if not heads:
        raise Ambiguous(f"{name}: its first line is not in the file (after the previous fragment)")
    if len(lines) == 1:
        cands = [(0, a, a) for a in heads]
    else:
        if len(heads) > MAX_HEADS:
            raise Ambiguous(f"{name}: matches more than one place in the file")
        base = min(_indent(l) for l in lines if l.strip())
        cands = list(_pairs(orig, lines, heads, base))
        if not cands and marker_after is not None and marker_after < base < _indent(lines[0]) + 1:
            inner = _innermost(orig, heads, pos, marker_before, lambda a: a)
            if len(inner) > 1:
                raise Ambiguous(f"{name}: matches more than one place in the file")
            cands, edge = [_to_block_end(orig, lines, inner[0], base)], True   # it ends its block
        if not cands and at_end and orig:
            cands, edge = [_to_block_end(orig, lines, a, -1) for a in heads], True
        if not cands:
            raise Ambiguous(f"{name}: its last line is not in the file (after the previous fragment)")
    if edge:                          # a start, an end of file or block taken for an anchor
        cands = [c for c in cands if _replaces(orig, lines, c[1], c[2])]
        if not cands:
            where = "first" if heads == [0] and not same(orig[0], lines[0]) else "last"
            raise Ambiguous(f"{name}: its {where} line is not in the file (after the previous fragment)")
    cands = _best(orig, lines, cands, name)
    cands = _innermost(orig, cands, pos, marker_before, lambda c: c[1])
    if len(cands) > 1:
        raise Ambiguous(f"{name}: matches more than one place in the file")
    a, b = cands[0][1], cands[0][2]
    return a, b
