"""Apply a lazy edit snippet to a file, deterministically, never losing a line.

`merge(original, snippet, language) -> MergeResult` returns the whole new file (ok=True) or a
one-line refusal (ok=False, reason); it never raises.

Design:
* The snippet is split at *marker* lines (a whole-line comment whose text, without comment syntax,
  starts or ends with "..." -- `# ... existing code ...`, `// ...`, `/* ... rest of file ... */`)
  into fragments.  Marker lines stand for original text that is kept verbatim.
* Every fragment becomes one or more *edits* `(start, end, lines)`: original lines [start, end)
  are replaced by `lines` (start == end is an insertion).  Original lines outside every edit are
  always kept, whatever the snippet omits: deletion only happens inside a replaced region.
* A fragment made only of complete definitions (found with tree-sitter; any other line in it must
  already be in the file) is matched by name: each definition replaces the original definition of
  the same name (a class/impl shown in the snippet is matched member by member when it adds nothing
  else; replacing a whole class that omits members is refused); a new definition goes after the
  previous matched definition of the fragment (or before the next one), or, when it follows a
  marker at the end of the snippet, at the end of the file.  A Python definition that looks cut
  short of the original (Python parses `if a:` without its `else`) is anchored by lines instead.
  Otherwise the fragment is anchored by lines: its first lines and its last lines must match the
  original (trailing whitespace ignored) at exactly one place, after the previous fragment (and,
  after an indented marker, within the same block); the region between the two anchors is replaced.
* Checks on every result: edits do not overlap and (for anchored fragments) are in order; no new
  marker line; all kept original lines are present in order; the result has no more tree-sitter
  ERROR/MISSING nodes than the original.  Line endings, the final newline and the indentation
  style (tabs vs spaces and the space unit) of the original are kept; a snippet indented with
  spaces for a tab-indented file is converted when that is exact, otherwise refused.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from redraft.engine.syntax.languages import language_for
from redraft.engine.apply.anchors import _HEADER, Ambiguous, anchor
from redraft.engine.apply.definitions import Def, _error_count, _indent, collect_defs, fragment_defs
from redraft.engine.apply.indentation import IndentMismatch, match_indentation
from redraft.engine.apply.markers import is_marker

__all__ = ["MergeResult", "MergeRefused", "Deletion", "merge", "is_marker", "MAX_BYTES"]

MAX_BYTES = 2 * 1024 * 1024
ALIKE, ALIKE_MARGIN = 0.3, 0.1     # a definition picked by its likeness (token by token) to the snippet's


@dataclass
class Deletion:
    """Original lines the merge deleted because the snippet omits them without a marker."""

    start: int                        # first deleted line of the original (1-based)
    end: int                          # last deleted line (1-based, inclusive)
    why: str                          # "no marker before the snippet's first line", ...
    definitions: list[str] = field(default_factory=list)   # "class `Foo` (lines 80-112)"

    @property
    def lines(self) -> int:
        return self.end - self.start + 1

    def summary(self) -> str:
        """One line: `deleted 12 lines at 40-51 (no marker ...)`, and the definitions it removes."""
        s = f"deleted {self.lines} line{'s' if self.lines != 1 else ''} at {self.start}-{self.end} ({self.why})"
        return s + "".join(f"; removed {d}" for d in self.definitions)

    def as_json(self) -> dict:
        return {"start": self.start, "end": self.end, "lines": self.lines, "why": self.why,
                "definitions": list(self.definitions), "summary": self.summary()}


@dataclass
class MergeResult:
    ok: bool
    text: str = ""
    reason: str = ""
    deletions: list[Deletion] = field(default_factory=list)   # what the snippet omitted without a marker


class MergeRefused(Exception):
    """A snippet that cannot be applied safely; the message is a one-line reason."""


class _NotByName(Exception):
    """The fragment looks like definitions but must be anchored by lines (it looks cut short)."""


def merge(original: str, snippet: str, language: str, *, delete_unmarked: bool = True) -> MergeResult:
    """`delete_unmarked=False`: keep every original line the snippet omits without a marker (the
    old keep-everything rule: deletion only inside a fragment's region)."""
    try:
        text, deletions = _merge(original, snippet, language, delete_unmarked)
        return MergeResult(True, text, deletions=deletions)
    except MergeRefused as e:
        return MergeResult(False, reason=str(e))
    except Exception as e:  # noqa: BLE001 - defensive: a bug must refuse, never write a wrong file
        return MergeResult(False, reason=f"internal error: {type(e).__name__}: {e}")


# ---------------------------------------------------------------------------------------------
# text helpers

def _same(a: str, b: str) -> bool:
    return a.rstrip() == b.rstrip()


def _first_line(lines: list[str]) -> str:
    for l in lines:
        if l.strip():
            return l.strip()[:80]
    return ""


# ---------------------------------------------------------------------------------------------
# the merge

@dataclass
class _Frag:
    lines: list[str]                  # from the first to the last non-blank line
    marker_before: int | None         # indentation of the marker before it, None if none
    marker_after: int | None
    blank_after: int = 0              # blank lines between its last line and the marker after it


def _split(snippet: list[str]) -> list[_Frag]:
    frags: list[_Frag] = []
    cur: list[str] = []
    before: int | None = None

    def flush(after: int | None) -> None:
        nonlocal cur
        nb = [i for i, l in enumerate(cur) if l.strip()]
        if nb:
            frags.append(_Frag(cur[nb[0]:nb[-1] + 1], before, after, len(cur) - 1 - nb[-1]))
        cur = []

    for line in snippet:
        if is_marker(line):
            flush(_indent(line))
            before = _indent(line)
        else:
            cur.append(line)
    flush(None)
    return frags


def _merge(original: str, snippet: str, language: str, delete_unmarked: bool = True) -> tuple[str, list[Deletion]]:
    if "\x00" in original or "\x00" in snippet:
        raise MergeRefused("binary data (NUL bytes)")
    try:
        original.encode("utf-8"), snippet.encode("utf-8")
    except UnicodeEncodeError:
        raise MergeRefused("text is not valid Unicode (lone surrogates)") from None
    if len(original.encode("utf-8")) > MAX_BYTES:
        raise MergeRefused(f"file is larger than {MAX_BYTES // (1024 * 1024)} MB")
    if len(snippet.encode("utf-8")) > MAX_BYTES:
        raise MergeRefused(f"snippet is larger than {MAX_BYTES // (1024 * 1024)} MB")
    lang = language_for(language)
    if lang is None:
        raise MergeRefused(f"no grammar for language {language!r}")
    if not snippet.strip():
        raise MergeRefused("empty snippet")
    crlf = original.count("\r\n") > 0 and original.count("\r\n") == original.count("\n")
    nl = "\r\n" if crlf else "\n"
    body = original.replace("\r\n", "\n") if crlf else original
    final_nl = body.endswith("\n")
    orig = body[:-1].split("\n") if final_nl else body.split("\n")
    if body == "":
        orig = []
    snip = snippet.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    snip = [l if l.strip() else "" for l in snip]    # trailing whitespace is the snippet's to keep
    try:
        snip = match_indentation(orig, snip, lang.block_opener)
    except IndentMismatch as e:
        raise MergeRefused(str(e)) from None
    frags = _split(snip)
    if not frags:
        raise MergeRefused("snippet has only marker lines")

    # a snippet with a marker at the top level is a view of the whole file: where it has no marker
    # before its first line (after its last), the file's lines before (after) it are gone
    view = delete_unmarked and any(is_marker(l) and _indent(l) == 0 for l in snip)
    edits = _class_edits(lang, orig, snip) or _plan(lang, orig, frags, view)
    edits, edge = _edges(orig, edits, view and frags[0].marker_before is None,
                         view and frags[-1].marker_after is None, frags[0].lines, frags[-1].lines)
    out = _apply(orig, edits)
    deletions = _deletions(lang, orig, edits, edge, "\n".join(l for l in snip if not is_marker(l)))

    if sum(1 for l in out if is_marker(l)) > sum(1 for l in orig if is_marker(l)):
        raise MergeRefused("a marker line would remain in the result")
    text = nl.join(out) + (nl if final_nl and out else "")
    if _error_count(lang, text) > _error_count(lang, original):
        raise MergeRefused("the result does not parse as well as the original")
    return text, deletions


FIRST_WHY = "no marker before the snippet's first line"
LAST_WHY = "no marker after the snippet's last line"
INSIDE_WHY = "not shown between two lines of the snippet"


def _shown_before(orig: list[str], s: int, first: list[str], head: str) -> tuple[int, list[str]] | None:
    """A fragment of definitions that shows lines of the file before its first definition (edited
    at `s`, its text starting with `head`): (where those lines start in the file, the fragment's
    lines before `head`), the region [start, s) that they replace; None if not so."""
    q = next((q for q in range(len(first)) if _same(first[q], head)), None)
    if not q:
        return None
    t = next((t for t in range(s - 1, max(-1, s - 1 - 4 * len(first) - 20), -1) if _same(orig[t], first[0])), None)
    return None if t is None else (t, first[:q])


def _shown_after(orig: list[str], e: int, final: list[str], tail: str, last: int) -> tuple[int, list[str]] | None:
    q = next((q for q in range(len(final) - 1, -1, -1) if _same(final[q], tail)), None)
    if q is None or q == len(final) - 1:
        return None
    t = next((t for t in range(e, min(last + 1, e + 4 * len(final) + 20)) if _same(orig[t], final[-1])), None)
    return None if t is None else (t + 1, final[q + 1:])


def _edges(orig: list[str], edits, at_start: bool, at_end: bool, first: list[str] = (), final: list[str] = ()):
    """The edits, the first one reaching back to the file's first line (at_start) and the last one
    on to its last non-blank line (at_end); and those edge ranges [start, end) that are deleted.
    `first` / `final`: the first and the last fragment's lines (a fragment of definitions may show
    lines of the file before its first definition or after its last: those stay)."""
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    edge: list[tuple[int, int, str]] = []
    if not edits:
        return [x for x in edits if x[0] < x[1] or x[2]], edge
    if at_start and edits[0][0] > 0 and first and edits[0][2] and not _same(edits[0][2][0], first[0]):
        got = _shown_before(orig, edits[0][0], list(first), edits[0][2][0])
        if got is not None:
            edits.insert(0, (got[0], edits[0][0], got[1]))
    if at_end and final and edits[-1][2] and not _same(edits[-1][2][-1], final[-1]):
        got = _shown_after(orig, edits[-1][1], list(final), edits[-1][2][-1],
                           max((j for j, l in enumerate(orig) if l.strip()), default=-1))
        if got is not None:
            edits.append((edits[-1][1], got[0], got[1]))
    if at_start and edits[0][0] > 0:
        s, e, lines = edits[0]
        edge.append((0, s, FIRST_WHY))
        edits[0:1] = [(0, e, lines)] if s == e else [(0, s, []), (s, e, lines)]
    last = max((j for j, l in enumerate(orig) if l.strip()), default=-1)
    s, e, lines = edits[-1]
    if at_end and e <= last:
        edge.append((e, last + 1, LAST_WHY))
        if s == e:
            edits[-1] = (s, last + 1, lines)
        else:
            edits.append((e, last + 1, []))
    return [x for x in edits if x[0] < x[1] or x[2]], edge


def _kind(line: str) -> str:
    m = re.match(r"\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:async\s+)?(?:abstract\s+)?"
                 r"(def|class|function|fn|func|struct|impl|enum|trait|interface|type|mod|const|let|var)\b", line)
    if not m:
        return "definition"
    return {"def": "function", "fn": "function", "func": "function", "mod": "module"}.get(m.group(1), m.group(1))


def _deletions(lang, orig: list[str], edits, edge, shown: str = "") -> list[Deletion]:
    """Every run of original lines the edits drop with nothing in their place (blank lines at its
    ends aside), with the definitions wholly inside it.  A definition deleted at the file's start
    or end whose name the snippet still uses is refused: the snippet more likely left out a marker
    than deleted what it uses."""
    ranges: list[tuple[int, int, str]] = []
    for s, e, lines in edits:
        if s == e:
            continue
        why = next((w for a, b, w in edge if a == s and b == e), None)
        if why is not None:
            ranges.append((s, e, why))
            continue
        if not lines:
            ranges.append((s, e, INSIDE_WHY))
            continue
        sm = difflib.SequenceMatcher(None, [l.strip() for l in orig[s:e]], [l.strip() for l in lines], autojunk=False)
        for tag, i1, i2, _, _ in sm.get_opcodes():
            if tag == "delete":
                ranges.append((s + i1, s + i2, INSIDE_WHY))
    out: list[Deletion] = []
    defs = None
    for a, b, why in sorted(ranges):
        while a < b and not orig[a].strip():
            a += 1
        while b > a and not orig[b - 1].strip():
            b -= 1
        if a >= b:
            continue
        if defs is None:
            defs = _all_defs(collect_defs(lang, orig))
        inside = [d for d in defs if a <= d.start and d.end < b]
        gone = [d for d in inside if not any(p is not d and p.start <= d.start and d.end <= p.end for p in inside)]
        names = [f"{_kind(_header(orig, d))} `{d.name}` (lines {d.start + 1}-{d.end + 1})" for d in gone]
        if why != INSIDE_WHY:
            used = next((d for d in gone if re.search(rf"(?<![\w$]){re.escape(d.name)}(?![\w$])", shown)), None)
            if used is not None:
                raise MergeRefused(f"would delete `{used.name}` (lines {used.start + 1}-{used.end + 1}), which the "
                                   f"snippet uses, because there is {why}; end the snippet with "
                                   "`... existing code ...` to keep it")
        out.append(Deletion(a + 1, b, why, list(dict.fromkeys(names))))
    return out


def _header(orig: list[str], d: Def) -> str:
    """The definition's own line, past decorators and attributes."""
    return next((orig[q] for q in range(d.start, d.end + 1)
                 if orig[q].strip() and not orig[q].lstrip().startswith(("@", "#[", "//", "#"))), orig[d.start])


def _all_defs(defs: list[Def]) -> list[Def]:
    out: list[Def] = []
    for d in defs:
        out.append(d)
        if d.members:
            out.extend(_all_defs(d.members))
    return out


def _class_edits(lang, orig: list[str], snip: list[str]):
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
    for m in parsed[0].members:                    # shown before any marker: a new member goes first
        m.first = not any(i < kept[m.comment_start] for i in inner)
    try:
        edits, unplaced = _def_edits(lang, orig, collect_defs(lang, orig), parsed, None)
    except (MergeRefused, _NotByName):
        return None                                # the fragments on their own may still apply
    return None if unplaced else edits


def _apply(orig: list[str], edits: list[tuple[int, int, list[str]]]) -> list[str]:
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    for (s1, e1, _), (s2, e2, _) in zip(edits, edits[1:]):
        if s2 < e1 or (s1 == s2 == e1 == e2):
            raise MergeRefused("two parts of the snippet edit the same lines")
    out: list[str] = []
    kept: list[str] = []
    pos = 0
    for s, e, lines in edits:
        out.extend(orig[pos:s])
        kept.extend(orig[pos:s])
        out.extend(_as_written(orig[s:e], lines))
        pos = max(pos, e)
    out.extend(orig[pos:])
    kept.extend(orig[pos:])
    it = iter(out)
    if not all(any(k is o for o in it) for k in kept):   # every kept line survives, in order
        raise MergeRefused("internal: a kept line was lost")
    return out


def _as_written(old: list[str], new: list[str]) -> list[str]:
    """The snippet's lines, except that those it repeats from the region they replace (trailing
    whitespace aside) are the original's: no whitespace-only changes."""
    if not old:
        return new
    out = list(new)
    sm = difflib.SequenceMatcher(None, [l.rstrip() for l in old], [l.rstrip() for l in new], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            out[j1:j2] = old[i1:i2]
    return out


def _plan(lang, orig: list[str], frags: list[_Frag], view: bool = False) -> list[tuple[int, int, list[str]]]:
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
                fe, unplaced = _def_edits(lang, orig, originals, parsed, pos if i > 0 else None)
            except _NotByName:
                parsed = None
        if parsed is not None and unplaced and not fe and _anchors_by_lines(orig, f.lines, pos):
            parsed = None                 # not a new definition: one nested in a body, found by its lines
        no_anchor = None
        if parsed is not None and unplaced and not fe and not unplaced[0].method and not (
                f.marker_before is not None and f.marker_after is None and nxt is None) and \
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
            edits.extend(fe)
            pos = max([pos] + [e for _, e, _ in fe])
            continue
        args = dict(pos=pos, marker_before=f.marker_before if i > 0 else None, marker_after=f.marker_after,
                    name=f"fragment `{_first_line(f.lines)}`",
                    avoid=[r for j in range(i + 1, len(frags)) for r in claims.get(j, ())])
        try:
            a, b = anchor(orig, f.lines, at_start=i == 0 and f.marker_before is None,
                          at_end=nxt is None and f.marker_after is None, **args)
        except Ambiguous as e:
            if "line is not in the file" not in str(e) and ("which the snippet does not show" not in str(e) or
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
        edits.append((a, b + 1, list(f.lines)))
        pos = b + 1
    return edits


class _NoEdge(Exception):
    """No part of the fragment anchors it with new lines at its edge."""


def _enough(orig: list[str], part: list[str]) -> bool:
    """Lines that can anchor a fragment whose other lines are new: two with words in them, or a
    definition's header line."""
    words = [l for l in part if re.search(r"\w", l)]
    return len(words) >= 2 or (len(words) == 1 and bool(_HEADER.match(words[0])))


def _complete(lang, new: list[str]) -> bool:
    """The new lines at the fragment's edges parse on their own (dedented): whole definitions or
    statements, not the start of one cut off by the marker."""
    nb = [l for l in new if l.strip()]
    if not nb:
        return True
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
        return bool(_HEADER.match(l)) or bool(re.match(
            r"\s*(?:(?:export\s+)?(?:pub\s+)?(?:const|let|var|type|static)\s+\w+|import\b|from\s+\S+\s+import\b|use\s)", l))
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
    for lo, hi in ((0, p), (n - q, n), (k, m), (k, n), (0, m)):
        while lo < hi and not lines[lo].strip():
            lo += 1
        while hi > lo and not lines[hi - 1].strip():
            hi -= 1             # blank lines between the shown part and the new lines are the new lines'
        if hi - lo < 1:
            continue
        part = lines[lo:hi]
        if (lo, hi) == (0, n) or not _enough(orig, part) or not _complete(lang, lines[:lo] + lines[hi:]) or \
                not _defines(lines[:lo] + lines[hi:]):
            continue
        try:
            return anchor(orig, part, **{**args, "marker_after": args["marker_after"] if hi == n else None})
        except Ambiguous as e:
            if "line is not in the file" not in str(e):
                raise
    raise _NoEdge()


def _fragment_defs(lang, f: _Frag, known) -> list[Def] | None:
    """The fragment as whole definitions, or None (also when a marker inside it is indented deeper
    than the fragment: it elides part of a body)."""
    base = min(_indent(l) for l in f.lines if l.strip())
    if any(m is not None and m > base for m in (f.marker_before, f.marker_after)):
        return None
    return fragment_defs(lang, f.lines, known)


def _claims(lang, orig: list[str], parsed_all: list) -> dict[int, list[tuple[int, int]]]:
    """The original lines each fragment of whole definitions will replace by name (fragment index
    -> [start, end) ranges): a fragment anchored by its lines before it must not take them."""
    out: dict[int, list[tuple[int, int]]] = {}
    originals = None
    for j, parsed in enumerate(parsed_all):
        if not parsed:
            continue
        originals = originals if originals is not None else collect_defs(lang, orig)
        try:
            fe, _ = _def_edits(lang, orig, originals, parsed, None)
        except (MergeRefused, _NotByName):
            continue
        out[j] = [(a, b) for a, b, _ in fe if a < b]
    return out


def _anchors_by_lines(orig: list[str], lines: list[str], pos: int) -> bool:
    """The fragment's first and last lines are both in the file after `pos` (a definition the
    name index does not know, nested in a function's body, is anchored by its lines instead)."""
    return any(_same(o, lines[0]) for o in orig[pos:]) and any(_same(o, lines[-1]) for o in orig[pos:])


def _def_edits(lang, orig: list[str], originals: list[Def], parsed: list[Def], pos: int | None):
    """Edits replacing the original definitions named in `parsed`; new ones placed beside them.
    `pos`: the line after the previous fragment (a method shown without its class is looked for in
    the class that fragment ended in)."""
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
            raise MergeRefused(f"definition `{d.name}` matches more than one place in the file")
        if len(cands) == 1 and d.parent is None and cands[0].parent is not None and not _alike(orig, cands[0], d):
            raise MergeRefused(f"definition `{d.name}` is shown without its class and does not look like "
                               f"`{cands[0].parent}.{d.name}` of the file")
        if not cands and any(o.key == d.key for o in originals):
            raise MergeRefused(f"definition `{d.name}` is at a different place or indentation in the file")
        matches.append(cands[0] if cands else None)
    for i, (d, o) in enumerate(zip(parsed, matches)):
        if o is not None:
            h = _header_line(orig, o, d) if d.members is not None and o.members is not None else None
            if h is not None:
                sub, lost = _def_edits(lang, orig, originals, d.members, None)
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
            if lang.indent_blocks and _cut_short(orig, o, d):
                raise _NotByName()
            start = o.start               # the snippet's comments replace as many lines right above
            if d.has_comment:
                same_first = [q for q in range(o.comment_start, o.start) if _same(orig[q], d.text[0])]
                start = same_first[0] if same_first else max(o.comment_start, o.start - (d.start - d.comment_start))
            elif lang.indent_blocks and orig[o.start].lstrip().startswith("@") and \
                    not d.text[0].lstrip().startswith("@"):   # decorators the snippet leaves out stay
                start = next((q for q in range(o.start, o.end + 1) if _indent(orig[q]) == _indent(orig[o.start])
                              and orig[q].lstrip().startswith(("def ", "async def ", "class "))), o.start)
            edits.append((start, o.end + 1, d.text))
            continue
        prev = next((m for m in reversed(matches[:i]) if m is not None), None)
        after = next((m for m in matches[i + 1:] if m is not None), None)
        gap = [""] * (2 if lang.name == "python" and not d.indent_text else 1)
        if i and matches[i - 1] is not None:               # as many blank lines as the snippet has
            gap = [""] * (d.comment_start - parsed[i - 1].end - 1)
        if prev is not None:
            edits.append((prev.end + 1, prev.end + 1, gap + d.text))
        elif after is not None:
            edits.append((after.comment_start, after.comment_start, d.text + gap))
        else:
            unplaced.append(d)
    return edits, unplaced


_SELF = re.compile(r"^\s*(?:async\s+)?def\s+\w+\s*\(\s*(self|cls)\b", re.S)


def _alike(orig: list[str], o: Def, d: Def) -> bool:
    """A Python method (`self`/`cls` first) is not replaced by a function without them: that is
    more likely a nested function of the same name."""
    def method(lines: list[str]) -> bool:
        at = next((i for i, l in enumerate(lines) if re.match(r"\s*(?:async\s+)?def\s", l)), 0)
        return bool(_SELF.match("\n".join(lines[at:at + 12])))
    return not o.indent_text or not method(orig[o.comment_start:o.end + 1]) or method(d.text)


_TOKEN = re.compile(r"\w+|\S")


def _likeness(orig: list[str], o: Def, d: Def) -> float:
    """How alike two definitions are, token by token (a short function whose every line changed
    is still most like its old self)."""
    return difflib.SequenceMatcher(None, _TOKEN.findall("\n".join(orig[o.comment_start:o.end + 1])),
                                   _TOKEN.findall("\n".join(d.text)), autojunk=False).ratio()


def _most_alike(orig: list[str], cands: list[Def], d: Def) -> list[Def]:
    """The one candidate clearly most like the snippet's definition (a method shown without its
    class, in a file where several classes have it), else all of them."""
    scores = sorted(((_likeness(orig, o, d), i) for i, o in enumerate(cands)), reverse=True)
    (best, i), (second, _) = scores[0], scores[1]
    return [cands[i]] if best >= ALIKE and best - second >= ALIKE_MARGIN else cands


def _cut_short(orig: list[str], o: Def, d: Def) -> bool:
    """A Python definition that parses but may be only the start of the original one (Python parses
    `if a:` without its `else`): it ends on lines found in the middle of the original, or it is the
    original's first lines (more than the header) plus fewer new lines than it leaves out."""
    last, O, S = d.text[-1], orig[o.start:o.end + 1], d.text[d.start - d.comment_start:]
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
    ends_alike = bool(added) and difflib.SequenceMatcher(
        None, added[-1].strip(), next((l for l in reversed(O) if l.strip()), "").strip(), autojunk=False).ratio() >= 0.6
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
