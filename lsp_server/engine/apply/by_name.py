"""Fragments of whole definitions, matched by name (apply's merge): each replaces the file's
definition of the same name, a class member by member; new ones go beside their neighbours."""
from __future__ import annotations

import difflib
import re
from collections import Counter

from redraft.engine.apply.alike import LIKE, alike
from redraft.engine.apply.anchors import same as _same, unchanged
from redraft.engine.apply.definitions import Def, _indent, collect_defs, fragment_defs
from redraft.engine.apply.lost import code_lines as _code
from redraft.engine.apply.markers import is_marker
from redraft.engine.apply.result import MergeRefused, NotByName as _NotByName, Replacement
from redraft.engine.apply.usage import shows

__all__ = ["class_edits", "def_edits", "claims"]

ALIKE, ALIKE_MARGIN = 0.3, 0.1     # a definition picked by its likeness (token by token) to the snippet's
NEAR, NEAR_MARGIN = 2.0, 0.03      # ... or by a smaller margin when the next one is twice as far from it
FAINT = 0.5                        # ... not when it is likest by less than this (by a margin under twice
#                                    ALIKE_MARGIN) and names another one's class: what it names tells
HELD, HELD_MARGIN = 0.9, 0.25      # ... or as the one that has nearly all the snippet's tokens, far more than the next
SIGNATURE = 15                     # lines of a definition's signature looked at, at most
TWIN = 0.9                         # a line this alike to another (difflib ratio) may be its edit
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


_SELF = re.compile(r"^\s*(?:async\s+)?def\s+\w+\s*\(\s*(self|cls)\b", re.S)


def _alike(orig: list[str], o: Def, d: Def) -> bool:
    """A Python method (`self`/`cls` first) is not replaced by a function without them: that is
    more likely a nested function of the same name."""
    def method(lines: list[str]) -> bool:
        at = next((i for i, l in enumerate(lines) if re.match(r"\s*(?:async\s+)?def\s", l)), 0)
        return bool(_SELF.match("\n".join(lines[at:at + 12])))
    return not o.indent_text or not method(orig[o.comment_start:o.end + 1]) or method(d.text)


_TOKEN = re.compile(r"\w+|\S")


def _likeness(orig: list[str], o: Def, d: Def) -> tuple[float, float]:
    """How alike two definitions are, token by token (a short function whose every line changed
    is still most like its old self), and how much of the snippet's definition the original has."""
    return _tokens_alike(orig[o.comment_start:o.end + 1], d.text)


def _tokens_alike(old: list[str], lines: list[str]) -> tuple[float, float]:
    """difflib's ratio of the two texts' tokens, and the share of `lines`' tokens that `old` has."""
    new = _TOKEN.findall("\n".join(lines))
    sm = difflib.SequenceMatcher(None, _TOKEN.findall("\n".join(old)), new, autojunk=False)
    return sm.ratio(), sum(m.size for m in sm.get_matching_blocks()) / max(len(new), 1)


def _most_alike(orig: list[str], cands: list[Def], d: Def) -> list[Def]:
    """The one candidate of the snippet's signature (_signed), else the one clearly most like the
    snippet's definition (a method shown without its class, in a file where several classes have it:
    by ALIKE_MARGIN, or NEAR_MARGIN when the next one differs from the snippet twice as much), or the
    one that has nearly all its tokens (HELD, by HELD_MARGIN, none having all: huey's SQLite `incr`,
    its version checks dropped, token by token as like the shorter Postgres one), else all of them;
    not when the snippet's definition is another one with lines left out (as likely a deletion there
    as a rewrite here), nor, unless it is twice as near, when no line of the snippet's is like one of
    it and not of the next one (_evident)."""
    if signed := _signed(orig, cands, d):
        return [signed]
    likeness = [_likeness(orig, o, d) for o in cands]
    scores = sorted(((r, h, i) for i, (r, h) in enumerate(likeness)), reverse=True)
    (best, held, i), (second, _, k) = scores[0], scores[1]
    far = 1 - second >= NEAR * (1 - best)
    clearly = best - second >= ALIKE_MARGIN or best - second >= NEAR_MARGIN and far
    if best >= ALIKE and clearly and (held == 1 or all(h < 1 for _, h, _ in scores[1:])) and \
            (far or _evident(orig, cands[i], cands[k], d)):
        named = best < FAINT and best - second < 2 * ALIKE_MARGIN and _names_other(orig, cands, d, i)
        return [cands[i]] if _by_code(orig, cands, d, i) and not named else cands
    have = [h for _, h in likeness]   # how much of the snippet's definition each one has
    held = {k for k, h in enumerate(have) if h == 1}
    most = sorted(have, reverse=True)
    if not held and most[0] >= HELD and most[0] - most[1] >= HELD_MARGIN:
        k = have.index(most[0])       # (nearly all of the snippet's tokens are this one's: it rewritten)
        return [cands[k]] if _by_code(orig, cands, d, k) else cands
    return _told(orig, cands, d, held)


def _by_code(orig: list[str], cands: list[Def], d: Def, i: int) -> bool:
    """Candidate `i`, picked by all its tokens, is also likest by its code's alone (comments and
    docstrings aside), when the snippet's definition has both: smolagents' Modal executor's
    `run_code_raise_errors` given a docstring written like the Blaxel one's, whose code is another
    one's, was taken for the Blaxel one (6 lost lines)."""
    mine = _code(d.text)
    if mine is d.text:
        return True
    ratio = [_tokens_alike(_code(orig[o.comment_start:o.end + 1]), mine)[0] for o in cands]
    return ratio[i] >= max(ratio)


_CLASS_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _names_other(orig: list[str], cands: list[Def], d: Def, i: int) -> bool:
    """The snippet's definition names a word of another candidate's class only (a word of its name
    that no other candidate's class name or code has; the picked one's none): strawberry's
    `MaybeFieldError`, whose new `__init__` speaks of `strawberry.Maybe` throughout, was likest token
    by token (0.43, the next 0.32) to `UnsupportedFieldOverrideError`'s (23 lost lines).  Only for a
    faint likeness by a slim margin (FAINT): a method liker than that often names a class it calls
    (pyparsing's, markdown's, voluptuous's; pluggy's `PluginValidationError`, 0.46 by 0.27)."""
    words = [{w.lower() for w in _CLASS_WORD.findall(c.parent.rsplit(".", 1)[-1]) if len(w) > 2} if c.parent else set()
             for c in cands]
    texts = ["\n".join(orig[c.start:c.end + 1]).lower() for c in cands]
    mine = "\n".join(d.text).lower()
    named = [k for k, own in enumerate(words) if any(
        w in mine and not any(w in words[j] or w in texts[j] for j in range(len(cands)) if j != k) for w in own)]
    return len(named) == 1 and named[0] != i


def _signed(orig: list[str], cands: list[Def], d: Def) -> Def | None:
    """The one candidate whose signature (its lines up to the one that opens the body) is the snippet's
    as it is, when every other one's is more than one line apart from it: token by token another one
    may be likest only for its length (pyoxigraph's spareval: a new three-line `explain` of
    `PreparedQuery`, whose old body had a hundred lines, shown without its impl, was likest to the
    deprecated `QueryEvaluator.explain` of another signature).  One line apart, the signature may be
    the edit (a return type added, now the same as another candidate's)."""
    def signature(lines: list[str]) -> Counter:
        out = Counter()
        for l in lines[:SIGNATURE]:
            out[l.strip()] += 1
            if l.rstrip().endswith(("{", ":")):
                break
        return out
    mine = signature(d.text[d.start - d.comment_start:])
    theirs = [signature(orig[o.start:o.end + 1]) for o in cands]
    apart = [max(sum((mine - t).values()), sum((t - mine).values())) for t in theirs]
    return cands[apart.index(0)] if apart.count(0) == 1 and all(a > 1 for a in apart if a) else None


def _evident(orig: list[str], o: Def, other: Def, d: Def) -> bool:
    """A line of the snippet's definition with words has a like line (alike.LIKE) in `o` and none in
    `other`: one likest token by token, though not twice as near as the next one, without such a
    line is likest only for its length or its wording (serpyco-rs's encoders.rs: a `dump` shown
    without its impl, 15 of its 16 lines like lines of either of two impls, 0.82 against 0.72 token
    by token, the other one meant; psqlpy's impls.rs, a `prepare` of three impls)."""
    def lines(x: Def) -> list[str]:
        return [l.strip() for l in orig[x.comment_start:x.end + 1] if re.search(r"\w", l)]
    mine, theirs = lines(o), lines(other)
    return any(any(alike(l.strip(), t, LIKE) for t in mine) and not any(alike(l.strip(), t, LIKE) for t in theirs)
               for l in d.text if re.search(r"\w", l))


def _told(orig: list[str], cands: list[Def], d: Def, held: set[int]) -> list[Def]:
    """The one candidate whose class the snippet names, as that candidate does and no other one
    (`def __iter__(self) -> "_RangeWrapper"` in several classes); else the one whose own lines (lines
    no other candidate has) the snippet shows, when it shows no other's (`test_drop_class` in both
    `TestInclude` and `TestExclude`, the snippet's body calling `exclude`); else all of them.  Not
    when one line tells and it is a small edit of another candidate's line: the snippet's edit may
    have made it (a type renamed in one impl of a trait).  `held`: the candidates that have every
    token of the snippet's definition (it may be one of them with lines deleted): only the one told,
    or, for a method, the one held that is the nearest (_nearest: huey's `group.error`, of three
    `error` methods, shown without the comment it drops)."""
    regions = [orig[o.comment_start:o.end + 1] for o in cands]
    texts = ["\n".join(r) for r in regions]
    classes = [_class_name(o.parent) if o.parent else "" for o in cands]
    snippet = "\n".join(d.text)
    named = [k for k, c in enumerate(classes) if c and shows(c, snippet) and shows(c, texts[k])
             and not any(shows(c, t) for j, t in enumerate(texts) if j != k)]
    if len(named) == 1 and held <= set(named):    # the snippet names the class, as only its method does
        return [cands[named[0]]]
    if held:                                      # a method: one holds it all, the nearest by far
        near = _nearest(regions, d, cands) if len(held) == 1 and all(classes) else cands
        return near if len(near) == 1 and cands.index(near[0]) in held else cands
    own = [{l.strip() for l in r if re.search(r"\w", l)} for r in regions]
    others = [set().union(*own[:k], *own[k + 1:]) for k in range(len(cands))]
    shown = {l.strip() for l in d.text}
    telling = [(own[k] - others[k]) & shown for k in range(len(cands))]
    told = [k for k, lines in enumerate(telling) if lines]
    if len(told) != 1:
        return _nearest(regions, d, cands)
    k = told[0]
    if len(telling[k]) == 1:
        line, = telling[k]
        if any(alike(line, x, TWIN) for x in others[k]):
            return _nearest(regions, d, cands)
    return [cands[k]]


def _nearest(regions: list[list[str]], d: Def, cands: list[Def]) -> list[Def]:
    """The one candidate that the snippet's definition is at most half as many line edits from as
    from any other (lines added or dropped, whichever are more; blank ones aside): orjson's thirty
    `serialize` methods, the snippet's `serializer.serialize_bool(self.value)` one of them with an
    attribute changed, each other one with two lines changed; else all of them.  Not one that keeps
    none of the snippet's lines with words but those every candidate has (its signature): nearer
    only for being shorter (rnet's `fn fmt` of two `impl Display`, each body a `write!` of its own)."""
    def lines(text: list[str]) -> Counter:
        return Counter(l.strip() for l in text if l.strip())
    shown = lines(d.text)
    have = [lines(region) for region in regions]
    far = sorted((max(sum((shown - r).values()), sum((r - shown).values())), k) for k, r in enumerate(have))
    (best, k), (second, _) = far[0], far[1]
    common = set.intersection(*(set(r) for r in have))
    own = {t for t in shown if t in have[k] and t not in common and re.search(r"\w", t)}
    return [cands[k]] if 2 * best <= second and best < sum(shown.values()) and own else cands


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


def _class_name(parent: str) -> str:
    """A method's class: the parent's name, the type of a Rust `impl<T> Trait for Type<T>`."""
    if not parent.startswith("impl"):
        return parent
    bare = parent
    while re.search(r"<[^<>]*>", bare):
        bare = re.sub(r"<[^<>]*>", "", bare)
    words = re.findall(r"[A-Za-z_]\w*", bare.split(" for ")[-1])
    return next((w for w in words if w != "impl"), "")
