"""Fragments whose edge is only weak lines (no word in them: `}`, a blank, `/**`) next to a marker
(apply's merge).  Such lines fit the next place they recur as well as the nearest: a snippet that
shows `return x;` / `}` / `` / `/**` and then a marker may keep the next definition (the marker
covers it) or delete it (the lines after the gap are the next `}` / `/**`).  The merge takes the
nearest; `weak_alternatives` names the other reading's span and `refuse_dead_alternative` refuses
when that span holds definitions that the merged file no longer uses anywhere but the snippet's
edit did use before: the edit removed their last use, so deleting them is as likely as keeping."""
from __future__ import annotations

import re

from redraft.engine.apply.definitions import Def, collect_defs
from redraft.engine.apply.result import MergeRefused

__all__ = ["weak_alternatives", "refuse_dead_alternative"]

SPAN = 400                         # lines an alternative reading may reach past the nearest one
AT_MOST = 3                        # recurrences of the weak lines tried on each side
_WORD = re.compile(r"\w")


def _weak(line: str) -> bool:
    return not _WORD.search(line)


def weak_alternatives(orig: list[str], lines: list[str], a: int, b: int, marker_before, marker_after,
                      name: str) -> list[tuple[int, int, int, int, str]]:
    """[start, end) spans of the file that the other reading of the fragment's weak edge deletes
    (region [a, b], the fragment's `lines`), the part of each outside the region, and the
    fragment's name."""
    out: list[tuple[int, int, int, int, str]] = []
    n = len(lines)
    if marker_after is not None:
        k = 0
        while k < n - 1 and _weak(lines[-1 - k]):
            k += 1
        tail = [l.strip() for l in lines[n - k:]]
        if k and any(tail) and b - k + 1 >= a and all(orig[b - k + 1 + t].strip() == tail[t] for t in range(k)):
            for b2 in range(b + k, min(len(orig), b + 1 + SPAN)):
                if all(orig[b2 - k + 1 + t].strip() == tail[t] for t in range(k)):
                    out.append((b - k + 1, b2 - k + 1, b + 1, b2 - k + 1, name))
                    if len(out) == AT_MOST:
                        break
    if marker_before is not None:
        k = 0
        while k < n - 1 and _weak(lines[k]):
            k += 1
        head = [l.strip() for l in lines[:k]]
        if k and any(head) and a + k - 1 <= b and all(orig[a + t].strip() == head[t] for t in range(k)):
            for a2 in range(a - k, max(-1, a - 1 - SPAN), -1):
                if all(orig[a2 + t].strip() == head[t] for t in range(k)):
                    out.append((a2 + k, a + k, a2 + k, a, name))
                    if len(out) >= AT_MOST:
                        break
    return out


def _flat(defs: list[Def]) -> list[Def]:
    out: list[Def] = []
    for d in defs:
        out.append(d)
        out.extend(_flat(d.members or []))
    return out


def _uses(name: str, text: str, member: bool = False) -> int:
    """Occurrences of `name` as a word (`x.name` only for a member: another object's otherwise)."""
    return len(re.findall(rf"(?<![\w${'' if member else '.'}]){re.escape(name)}(?![\w$])", text))


def refuse_dead_alternative(lang, orig: list[str], out: list[str], edits, spans) -> None:
    """MergeRefused when a span of `weak_alternatives` (touching no edit) holds whole definitions,
    each used outside itself in the file but in the merged file `out` nowhere but in itself."""
    defs = None
    for s, e, cs, ce, name in spans:
        if cs >= ce or any(x < ce and cs < y for x, y, _ in edits if x < y):
            continue
        defs = defs if defs is not None else _flat(collect_defs(lang, orig))
        inside = [d for d in defs if s <= d.start < e]
        k = max(cs - s, e - ce)          # the weak lines: a definition may end on the other reading's
        if not inside or any(d.end >= e + k for d in inside):
            continue
        top = [d for d in inside if not any(p is not d and p.start <= d.start and d.end <= p.end for p in inside)]
        whole, result = "\n".join(orig), "\n".join(out)
        dead = []
        for d in top:                 # uses inside the span go with it
            m = d.parent is not None
            own = _uses(d.name, "\n".join(orig[min(s, d.comment_start):max(e + k, d.end + 1)]), m)
            if _uses(d.name, whole, m) <= own or _uses(d.name, result, m) > own:
                break                 # unused already, or still used: keeping it is the reading
            dead.append(d)
        else:
            d = dead[0]
            raise MergeRefused(f"{name}: its lines without words next to the marker fit two places: before "
                               f"`{d.name}` (lines {d.start + 1}-{d.end + 1}), which nothing uses after this edit, "
                               "or after it, deleting it; show a line past it or mark it with `... existing code ...`")
