"""Fragments of whole definitions, matched by name (apply's merge): each replaces the file's
definition of the same name, a class member by member; new ones go beside their neighbours."""
from __future__ import annotations

import re

from redraft.engine.apply.alike import LIKE, alike
from redraft.engine.apply.anchors import same as _same, unchanged
from redraft.engine.apply.candidates import (class_name as _class_name, method_alike as _alike,
                                             most_alike as _most_alike)
from redraft.engine.apply.definitions import Def, _indent, collect_defs, fragment_defs
from redraft.engine.apply.markers import is_marker
from redraft.engine.apply.result import MergeRefused, NotByName as _NotByName, Replacement

__all__ = ["class_edits", "def_edits", "claims"]

WHOLE_WHY = "left out of the definition the snippet writes out whole, without a marker"


def class_edits(lang, orig: list[str], snip: list[str]):
    """A class (impl, trait) shown with markers among its members (`class A:` / a new method /
    `# ... existing code ...`): its members by name, a new one placed at the start of the class
    when no marker or matched member comes before it, else as _def_edits places it.  None when the
    snippet is not one such class."""
    ends = [i for i, l in enumerate(snip) if l.strip()]
    if not ends:
        return None
    first, last = ends[0], ends[-1]
    while first < last and is_marker(snip[first]) and _indent(snip[first]) == 0:
        first += 1
    while last > first and is_marker(snip[last]) and _indent(snip[last]) == 0:
        last -= 1
    body = snip[first:last + 1]
    inner = [i for i, l in enumerate(body) if is_marker(l)]
    if not inner or min(_indent(body[i]) for i in inner) <= _indent(body[0]):
        return None
    kept = [i for i in range(len(body)) if i not in set(inner)]
    parsed = fragment_defs(lang, [body[i] for i in kept], frozenset(l.strip() for l in orig))
    if not parsed or len(parsed) != 1 or not parsed[0].members:
        return None
    if len({m.key for m in parsed[0].members}) < len(parsed[0].members):
        return None                                # a name twice: markers that skip past the class's end
    if any(kept[m.start] < i < kept[m.end] for m in parsed[0].members for i in inner):
        return None                                # a marker inside a member: it is not shown whole
    for m in parsed[0].members:                    # shown before any marker: a new member goes first
        m.first = not any(i < kept[m.comment_start] for i in inner)
    try:
        edits, unplaced = def_edits(lang, orig, collect_defs(lang, orig), parsed, None)
    except (MergeRefused, _NotByName):
        return None                                # the fragments on their own may still apply
    return None if unplaced else edits


def claims(lang, orig: list[str], parsed_all: list) -> dict[int, list[tuple[int, int]]]:
    """The original lines each fragment of whole definitions will replace by name (fragment index
    -> [start, end) ranges): a fragment anchored by its lines before it must not take them."""
    out: dict[int, list[tuple[int, int]]] = {}
    originals = None
    for j, parsed in enumerate(parsed_all):
        if not parsed:
            continue
        originals = originals if originals is not None else collect_defs(lang, orig)
        try:
            fe, _ = def_edits(lang, orig, originals, parsed, None)
        except (MergeRefused, _NotByName):
            continue
        out[j] = [(a, b) for a, b, _ in fe if a < b]
    return out


def def_edits(lang, orig: list[str], originals: list[Def], parsed: list[Def], pos: int | None,
              whole: bool = False):
    """Edits replacing the original definitions named in `parsed`; new ones placed beside them.
    `pos`: the line after the previous fragment (a method shown without its class is looked for in
    the class that fragment ended in).  `whole`: the snippet is this fragment alone, without any
    marker (a definition written out whole: one that ends early is not cut short, it is shorter)."""
    edits: list[tuple[int, int, list[str]]] = []
    unplaced: list[Def] = []
    matches: list[Def | None] = []
    for d in parsed:
        same = [o for o in originals if o.key == d.key and o.indent_text == d.indent_text]
        cands = [o for o in same if o.parent == d.parent]
        if not cands and d.parent is None:        # a method shown without its class
            cands = same
            if pos is not None:                    # ... in the class the previous fragment ended in
                cands = [o for o in same if o.scope and o.scope[0] < pos <= o.scope[1] + 1] or same
        if len(cands) > 1:
            cands = _most_alike(orig, cands, d)
        if len(cands) > 1:
            raise MergeRefused(f"definition `{d.name}` matches more than one place in the file "
                               f"({_places(cands, d.name)}); show the line that opens its class")
        if len(cands) == 1 and d.parent is None and cands[0].parent is not None and not _alike(orig, cands[0], d):
            raise MergeRefused(f"definition `{d.name}` is shown without its class and does not look like "
                               f"`{cands[0].parent}.{d.name}` of the file")
        if not cands and any(o.key == d.key for o in originals):
            raise MergeRefused(f"definition `{d.name}` is at a different place or indentation in the file")
        matches.append(cands[0] if cands else None)
    matches = _siblings(orig, originals, parsed, matches)
    for i, (d, o) in enumerate(zip(parsed, matches)):
        if o is not None:
            h = _header_line(orig, o, d) if d.members is not None and o.members is not None else None
            if h is not None:
                sub, lost = def_edits(lang, orig, originals, d.members, None)
                for nd in lost:                    # new members go at the end of the class body
                    if nd.first and o.members:     # ... or at its start: shown before any marker
                        at = o.members[0].comment_start if lang.indent_blocks else \
                            next(j for j in range(h, o.end + 1) if orig[j].rstrip().endswith("{")) + 1
                        edits.append((at, at, nd.text + [""]))
                        continue
                    at = o.end if orig[o.end].strip() in ("}", "};") else o.end + 1
                    edits.append((at, at, [""] + nd.text))
                edits.extend(sub)
                continue
            if o.members and d.members is not None:
                lost_names = [m.name for m in o.members if m.key not in {n.key for n in d.members}]
                if lost_names:
                    raise MergeRefused(f"`{d.name}` in the snippet omits `{'`, `'.join(lost_names[:3])}` of the "
                                       "file: show them or mark them with `... existing code ...`")
            if not whole and _cut_short(lang, orig, o, d):
                raise _NotByName()
            start = o.start               # the snippet's comments replace as many lines right above
            if d.has_comment:
                k = d.start - d.comment_start     # the comment's last lines as the file has them: only those
                tail = o.start - k >= o.comment_start and all(_same(orig[o.start - k + t], d.text[t]) for t in range(k))
                first = None if tail else max((q for q in range(o.comment_start, o.start) if _same(orig[q], d.text[0])),
                                              key=lambda q: (_agreeing(orig, q, o.start, d.text), -q), default=None)
                if first is None and not tail:    # (its first line rewritten: the line it is an edit of)
                    first = next((q for q in range(o.comment_start, o.start)
                                  if alike(orig[q].strip(), d.text[0].strip(), LIKE)), None)
                start = first if first is not None else max(o.comment_start, o.start - k)
                while start > o.comment_start and orig[start].lstrip().startswith("*"):
                    start -= 1            # ... and a block comment they cut into whole (` * ...` up to `/**`)
            elif orig[o.start].lstrip().startswith("@"):    # decorators the snippet leaves out stay: all
                start = _definition_line(lang, orig, o)      # of them, or those above the first it shows
                if d.text[0].lstrip().startswith("@"):
                    start = _first_shown_decorator(orig, o, d.text[0], start)
                elif lang.indent_blocks and (fit := _fitting_decorators(orig[o.start:start], d.text)) != \
                        orig[o.start:start]:              # (all kept: no edit, none to overlap another's)
                    edits.append((o.start, start, Replacement(fit, "a `parametrize` for arguments the new signature "
                                                                   "lacks")))
            if whole and len(parsed) == 1 and o.comment_start < start and unchanged(orig[start:o.end + 1], d.text):
                start = o.comment_start   # (shown as it is, alone: what it changes is the lines above it it omits)
            edits.append((start, o.end + 1, Replacement(d.text, WHOLE_WHY) if whole else d.text))
            continue
        prev = next((m for m in reversed(matches[:i]) if m is not None), None)
        after = next((m for m in matches[i + 1:] if m is not None), None)
        gap = [""] * (2 if lang.name == "python" and not d.indent_text else 1)
        if i and prev is not None:    # as many blank lines as the snippet has (after the one before:
            gap = [""] * (d.comment_start - parsed[i - 1].end - 1)       # prev, or new right after it)
        if prev is not None:
            edits.append((prev.end + 1, prev.end + 1, gap + d.text))
        elif after is not None:       # (as many blank lines as the snippet has before the next one)
            gap = [""] * (parsed[i + 1].comment_start - d.end - 1)
            edits.append((after.comment_start, after.comment_start, d.text + gap))
        else:
            unplaced.append(d)
    return _joined(edits), unplaced


def _joined(edits: list) -> list:
    """Insertions at one place, one after another as the snippet has them: new definitions in a row
    after the same matched one (robyn's `set_request_header` and `set_response_header`, both after
    `add_response_header`: two edits at one line were refused as overlapping)."""
    out: list = []
    for e in edits:
        if out and e[0] == e[1] == out[-1][0] == out[-1][1] and \
                not isinstance(e[2], Replacement) and not isinstance(out[-1][2], Replacement):
            out[-1] = (e[0], e[1], list(out[-1][2]) + list(e[2]))
        else:
            out.append(e)
    return out


def _siblings(orig: list[str], originals: list[Def], parsed: list[Def], matches: list) -> list:
    """Methods shown together without their class are siblings: when their matches lie in different
    classes, the class of one the snippet shows unchanged is theirs (rpds's `init`, then a
    `__contains__` new in that class, not the other class's own); none shown unchanged: refused."""
    found = [(d, o) for d, o in zip(parsed, matches) if o is not None and d.parent is None and o.parent]
    if len({o.parent for _, o in found}) < 2:
        return matches
    home = {o.parent for d, o in found if unchanged(orig[o.comment_start:o.end + 1], d.text)}
    if len(home) != 1:
        a, b = found[0][1], next(o for _, o in found if o.parent != found[0][1].parent)
        raise MergeRefused(f"definitions `{found[0][0].name}` and `{b.name}`, shown together, are in different "
                           f"classes of the file (`{a.parent}`, `{b.parent}`): show the class around them")
    parent, = home
    out = []
    for d, o in zip(parsed, matches):
        if o is not None and d.parent is None and o.parent and o.parent != parent:
            o = next((x for x in originals if x.key == d.key and x.parent == parent and x.indent_text == d.indent_text),
                     None)
        out.append(o)
    return out


def _cut_short(lang, orig: list[str], o: Def, d: Def) -> bool:
    """A definition that parses but may be only the start of the original one.  Outside Python: the
    original's first lines, fewer (a type or a declaration cut off where its next line goes on:
    `type A = B` of `type A = B` `| C`).  In Python (which parses `if a:` without its `else`): it
    ends on lines found in the middle of the original, or it is the original's first lines (more
    than the header) plus fewer new lines than it leaves out."""
    last, O, S = d.text[-1], orig[o.start:o.end + 1], d.text[d.start - d.comment_start:]
    if not lang.indent_blocks:
        return len(S) < len(O) and all(_same(x, y) for x, y in zip(O, S))
    if any(l.strip() and any(_same(l, x) for x in O[1:]) for l in d.trailing):
        return True                   # it goes on with comments from inside the original's body
    k = 0
    while k < min(len(O), len(S)) and _same(O[-1 - k], S[-1 - k]):
        k += 1
    if k:                             # ends like the original: cut short only if that ending recurs in it
        return any(all(_same(O[q + t], S[len(S) - k + t]) for t in range(k)) for q in range(len(O) - k))
    if re.search(r"\w", last):
        mid = [q for q in range(len(O) - 1) if _same(O[q], last)]
        later = {x.strip() for x in O[mid[-1] + 1:] if re.search(r"\w", x)} - \
            {x.strip() for x in O[:mid[-1] + 1]} if mid else set()
        if mid and not any(l.strip() in later for l in S[:-1]):
            return True               # (it shows lines found only after that place: the line moved)
    else:                             # a lone `)` or `]` recurs anywhere: its line before must too
        tail = [l for l in S if l.strip()][-2:]
        if len(tail) == 2 and any(_same(O[q], tail[0]) and _same(O[q + 1], tail[1]) for q in range(len(O) - 2)):
            return True
    p = 0
    while p < min(len(O), len(S)) and _same(O[p], S[p]):
        p += 1
    dropped = [l for l in O[p:] if l.strip() and not any(_same(l, x) for x in S)]
    added = [l for l in S[p:] if l.strip()]
    ends_alike = bool(added) and alike(added[-1].strip(), next((l for l in reversed(O) if l.strip()), "").strip(), 0.6)
    return p >= 2 and len(dropped) > max(1, len(added)) and not ends_alike   # a shorter version ends as the old did


def _header_line(orig: list[str], o: Def, d: Def) -> int | None:
    """The original class's line that the snippet's class starts with (decorators of the original
    it does not show skipped), when the snippet's class adds nothing outside its member
    definitions; else None."""
    inside = {l.strip() for l in orig[o.comment_start:o.end + 1]}
    cov = {j for m in d.members or () for j in range(m.comment_start, m.end + 1)}
    rest = [l.strip() for j, l in enumerate(d.text, d.comment_start) if j not in cov]
    if not all(l in inside for l in rest):
        return None
    head = d.text[d.start - d.comment_start]
    stop = o.members[0].comment_start if o.members else o.end
    return next((j for j in range(o.start, max(stop, o.start + 1)) if _same(orig[j], head)), None)


def _agreeing(orig: list[str], q: int, stop: int, text: list[str]) -> int:
    """How many of the snippet's comment lines `text` the file's lines from q (before `stop`) are, in a
    row: of several places of its first line (`///`), the one its next lines follow (rnet's http2.rs)."""
    n = 0
    while q + n < stop and n < len(text) and _same(orig[q + n], text[n]):
        n += 1
    return n


_NOT_YET = ("@", ")", "]", "}", "//", "/*", "*")   # decorators' lines, comments: not the definition's own


def _definition_line(lang, orig: list[str], o: Def) -> int:
    """The line of a decorated definition that its decorators end at (o.start when not found)."""
    for q in range(o.start, o.end + 1):
        t = orig[q].lstrip()
        if _indent(orig[q]) == _indent(orig[o.start]) and (t.startswith(("def ", "async def ", "class ")) or
                                                            not lang.indent_blocks and not t.startswith(_NOT_YET)):
            return q
    return o.start


def _first_shown_decorator(orig: list[str], o: Def, first: str, stop: int) -> int:
    """The line of the definition's decorators [o.start, stop) that the snippet's first decorator
    is (robyn's tests shown from `@pytest.mark.parametrize`, under a `@pytest.mark.benchmark` they
    keep); else o.start (all of them replaced)."""
    return next((q for q in range(o.start, stop) if _indent(orig[q]) == _indent(orig[o.start]) and
                 _same(orig[q], first)), o.start)


_PARAMETRIZE = re.compile(r"\s*@pytest\.mark\.parametrize\(\s*(\([^)]*\)|\[[^\]]*\]|[\"'][^\"']*[\"'])")


def _fitting_decorators(decorators: list[str], text: list[str]) -> list[str]:
    """The decorators (lines) a function shown without them keeps: all but a `parametrize` whose
    argument names the new signature no longer takes (pytest would fail on it: the snippet dropped it)."""
    signature = " ".join(text)
    signature = signature[signature.find("("):signature.find(":", signature.find(")"))]
    params = set(re.findall(r"[A-Za-z_]\w*", signature))
    starts = [i for i, l in enumerate(decorators) if l.lstrip().startswith("@") and
              _indent(l) == _indent(decorators[0])] + [len(decorators)]
    kept: list[str] = []
    for s, e in zip(starts, starts[1:]):
        m = _PARAMETRIZE.match(" ".join(l.strip() for l in decorators[s:e]))
        names = set(re.findall(r"\w+", " ".join(re.findall(r"[\"']([^\"']*)[\"']", m.group(1))))) if m else set()
        if names <= params:
            kept.extend(decorators[s:e])
    return kept


def _places(cands: list[Def], name: str, most: int = 4) -> str:
    """Where the places are, for a refusal: `Class.name` at line N (the first `most` of them)."""
    out = [f"`{_class_name(o.parent)}.{name}` at line {o.start + 1}" if o.parent else f"line {o.start + 1}"
           for o in sorted(cands, key=lambda o: o.start)[:most]]
    return ", ".join(out) + (f" and {len(cands) - most} more" if len(cands) > most else "")
