"""Rules on a fragment's chosen region that read what the merged file would hold (apply's merge,
called from anchors.anchor once the best candidate is known):

* a doubled line at a weak edge: a fragment whose last lines have no word in them (`{`, `)`, `}`,
  blanks) anchors its tail at the first place those lines recur after its head.  When the line with
  words the fragment shows just above them is found once in the file, after that region and followed
  there by the same weak lines, the nearest reading keeps that line and the fragment brings it
  again: the merged file has it twice.  The region that ends there takes it in (the fragment
  replaces it), when it is a candidate.  The same holds for a fragment's first lines, mirrored."""
from __future__ import annotations

import re

__all__ = ["doubled_edge"]

_WORD = re.compile(r"\w")


def _strip(lines: list[str]) -> list[str]:
    return [l.strip() for l in lines]


def doubled_edge(orig: list[str], lines: list[str], pos: int, a: int, b: int) -> int | None:
    """The file line that the region [a, b] leaves out and the merged file would have twice (see
    the module's docstring), or None."""
    want, file = _strip(lines), _strip(orig)
    n = len(want)
    k = 0                               # weak last lines
    while k < n - 1 and not _WORD.search(want[n - 1 - k]):
        k += 1
    if k and want.count(want[n - 1 - k]) == 1:
        at = [j for j, t in enumerate(file) if t == want[n - 1 - k]]
        if len(at) == 1 and at[0] > b and file[at[0] + 1:at[0] + 1 + k] == want[n - k:] == file[b - k + 1:b + 1]:
            return at[0]
    k = 0                               # weak first lines
    while k < n - 1 and not _WORD.search(want[k]):
        k += 1
    if k and want.count(want[k]) == 1:
        at = [j for j, t in enumerate(file) if t == want[k]]
        if len(at) == 1 and pos + k <= at[0] < a and file[at[0] - k:at[0]] == want[:k] == file[a:a + k]:
            return at[0]
    return None
