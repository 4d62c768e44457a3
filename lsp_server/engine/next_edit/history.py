"""The recent edits of open documents, as hunks of whole lines: what next-edit prediction is shown.

`EditHistory.record(uri, old_text, new_text, version)` takes one didChange notification: the text
before and after all of its changes. The changed span is the text between the common prefix and
suffix (compared in doubling slices at C speed: linear, never difflib; microseconds a keystroke in
an ordinary file, milliseconds in a 10 MB one), widened to whole lines. A hunk is (start_line, old
lines, new lines), neither side empty: a pure insertion or deletion of lines carries a neighbour
line. One that could sit at several places (Enter before blank lines) goes to the earliest, unless
only the latest touches the hunk it could coalesce with. Lines are split at "\n" only, as the
predictor splits a text: a CRLF line keeps its "\r" (`diff` drops it); a lone "\r" is no break.

Coalescing: a hunk merges into the last one recorded (no other document's hunk in between) if it
is of the same document, that one's last change is at most `coalesce_s` old, and the new hunk's
old lines overlap or touch that one's new lines; the merged hunk goes from the earlier before to
the text now, and goes away if the two are equal (typed, then deleted). Typing a word is one hunk,
and so is typing on into the next line.

`start_line`: the hunk's first line (0-based) in the document just before its first change, i.e.
after every earlier recorded hunk of that document: replaying the hunks in order on the text they
started from (`replay`) gives the text now, exactly, unless a bound dropped one. `line_now`: that
line in the text now (moved by later hunks above it), or None once a later hunk touched its lines.

Bounds, whatever the client sends: `max_edits` hunks (the oldest dropped), `max_docs` documents
(the least recently edited one's hunks dropped), `max_chars` characters in a hunk's before and in
its after: a bigger one (a paste, a reload, a keystroke on a huge line) is a "large change" marker
with its place and line counts (so the others' `line_now` stays right) and no text; a hunk merged
with a marker is one. `forget(uri)` (didClose) drops a document's hunks.
"""
from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Callable, Iterable

logger = logging.getLogger("redraft.next_edit")

MAX_EDITS = 16      # hunks kept across documents
MAX_DOCS = 8        # documents with hunks kept
MAX_CHARS = 2000    # characters in a hunk's before and in its after; more: a "large change" marker
COALESCE_S = 2.0    # a hunk merges into the previous one if that one's last change is this recent


@dataclass(frozen=True)
class Edit:
    """One hunk: the whole lines `before` (joined with "\\n", no trailing newline) became `after`,
    at `start_line` (see the module docstring). A large change has `large` set and "" for both."""
    uri: str
    start_line: int
    before: str
    after: str
    version: int | None
    time: float
    before_lines: int = 1
    after_lines: int = 1
    line_now: int | None = None
    large: bool = False

    def diff(self, context: int = 1) -> str:
        """Unified-diff-like text: `@@ -a,b +c,d @@` (1-based), then up to `context` unchanged lines
        of the hunk on each side (" "), the removed lines ("-") and the added lines ("+")."""
        if self.large:
            return (f"@@ -{_range(self.start_line, self.before_lines)} "
                    f"+{_range(self.start_line, self.after_lines)} @@ large change (text not kept)")
        b, a = self.before.split("\n"), self.after.split("\n")
        i = _common(b, a)
        j = _common(b[::-1], a[::-1], min(len(b), len(a)) - i)
        skip, trail = i - min(i, context), min(j, context)
        head = b[skip:i]
        removed, added, tail = b[i:len(b) - j], a[i:len(a) - j], b[len(b) - j:len(b) - j + trail]
        start = self.start_line + skip
        out = [f"@@ -{_range(start, len(head) + len(removed) + trail)} "
               f"+{_range(start, len(head) + len(added) + trail)} @@"]
        out += [" " + l for l in head] + ["-" + l for l in removed] + ["+" + l for l in added]
        out += [" " + l for l in tail]
        return "\n".join(l.removesuffix("\r") for l in out)


def replay(text: str, edits: Iterable[Edit]) -> str:
    """`text` with the edits applied in order (each at its start_line); ValueError if one's before
    is not what the text has there, or it is a large change (no text to apply)."""
    lines = text.split("\n")
    for e in edits:
        if e.large or lines[e.start_line:e.start_line + e.before_lines] != e.before.split("\n"):
            raise ValueError(f"edit at line {e.start_line} does not apply")
        lines[e.start_line:e.start_line + e.before_lines] = e.after.split("\n")
    return "\n".join(lines)


class _Hunk:
    """A stored hunk; `before`/`after` are lists of lines, or None for a large change."""
    __slots__ = ("uri", "start", "before", "after", "n_before", "n_after", "version", "time", "now")

    def __init__(self, uri: str, start: int, before: list[str] | None, after: list[str] | None,
                 n_before: int = 0, n_after: int = 0) -> None:
        self.uri, self.start, self.before, self.after = uri, start, before, after
        self.n_before = len(before) if before is not None else n_before
        self.n_after = len(after) if after is not None else n_after
        self.version: int | None = None
        self.time, self.now = 0.0, start         # now: the first line in the text now, or None

    def edit(self) -> Edit:
        large = self.before is None
        return Edit(self.uri, self.start, "" if large else "\n".join(self.before),
                    "" if large else "\n".join(self.after), self.version, self.time,
                    self.n_before, self.n_after, self.now, large)


class EditHistory:
    def __init__(self, max_edits: int = MAX_EDITS, max_docs: int = MAX_DOCS, max_chars: int = MAX_CHARS,
                 coalesce_s: float = COALESCE_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_edits, self.max_docs, self.max_chars = max_edits, max_docs, max_chars
        self.coalesce_s, self._clock = coalesce_s, clock
        self._hunks: deque[_Hunk] = deque()
        self._docs: OrderedDict[str, int] = OrderedDict()   # uri -> hunks kept, least recently edited first
        self._lock = threading.Lock()   # the predictor may read from a worker thread
        self._failed = False

    def record(self, uri: str, old_text: str, new_text: str, version: int | None) -> None:
        """One didChange notification: the text before and after all of its changes."""
        if old_text == new_text:
            return
        spans = _spans(old_text, new_text)
        h = _hunk(uri, old_text, new_text, *spans[0], self.max_chars)
        with self._lock:
            t = self._clock()
            last = self._hunks[-1] if self._hunks else None
            if last is None or last.uri != uri or t - last.time > self.coalesce_s:
                last = None
            elif not _touches(last, h) and len(spans) > 1:   # the other place may touch it
                other = _hunk(uri, old_text, new_text, *spans[1], self.max_chars)
                h = other if _touches(last, other) else h
            h.version, h.time = version, t
            for other in self._hunks:
                if other.uri == uri:
                    _shift(other, h)
            if last is not None and _touches(last, h):
                self._hunks.pop()
                self._drop_count(uri)
                merged = _merge(last, h, self.max_chars)
                if merged is None:
                    return
                h = merged
            self._add(h)

    def observe(self, uri: str, old_text: str, new_text: str, version: int | None) -> None:
        """`record` for the didChange handler: never raises (a bug here must not break text sync).
        A failure drops the document's hunks (they may be inconsistent) and is logged once."""
        try:
            self.record(uri, old_text, new_text, version)
        except Exception:  # noqa: BLE001
            self.forget(uri)
            if not self._failed:
                self._failed = True
                logger.exception("edit history: recording an edit of %s failed (logged once)", uri)

    def recent(self, uri: str | None = None, limit: int | None = None) -> list[Edit]:
        """The last `limit` hunks (all kept if None), of `uri` or of every document, oldest first."""
        with self._lock:
            hunks = [h for h in self._hunks if uri is None or h.uri == uri]
            if limit is not None:
                hunks = hunks[max(0, len(hunks) - limit):]
            return [h.edit() for h in hunks]

    def pairs(self, uri: str | None = None, limit: int | None = None) -> list[tuple[str, str]]:
        """(before, after) of the recent hunks, large changes left out: the predictor's input."""
        return [(e.before, e.after) for e in self.recent(uri, limit) if not e.large]

    def count(self, uri: str) -> int:
        return self._docs.get(uri, 0)

    def forget(self, uri: str) -> None:
        with self._lock:
            self._docs.pop(uri, None)
            self._hunks = deque(h for h in self._hunks if h.uri != uri)

    def __len__(self) -> int:
        return len(self._hunks)

    def _add(self, h: _Hunk) -> None:
        h.now = h.start
        if h.uri not in self._docs and len(self._docs) >= self.max_docs:
            lru = next(iter(self._docs))
            del self._docs[lru]
            self._hunks = deque(x for x in self._hunks if x.uri != lru)
        self._hunks.append(h)
        self._docs[h.uri] = self._docs.get(h.uri, 0) + 1
        self._docs.move_to_end(h.uri)
        while len(self._hunks) > self.max_edits:
            self._drop_count(self._hunks.popleft().uri)

    def _drop_count(self, uri: str) -> None:
        if self._docs.get(uri, 0) > 1:
            self._docs[uri] -= 1         # keeps its place in the least-recently-edited order
        else:
            self._docs.pop(uri, None)


def _spans(old: str, new: str) -> list[tuple[int, int]]:
    """(common prefix, common suffix) of the change; for a pure insertion or deletion that could
    sit at several places (Enter before blank lines, a repeated character), the earliest and the
    latest place."""
    lo, ln = len(old), len(new)
    m = min(lo, ln)
    p = _matching(lambda i, j: old[i:j] == new[i:j], m)
    s = _matching(lambda i, j: old[lo - j:lo - i] == new[ln - j:ln - i], m)
    return [(p, s)] if p + s <= m else [(m - s, s), (p, m - p)]


def _touches(prev: _Hunk, h: _Hunk) -> bool:
    """Whether h's old lines overlap or are adjacent to prev's new lines."""
    return h.start <= prev.start + prev.n_after and h.start + h.n_before >= prev.start


def _hunk(uri: str, old: str, new: str, p: int, s: int, max_chars: int) -> _Hunk:
    """The change from `old` to `new`, which share `p` leading and `s` trailing characters (and
    differ), as one hunk of whole lines."""
    line_start = old.rfind("\n", 0, p) + 1          # the same in both: old[:p] == new[:p]
    old_end, new_end = old.find("\n", len(old) - s), new.find("\n", len(new) - s)
    old_end = len(old) if old_end < 0 else old_end  # the line ends in the common suffix
    new_end = len(new) if new_end < 0 else new_end
    start = old.count("\n", 0, line_start)
    if old_end - line_start > max_chars or new_end - line_start > max_chars:
        return _Hunk(uri, start, None, None, old.count("\n", line_start, old_end) + 1,
                     new.count("\n", line_start, new_end) + 1)
    return _trim(_Hunk(uri, start, old[line_start:old_end].split("\n"), new[line_start:new_end].split("\n")))


def _merge(prev: _Hunk, h: _Hunk, max_chars: int) -> _Hunk | None:
    """`prev` followed by `h`, whose old lines overlap or touch prev's new lines, as one hunk from
    prev's before to the text now (None if that is no change); large if either is."""
    s1, e1, s2, e2 = prev.start, prev.start + prev.n_after, h.start, h.start + h.n_before
    n_pre, n_post = max(0, s1 - s2), max(0, e2 - e1)    # h's old lines outside prev's new ones
    m0 = min(s1, s2)
    if prev.before is None or h.before is None:
        out = _Hunk(h.uri, m0, None, None, n_pre + prev.n_before + n_post,
                    n_pre + prev.n_after + n_post - h.n_before + h.n_after)
    else:
        pre, post = h.before[:n_pre], h.before[h.n_before - n_post:]
        mid = pre + prev.after + post                   # the lines [m0, max(e1, e2)) before h
        off = s2 - m0
        before, after = pre + prev.before + post, mid[:off] + h.after + mid[off + h.n_before:]
        if before == after:
            return None
        out = _Hunk(h.uri, m0, before, after)
        if _size(before) > max_chars or _size(after) > max_chars:
            out = _Hunk(h.uri, m0, None, None, len(before), len(after))
        else:
            out = _trim(out)
    out.version, out.time = h.version, h.time
    return out


def _trim(h: _Hunk) -> _Hunk:
    """Drop unchanged lines at both ends of a hunk, keeping at least one line on each side."""
    b, a = h.before, h.after
    i = _common(b, a, min(len(b), len(a)) - 1)
    j = _common(b[::-1], a[::-1], min(len(b), len(a)) - 1 - i)
    if i or j:
        h = _Hunk(h.uri, h.start + i, b[i:len(b) - j], a[i:len(a) - j])
    return h


def _shift(h: _Hunk, change: _Hunk) -> None:
    """Move `h.now` for a later change of the same document: down or up by its change in line
    count when the change is above h's lines, to None when it touched them."""
    if h.now is None or change.start >= h.now + h.n_after:
        return
    if change.start + change.n_before <= h.now:
        h.now += change.n_after - change.n_before
    else:
        h.now = None


def _common(a: list[str], b: list[str], limit: int | None = None) -> int:
    n, i = min(len(a), len(b)) if limit is None else limit, 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _size(lines: list[str]) -> int:
    return sum(map(len, lines)) + len(lines) - 1


def _range(start: int, n: int) -> str:
    return f"{start + 1},{n}" if n else f"{start},0"


def _matching(same: Callable[[int, int], bool], limit: int) -> int:
    """The largest k <= limit with same(0, k), where same(i, j) compares characters [i, j) of two
    prefixes (or suffixes) at C speed: pieces of doubling size, then a bisection of the first piece
    that differs. Linear in k, however long."""
    lo, step = 0, 256
    while lo < limit:
        hi = min(limit, lo + step)
        if not same(lo, hi):
            while hi - lo > 1:                  # the first difference is in [lo, hi)
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if same(lo, mid) else (lo, mid)
            return lo
        lo, step = hi, step * 2
    return limit


# ----------------------------------------------------------------------------- unified diffs

_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def parse_history(diff: str) -> list[tuple[str, str]]:
    """Unified diffs -> [(before, after)], one per hunk, oldest first: the hunk's context and "-"
    lines before, its context and "+" lines after, each joined with "\\n". The `@@` header's counts
    say where a hunk ends (so a removed line that reads "-- x" is no file header); `---`/`+++`,
    `diff`/`index` lines and "\\ No newline at end of file" are skipped. ValueError: a hunk that
    ends early or holds a line of another kind."""
    pairs: list[tuple[str, str]] = []
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text after the last line break is no line
    i = 0
    while i < len(lines):
        m = _HUNK.match(lines[i])
        i += 1
        if m is None:
            continue  # file headers, `diff --git`, `index`, anything between diffs
        old_n = 1 if m.group(1) is None else int(m.group(1))
        new_n = 1 if m.group(2) is None else int(m.group(2))
        before: list[str] = []
        after: list[str] = []
        while len(before) < old_n or len(after) < new_n:
            if i >= len(lines):
                raise ValueError(f"hunk {m.group(0)!r} ends early (expected {old_n} old and {new_n} new lines)")
            line = lines[i]
            i += 1
            kind, body = (line[:1] or " "), line[1:]   # an empty line: a blank context line
            if line.startswith("\\"):
                continue                                # \ No newline at end of file
            if kind not in " -+":
                raise ValueError(f"unexpected line in hunk {m.group(0)!r}: {line[:60]!r}")
            if kind in " -":
                before.append(body)
            if kind in " +":
                after.append(body)
        pairs.append(("\n".join(before), "\n".join(after)))
    return pairs
