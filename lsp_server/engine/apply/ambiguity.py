"""Fragments whose edge is only weak lines (no word in them: `}`, a blank, `/**`) next to a marker
(apply's merge).  Such lines fit the next place they recur as well as the nearest: a snippet that
shows `return x;` / `}` / `` / `/**` and then a marker may keep the next definition (the marker
covers it) or delete it (the lines after the gap are the next `}` / `/**`).  The merge takes the
nearest; `weak_alternatives` names the other reading's spans and `refuse_dead_alternative` refuses
when the other reading is as likely, and its merged file parses as well as the original:

* the fragment changes nothing at the nearest place (every line of it is the file's, in order,
  there) while its weak edge crosses a blank line into the next definition: a fragment is shown to
  change something, and the other reading does (it deletes the lines up to the next place);
* the lines the other reading deletes hold definitions (nested in a function's body too), or
  declare names (parameters, fields, variables), that the merged file no longer uses anywhere
  but in them while the file did (a function's local: in that function): the edit removed their
  last use (usage.py);
* they use a local name of their function whose declaration the edit removed (usage.py)."""
from __future__ import annotations

import re

from redraft.engine.apply.anchors import unchanged
from redraft.engine.apply.definitions import _error_count, collect_defs
from redraft.engine.apply.usage import dead_definitions, dead_names, orphaned_locals
from redraft.engine.apply.result import MergeRefused

__all__ = ["weak_alternatives", "refuse_dead_alternative"]

SPAN = 400                         # lines an alternative reading may reach past the nearest one
AT_MOST = 3                        # recurrences of the weak lines tried on each side
_WORD = re.compile(r"\w")


def _weak(line: str) -> bool:
    return not _WORD.search(line)


def weak_alternatives(orig: list[str], lines: list[str], a: int, b: int, marker_before, marker_after,
                      name: str) -> list[tuple[int, int, int, int, str, bool]]:
    """[start, end) spans of the file that the other reading of the fragment's weak edge deletes
    (region [a, b], the fragment's `lines`), the part of each outside the region, the fragment's
    name, and whether the fragment changes nothing at [a, b] while its weak edge crosses a blank
    line (it reaches past the end of one definition or statement into the next: `}` / `` / `/**`;
    a fragment that only closes a block it shows the end of is not one)."""
    out: list[tuple[int, int, int, int, str, bool]] = []
    n = len(lines)
    idle = unchanged(orig[a:b + 1], lines)
    if marker_after is not None:
        k = 0
        while k < n - 1 and _weak(lines[-1 - k]):
            k += 1
        tail = [l.strip() for l in lines[n - k:]]
        if k and any(tail) and b - k + 1 >= a and all(orig[b - k + 1 + t].strip() == tail[t] for t in range(k)):
            for b2 in range(b + k, min(len(orig), b + 1 + SPAN)):
                if all(orig[b2 - k + 1 + t].strip() == tail[t] for t in range(k)):
                    out.append((b - k + 1, b2 - k + 1, b + 1, b2 - k + 1, name, idle and "" in tail))
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
                    out.append((a2 + k, a + k, a2 + k, a, name, idle and "" in head))
                    if len(out) >= AT_MOST:
                        break
    return out


def _other(orig: list[str], edits, lo: int, hi: int) -> list[str]:
    """The merged file of the other reading: the edits, and the lines [lo, hi) deleted."""
    out: list[str] = []
    pos = 0
    for s, e, lines in sorted(list(edits) + [(lo, hi, [])], key=lambda x: (x[0], x[1])):
        out.extend(orig[pos:s])
        out.extend(lines)
        pos = max(pos, e)
    return out + orig[pos:]


def refuse_dead_alternative(lang, orig: list[str], out: list[str], edits, spans,
                            no_change_refused: bool = False) -> None:
    """MergeRefused when the other reading of a weak edge (a span of `weak_alternatives` touching no
    edit, whose merged file parses as well as the original) is as likely as the nearest: the
    fragment changes nothing at the nearest place; or the lines the other reading deletes hold
    definitions or declare names that the edit left unused, or use a local name whose declaration
    the edit removed (usage.py).  A snippet that changes nothing at all merges to the file itself
    unless `no_change_refused` (lines it omits are deleted: it was written to change something)."""
    spans = [sp for sp in spans if sp[2] < sp[3] and not any(x < sp[3] and sp[2] < y for x, y, _ in edits if x < y)]
    if not spans:
        return
    errors, memo = None, {}
    defs = collect_defs(lang, orig)           # every definition, members included
    for sp in sorted(spans, key=lambda sp: not sp[5]):
        s, e, cs, ce, name, idle = sp
        k = max(cs - s, e - ce)                                # the weak lines
        lo, hi = (cs - k, ce) if s == cs else (cs, ce + k)     # the lines the other reading deletes
        if idle and (out != orig or no_change_refused):
            why = (f"{name} changes nothing where it fits first; its lines without words next to the marker also "
                   f"fit further on, which deletes lines {lo + 1}-{hi}; show a line past them or mark them with "
                   "`... existing code ...`")
        else:
            why, found = dead_definitions(lang, orig, out, defs, sp, k, lo, hi)
            if not found:
                why = dead_names(lang, orig, out, lo, hi, name, defs)
            why = why or orphaned_locals(lang, orig, out, defs, lo, hi, name, memo)
        if why is None:
            continue
        errors = _error_count(lang, "\n".join(orig)) if errors is None else errors
        if _error_count(lang, "\n".join(_other(orig, edits, lo, hi))) <= errors:
            raise MergeRefused(why)
