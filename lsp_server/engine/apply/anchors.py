"""Where a fragment of a lazy snippet goes in the original, by its lines (apply's merge).

A fragment's first line and its last line are its anchors: both must be original lines (trailing whitespace
ignored), and the fragment replaces the original region from the first to the last.  When either matches several
lines, every (head, tail) pair after the previous fragment and inside the fragment's block (no line indented less
than the fragment between them) is a candidate, scored by how well the region agrees with the fragment:

* a heaviest common subsequence of the region's lines and the fragment's (exact, not difflib's
  greedy blocks): a kept line with a word in it counts 1, a blank line or a lone brace 0, and every
  line the region would drop costs 1, less REPLACED when a new line of the fragment rewrites it (a
  like line): a region where the new line rewrites one counts for more than one where it is inserted;
* plus RUN for each region line that continues the fragment's leading or trailing run (up to CAP at
  each end): a region framed by the fragment's own first and last lines beats one that shares a
  single generic line with it;
* regions framed by FRAME lines at both ends, with words in them, as a unified diff's hunk is, are
  preferred to all others, and what they drop between the frames they drop explicitly.

A region that drops a definition may not drop one whose name the fragment uses without defining or
importing it (the new lines would call what they remove), however unique its anchors.

After an indented marker, a fragment indented at least as deep stays in that marker's block (one
that a signature's closing line, `) -> T {`, does not end: its body is in it too); one less deep
than the marker is looked for first in the block the previous fragment ended in (places.stays_in).
The best candidate wins when it is the only best (a one-line fragment: the first place after the
previous fragment, unless places.likest_block tells them apart; a definition's header it does not
tell apart is refused); the innermost block around the
marker breaks ties (not for one whose first and last lines have no word: places.braces_tied), then,
between regions sharing one anchor, the longer; otherwise the merge refuses: it never guesses.  Nor
when the tie-break took a region that deletes lines a tied one keeps, and deletes none that one keeps
(places.deletes_more: then the reading the snippet means is a guess).
"""
from __future__ import annotations

import re
from collections import Counter

from redraft.engine.apply import heaviest
from redraft.engine.apply.alike import replaced, worth as _worth
from redraft.engine.apply.definitions import _indent
from redraft.engine.apply.lost import (UNSHOWN, UNUSED, drops_unnamed, drops_unshown, guarded, loses, named_anew,
                                       no_lost_definitions, no_used_dropped, unbound)
from redraft.engine.apply.places import (braces_tied, deletes_more, in_marker_block, last_text, led_here, likest_block,
                                         likest_rewrite, longest_taking, opens_file, shown_once, stays_in, tail_before,
                                         unchanged, weak_tie, whole_file)
from redraft.engine.apply.regions import (_CLOSER, _WORD, balanced, block_end, chance_tail, closer_opener, closing_head,
                                          defined_name, definition_name, doubled_edge, doubled_run, ends_as,
                                          ends_block, in_new_definition, innermost, leads_to, leave_block, old_tail,
                                          opener, reachable, redefined, repeated_head, replaces, runs_in, same,
                                          used_dropped)
from redraft.engine.apply.result import Ambiguous

__all__ = ["anchor", "last_text", "same", "unchanged", "UNSHOWN", "UNUSED"]

MAX_HEADS = 400
_CLOSES = re.compile(r"\s*(?:[}\])]|\*/)")       # a line that closes a block (a leading marker's weak tie)
SLACK = 200                       # a region at most this much longer than twice the fragment
FRAME = 3                         # lines of context that make a deletion explicit (_framed)
CAP = 3                           # a run counts up to this many lines at each end
RUN = 3                           # weight of a region line in the fragment's leading / trailing run
REPLACED = 1.25                   # ... and counts this much against the line's cost (_agreement)
ONCE = 2                          # a line the fragment shows, found once in the file, inside the region
HOLDS = 2                         # a block holding this many more of a fragment's lines is its (_holds_most)
COMMON = 3                        # a frame found more often than this in the file frames by chance
TAIL_WHY = "the block's old last lines: the snippet ends it with new ones before a less indented marker"
TWINS = "matches more than one place in the file"   # (plan tries the places before the next fragment's)
LAST_WHY = "no marker after the snippet's last line"   # (what a last fragment leaves out there is gone)


def _runs(orig: list[str], want: list[str], a: int, b: int) -> int:
    """Lines of the region that continue the fragment's leading run (from a on) or its trailing run
    (back from b), the two not overlapping, each up to CAP lines; a run of one line is chance and
    counts 0: a region framed by the fragment's own first and last lines is where it goes.  A region
    that is the fragment itself counts both runs whole (a short fragment's runs would overlap)."""
    n = min(b - a + 1, len(want))
    if b - a + 1 == len(want) and all(orig[a + i].strip() == want[i] for i in range(n)):
        return 2 * min(n, CAP) if n > 1 else 0
    pre = 0
    while pre < min(n, CAP) and orig[a + pre].strip() == want[pre]:
        pre += 1
    suf = 0
    while pre + suf < n and suf < CAP and orig[b - suf].strip() == want[-1 - suf]:
        suf += 1
    return (pre if pre > 1 else 0) + (suf if suf > 1 else 0)


def _framed(orig: list[str], want: list[str], a: int, b: int, words: bool = False) -> bool:
    """The region starts with the fragment's first FRAME lines and ends with its last FRAME lines
    (a unified diff's hunk): what it drops between them it drops explicitly.  The frames may share a blank
    line or a `}` (new lines between two where the file has one: ohm-js's new `if` block after an `if`).
    `words`: each frame has a line with a word (not only blanks, braces)."""
    n = b - a + 1
    mid = orig[a + FRAME - 1] if n == 2 * FRAME - 1 else None   # (a shared closer closes what the first frame opens)
    shared = mid is not None and (not mid.strip() or _CLOSER.match(mid) is not None and balanced(want[:FRAME]))
    return (n >= 2 * FRAME or shared) and len(want) >= 2 * FRAME and all(
        orig[a + i].strip() == want[i] and orig[b - i].strip() == want[-1 - i] for i in range(FRAME)) and \
        (not words or any(_worth(t) for t in want[:FRAME]) and any(_worth(t) for t in want[-FRAME:]))


def _pairs(orig: list[str], lines: list[str], heads: list[int], base: int):
    """(upper bound of the score, head, tail) for every candidate region."""
    stripped = [l.strip() for l in lines]
    want = Counter(stripped)
    last = lines[-1]
    for a in heads:
        limit = min(block_end(orig, a, base), a + 2 * len(lines) + SLACK)
        have: Counter[str] = Counter()
        matched = worth = 0
        for b in range(a, limit):
            t = orig[b].strip()
            have[t] += 1
            if have[t] <= want[t]:
                matched += 1
                worth += _worth(t)
            if b > a and same(orig[b], last):
                yield worth - (b - a + 1 - matched) + RUN * _runs(orig, stripped, a, b), a, b


def _agreement(orig: list[str], want: list[str], a: int, b: int, once: list[int] = (),
               rewrites: bool = True, runs: bool = True) -> tuple[float, int]:
    """(score, non-blank lines the region would drop) counting only lines that agree in order.
    Unless the region drops a definition the fragment does not name: REPLACED for each dropped line
    rewritten by a like new one (alike.replaced; not without `rewrites`) and ONCE for each line of
    `once` the region takes in.  Without `runs`, no RUN credit either (places.weak_tie)."""
    region = [l.strip() for l in orig[a:b + 1]]
    kept = heaviest.kept(orig, want, a, b)
    dropped = sum(1 for i, l in enumerate(region) if l and i not in kept)
    worth = sum(_worth(region[i]) for i in kept)
    score = worth - (len(region) - len(kept)) + (RUN * _runs(orig, want, a, b) if runs else 0)
    if not rewrites or drops_unnamed(region, want, kept):
        return score, dropped
    return score + REPLACED * replaced(region, want, kept) + ONCE * sum(1 for x in once if a <= x <= b), dropped


def _top(orig: list[str], lines: list[str], want: list[str], cands: list[tuple[int, int, int]], pos: int = 0,
         end: int | None = None):
    """(score, head, tail, dropped) of the candidates with the best in-order score, evaluated from
    the best upper bound (the multiset score) down until no other can reach the best found.
    `end`: the file's last line, when the lines after the region up to it are deleted too: each
    costs as a line the region drops."""
    def after(b: int) -> int:
        return max(0, end - b) if end is not None else 0
    best, scored = None, []
    once = shown_once(orig, want, pos) if len(cands) > 1 else []
    slack = REPLACED * sum(1 for t in want if _WORD.search(t)) + ONCE * len(once)   # the most they can add
    if len(want) == 1:
        slack = 0                     # one line: the first place it fits after the previous fragment
    for ub, a, b in sorted(((ub - after(b), a, b) for ub, a, b in cands), key=lambda c: -c[0]):
        if best is not None and ub + slack < best:
            break
        score, dropped = _agreement(orig, want, a, b, once)
        score -= after(b)
        scored.append((score, a, b, dropped))
        best = score if best is None else max(best, score)
    return [t for t in scored if t[0] == best]


def _best(orig: list[str], lines: list[str], cands: list[tuple[int, int, int]], name: str, pos: int = 0,
          opened: bool = False, chance: bool = False, end: int | None = None):
    """The best candidates (_top), among those framed by the fragment's first and last FRAME lines
    when there are any (frames with words first); the one best may not drop a definition silently
    (lost.no_lost_definitions) unless it is framed, and was not picked only for frames of blank lines
    and braces over a better-scored region.  Frames with words found more than COMMON times in the
    file (regions.runs_in) are only weak ones.  Of several places framed alike, the best ones that drop a
    definition the fragment uses, or one the snippet never shows (a test by its title too: lost.loses),
    give way to those tied with them that drop no such one, or, all dropping one, to the best of the others
    (a new function before the next one, the fragment opening with the lines that end every function:
    icechunk's storage.py; tied, the longest was taken: wcmatch's tests).  None count when its last FRAME
    lines' words are in a definition it adds (`new`, unless `end`): new code, found elsewhere by chance
    (tabulate's test_output.py).  `chance`: the last lines are a chance frame (regions.chance_tail, a
    marker after them): no frame counts, and tied candidates must each pass the guard.
    `end`: as _top's; not for a fragment whose first and last lines are alike (tied places of it go
    to the file's end: plan._at_file_end).  Not framed by lines with words, or holding the fragment's
    last FRAME lines further up than its end (places.tail_before), the one best may not drop a definition the
    snippet never names for one of a new name (lost.named_anew).  A framed best place that drops lines
    gives way to a place inside it past which the frame was found by chance (_chance_frame)."""
    want = [l.strip() for l in lines]
    words = [j for j, l in enumerate(lines) if _WORD.search(l)]
    new = end is None and words[-1:] >= [len(lines) - FRAME] and in_new_definition(orig, lines, words[-1])
    mirrored = want[:FRAME] == want[-FRAME:]     # frames alike at both ends fit any two of their places
    end = None if mirrored else end
    common = not (mirrored or chance) and any(runs_in(orig, f, COMMON) > COMMON for f in (want[:FRAME], want[-FRAME:]))
    strong = [] if mirrored or chance or common or new else [c for c in cands if _framed(orig, want, c[1], c[2], True)]
    mine = None if strong or chance else closer_opener(lines)    # (alike closing braces: the same block's?)
    weak = [] if strong or chance or new else [c for c in cands if _framed(orig, want, c[1], c[2]) and
                                                (mine is None or opener(orig, c[2]) == mine)]
    top = _top(orig, lines, want, strong or weak or cands, pos, end)
    framed = strong or weak
    losing = [t for t in top if t[3] and loses(orig, lines, t[1], t[2])] if len(framed) > 1 else []
    if losing and len(losing) < len(top):         # (framed alike: of the best, those that lose no definition,
        top = [t for t in top if t not in losing]  # else the best of the others that lose none)
    elif losing:
        rest = _top(orig, lines, want, [c for c in framed if all(c[1:3] != t[1:3] for t in top) and
                                        not loses(orig, lines, c[1], c[2])], pos, end)
        top = rest if len(rest) == 1 else top
    if framed and len(top) == 1 and top[0][3] and (near := _chance_frame(orig, lines, want, cands, top[0], bool(weak),
                                                                          pos, end)):
        top, framed, strong, weak = near, [], [], []
    if weak and len(top) == 1 and [t[1:3] for t in _top(orig, lines, want, cands, pos, end)] != [top[0][1:3]]:
        guard = top[0][3]             # picked for weak frames alone: what it drops must pass the guard
    else:
        guard = len(top) == 1 and top[0][3] and not _framed(orig, want, top[0][1], top[0][2])
    if guard or chance and len(top) > 1:   # (chance: no frame tells them apart, each must pass the guard)
        top = guarded(orig, lines, top, name, opened)
    if len(top) == 1 and top[0][3] and (not strong and not _WORD.search(lines[-1]) or
                                         tail_before(orig, want, top[0][1], top[0][2], FRAME)) and \
            (why := named_anew(orig, lines, top[0][1], top[0][2])):
        raise Ambiguous(f"{name}: {why}")
    return [t[:3] for t in top]


def _chance_frame(orig: list[str], lines: list[str], want: list[str], cands: list, top: tuple, weak: bool, pos: int,
                  end: int | None) -> list | None:
    """For the one best place of a framed fragment, which drops lines: the place inside it past which the
    frame was found by chance, if any (a list, as _top gives).  Framed weakly (first lines with words, last
    ones closing braces): the best region from the same first line to an earlier copy of its last line, if
    it drops nothing and the best one passes the guard (lost.loses, `outright`) and renames nothing
    (lost.named_anew; llguidance's numeric.rs: a new `if num.integer {...}` read as reaching the next
    block's `}`s: 56 lost lines).  Framed by lines with words, dropping a definition it uses or the snippet
    never shows (lost.loses): the best region from the same first line ending with the fragment's last two
    lines that drops none and agrees better (eslint-plugin-unicorn's prefer-simplified-conditions: 29 lost
    lines).  A deletion between frames with no such place inside is meant (shown by omission)."""
    a, b = top[1:3]
    if weak:
        if not any(map(_worth, want[:FRAME])) or any(map(_worth, want[-FRAME:])) or \
                named_anew(orig, lines, a, b) or loses(orig, lines, a, b, outright=True):
            return None
        near = _top(orig, lines, want, [c for c in cands if c[1] == a and c[2] < b], pos, end)
        return near if len(near) == 1 and not near[0][3] else None
    if not loses(orig, lines, a, b):
        return None
    shorter = [c for c in cands if c[1] == a and a < c[2] < b and orig[c[2] - 1].strip() == want[-2] and
               not loses(orig, lines, c[1], c[2])]
    near = _top(orig, lines, want, shorter, pos, end)
    return near if len(near) == 1 and near[0][0] > top[0] else None


def _later_head(orig: list[str], lines: list[str], pick: tuple, every: list) -> tuple | None:
    """For the one best place, dropping a key, case or arm the snippet never names (lost.drops_unnamed; a
    definition dropped is the guards'), not each line like a new one (regions.replaces): the place to its
    last line from the latest later copy of its first line that drops none (a new match arm after the one
    whose end it starts with: fresh34's zizmor main.rs, `AmbiguousRemoteRef` read as another rewritten)."""
    want = [l.strip() for l in lines]
    a, b = pick[1], pick[2]
    if replaces(orig, lines, a, b) or not drops_unnamed([l.strip() for l in orig[a:b + 1]], want,
                                                        heaviest.kept(orig, want, a, b), definitions=False):
        return None                   # (each line it drops like a new one: a rewrite, a rename)
    later = [c for c in every if c[2] == b and c[1] > a and _agreement(orig, want, c[1], c[2])[1] == 0]
    return max(later, key=lambda c: c[1])[:3] if later else None


def _unbound(orig: list[str], lines: list[str], c: tuple[int, int, int]) -> bool:
    region = [l.strip() for l in orig[c[1]:c[2] + 1]]
    return unbound(orig, lines, c[1], c[2], heaviest.kept_in(region, [l.strip() for l in lines]))


def _to_block_end(orig: list[str], lines: list[str], a: int, base: int,
                  start: int | None = None) -> tuple[int, int, int]:
    """A candidate from line `a` to the end of the block at `base` (of line `start`'s, if given)."""
    b = _block_last(orig, a, base, start)
    agrees, unmatched = _agreeing(orig, lines, a, b)
    return agrees - unmatched, a, b


def _block_last(orig: list[str], a: int, base: int, start: int | None = None) -> int:
    end = block_end(orig, a if start is None else start, base) - 1
    return next((b for b in range(end, a, -1) if orig[b].strip()), a)


def _agreeing(orig: list[str], lines: list[str], a: int, b: int) -> tuple[int, int]:
    """What [a, b] agree with the fragment by (_worth of its lines held, RUN per edge-run line), lines it lacks."""
    want = Counter(l.strip() for l in lines)
    held = [(min(n, want[t]), t) for t, n in Counter(l.strip() for l in orig[a:b + 1]).items()]
    agrees = sum(k * _worth(t) for k, t in held) + RUN * _runs(orig, [l.strip() for l in lines], a, b)
    return agrees, b - a + 1 - sum(k for k, _ in held)


def _holds_most(orig: list[str], lines: list[str], heads: list[int], base: int) -> list[int]:
    """Of several heads of a fragment that ends its block, the one whose block agrees with it clearly best (by
    HOLDS; not by its length), else all (plumbum's atomic.py: a `with` rewritten as `try:`, after an `assert`)."""
    held = sorted(((_agreeing(orig, lines, a, _block_last(orig, a, base))[0], a) for a in heads), reverse=True)
    return [held[0][1]] if held[0][0] - held[1][0] >= HOLDS else heads


def _appended(orig: list[str], lines: list[str], heads: list[int], cands: list) -> list:
    """The last fragment's regions from a head to the file's end that keep every line with text (its
    last line new: code appended after the file's own last lines, which it shows; alembic's
    test_postgresql.py: a new class after a test shown from the `)` that closes its second `Table(`,
    read as starting at the first one's, deleting the second), not among `cands` already."""
    held, out, end = {c[1:] for c in cands}, [], last_text(orig) + 1
    want = [l.strip() for l in lines]
    room, have = Counter(t for t in want if t), Counter()
    for a in sorted((a for a in heads if a < end), reverse=True):    # (from the last head: each earlier
        have.update(t for t in (l.strip() for l in orig[a:end]) if t)   # region holds the later one)
        end = a
        if have - room:               # (a line more often than the fragment has it: none keeps all)
            break
        c = _to_block_end(orig, lines, a, -1)
        kept = heaviest.kept(orig, want, c[1], c[2])
        if c[1:] not in held and all(i in kept or not orig[c[1] + i].strip() for i in range(c[2] - c[1] + 1)):
            out.append(c)
    return sorted(out, key=lambda c: c[1])


def anchor(orig: list[str], lines: list[str], pos: int, marker_before: int | None, before: int | None = None,
           **kw) -> tuple[int, int]:
    """Where the fragment goes (_anchor, whose arguments these are); after a marker deeper than the
    fragment, first inside the block the previous fragment ended in (places.stays_in).  `before`: a
    line it must end before (where the next fragment goes)."""
    stop = stays_in(orig, lines, pos, marker_before)
    if before is not None:
        return _anchor(orig, lines, pos, marker_before, stop=min(before - 1, len(orig) if stop is None else stop),
                       **kw)
    if stop is not None:
        try:
            return _anchor(orig, lines, pos, marker_before, stop=stop, **kw)
        except Ambiguous:
            pass
    return _anchor(orig, lines, pos, marker_before, **kw)


def _anchor(orig: list[str], lines: list[str], pos: int, marker_before: int | None, marker_after: int | None,
            name: str, at_start: bool = False, at_end: bool = False,
            avoid: list[tuple[int, int]] = (), others: list | None = None, opens: bool = False,
            closes: int | None = None, then: tuple[list[str], int] | None = None,
            tails: list | None = None, lone: bool = False, stop: int | None = None) -> tuple[int, int]:
    """Original line indices (head, tail) of the region that the fragment `lines` replaces.
    `pos`: the first line after the previous fragment; `marker_before`: the indentation of the
    marker right before the fragment when it follows another fragment, else None; `marker_after`:
    the indentation of the marker right after it, None if none.  A fragment whose last line is new
    and that is followed by a less indented marker runs to the end of its block (its first line
    unique, the lines it drops replaced by like ones); so does one that opens at a header as deep as
    the marker after it, or holds one after its first line (limits's `__init__`, shown from a
    parameter on), and ends with new lines in the header's body (a test's new last line).
    `at_start` (no marker or fragment before it) / `at_end` (none after it): a new first / last line makes it
    start / end where the file does, if that replaces about as many lines as it brings.  `avoid`:
    [start, end) ranges that later fragments replace by name (candidates overlapping them lose).
    `others`: gets the other candidate regions (head, tail).  `opens`: the snippet starts at the file's
    new first line (no marker before it, lines it omits deleted): a new first line takes the file's
    start for its anchor whatever the lines before its first kept one are (they are deleted).
    `closes`: new lines follow the fragment, less indented than its last line (a new method after
    the lines that end another): it ends its block, so places where the file's block goes on after
    it lose, when there are others.  `then`: the next fragment's lines and the indentation of the
    marker before it: of places that fit alike, the one after which its first line follows is taken
    (regions.leads_to); of a lone line's places, the one whose block is likest them
    (places.likest_block).  `tails`: a list, when lines the snippet leaves out are deleted: the fragment
    that ends its block may then replace the block's old last lines with unlike new ones (else it
    is refused), and TAIL_WHY is appended to the list when it does.  `lone`: the previous fragment is
    one line and the marker after it deeper (a header, of several places the one places.likest_block
    chose for this fragment's lines): a new last line ends that line's block, though its first and
    last lines are both in a later one.  `stop`: the end of the block the fragment is looked for in
    first (places.stays_in): its first line before it, its last line at it at most."""
    heads = [j for j in range(pos, stop or len(orig)) if same(orig[j], lines[0])]
    edge, dropping = False, False
    if not heads and at_start and opens_file(orig, lines, FRAME):
        heads = [0]                   # new lines first, then the file's own first lines
    elif not heads and at_start and orig:
        heads, edge = [0], True
    if not heads:
        raise Ambiguous(f"{name}: its first line is not in the file (after the previous fragment)")
    if len(lines) == 1:
        cands = [(0, a, a) for a in closing_head(orig, heads, pos, lines[0], marker_before)]
        if len(cands) > 1 and then is not None and then[1] > _indent(lines[0]):
            cands = likest_block(orig, cands, lines[0], *then)   # (a header in several classes)
            if len(cands) > 1 and definition_name(lines[0]):    # (their blocks alike to what follows)
                raise Ambiguous(f"{name}: matches more than one place in the file, each alike to the lines "
                                "shown after it; show a line above it")
    else:
        if len(heads) > MAX_HEADS and (k := next((i for i, l in enumerate(lines) if _WORD.search(l)), 0)):
            heads = [h for h in heads if h + k < len(orig) and
                     all(same(orig[h + i], lines[i]) for i in range(1, k + 1))]
        if len(heads) > MAX_HEADS:    # (a first line without words, `}`, everywhere in a bundle: those
            raise Ambiguous(f"{name}: {TWINS}")   # its next lines follow)
        base = min(_indent(l) for l in lines if l.strip())
        cands = [c for c in _pairs(orig, lines, heads, base) if stop is None or c[2] <= stop]
        if cands and at_end and tails is not None and stop is None and not same(orig[last_text(orig)], lines[-1]):
            cands += _appended(orig, lines, heads, cands)
        ends = marker_after is not None and marker_after < base < _indent(lines[0]) + 1
        if cands and ends and lone and marker_before and base >= marker_before and \
                leave_block(orig, heads, cands, pos, marker_before):
            cands = []                # it ends the block of the lone line before it, where its first line is
        if not cands and ends:
            inner = innermost(orig, heads, pos, marker_before, lambda a: a)
            shown = [l.strip() for l in lines if l.strip()]   # (of several heads: the one whose block ends
            ending = [a for a in inner if ends_as(orig, a, block_end(orig, a, base), shown)] \
                if len(inner) > 1 else inner                  # with the fragment's first lines as they are)
            inner = _holds_most(orig, lines, ending or inner, base) if len(ending or inner) > 1 else ending
            if len(inner) != 1:
                raise Ambiguous(f"{name}: {TWINS}", tuple(_to_block_end(orig, lines, a, base)[1:] for a in inner))
            cands, edge = [_to_block_end(orig, lines, inner[0], base)], "block"   # it ends its block
        if not cands and len(heads) == 1 and marker_after is not None and base == marker_after < _indent(lines[-1]):
            header = lambda l: l.rstrip().endswith((":", "{"))   # new lines end the body of its header line:
            k = 0 if _indent(lines[0]) == base and header(lines[0]) else \
                max(j for j, l in enumerate(lines) if l.strip() and _indent(l) == base)  # its first, or one
            h = next((j for j in range(heads[0], len(orig)) if same(orig[j], lines[k])), None) \
                if header(lines[k]) else None     # inside it (`) -> None:` of the signature it starts in)
            if h is not None:                     # as the file has it
                cands, edge = [_to_block_end(orig, lines, heads[0], base + 1, start=h)], "block"
        if not cands and at_end and orig:
            cands, edge = [_to_block_end(orig, lines, a, -1) for a in heads], True
            led = led_here(orig, lines, cands, FRAME, after=marker_before is not None) \
                if tails is not None and not at_start else None
            if led is not None:       # its first lines found once, the file's end its last anchor:
                no_used_dropped(orig, lines, led[0], led[1], name)   # what it omits is gone
                tails.append(LAST_WHY)
                return led
        if not cands:
            raise Ambiguous(f"{name}: its last line is not in the file (after the previous fragment)")
    if edge:                          # a start, an end of file or block taken for an anchor
        whole = whole_file(orig, lines, cands, FRAME) if at_start and at_end else None
        kept = [c for c in cands if replaces(orig, lines, c[1], c[2]) or opens and at_start and c[1] == 0]
        dropping = not kept and edge == "block" and tails is not None
        cands = cands if dropping else kept
        if not cands and whole:       # a whole new file: it may drop any line but no definition
            no_lost_definitions(orig, lines, whole[1], whole[2], name, outright=False)
            return whole[1], whole[2]
        if not cands:
            where = "first" if heads == [0] and not same(orig[0], lines[0]) else "last"
            raise Ambiguous(f"{name}: its {where} line is not in the file (after the previous fragment)")
    if closes is not None:            # the fragment ends its block: the file's next line is no deeper
        ended = [c for c in cands if ends_block(orig, c[2], closes)]
        cands = ended or cands
    if avoid:                         # lines a later fragment replaces by name are not this one's
        cands = [c for c in cands if all(c[2] < s or c[1] >= e for s, e in avoid)] or cands
    if len(cands) > 1:                # (new lines after an old `return (...)`: not there)
        cands = reachable(orig, lines, cands)
    if marker_before and min(_indent(l) for l in lines if l.strip()) >= marker_before:
        cands = in_marker_block(orig, lines, cands, pos, marker_before)     # it stays in the marker's block
    every = cands
    end = last_text(orig) if at_end and tails is not None and len(cands) > 1 else None   # (what follows is gone)
    cands = _best(orig, lines, cands, name, pos, opened=opens and at_start,   # (a marker after: the file goes on)
                  chance=marker_after is not None and chance_tail(orig, lines, FRAME), end=end)
    if len(cands) == 1 and len(every) > 1 and (later := _later_head(orig, lines, cands[0], every)):
        cands = [later]               # (a new unit after an alike one whose end it shows)
    if len(cands) == 1 and len(every) > 1:
        twice = doubled_edge(orig, lines, pos, cands[0][1], cands[0][2])
        twice = [twice] if twice is not None else redefined(orig, lines, pos, cands[0][1], cands[0][2], definition_name)
        run = [] if twice else doubled_run(orig, lines, pos, cands[0][1], cands[0][2])
        twice = twice or run
        other = [c for c in every if all(c[1] <= j <= c[2] for j in twice) and   # (not one that drops a
                 not used_dropped(orig, lines, c[1], c[2])] if twice else []        # definition it uses)
        if run and not other:
            raise Ambiguous(f"{name}: its first or last two lines are also at lines {run[0] + 1}-{run[1] + 1}, which "
                            "its region keeps (they would be in the file twice); show the lines between")
        if other:                     # a line the file has once, shown once, kept and brought again
            cands = _best(orig, lines, other, name, pos)
    if len(cands) == 1 and len(every) > 1 and (j := repeated_head(orig, lines, cands[0][1], cands[0][2], FRAME)):
        later = [c for c in every if c[1] == j and c[2] == cands[0][2] and not used_dropped(orig, lines, j, c[2])]
        cands = later or cands        # the fragment's first lines again inside: the later copy, deleting less
    if len(cands) == 1 and len(every) > 1 and _unbound(orig, lines, cands[0]):
        kept = [c for c in every if c != cands[0] and not _unbound(orig, lines, c) and   # (nor one defining a
                not redefined(orig, lines, pos, c[1], c[2], definition_name) and            # name twice, nor one
                not loses(orig, lines, c[1], c[2])]     # dropping a definition it uses or the snippet never shows)
        try:
            cands = _best(orig, lines, kept, name, pos) if kept else cands
        except Ambiguous:             # (the others drop what the snippet does not show)
            pass
    if why := braces_tied(orig, lines, cands):
        raise Ambiguous(f"{name}: {why}")
    tied = list(cands) if len(cands) > 1 else []
    cands = innermost(orig, cands, pos, marker_before, lambda c: c[1])
    taking = redefined(orig, lines, pos, reader=defined_name) if len(cands) > 1 else []
    if taking:                        # tied: those that take in what the fragment defines again
        tied = []                     # (the old definition deleted: the reading that does it is meant)
        taking = [c for c in every if all(c[1] <= j <= c[2] for j in taking)]
        cands = _best(orig, lines, taking, name, pos) if taking else cands
    texts = [l.strip() for l in lines]
    if len(cands) > 1 and (len({c[1] for c in cands}) == 1 or len({c[2] for c in cands}) == 1):
        cands = [longest_taking(orig, lines, cands)]   # one anchor shared, the other tied
        if _agreement(orig, texts, cands[0][1], cands[0][2])[1] and not _framed(orig, texts, cands[0][1], cands[0][2]):
            no_lost_definitions(orig, lines, cands[0][1], cands[0][2], name)
    # a first fragment after a leading marker, its first line a closing one, is tied as one after a fragment
    led = marker_before if marker_before is not None or at_start or not _CLOSES.match(lines[0]) else 0
    if len(cands) == 1 and (tie := weak_tie(orig, lines, cands[0], every, led, marker_after,
                                            lambda c, **k: _agreement(orig, texts, c[1], c[2], **k))) and \
            not (redefined(orig, lines, pos, *tie[1][1:3], reader=defined_name) and   # (not a nearer place that
                 not redefined(orig, lines, pos, *cands[0][1:3], reader=defined_name)):   # would define it twice)
        if not drops_unshown(orig, lines, *cands[0][1:3]) or drops_unshown(orig, lines, *tie[1][1:3]):
            raise Ambiguous(f"{name}: {tie[0]}")
        cands = [tie[1]]              # (the rewrite would delete a name the snippet never shows: it adds)
    if len(cands) > 1 and then is not None:
        cands = leads_to(orig, cands, then[0][0], then[1])
    if len(cands) > 1:                # (twins: the one whose line the fragment rewrites likest)
        cands = likest_rewrite(orig, lines, cands)
    if len(cands) > 1:
        raise Ambiguous(f"{name}: {TWINS}", tuple(c[1:3] for c in cands))
    if tied and (other := deletes_more(orig, lines, cands[0], tied)):
        raise Ambiguous(f"{name}: fits as well at lines {other[0] + 1}-{other[1] + 1}, which deletes fewer lines; "
                        "show more lines around it")
    a, b = cands[0][1], cands[0][2]
    if dropping:
        tails.append(TAIL_WHY)
    elif tails is not None and marker_after is not None and (dead := old_tail(orig, lines, a, b, marker_after)):
        b = dead[0]                   # the block's old last lines, unreachable or moved up
        tails.append(dead[1])
    if others is not None:
        others.extend((c[1], c[2]) for c in every if (c[1], c[2]) != (a, b))
    return a, b
