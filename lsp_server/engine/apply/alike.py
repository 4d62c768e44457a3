"""How alike two lines are, character by character (difflib's ratio), for the merge's rules on
rewritten lines; how many of a region's dropped lines a fragment's new lines replace (replaced).
The ratio is quadratic in a line's length: a minified bundle's 44,000-character line took three
minutes per merge (fresh2's @tanstack production builds).  Lines longer than LONG are compared by
their first and last HALF characters, where a changed minified line still agrees with its old
self; the cheap upper bounds come first."""
from __future__ import annotations

import difflib
import functools
import os
import re
from collections import Counter

LONG = 4000
HALF = 1000
LIKE = 0.7                        # a dropped line this like a new one is replaced (replaced)
RECAST = 0.75                     # ... or with this share of its words in the new lines left over,
RECAST_WEIGHT = 0.4               # ... counting this much of a replaced line (not one to one)
_WORDS = re.compile(r"\w+")
_WORD = re.compile(r"\w")


def _window(line: str) -> str:
    return line if len(line) <= LONG else line[:HALF] + line[-HALF:]


@functools.lru_cache(maxsize=1 << 17)
def alike(a: str, b: str, least: float) -> bool:
    """difflib.SequenceMatcher(None, a, b).ratio() >= least (over _window of each).  Remembered
    (apply's merge forgets when it is done): replaced asks it of the same lines for every candidate
    region (qs's 855-line test file: four minutes per merge); the bound from the lengths
    (real_quick_ratio) comes before building one."""
    a, b = _window(a), _window(b)
    if len(a) + len(b) and 2.0 * min(len(a), len(b)) / (len(a) + len(b)) < least:
        return False
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sm.quick_ratio() >= least and sm.ratio() >= least


@functools.lru_cache(maxsize=1 << 16)
def likeness(a: str, b: str) -> float:
    """difflib's ratio of the two lines (over _window of each; remembered as `alike` is)."""
    return difflib.SequenceMatcher(None, _window(a), _window(b), autojunk=False).ratio()


EXTENDS = 0.9                     # a new line holding this share of an old line's characters, in order, rewrites it
OPENS = 0.5                       # ... opening with this share of them
SHORTEST = 20                     # ... an old line of at least this many characters


@functools.lru_cache(maxsize=1 << 16)
def extends(t: str, w: str) -> bool:
    """The new line `w` holds the old line `t` (EXTENDS of its characters, in order, OPENS of them its
    own first ones) and more: a condition widened (`if (isBoolean(node, context)) {` -> `if
    (isBoolean(node, context) || hasBooleanType(node, context)) {`), an argument added.  Lines shorter
    than SHORTEST are too common to tell (`teststring,` in a longer call's line)."""
    if len(t) < SHORTEST or len(w) <= len(t) or len(t) > LONG or len(w) > LONG:
        return False
    if len(os.path.commonprefix([t, w])) < OPENS * len(t):
        return False                  # (it opens as the old line does)
    sm = difflib.SequenceMatcher(None, t, w, autojunk=False)
    return sum(m.size for m in sm.get_matching_blocks()) >= EXTENDS * len(t)


def rewrites(old: str, new: str) -> bool:
    """The new line reads as the old one rewritten: alike by LIKE, or widened (extends)."""
    return alike(old, new, LIKE) or extends(old, new)


def replaced(region: list[str], want: list[str], kept: set[int]) -> float:
    """Dropped region lines (with words) that the fragment's new lines replace, each by its own like
    line: a region that rewrites lines is as good as one that keeps them (not doubled in the file);
    then, at RECAST_WEIGHT each, those left whose words are mostly in the new lines left (recast)."""
    new = list((Counter(t for t in want if _WORDS.search(t)) - Counter(region[i] for i in kept)).elements())
    n, rest = 0.0, []
    for i, t in enumerate(region):
        if i in kept or not _WORDS.search(t):
            continue
        k = next((k for k, w in enumerate(new) if alike(t, w, LIKE)), None)
        if k is None:                 # (or the new line holds it whole: a condition widened, an argument added)
            k = next((k for k, w in enumerate(new) if extends(t, w)), None)
        if k is None:
            rest.append(t)
        else:
            n += 1
            del new[k]
    words = Counter(_WORDS.findall("\n".join(new))) if rest else Counter()   # lines recast (a call's
    for t in rest:                                        # arguments made an f-string): their words in the new lines
        have = Counter(_WORDS.findall(t))
        if sum((have & words).values()) >= RECAST * sum(have.values()):
            n += RECAST_WEIGHT
            words -= have
    return n


def worth(line: str) -> int:
    """What a region line the fragment keeps counts for: 1, or 0 for a line with no word in it (a
    blank line, a lone brace) that agrees with any place.  A line the region drops costs 1."""
    return 1 if _WORD.search(line) else 0
