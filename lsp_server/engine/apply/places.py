"""Which of several places a fragment's edge takes, told apart by what lies around each (apply's
merge; anchors calls these when a fragment's first line fits several places).

* opens_file: a first fragment whose first lines are new and whose next ones are the file's first
  lines takes the file's start for its anchor.
* led_here: a snippet's last fragment, no marker after it and its last line new, runs to the file's
  end from the one place where the file has its first lines with text, or from the one place of its
  first line after the fragment before it (the snippet ends the file: what it omits there is gone).
* likest_block: a lone line (a method header that several classes have) followed by a deeper
  marker goes to the place whose block holds the next fragment's lines most alike (most of them as
  they are, then in a row, then the fewest characters changed where the others fall); that
  fragment then stays in the block (anchors.anchor's `lone`).
* longest_taking: of regions tied that share one anchor, the longest whose extra lines the fragment
  brings again (rewritten or moved), else the shortest.
* renamed_export: a fragment that is its region but for an exported definition's name, a marker
  after it: a rename or a copy beside it, refused.
* weak_tie: a fragment whose first line, after a marker, has no word (or whose last line, before
  a marker; either found more than BARE times counts as one without), and whose best place rewrites
  lines the marker may stand for while a nearer one adds to them: refused.
* bare_head: the same for a first line that is bare (no word, or one word the file has many times:
  `},`, `return;`), when the nearer place keeps every line with words the other keeps and drops
  none, while the other drops one that no new line is like: refused.
* stays_in: after a marker deeper than the fragment, the fragment is looked for first in the block
  the previous fragment ended in; in_marker_block: the candidates in the marker's innermost block.
* braces_tied: a fragment whose first and last lines have no word, tied between places: refused.
* likest_rewrite: of twin places tied, the one whose lines the fragment rewrites likest.
* deletes_more, tail_before, whole_file, shown_once, unchanged, last_text: what anchors' tie-breaks
  and scores ask of a region and the file.
"""
from __future__ import annotations

import difflib
import re
from collections import Counter
from itertools import islice

from redraft.engine.apply import heaviest
from redraft.engine.apply.alike import alike, likeness, rewrites
from redraft.engine.apply.definitions import _indent
from redraft.engine.apply.lost import _TITLED
from redraft.engine.apply.regions import _WORD, block_end, definition_end, definition_name, innermost, runs_in, same

LIKEST_WORK = 20000               # lines x lines compared at most by likest_block
_SPACE = re.compile(r"\s+")
_WORDS = re.compile(r"\w+")
_EXPORTED = re.compile(r"\s*(?:export\b|pub\b|func\s+(?:\([^)]*\)\s*)?[A-Z])")   # (Go: a capital)
_CLOSER = re.compile(r"\s*[}\])]+[;,]?\s*$")
TAKEN = 0.7                       # an extra line this alike to a fragment's line is rewritten by it
BARE = 3                          # a one-word line found more often than this is no anchor (bare_head)


def opens_file(orig: list[str], lines: list[str], frame: int) -> bool:
    """The fragment's first few lines are new and the next two or more are the file's first lines,
    with words in them (lines added at the start of the file, its own start as their anchor)."""
    for k in range(1, min(frame, len(lines) - 2) + 1):
        n = 0
        while n < len(orig) and k + n < len(lines) and same(orig[n], lines[k + n]):
            n += 1
        if n >= 2 and sum(1 for l in orig[:n] if _WORD.search(l)) >= 2:
            return True
    return False


def led_here(orig: list[str], lines: list[str], cands: list, frame: int, after: bool = False) -> tuple[int, int] | None:
    """Of several candidates (score, head, tail), the one at the only place where the file has the
    fragment's first `frame` lines with text, words among them (blank lines aside); or, `after` a
    fragment, the one candidate (its first line found once after that fragment, which with it anchors
    it: mosec's utils.py, `return None` ending the function the fragment before ended in, then new
    functions for the old ones); when its region has at most twice the fragment's lines with text (it
    is rewritten, not cut); else None."""
    want = _texts(lines, 0, frame)
    if after and len(cands) == 1:
        c = cands[0]
    elif len(cands) < 2 or len(want) < frame or not any(_WORD.search(t) for t in want):
        return None
    else:
        at = [j for j, l in enumerate(orig) if l.strip() == want[0] and _texts(orig, j, frame) == want]
        c = next((c for c in cands if at == [c[1]]), None)
    if c is None or sum(1 for l in orig[c[1]:c[2] + 1] if l.strip()) > 2 * sum(1 for l in lines if l.strip()):
        return None
    return c[1], c[2]


def _texts(lines: list[str], a: int, frame: int) -> list[str]:
    """The first `frame` lines with text from line `a` on, stripped."""
    out = []
    for line in lines[a:a + 4 * frame]:
        if line.strip():
            out.append(line.strip())
            if len(out) == frame:
                break
    return out


def likest_block(orig: list[str], cands: list, line: str, following: list[str], marker: int) -> list:
    """Of the places of a lone line followed by a deeper marker (indented `marker`) and a fragment
    that starts in its block (as deep as the marker), the one whose block (to the end of the block
    that holds it, or the next place) has the next fragment's lines most alike: most of them as they
    are, then the most of them in a row, then the fewest characters changed to turn the block's
    lines into the others where they fall in order (each from the likest line there, summed); when
    one is likest.  Else all of them (and the first is taken, as before)."""
    want = [l.strip() for l in following if l.strip()]
    if not want or _indent(next(l for l in following if l.strip())) < marker:
        return cands                  # (the next fragment leaves the block: `)` after a decorator's marker)
    heads = sorted(c[1] for c in cands)

    def fit(a: int) -> tuple[int, int, int] | None:
        stop = min([block_end(orig, a, _indent(line))] + [h for h in heads if h > a])
        seq = [l.strip() for l in orig[a + 1:stop] if l.strip()]
        block = set(seq)
        if len(block) * len(want) > LIKEST_WORK:
            return None
        sm = difflib.SequenceMatcher(None, seq, want, autojunk=False)
        run, total = sm.find_longest_match().size, 0
        for tag, i1, i2, j1, j2 in sm.get_opcodes():      # a new line against the block's lines where
            for w in want[j1:j2] if tag != "equal" else ():   # it falls in order, the likest of them
                total -= _fewest_changes(seq[i1:i2], w)
        return sum(1 for w in want if w in block), run, total
    fits = [fit(c[1]) for c in cands]
    if None in fits:
        return cands
    best = max(fits)
    return [cands[fits.index(best)]] if fits.count(best) == 1 else cands


def _fewest_changes(lines: list[str], w: str) -> int:
    """The fewest characters to delete and insert to turn one of `lines` into w (at most len(w)):
    a line whose length alone needs as many is not compared."""
    sm, best = difflib.SequenceMatcher(None, "", w, autojunk=False), len(w)
    for t in lines:
        if abs(len(t) - len(w)) < best:
            sm.set_seq1(t)
            best = min(best, len(t) + len(w) - 2 * sum(m.size for m in sm.get_matching_blocks()))
    return best


def longest_taking(orig: list[str], lines: list[str], cands: list, exact: bool = False) -> tuple:
    """Of candidate regions (_, head, tail) tied that share one anchor, the longest whose lines with
    words beyond the shortest's are more than half in the fragment (as they are, white space aside,
    or alike: TAKEN), among the fragment's lines that the shortest does not have: it takes in code
    the fragment rewrites or moved instead of doubling it.  Else the shortest: the longer ones would
    delete lines that the fragment does not bring again, under the marker that stands for them
    (redux-toolkit's cacheCollection.ts: an `if` block after the rewritten one; it used to be the
    longest always).  `exact`: lines alike do not count."""
    ordered = sorted(cands, key=lambda c: c[2] - c[1])
    short = ordered[0]
    left = Counter(_SPACE.sub("", l) for l in lines if _WORD.search(l))
    left.subtract(_SPACE.sub("", l) for l in orig[short[1]:short[2] + 1])
    for c in reversed(ordered[1:]):
        extra = [_SPACE.sub("", l) for l in orig[c[1]:short[1]] + orig[short[2] + 1:c[2] + 1] if _WORD.search(l)]
        rest, taken = +left, 0
        for t in extra:
            if rest[t] > 0:
                rest[t] -= 1
                taken += 1
            elif not exact and any(alike(t, w, TAKEN) for w in rest if rest[w] > 0):
                taken += 1
        if 2 * taken > len(extra):
            return c
    return short


def weak_tie(orig: list[str], lines: list[str], best: tuple, every: list, marker_before, marker_after,
             score) -> tuple[str, tuple] | None:
    """Why a fragment is refused whose edge line next to a marker has no word, when its best place
    rewrites lines the marker may stand for while a nearer one adds to them (weak_head; bare_head for
    a bare first line; or at the last line before a marker: the nearer place ends earlier, with the same
    head; a first or last line with words counts as bare when the file has it more than BARE times,
    `lax`: llguidance's numeric.rs, new `Case {...}` entries before the first old one, its last shown
    line `minimum: Some(5.5),` in eight entries, read as rewriting the entries up to a later one), and
    that nearer place; else None."""
    near = weak_head(orig, lines, best, every, marker_before, score) or \
        bare_head(orig, lines, best, every, marker_before, lax=bool(_WORD.search(lines[0])))
    if near is not None:                          # (weak_head's first line has no word)
        what = f"`{lines[0].strip()}`, found {runs_in(orig, [lines[0].strip()], len(orig))} times" \
            if _WORD.search(lines[0]) else "without words"
        return (f"its first line, {what}, fits at line {near[1] + 1} (adding lines) and at line {best[1] + 1} "
                "(rewriting the lines between); show a line with words above it"), near
    lax = bool(_WORD.search(lines[-1]))          # (a last line with words, found more than BARE times)
    if marker_after is None or lax and runs_in(orig, [lines[-1].strip()], BARE) <= BARE:
        return None
    flip = len(orig) - 1                          # the last line is the first of the lines reversed
    rorig, rlines = orig[::-1], lines[::-1]       # (one reversed copy for both: heaviest's passes kept)
    rbest, revery = (best[0], flip - best[2], flip - best[1]), [(c[0], flip - c[2], flip - c[1]) for c in every]
    near = weak_head(rorig, rlines, rbest, revery, marker_after,
                     lambda c, **k: score((c[0], flip - c[2], flip - c[1]), **k)) or \
        bare_head(rorig, rlines, rbest, revery, marker_after, lax)
    if near is not None:
        what = f"`{lines[-1].strip()}`, found {runs_in(orig, [lines[-1].strip()], len(orig))} times" if lax \
            else "without words"
        return (f"its last line, {what}, fits at line {flip - near[1] + 1} (adding lines) and at line "
                f"{best[2] + 1} (rewriting the lines between); show {'more lines' if lax else 'a line with words'} "
                "below it"), \
            (near[0], flip - near[2], flip - near[1])
    return None


def _run(orig: list[str], lines: list[str], a: int) -> int:
    """How many of the fragment's first lines the file has, as they are, from line `a` on."""
    k = 0
    while k < len(lines) and a + k < len(orig) and orig[a + k].strip() == lines[k].strip():
        k += 1
    return k


def weak_head(orig: list[str], lines: list[str], best: tuple, every: list, marker_before,
              score) -> tuple | None:
    """For a fragment whose first line has no word and follows a marker: the nearer place of that
    line (same tail as `best`, a later head) that drops nothing and scores as well as `best` without
    the credit for lines rewritten by alike ones, or without that and the credit for runs of the
    fragment's lines at its ends (`score(region, rewrites=, runs=)`: (score, lines dropped); a short
    region's runs overlap, so they count less there), when `best` drops lines: the fragment then adds
    to the lines there as well as it rewrites them (tantivy's schemabuilder.rs: `};`, then a new `let
    options = if fast {...}` block like the `let options = if stored {...}` block before it, which the
    marker may stand for).  None if not so, or if the fragment brings most of the lines between again
    as they are (longest_taking, exact), or `best` continues the fragment's own lines past the weak
    one further than the nearer place (apollo's traceTreeBuilder.js: `}` then `else {`), or its first
    line with words is one the file has once, between the two places, or the header of a
    definition the file has once is between them (a definition replaced by a new one: eslint's
    rules, `function remove(xs, x)`; not one of many, fastexcel's `impl From<&[$type]>` among four
    `impl From` in a macro, each with its `fn from`, the new one added after them).
    Taking the nearer place broke real rewrites as often as it fixed additions (session 45)."""
    if marker_before is None or _WORD.search(lines[0]) or not any(_WORD.search(l) for l in lines):
        return None
    if not score(best)[1]:
        return None
    plain, bare = score(best, rewrites=False)[0], score(best, rewrites=False, runs=False)[0]
    near = next((c for c in sorted(every, key=lambda c: -c[1]) if c[2] == best[2] and c[1] > best[1] and
                 not score(c)[1] and (score(c, rewrites=False)[0] >= plain or score(c, rewrites=False, runs=False)[0]
                                      >= bare)), None)
    if near is None or longest_taking(orig, lines, [best, near], exact=True) != near or \
            _run(orig, lines, best[1]) > _run(orig, lines, near[1]):
        return None                   # (the farther place continues the fragment's run past the weak line)
    first = next(l.strip() for l in lines if _WORD.search(l))        # shown once, between the two: the
    held = [i for i, l in enumerate(orig) if l.strip() == first]     # nearer place would double it
    if len(held) == 1 and best[1] <= held[0] < near[1]:
        return None
    return None if _defined_once_between(orig, best[1], near[1]) else near   # (a definition rewritten)


def bare_head(orig: list[str], lines: list[str], best: tuple, every: list, marker_before,
              lax: bool = False) -> tuple | None:
    """For a fragment whose first line after a marker is bare (no word, or one word the file has more
    than BARE times: `},`, `return;`): the nearer place of that line (same tail as `best`, a later head)
    that drops no line with words and keeps every line `best` keeps that is not bare, when `best`
    drops a line with words that no line of the fragment is like: the bare line cannot tell a
    rewrite from an addition there (cashews's test_settings_url.py: `},` then a new `(url, {...})`
    item, read as rewriting the two items before it; ioredis's cluster: `return;` then new lines,
    read as deleting the `if (!redis) {...}` guard before them).  None if not so, or if the header of a
    definition the file has once is between the two places (a definition rewritten, as for weak_head).
    `lax`: any line the file has more than BARE times is bare (weak_tie's last line with words)."""
    want = [l.strip() for l in lines]
    if marker_before is None or _WORD.search(want[0]) and ((len(want[0].split()) != 1 and not lax) or
                                                          runs_in(orig, want[:1], BARE) <= BARE):
        return None                   # (its first line not bare)
    if not deleted(orig, want, best):
        return None                   # (every line it drops rewritten by a like one)
    counts = Counter(l.strip() for l in orig)

    def bare(t: str) -> bool:
        return not _WORD.search(t) or (lax or len(t.split()) == 1) and counts[t] > BARE

    def reading(c: tuple) -> tuple[Counter, bool]:          # (lines kept that are not bare, a line dropped)
        kept = heaviest.kept(orig, want, c[1], c[2])
        region = [l.strip() for l in orig[c[1]:c[2] + 1]]
        return Counter(region[i] for i in kept if not bare(region[i])), \
            any(i not in kept and _WORD.search(t) for i, t in enumerate(region))
    mine = reading(best)[0]
    near = next((c for c in sorted(every, key=lambda c: -c[1]) if c[2] == best[2] and c[1] > best[1] and
                 not (theirs := reading(c))[1] and not mine - theirs[0]), None)
    return None if near is None or _defined_once_between(orig, best[1], near[1]) else near


def deleted(orig: list[str], want: list[str], c) -> set[int]:
    """The region's lines with words that the fragment (stripped lines `want`) neither keeps nor
    rewrites (no like line): for bare_head, and anchors' tie-break that deletes (_deletes_more)."""
    kept = heaviest.kept(orig, want, c[1], c[2])
    new = [w for w in want if _WORD.search(w)]
    return {c[1] + i for i, t in enumerate(orig[c[1]:c[2] + 1])
            if i not in kept and _WORD.search(t) and not any(alike(t.strip(), w, TAKEN) for w in new)}

def deletes_more(orig: list[str], lines: list[str], best, tied: list):
    """Of candidates tied on score, one that deletes only lines `best` deletes too, and fewer: a
    tie-break (the marker's block, the longer region) then chose the reading that deletes more."""
    want = [l.strip() for l in lines]
    mine = deleted(orig, want, best)
    if not mine:
        return None
    for c in tied:
        if c[1:3] != best[1:3] and deleted(orig, want, c) < mine:
            return c[1], c[2]
    return None


def tail_before(orig: list[str], want: list[str], a: int, b: int, frame: int) -> bool:
    """The region holds the fragment's last `frame` lines further up than its end: it reaches past one
    copy of them to another (cashews's redis client: a new `RedisCluster` class whose first lines are
    `Redis`'s, its last shown lines the comment in every `execute_command`, read as `SafeRedis`
    renamed)."""
    tail, region = want[-frame:], [l.strip() for l in orig[a:b + 1]]
    return len(want) > frame and any(region[i:i + frame] == tail for i in range(len(region) - frame))


def last_text(orig: list[str]) -> int:
    """The index of the file's last line with text (-1 for a blank file)."""
    return max((j for j, l in enumerate(orig) if l.strip()), default=-1)


def _last_texts(lines: list[str], frame: int) -> list[str]:
    """The last `frame` lines with text, stripped, last first."""
    return list(islice((l.strip() for l in reversed(lines) if l.strip()), frame))


def whole_file(orig: list[str], lines: list[str], cands: list[tuple[int, int, int]], frame: int):
    """The candidate from the file's first line to its last non-blank one, if any, when that line
    (with a word in it; else the last `frame` lines with text, a word among them) is also the
    fragment's last: a snippet with no marker that ends as the file does is the whole new file."""
    last = last_text(orig)
    end = next((l for l in reversed(lines) if l.strip()), "")
    if last < 0 or not same(orig[last], end):
        return None
    if not _WORD.search(end):         # (`}`: the file's closing lines, as many as a frame)
        tail = _last_texts(lines, frame)
        if _last_texts(orig, frame) != tail or not any(_WORD.search(t) for t in tail):
            return None
    return next((c for c in cands if c[1] == 0 and c[2] >= last), None)


def unchanged(region: list[str], lines: list[str]) -> bool:
    """The fragment's lines are the region's, line for line (trailing whitespace aside)."""
    return len(region) == len(lines) and all(same(o, l) for o, l in zip(region, lines))


def shown_once(orig: list[str], want: list[str], pos: int) -> list[int]:
    """Where the fragment's lines with words that occur once in the file are (after `pos`): a region
    that leaves one out keeps it there while the fragment brings it again, a doubled line."""
    wanted = {t for t in want if _WORD.search(t)}
    seen = Counter(t for t in (l.strip() for l in orig) if t in wanted)
    return [j for j in range(pos, len(orig)) if seen.get(orig[j].strip()) == 1]


def in_marker_block(orig: list[str], lines: list[str], cands: list, pos: int, marker_before: int) -> list:
    """Those candidates in the innermost block around the marker (regions.innermost), unless none
    of them holds a line of the fragment that the file has once and another candidate, which the
    fragment changes, does: a line found once places the fragment more surely than the marker's
    depth (pydash's predicates.py: a marker inside one docstring, then `True`, `>>> is_empty(True)`,
    ... `True`, the doctests of another function's docstring 60 lines on, one of them changed).  A
    place the fragment would leave as it is does not count: the snippet shows it to say what the
    marker's block becomes (pydantic-core's tests: a test rewritten like the next one).  Right after a
    definition's header, the marker is that definition's body: the fragment stays there (pint's
    numpy_func.py: a function given the lines of the next one, which has them once)."""
    inner = innermost(orig, cands, pos, marker_before, lambda c: c[2])
    if len(inner) == len(cands) or inner and pos > 0 and definition_name(orig[pos - 1]) and \
            orig[pos - 1].rstrip().endswith((":", "{")) and _indent(orig[pos - 1]) < marker_before:
        return inner                  # (the marker is the body of the definition shown right before it)
    once = shown_once(orig, [l.strip() for l in lines], pos)

    def holds(c) -> bool:
        return any(c[1] <= j <= c[2] for j in once)
    outside = [c for c in cands if c not in inner and holds(c) and not unchanged(orig[c[1]:c[2] + 1], lines)]
    return inner if any(map(holds, inner)) or not outside else cands


RECAST_MARGIN = 0.05              # likest_rewrite: the likest must be this much liker than the next
MOST_TWINS = 64                   # ... among at most this many tied candidates


def likest_rewrite(orig: list[str], lines: list[str], cands: list) -> list:
    """Of tied candidates, each dropping lines, the one whose dropped lines the fragment's new lines
    rewrite likest (the sum of each dropped line's best likeness to a new one), by RECAST_MARGIN;
    else all of them.  Twin blocks (a visitor's callbacks, each calling the host with its own name:
    html-to-markdown's Python binding) differ in the line the fragment rewrites.  Only when every line
    a candidate drops is like a new one (alike.rewrites), and none is a definition's header or
    a test's title: a definition rewritten by likeness alone is a guess (tests/test_apply_file_end.py),
    and an unlike line dropped is a deletion that no likeness tells; and when that place alone holds
    a word of the new lines and no other holds one it lacks (cerebras's twin `object: '...'` members:
    the likest by characters lacked the new line's `chunk`)."""
    want = [l.strip() for l in lines]
    held = {l.strip() for l in orig}
    new = [w for w in want if w and w not in held and _WORD.search(w)]
    if not new or len(cands) > MOST_TWINS:
        return cands
    words = set(_WORDS.findall("\n".join(new)))
    scores, holds = [], []
    for c in cands:
        kept = heaviest.kept(orig, want, c[1], c[2])
        dropped = [orig[c[1] + i].strip() for i in range(c[2] - c[1] + 1)
                   if i not in kept and _WORD.search(orig[c[1] + i])]
        if not dropped or any(definition_name(d) or _TITLED.match(d) or
                              not any(rewrites(d, w) for w in new) for d in dropped):
            return cands              # (each dropped line rewritten by a like new one, none a header)
        scores.append(sum(max(likeness(d, w) for w in new) for d in dropped))
        holds.append(words & set(_WORDS.findall("\n".join(dropped))))
    first, second = sorted(scores, reverse=True)[:2]
    k = scores.index(first)
    rest = [h for j, h in enumerate(holds) if j != k]
    if first - second < RECAST_MARGIN or not holds[k] - set().union(*rest) or any(h - holds[k] for h in rest):
        return cands                  # (its words too: one of the new lines' that only it has, none it lacks)
    return [cands[k]]


def _defined_once_between(orig: list[str], a: int, b: int) -> bool:
    """Lines [a, b) hold the header of a definition the file has once (one the fragment rewrites)."""
    between = {n for n in map(definition_name, orig[a:b]) if n}
    names = Counter(n for n in map(definition_name, orig) if n in between) if between else Counter()
    return any(names[n] == 1 for n in between)


def renamed_export(orig: list[str], lines: list[str], a: int, b: int) -> str | None:
    """Why a fragment followed by a marker is refused when it is its region but for the name on one
    exported definition's header (`export`, `pub`, Go's capital): effect's config.ts showed `export
    const boolean` with the body of `export const bool`, a new alias beside the old one, and the merge
    renamed `bool`.  Other files may import the old name, which the file cannot show, so a rename
    and a copy are as likely.  Only when the definition ends the fragment: the lines after it shown,
    it is a rename; a test renamed, which nothing imports, stays one too."""
    region = orig[a:b + 1]
    if len(region) != len(lines):
        return None
    diff = [i for i in range(len(lines)) if region[i].strip() != lines[i].strip()]
    if len(diff) != 1 or not _EXPORTED.match(region[diff[0]]):
        return None
    old, new = region[diff[0]], lines[diff[0]]
    was, now = definition_name(old), definition_name(new)
    if not was or not now or was == now or old.replace(was, now, 1).strip() != new.strip() or \
            definition_end(orig, a + diff[0]) != b:
        return None                   # (the lines after it shown: a rename)
    return (f"`{now}` is exported `{was}` (line {a + diff[0] + 1}) under a new name; show the line after it to "
            f"rename `{was}`, or mark `{was}` with `... existing code ...` to keep it beside `{now}`")


def stays_in(orig: list[str], lines: list[str], pos: int, marker_before: int | None) -> int | None:
    """After a marker deeper than the fragment (its lines end an inner block the marker elides
    part of, then go on in the enclosing one), the end of the block, as deep as the fragment (its
    closing braces aside), that the previous fragment ended in (a block its header's `:` or `{`
    opens, not an expression's brackets): the fragment's first line is looked for there first,
    before the rest of the file; a first line without words only when the fragment's other lines
    are all new (@tanstack/store's derived.ts: `}`, `}`, a new loop, `}`, `}` after a marker inside
    a loop's `if`, which took a method's end 60 lines on)."""
    if marker_before is None or pos == 0 or pos >= len(orig) or orig[pos - 1].lstrip().startswith(("*", "/*")):
        return None                   # (a marker in a block comment has the comment's depth)
    if not _WORD.search(lines[0]) and _shown_lines(orig, lines):
        return None                   # (a closing brace first fits any block: the file's lines it shows place it)
    inner = [l for l in lines if l.strip() and not _CLOSER.match(l)]   # (a body's closing brace aside)
    base = min(_indent(l) for l in inner) if inner else marker_before
    if marker_before <= base:
        return None
    opening = next((orig[j] for j in range(pos - 1, -1, -1) if orig[j].strip() and _indent(orig[j]) < base), "")
    if not opening.rstrip().endswith((":", "{")):
        return None                   # (inside an expression's brackets, not a block)
    return block_end(orig, pos - 1, base)


def _shown_lines(orig: list[str], lines: list[str]) -> bool:
    """Some line of the fragment with a word in it is a line of the file."""
    known = {l.strip() for l in orig}
    return any(_WORD.search(l) and l.strip() in known for l in lines)


def braces_tied(orig: list[str], lines: list[str], cands: list) -> str | None:
    """Why a fragment of several lines is refused whose first and last lines have no word (`}`, a
    new block, `}`) when places tie for it and none of its lines with words is in the file: orjson's
    build.rs showed `if supports("core_intrinsics") {`, a marker, `}`, a new block, `}`, a marker,
    fitting after each of three `if` blocks alike, and the innermost block around the marker took
    it, replacing the block after it where the release replaced the last one.  Else None (the
    innermost block breaks the tie: anchors.anchor)."""
    if len(cands) < 2 or len(lines) < 2 or _WORD.search(lines[0]) or _WORD.search(lines[-1]):
        return None
    if _shown_lines(orig, lines):
        return None                   # (a line of the file in it: the places differ around that line)
    at = ", ".join(f"{c[1] + 1}-{c[2] + 1}" for c in sorted(cands)[:3])
    return f"its first and last lines, without words, fit at lines {at} alike; show a line with words"
