"""The lines of a candidate region that agree in order with a fragment's (apply's anchoring): a
heaviest common subsequence, a line with a word weighing 2 and one without 1 (alike.worth).
Exact, unlike difflib's greedy blocks; sparse: only pairs of equal lines are visited, with a
Fenwick tree of prefix maxima over the fragment's lines.

The regions a fragment is scored on share heads: tabulate's 1,700-line test file gave 2,500 of them
for one fragment, 25 s at one pass each.  A pass over the file from a head gives every region
starting there at once (the best subsequence of [a, b] is the tree's best after line b), so
`kept` goes on with this thread's pass from that head while the file and the fragment are the
same (the latest passes, up to ROOM nodes in all)."""
from __future__ import annotations

import threading

from redraft.engine.apply.alike import worth

__all__ = ["forget", "kept", "kept_in"]


class _Pass:
    """The subsequence's state over the file's lines from `a` on, one line at a time."""

    def __init__(self, orig: list[str], want: list[str], a: int):
        self.orig, self.want, self.a = orig, list(want), a
        self.at: dict[str, list[int]] = {}
        for j, t in enumerate(want):
            self.at.setdefault(t, []).append(j)
        self.m = len(want)
        self.tree = [(0, -1)] * (self.m + 1)    # (weight, node) best over a prefix of the fragment
        self.nodes: list[tuple[int, int]] = []   # (region line, previous node)
        self.best: list[int] = []                # the best node after each region line

    def _query(self, j: int) -> tuple[int, int]:
        best, tree = (0, -1), self.tree
        while j > 0:
            best = max(best, tree[j])
            j -= j & -j
        return best

    def _update(self, j: int, val: tuple[int, int]) -> None:
        j += 1
        while j <= self.m:
            if val > self.tree[j]:
                self.tree[j] = val
            j += j & -j

    def kept(self, b: int) -> set[int]:
        """The region [a, b]'s lines (counted from a) in the subsequence (none when b < a)."""
        if b < self.a:
            return set()
        while len(self.best) <= b - self.a:
            i = len(self.best)
            t = self.orig[self.a + i].strip()
            w = 1 + worth(t)
            for j in reversed(self.at.get(t, ())):
                v, prev = self._query(j)
                self.nodes.append((i, prev))
                self._update(j, (v + w, len(self.nodes) - 1))
            self.best.append(self._query(self.m)[1])
        out: set[int] = set()
        node = self.best[b - self.a]
        while node >= 0:
            out.add(self.nodes[node][0])
            node = self.nodes[node][1]
        return out


_PASSES = threading.local()
ROOM = 2_000_000                  # subsequence nodes the passes kept for reuse may hold together


def kept(orig: list[str], want: list[str], a: int, b: int) -> set[int]:
    """The lines of region [a, b] of the file (counted from a) in a heaviest common subsequence
    with the fragment's stripped lines `want`."""
    passes: dict[int, _Pass] = getattr(_PASSES, "by_head", {})
    first = next(iter(passes.values()), None)
    if first is None or first.orig is not orig or first.want != want:
        passes = _PASSES.by_head = {}
    run = passes.pop(a, None) or _Pass(orig, want, a)
    out = run.kept(b)
    passes[a] = run                   # (the latest last: the oldest go first when room runs out)
    while sum(len(p.nodes) for p in passes.values()) > ROOM and len(passes) > 1:
        del passes[next(iter(passes))]
    return out


def forget() -> None:
    """Drop this thread's passes (apply's merge, when it is done with the file)."""
    _PASSES.by_head = {}


def kept_in(region: list[str], want: list[str]) -> set[int]:
    """The same for a region given as its lines."""
    return _Pass(region, want, 0).kept(len(region) - 1)
