"""Where each fragment of a lazy snippet goes (apply's merge): by name when it is whole
definitions (by_name), else by its lines (anchors), with new lines at a fragment's edge anchored
by the fragment's other lines; fragments keep the file's order (_ordered: one that fits several
places goes before the only place of the next one)."""
from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from redraft.engine.apply.alike import rewrites
from redraft.engine.apply.ambiguity import weak_alternatives
from redraft.engine.apply.anchors import TWINS, Ambiguous, anchor, last_text, same as _same, unchanged
from redraft.engine.apply.by_name import claims as _claims, def_edits as _def_edits
from redraft.engine.apply.definitions import Def, _error_count, _indent, collect_defs, fragment_defs
from redraft.engine.apply.markers import is_marker
from redraft.engine.apply.places import deleted, renamed_export
from redraft.engine.apply.regions import _HEADER, IMPORT_LINE
from redraft.engine.apply.result import MergeRefused, NotByName as _NotByName, Replacement

__all__ = ["Frag", "split", "plan"]


def _after_header(frags: list[Frag], i: int) -> bool:
    """The fragment before fragment i is one line and the marker between them is deeper (a header,
    its block elided down to this fragment: anchors.anchor's `lone`)."""
    return i > 0 and len(frags[i - 1].lines) == 1 and frags[i].marker_before is not None and \
        frags[i].marker_before > _indent(frags[i - 1].lines[0])


def _first_line(lines: list[str]) -> str:
    for l in lines:
        if l.strip():
            return l.strip()[:80]
    return ""


@dataclass
class Frag:
    lines: list[str]                  # from the first to the last non-blank line
    marker_before: int | None         # indentation of the marker before it, None if none
    marker_after: int | None
    blank_after: int = 0              # blank lines between its last line and the marker after it


def split(snippet: list[str]) -> list[Frag]:
    frags: list[Frag] = []
    cur: list[str] = []
    before: int | None = None

    def flush(after: int | None) -> None:
        nonlocal cur
        nb = [i for i, l in enumerate(cur) if l.strip()]
        if nb:
            frags.append(Frag(cur[nb[0]:nb[-1] + 1], before, after, len(cur) - 1 - nb[-1]))
        cur = []

    for line in snippet:
        if is_marker(line):
            flush(_indent(line))
            before = _indent(line)
        else:
            cur.append(line)
    flush(None)
    return frags


def plan(lang, orig: list[str], frags: list[Frag], view: bool = False,
         weak: list | None = None, idle: list | None = None,
         opens: bool = False, whole: bool = False, drops: bool = True) -> list[tuple[int, int, list[str]]]:
    """`weak`: gets the spans that the other reading of a fragment's weak edge deletes (ambiguity.py);
    `idle`: (name, region, other regions where it would change lines) of each fragment anchored by
    its lines that changes nothing where it goes; `opens`: the snippet starts at the file's new first
    line (anchors.anchor); `whole`: the snippet is one fragment without any marker and what it omits is
    deleted (a definition written out whole is not read as cut short: by_name.def_edits); `drops`:
    lines the snippet leaves out are deleted (a fragment ending its block may replace the block's
    old last lines with unlike ones: anchors.anchor `tails`)."""
    edits: list[tuple[int, int, list[str]]] = []
    pos = 0                               # anchored fragments must start at or after this line
    originals: list[Def] | None = None
    known = frozenset(l.strip() for l in orig)
    parsed_all = [_fragment_defs(lang, f, known) for f in frags]
    claims = _claims(lang, orig, parsed_all)
    for i, f in enumerate(frags):
        nxt = frags[i + 1] if i + 1 < len(frags) else None
        base = min(_indent(l) for l in f.lines if l.strip())
        parsed = parsed_all[i]
        if parsed is not None:
            if originals is None:
                originals = collect_defs(lang, orig)
            try:
                fe, unplaced = _def_edits(lang, orig, originals, parsed, pos if i > 0 else None, whole=whole)
            except _NotByName:
                parsed = None
        if parsed is not None and unplaced and not fe and _anchors_by_lines(orig, f.lines, pos):
            parsed = None                 # not a new definition: one nested in a body, found by its lines
        no_anchor = None
        if parsed is not None and unplaced and not fe and not unplaced[0].method and \
                sum(1 for d in unplaced for l in d.text if l.strip()) < sum(1 for l in f.lines if l.strip()):
            no_anchor = f"cannot place new definition `{unplaced[0].name}`: no anchor"
            parsed = None                 # shown lines of the file around it may anchor it
        if parsed is not None:
            if unplaced:
                if fe or unplaced[0].method or not (f.marker_before is not None and f.marker_after is None
                                                    and nxt is None):
                    raise MergeRefused(f"cannot place new definition `{unplaced[0].name}`: no anchor")
                sep = [""] * (2 if lang.name == "python" and base == 0 else 1)
                lines = [l for d in unplaced for l in sep + d.text]
                fe = [(len(orig), len(orig), lines if orig else lines[len(sep):])]
            elif view:
                fe = _unshown_between(orig, f.lines, parsed, fe)
            edits.extend(fe)
            pos = max([pos] + [e for _, e, _ in fe])
            continue
        args = dict(pos=pos, marker_before=f.marker_before if i > 0 else None, marker_after=f.marker_after,
                    name=f"fragment `{_first_line(f.lines)}`", lone=_after_header(frags, i),
                    avoid=[r for j in range(i + 1, len(frags)) for r in claims.get(j, ())],
                    tails=[] if drops else None)
        try:
            others: list = []
            kw = dict(at_start=i == 0 and f.marker_before is None, at_end=nxt is None and f.marker_after is None,
                      others=others, opens=opens and i == 0,
                      then=(nxt.lines, f.marker_after) if nxt and f.marker_after is not None else None, **args)
            a, b = _ordered(orig, frags, i, **kw)
            if f.marker_after is not None and (why := renamed_export(orig, f.lines, a, b)):
                raise MergeRefused(f"{args['name']}: {why}")
            if idle is not None and unchanged(orig[a:b + 1], f.lines):
                moved = [(c, d) for c, d in others if _drops_only(orig[c:d + 1], f.lines) and (
                    c != a and re.search(r"\w", f.lines[0]) or d != b and re.search(r"\w", f.lines[-1]))]
                if moved:
                    idle.append((args["name"], (a, b), moved))
            if weak is not None:
                weak.extend(weak_alternatives(orig, f.lines, a, b, f.marker_before, f.marker_after, args["name"]))
        except Ambiguous as e:
            end = _at_file_end(lang, orig, f.lines, pos) if view and nxt is None and f.marker_after is None else None
            if end is not None:       # what follows a snippet's last fragment is deleted: the file's end
                edits.append((end[0], end[1] + 1, list(f.lines)))
                pos = end[1] + 1
                continue
            if "line is not in the file" not in str(e) and ("which the snippet " not in str(e) or
                                                            f.marker_before is None and f.marker_after is None):
                raise MergeRefused(str(e)) from None
            try:
                a, b = _edge_anchor(lang, orig, f.lines, args)
            except _NoEdge:
                raise MergeRefused(no_anchor or str(e)) from None
            except Ambiguous as e2:
                raise MergeRefused(str(e2)) from None
            if f.blank_after and f.marker_after is not None and not _same(orig[b], f.lines[-1]) and \
                    b + 1 < len(orig) and orig[b + 1].strip():
                edits.append((a, b + 1, list(f.lines) + [""] * min(f.blank_after, 2)))   # new lines, then the
                pos = b + 1                                                              # snippet's blank line
                continue
        a, b = _moved_imports(orig, f.lines, a, b, pos)
        tails = args["tails"]
        edits.append((a, b + 1, Replacement(list(f.lines), tails[-1], drops=True) if tails else list(f.lines)))
        pos = b + 1
    return edits


def _ordered(orig: list[str], frags: list[Frag], i: int, **kw) -> tuple[int, int]:
    """anchor for fragment `i`; when it fits several places alike, the one of them before the only
    place the next fragment fits after `kw["pos"]` (fragments keep the file's order: maturin's
    build_context.rs, a `WheelWriter::new(` call in five functions, the next fragment's lines in the
    first one's only), found so in turn when the next one fits several places too; of several before
    it, the nearest, when the fragment is as like it as like any other (character by character: not
    express's second doc example, when the first one's typo is what the fragment fixes) and it deletes
    no line with words that the fragment neither keeps nor rewrites (an edit shown with the next one:
    dishka's twin wrappers, a call changed in one and a parameter added to the next function's
    signature); else its refusal."""
    try:
        return anchor(orig, frags[i].lines, **kw)
    except Ambiguous as e:
        if TWINS not in str(e) or i + 1 >= len(frags) or frags[i].marker_after is None:
            raise
        nxt = frags[i + 1]
        try:
            ahead = _ordered(orig, frags, i + 1, pos=kw["pos"], marker_before=nxt.marker_before,
                             marker_after=nxt.marker_after, name="", at_end=False)[0]
        except Ambiguous:
            raise e from None
        try:
            return anchor(orig, frags[i].lines, before=ahead, **kw)
        except Ambiguous as tied:
            places = [p for p in tied.places if p[1] < ahead] if TWINS in str(tied) else []
            if not places:
                raise e from None
        want = [l.strip() for l in frags[i].lines]
        alike = [difflib.SequenceMatcher(None, "\n".join(l.strip() for l in orig[a:b + 1]), "\n".join(want),
                                         autojunk=False).ratio() for a, b in places]
        near = max(range(len(places)), key=lambda k: places[k][0])
        if alike[near] < max(alike):  # (a farther one the fragment is likelier an edit of)
            raise e from None
        try:
            region = anchor(orig, frags[i].lines, before=ahead, **{**kw, "pos": places[near][0]})
        except Ambiguous:
            raise e from None
        if deleted(orig, want, (0, *region)):
            raise e from None
        return region


_IMPORT_SPEC = re.compile(r"\s*(?:[\w.]+\s+)?\"[^\"]+\"\s*$")      # a line of Go's `import (` block


def _is_import(orig: list[str], i: int) -> bool:
    if IMPORT_LINE.match(orig[i]):
        return True
    if not _IMPORT_SPEC.match(orig[i]):
        return False
    j = i - 1
    while j >= 0 and (_IMPORT_SPEC.match(orig[j]) or not orig[j].strip()):
        j -= 1
    return j >= 0 and orig[j].strip() == "import ("


def _moved_imports(orig: list[str], lines: list[str], a: int, b: int, pos: int) -> tuple[int, int]:
    """An import line just above (below) the fragment's region that the fragment shows again, in
    another place, is moved there, not copied: the region grows over it (imports reordered by a
    fragment anchored on other import lines)."""
    shown = Counter(l.strip() for l in lines)
    region = Counter(l.strip() for l in orig[a:b + 1])

    def moved(i: int) -> bool:
        t = orig[i].strip()
        if shown[t] <= region[t] or not _is_import(orig, i) or t.endswith(("{", "(")):
            return False              # (not the first line of an import that goes on: `import {`)
        region[t] += 1
        return True
    while a - 1 >= pos and moved(a - 1):
        a -= 1
    while b + 1 < len(orig) and moved(b + 1):
        b += 1
    return a, b


class _NoEdge(Exception):
    """No part of the fragment anchors it with new lines at its edge."""


def _enough(orig: list[str], part: list[str]) -> bool:
    """Lines that can anchor a fragment whose other lines are new: two with words in them, or a
    definition's header line."""
    words = [l for l in part if re.search(r"\w", l)]
    if len(words) == 1 and part[-1] is not words[0] and part[-1].strip() in ("}", "};") and \
            _indent(part[-1]) < _indent(words[0]):
        return True             # the last statement of a body and the brace that closes it
    return len(words) >= 2 or (len(words) == 1 and bool(_HEADER.match(words[0])))


def _complete(lang, new: list[str]) -> bool:
    """The new lines at the fragment's edges parse on their own (dedented): whole definitions or
    statements, not the start of one cut off by the marker."""
    nb = [l for l in new if l.strip()]
    if not nb or lang.name == "go" and all(_IMPORT_SPEC.match(l) for l in nb):
        return True                   # (Go's import specs, inside the file's `import (` block)
    cut = min(_indent(l) for l in nb)
    body = "\n".join(l[cut:] for l in new) + "\n"
    if _error_count(lang, body) == 0:
        return True
    wrap = {"javascript": "class X {", "typescript": "class X {", "rust": "impl X {", "go": "type X struct {"}
    return lang.name in wrap and _error_count(lang, f"{wrap[lang.name]}\n{body}}}\n") == 0   # class members


def _defines(new: list[str]) -> bool:
    """The new lines start a definition or an import (a decorator, a doc comment or attribute first):
    new lines at a fragment's edge are a new function, method, class or import, not statements cut
    off a body."""
    for l in new:
        t = l.strip()
        if t.startswith(("@", "#[")):
            return True               # a decorator or an attribute: a definition follows
        if not t or t.startswith(("///", "//", "/*", "*", "#")):
            continue
        return bool(_HEADER.match(l)) or bool(_IMPORT_SPEC.match(l)) or bool(re.match(
            r"\s*(?:(?:export\s+)?(?:pub\s+)?(?:const|let|var|type|static)\s+\w+|import\b|from\s+\S+\s+import\b|use\s"
            r"|export\s*(?:type\s*)?[{*])", l))
    return False


def _run(orig: list[str], lines: list[str], pos: int, back: bool = False) -> int:
    """The longest run of the fragment's first lines (its last ones, `back`) found together in the
    file after `pos`."""
    best = 0
    for j in range(pos, len(orig)):
        k = 0
        while k < len(lines) and pos <= (j - k if back else j + k) < len(orig) and \
                _same(orig[j - k if back else j + k], lines[k]):
            k += 1
        best = max(best, k)
    return best if best < len(lines) else 0


def _found(orig: list[str], line: str, pos: int) -> bool:
    return bool(re.search(r"\w", line)) and any(_same(o, line) for o in orig[pos:])


def _edge_anchor(lang, orig: list[str], lines: list[str], args: dict) -> tuple[int, int]:
    """(head, tail) of the region for a fragment that opens and/or closes with new lines (a new
    function written before an existing one whose first lines it shows, a new method after a class
    header, a new function after the lines that end the previous one): the fragment's first line
    found in the file after the previous fragment starts the shown part, its last found line ends
    it; the shown part anchors as a fragment of its own, and the new lines go before or after it.
    _NoEdge when no such part anchors; Ambiguous when the shown part fits several places."""
    n = len(lines)
    pos = args["pos"]
    k = next((k for k in range(n) if _found(orig, lines[k], pos)), None)
    if k is None:
        raise _NoEdge()
    m = next(m for m in range(n, k, -1) if _found(orig, lines[m - 1], pos))
    p, q = _run(orig, lines, pos), _run(orig, lines[::-1], pos, back=True)
    # then shorter runs of the last lines: a run that reaches into the new lines (their last lines
    # repeat the end of the definition before them) leaves them cut short; the shown part starts
    # later, at a definition of the file past a blank line, as deep as the new lines' first line,
    # when the new lines' header is not in the file
    header = next((l for l in lines if l.strip() and not l.strip().startswith(("//", "/*", "*", "#", "@"))), "")
    shorter = [(lo, n) for lo in range(n - q + 1, n) if q and not lines[lo - 1].strip() and lines[lo].strip()
               and _indent(lines[lo]) == _indent(next(l for l in lines if l.strip())) and _defines(lines[lo:])
               and not _found(orig, header, pos)]
    # ... and first, the run of the first lines cut at its last blank line when past it the run has only
    # openers (`/**`, a decorator, an attribute): the next definition's, which the new lines open with
    # too; the whole run would cut them short or give that opener to the new definition
    cut = next((j for j in range(p - 1, 0, -1) if not lines[j].strip()), None)
    runs = [(0, cut), (0, p)] if cut and all(l.strip().startswith(("@", "#[", "/*", "*", "//", "#"))
                                             for l in lines[cut:p] if l.strip()) else [(0, p)]
    first = None
    for lo, hi in runs + [(n - q, n), (k, m), (k, n), (0, m)] + shorter:
        while lo < hi and not lines[lo].strip():
            lo += 1
        while hi > lo and not lines[hi - 1].strip():
            hi -= 1             # blank lines between the shown part and the new lines are the new lines'
        if hi - lo < 1:
            continue
        part = lines[lo:hi]
        head = [l for l in lines[:lo] if l.strip()]
        if (lo, hi) == (0, n) or not _enough(orig, part) or not _complete(lang, lines[:lo] + lines[hi:]) or \
                not _defines(lines[:lo] + lines[hi:]) or head and _indent(part[0]) > _indent(head[0]):
            continue            # (a shown part indented deeper than the new lines before it is their body's end)
        # new lines after the shown part, less indented than its last line: it ends its block
        after = next((l for l in lines[hi:] if l.strip()), None)
        closes = _indent(after) if after is not None and _indent(after) < _indent(part[-1]) else None
        try:
            a, b = anchor(orig, part, **{**args, "marker_after": args["marker_after"] if hi == n else None},
                          closes=closes)
        except Ambiguous as e:
            if first:
                break
            if "line is not in the file" not in str(e):
                raise
            continue
        if not _doubles(orig, lines[:lo], lines[hi:], pos, a, b):
            return a, b
        first = first or (a, b)
    if first:
        return first
    if (recast := _recast_edges(orig, lines, args)) is not None:
        return recast
    raise _NoEdge()


def _recast_edges(orig: list[str], lines: list[str], args: dict) -> tuple[int, int] | None:
    """(head, tail) for a fragment whose new first and/or last line rewrites the file's line right
    before / after where its other lines anchor (as indented, alike.rewrites):
    a long export list with a name added, shown with the line after it (@internationalized/date's
    bundles), a parametrize list's first line changed; None if there is no such line, or if the new
    line is as like the shown line next to it (a sibling added: `register("b", ...)` shown before
    `register("c", ...)` is not `register("a", ...)` above it rewritten)."""
    shown = [i for i, l in enumerate(lines) if l.strip()]
    if len(shown) < 2:
        return None
    first, last = shown[0], shown[-1]
    new_first, new_last = (not any(_same(o, lines[k]) for o in orig[args["pos"]:]) for k in (first, last))
    lo, hi = shown[1] if new_first else first, shown[-2] + 1 if new_last else last + 1
    if not (new_first or new_last) or hi <= lo:
        return None
    try:
        a, b = anchor(orig, lines[lo:hi], **{**args, "marker_after": None if new_last else args["marker_after"]})
    except Ambiguous:
        return None
    a, b = a - new_first, b + new_last
    recast = [(first, a, shown[1])] * new_first + [(last, b, shown[-2])] * new_last
    return (a, b) if all(args["pos"] <= j < len(orig) and _rewrites(orig[j], lines[k]) and
                         not _rewrites(lines[near], lines[k]) for k, j, near in recast) else None


def _rewrites(old: str, new: str) -> bool:
    """The new line, as indented as the old one (with a word), reads as its rewrite (alike.rewrites)."""
    return _indent(old) == _indent(new) and bool(re.search(r"\w", old)) and rewrites(old.strip(), new.strip())


def _at_file_end(lang, orig: list[str], lines: list[str], pos: int) -> tuple[int, int] | None:
    """(head, tail) of the file's last lines when the fragment's first lines (one with a word at
    least) are exactly them and the rest is new and whole (definitions, statements): the new lines
    go after them.  For the last fragment of a snippet with no marker after it, whose other places
    would delete the rest of the file."""
    end = last_text(orig)
    for k in range(min(len(lines) - 1, end + 1 - pos), 0, -1):
        part = lines[:k]
        while part and not part[-1].strip():
            part = part[:-1]
        rest = lines[k:]
        if part and any(re.search(r"\w", l) for l in part) and \
                all(_same(orig[end - len(part) + 1 + i], t) for i, t in enumerate(part)) and \
                any(l.strip() for l in rest) and _complete(lang, rest):
            return end - len(part) + 1, end
    return None


def _doubles(orig: list[str], before: list[str], after: list[str], pos: int, a: int, b: int) -> bool:
    """New lines at the fragment's edge that the file has once, right there, between the previous
    fragment and the shown part's region (or just after it): that reading would have them twice, a
    reading with a longer shown part takes them in."""
    def near(new: list[str], span: list[str]) -> bool:
        return any(re.search(r"\w", l) and any(_same(o, l) for o in span) and
                   sum(1 for o in orig if _same(o, l)) == 1 for l in new)
    return near(before, orig[pos:a]) or near(after, orig[b + 1:b + 1 + len(after) + 3])


def _unshown_between(orig: list[str], lines: list[str], parsed: list[Def], fe) -> list[tuple[int, int, list[str]]]:
    """The edits `fe` of a fragment of whole definitions, and edits deleting the file's lines between
    two consecutive shown parts of it (a definition, or a line of the file outside them) that the
    fragment does not show: with no marker between them, they are gone (replaced by the snippet's
    lines there: blank ones, or a new definition, whose insertion they then make: rnet's `pub mod
    nogil;` in place of `pub mod future;` among the other `pub mod` lines).  Only `fe` when the
    parts are not each found once, in order (a class)."""
    if any(d.members for d in parsed) or len(fe) != len(parsed) or all(s == e for s, e, _ in fe):
        return fe
    parts = [(d.comment_start, d.end, s, e - 1) for d, (s, e, _) in zip(parsed, fe) if s < e]   # fragment, file
    covered = {j for d in parsed for j in range(d.comment_start, d.end + 1)}
    loose = [j for j, l in enumerate(lines) if l.strip() and j not in covered]
    for j in loose:                   # a line of the file: between the parts around it, nearest the one before
        before = max((p for p in parts if p[1] < j), key=lambda p: p[1], default=None)
        after = min((p for p in parts if p[0] > j), key=lambda p: p[0], default=None)
        lo = before[3] + 1 if before else 0
        hi = after[2] if after else len(orig)
        at = [q for q in range(lo, hi) if _same(orig[q], lines[j])]
        if not at or before is None and len(at) > 1:
            return fe
        parts.append((j, j, at[0], at[0]))
        parts.sort()
    out = []
    for (_, f1, _, o1), (f2, _, o2, _) in zip(parts, parts[1:]):
        if o2 <= o1:
            return fe                 # out of order: not this rule's
        if any(orig[q].strip() for q in range(o1 + 1, o2)):
            out.append((o1 + 1, o2, lines[f1 + 1:f2]))
    if not out:
        return fe
    if any(s == e and not any(a <= s <= b for a, b, _ in out) for s, e, _ in fe):
        return fe                     # (a new definition outside the lines deleted: not this rule's)
    out += [(o, o + 1, [lines[j]]) for j, _, o, _ in parts if j not in covered]   # the fragment's edges
    return [e for e in fe if e[0] < e[1]] + out


def _drops_only(region: list[str], lines: list[str]) -> bool:
    """The region has every line of the fragment, in order, and more: the fragment there only
    leaves lines out (a deletion shown by omission)."""
    it = iter(region)
    return len(region) > len(lines) and all(any(_same(o, l) for o in it) for l in lines)


def _fragment_defs(lang, f: Frag, known) -> list[Def] | None:
    """The fragment as whole definitions, or None (also when a marker inside it is indented deeper
    than the fragment: it elides part of a body)."""
    base = min(_indent(l) for l in f.lines if l.strip())
    if any(m is not None and m > base for m in (f.marker_before, f.marker_after)):
        return None
    return fragment_defs(lang, f.lines, known)


def _anchors_by_lines(orig: list[str], lines: list[str], pos: int) -> bool:
    """The fragment's first and last lines are both in the file after `pos` (a definition the
    name index does not know, nested in a function's body, is anchored by its lines instead)."""
    return any(_same(o, lines[0]) for o in orig[pos:]) and any(_same(o, lines[-1]) for o in orig[pos:])
