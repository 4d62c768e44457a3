"""Apply a lazy edit snippet to a file, deterministically, never losing a line.

`merge(original, snippet, language) -> MergeResult` returns the whole new file (ok=True) or a
one-line refusal (ok=False, reason); it never raises.

Design:
* The snippet is split at *marker* lines (a whole-line comment whose text, without comment syntax,
  starts or ends with "..." -- `# ... existing code ...`, `// ...`, `/* ... rest of file ... */`;
  not a doctest's continuation in a doc comment, `///     ...     schema,`: markers.py)
  into fragments.  Marker lines stand for original text that is kept verbatim.
* Every fragment becomes one or more *edits* `(start, end, lines)`: original lines [start, end)
  are replaced by `lines` (start == end is an insertion).  Markers elide unchanged code; lines
  neither shown nor covered by a marker are deleted (between two anchored lines, and at the file's
  start / end when the snippet has no marker there), each deletion reported (`MergeResult.deletions`);
  `delete_unmarked=False` keeps them (deletion only inside a replaced region).
* A fragment made only of complete definitions (found with tree-sitter; any other line in it must
  already be in the file) is matched by name: each definition replaces the original definition of
  the same name (a class/impl shown in the snippet is matched member by member when it adds nothing
  else; replacing a whole class that omits members is refused); a new definition goes after the
  previous matched definition of the fragment (or before the next one; new ones in a row there in
  the snippet's order), or, when it follows a
  marker at the end of the snippet, at the end of the file.  A definition shown without its
  decorators keeps them (shown from one that is not its first, those above it), but for a Python
  pytest `parametrize` of arguments its new signature lacks (a deletion, reported); a snippet that
  is one definition alone, as the file has it, without the comments, attributes or decorators
  above it, deletes those (it changes nothing else; reported).  A Python
  definition that looks cut short of the original (Python parses
  `if a:` without its `else`) is anchored by lines instead, unless the snippet is that definition
  alone without any marker: written out whole, it replaces the original, and what it leaves out
  is deleted and reported.
  Otherwise the fragment is anchored by lines: its first lines and its last lines must match the
  original (trailing whitespace ignored) at exactly one place, after the previous fragment (and,
  after an indented marker, within the same block); the region between the two anchors is replaced.
* A fragment that changes nothing where it fits best is refused when it also fits another place
  (starting at a line with words elsewhere; when nothing else in the snippet changes, also ending
  elsewhere) where it would only leave lines out, and so is a snippet that changes nothing while
  a fragment's weak edge has such a reading (ambiguity.py): it was written to change something
  (a deletion shown by omission), so the reading that changes nothing is no more likely.  Applied
  again, a snippet whose lines fit one place only changes nothing and merges to the file itself.
* A refused snippet is read once more (`_second_reading`): one without any marker, as long as the
  file and like it, is the whole new file (a version file written out new); a refusal to delete a
  definition the snippet never shows is lifted for definitions used on other lines of the file
  when the result uses none of them any more (the snippet removed their uses too).
* Checks on every result: edits do not overlap and (for anchored fragments) are in order; no new
  marker line; all kept original lines are present in order; no block of lines the merge wrote
  comes twice in a row where the file and the snippet have it once and lines the edit replaced are
  gone (a moved block: _refuse_copy); the result has no more tree-sitter
  ERROR/MISSING nodes than the original, leaving aside the snippet's own (inside a top-level
  statement that starts among the lines it wrote, before their last one, which has them parsed
  alone; likewise for the lines it replaced): what the grammar cannot read in the snippet's lines
  is not the merge's doing, and is merged as written with a warning (MergeResult.warnings).  Line
  endings, the final newline and the indentation style (tabs vs spaces and the space unit) of the
  original are kept; a snippet indented with spaces for a tab-indented file is converted when that
  is exact, otherwise refused.

Modules: result (MergeResult, Deletion, MergeRefused), markers, indentation, definitions
(tree-sitter definitions), plan (fragments -> edits), by_name (fragments of whole definitions;
candidates: which of several same-named ones a snippet's is),
anchors (fragments by their lines; regions, places, lost and alike are its rules, heaviest the
lines a candidate region keeps), edges (deletions by omission), ambiguity and usage (a weak
fragment edge -- only `}`, blank, `/**` lines next to a marker -- whose other reading, deleting up
to the next place those lines occur, is as likely: refused); this one: merge, checks, apply.
"""

import bisect
import difflib
import re
from collections import Counter

from redraft.engine.apply import heaviest
from redraft.engine.apply.alike import alike, extends, likeness
from redraft.engine.apply.ambiguity import refuse_dead_alternative
from redraft.engine.apply.anchors import UNSHOWN, UNUSED, same as _same
from redraft.engine.apply.by_name import class_edits
from redraft.engine.apply.definitions import _indent, own_errors
from redraft.engine.apply.edges import deletions as _deletions, edges as _edges
from redraft.engine.apply.indentation import IndentMismatch, match_indentation
from redraft.engine.apply.markers import OWN, is_marker, own_comments
from redraft.engine.apply.plan import plan as _plan, split as _split
from redraft.engine.apply.regions import definition_name as _defined
from redraft.engine.apply.result import MAX_BYTES, Deletion, MergeRefused, MergeResult, Replacement
from redraft.engine.apply.usage import shows, uses
from redraft.engine.syntax.languages import language_for

__all__ = ["MergeResult", "MergeRefused", "Deletion", "merge", "is_marker", "MAX_BYTES"]

WHOLE_LIKE = 0.5                      # a snippet without a marker this like the file (its words) is all of it
WHOLE_WHY = "the snippet, without a marker, is the whole new file"
_TOKEN = re.compile(r"\w+")
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


def merge(original: str, snippet: str, language: str, *, delete_unmarked: bool = True) -> MergeResult:
    """`delete_unmarked=False`: keep every original line the snippet omits without a marker (the
    old keep-everything rule: deletion only inside a fragment's region)."""
    own = OWN.set(own_comments(original.split("\n")))   # (the file's own prose comments are no markers)
    try:
        text, deletions, warnings = _merge(original, snippet, language, delete_unmarked)
        return MergeResult(True, text, deletions=deletions, warnings=warnings)
    except MergeRefused as e:
        return MergeResult(False, reason=str(e))
    except Exception as e:  # noqa: BLE001 - defensive: a bug must refuse, never write a wrong file
        return MergeResult(False, reason=f"internal error: {type(e).__name__}: {e}")
    finally:                          # (what the merge remembered of this file goes with it)
        OWN.reset(own)
        heaviest.forget()
        for remembered in (alike, extends, likeness):
            remembered.cache_clear()


def _merge(original: str, snippet: str, language: str,
           delete_unmarked: bool = True) -> tuple[str, list[Deletion], list[str]]:
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
    try:                              # (its blank lines' whitespace is the snippet's to keep, as the file's is)
        snip = match_indentation(orig, snip, lang.block_opener)
    except IndentMismatch as e:
        raise MergeRefused(str(e)) from None
    frags = _split(snip)
    if not frags:
        raise MergeRefused("snippet has only marker lines")

    # a snippet with a marker at the top level is a view of the whole file: where it has no marker
    # before its first line (after its last), the file's lines before (after) it are gone
    view = delete_unmarked and any(is_marker(l) and _indent(l) == 0 for l in snip)
    # ... and so is one with any marker whose first line, with no marker before it, is new: it
    # starts at the file's new first line
    opens = delete_unmarked and frags[0].marker_before is None and any(is_marker(l) for l in snip) and \
        not any(_same(o, frags[0].lines[0]) for o in orig)
    weak: list = []
    idle: list = []
    whole = delete_unmarked and len(frags) == 1 and not any(is_marker(l) for l in snip)
    planning = (lang, orig, frags, view, weak, idle, opens, whole, delete_unmarked)
    try:
        edits, refused = _whole_new_file(orig, frags[0].lines) if whole else None, None
        edits = edits or class_edits(lang, orig, snip) or _plan(*planning)
    except MergeRefused as e:
        edits, refused = _second_reading(planning, snip, e), e
    if not delete_unmarked:           # nor what an edit drops for a reason of its own (Replacement)
        edits = [(s, e, orig[s:e] if isinstance(t, Replacement) else t) for s, e, t in edits]
    edits, edge = _edges(lang, orig, edits, (view or opens) and frags[0].marker_before is None,
                         view and frags[-1].marker_after is None, frags[0].lines, frags[-1].lines,
                         delete_unmarked and frags[0].marker_before is None,
                         delete_unmarked and frags[-1].marker_after is None)
    out, written = _apply(orig, edits)
    _refuse_copy(orig, out, edits, written, snip)
    if refused is not None and _still_used(orig, out, edits, "\n".join(snip)):
        raise refused
    if weak:
        refuse_dead_alternative(lang, orig, out, edits, weak, no_change_refused=delete_unmarked)
    if delete_unmarked:
        _refuse_idle(idle, elsewhere=out != orig)
    dels = _deletions(lang, orig, edits, edge, "\n".join(l for l in snip if not is_marker(l)))

    if sum(1 for l in out if is_marker(l)) > sum(1 for l in orig if is_marker(l)):
        raise MergeRefused("a marker line would remain in the result")
    text = nl.join(out) + (nl if final_nl and out else "")
    errors, own = own_errors(lang, text, written)           # the snippet's own lines aside, and
    before, gone = own_errors(lang, original, [(s, e) for s, e, _ in edits])     # the lines it replaced
    mine, theirs = sum(n for *_, n in own), sum(n for *_, n in gone)
    if errors - mine > before - theirs:
        raise MergeRefused("the result does not parse as well as the original")
    return text, dels, _unread(lang, own) if mine > theirs else []


def _second_reading(planning: tuple, snip: list[str], refused: MergeRefused) -> list:
    """A refused snippet read once more.  One without a marker, at least as long as the file (lines
    with text) and like it, is the new file whole (a version file's one line).  Else a region may
    drop definitions the snippet never shows that the file uses elsewhere (UNUSED): the result
    must not use them any more (_still_used), the snippet removed their uses as well.  Neither
    reading: the refusal."""
    lang, orig, frags, *_, whole, drops = planning
    if whole and _like_whole_file(orig, frags[0].lines):
        return [(0, len(orig), Replacement(list(frags[0].lines), WHOLE_WHY))]
    if not drops or UNSHOWN not in str(refused):     # (only that refusal can change)
        raise refused
    shown, heads = "\n".join(snip), [_defined(l) for l in orig]
    defined = {n for n in heads if n and not shows(n, shown)}
    names = frozenset(w for line, head in zip(orig, heads) for w in defined.intersection(_NAME.findall(line))
                      if w != head)
    if not names:
        raise refused
    planning[4].clear(), planning[5].clear()           # (weak, idle: the first reading's)
    token = UNUSED.set(names)
    try:
        return _plan(*planning)
    except MergeRefused:
        raise refused from None
    finally:
        UNUSED.reset(token)


def _whole_new_file(orig: list[str], lines: list[str]) -> list | None:
    """The snippet, without a marker, as the whole new file: it starts and ends with the file's first
    and last lines with text (each with a word, once in the file) and its words are like the file's,
    however many lines it has (_like_whole_file).
    Its lines are then all of the file, however they parse (`mod json;` gone from a list of `mod`
    declarations read as definitions, the file's other ones kept)."""
    old, new = [l for l in orig if l.strip()], [l for l in lines if l.strip()]
    ends = old and new and all(_same(a, b) and _TOKEN.search(a) and sum(_same(o, a) for o in old) == 1
                               for a, b in ((old[0], new[0]), (old[-1], new[-1])))
    if not ends or not _like_whole_file(orig, lines, shorter=True):
        return None
    return [(0, len(orig), Replacement(list(lines), WHOLE_WHY))]


def _like_whole_file(orig: list[str], lines: list[str], shorter: bool = False) -> bool:
    """The snippet has at least as many lines with text as the file (unless `shorter`), and
    WHOLE_LIKE of their words (counted, in no order: linear in the text) are alike."""
    n = sum(1 for l in orig if l.strip())
    if not n or not shorter and n > sum(1 for l in lines if l.strip()):
        return False
    old, new = (Counter(_TOKEN.findall("\n".join(t))) for t in (orig, lines))
    return 2 * sum((old & new).values()) >= WHOLE_LIKE * (sum(old.values()) + sum(new.values()))


def _still_used(orig: list[str], out: list[str], edits, shown: str) -> tuple[str, int] | None:
    """The first definition the edits delete that the snippet never shows and the result still uses
    (its name, its header line), or None.  (Not a check on every merge: a release's hunks taken apart
    delete a definition in one and its uses in another.)"""
    left, text = Counter(l.strip() for l in out), "\n".join(out)
    for s, e, _ in edits:
        for q in range(s, e):
            name = _defined(orig[q])
            if name and left[orig[q].strip()] < 1 and not shows(name, shown) and uses(name, text):
                return name, q
    return None


def _unread(lang, own: list) -> list[str]:
    """Warnings for the snippet's own lines that the grammar cannot read (merged as written)."""
    return [f"line {a + 1} does not parse ({lang.name} grammar); merged as the snippet wrote it" if a == b else
            f"lines {a + 1}-{b + 1} do not parse ({lang.name} grammar); merged as the snippet wrote them"
            for a, b, _ in own]


def _refuse_idle(idle: list, elsewhere: bool) -> None:
    """A fragment that changes nothing where it fits best while it also fits another place, at a
    line with words, where it would only leave lines out (`elsewhere`, when the rest of the snippet
    changes something: a place that starts elsewhere): it was written to change something (a
    deletion shown by omission), so the reading that changes nothing is no more likely; refused."""
    for name, (a, b), moved in idle:
        moved = [m for m in moved if m[0] != a] if elsewhere else moved
        if moved:
            c, d = min(moved, key=lambda r: (r[1] - r[0], r[0]))
            raise MergeRefused(f"{name} changes nothing: it is lines {a + 1}-{b + 1} as they are; it also fits "
                               f"lines {c + 1}-{d + 1}, which it would change; show a line that tells them apart or "
                               "mark the lines it keeps with `... existing code ...`")


def _apply(orig: list[str], edits: list[tuple[int, int, list[str]]]) -> tuple[list[str], list[tuple[int, int]]]:
    """The result's lines, and the [start, end) spans of them that each edit wrote."""
    edits = sorted(edits, key=lambda e: (e[0], e[1]))
    for (s1, e1, _), (s2, e2, _) in zip(edits, edits[1:]):
        if s2 < e1 or (s1 == s2 == e1 == e2):
            raise MergeRefused("two parts of the snippet edit the same lines")
    out: list[str] = []
    kept: list[str] = []
    pos = 0
    written: list[tuple[int, int]] = []
    for s, e, lines in edits:
        out.extend(orig[pos:s])
        kept.extend(orig[pos:s])
        written.append((len(out), len(out) + len(lines)))
        out.extend(_as_written(orig[s:e], lines))
        pos = max(pos, e)
    out.extend(orig[pos:])
    kept.extend(orig[pos:])
    it = iter(out)
    if not all(any(k is o for o in it) for k in kept):   # every kept line survives, in order
        raise MergeRefused("internal: a kept line was lost")
    return out, written


COPY = 6                              # lines with words in a row, twice in a row in the result: see _refuse_copy


def _refuse_copy(orig: list[str], out: list[str], edits, written: list[tuple[int, int]], snip: list[str]) -> None:
    """Refused: the result has COPY or more lines with words (blank and wordless lines aside) twice
    in a row, the file and the snippet do not, one copy is the merge's writing and lines it replaces
    are gone from the result: a block the snippet moved, read as new where it now is, kept where it
    was by a marker, and put in place of other lines (svelte-query's overload moved up over another
    one whose first lines are the same: the fragment's last lines fit both)."""
    left = words = None
    for (s, e, _), (a, b) in zip(sorted(edits, key=lambda x: (x[0], x[1])), written):
        if b - a < COPY:
            continue
        left = left if left is not None else {l.strip() for l in out}
        if all(l.strip() in left for l in orig[s:e] if _TOKEN.search(l)):
            continue
        words = words if words is not None else tuple(zip(*_words(out))) or ((), ())   # (once for all edits)
        twice = _twice_in_a_row(*words, a, b)
        if twice and not any(twice + "\n" + twice in "\n".join(t for _, t in _words(x)) for x in (orig, snip)):
            first, *_, last = twice.splitlines()
            raise MergeRefused(f"the result would have lines `{first}` ... `{last}` twice in a row, and lose lines "
                               "the snippet replaces: lines moved? show the lines around their old place")


def _words(lines: list[str]) -> list[tuple[int, str]]:
    """(line number, stripped text) of the lines with words."""
    return [(j, l.strip()) for j, l in enumerate(lines) if _TOKEN.search(l)]


def _twice_in_a_row(at_line: tuple[int, ...], texts: tuple[str, ...], a: int, b: int, most: int = 400) -> str:
    """The first run of COPY to `most` lines with words (their line numbers and texts: _words) that
    starts among lines [a, b) and comes again right after itself; "" when none."""
    mine = range(bisect.bisect_left(at_line, a), bisect.bisect_left(at_line, b))
    at: dict[str, list[int]] = {}
    for k in range(mine[0], min(len(texts), mine[-1] + most + 1)) if mine else ():
        at.setdefault(texts[k], []).append(k)
    for i in mine:
        for k in at[texts[i]][bisect.bisect_left(at[texts[i]], i + COPY):]:
            if k - i > most or 2 * k - i > len(texts):
                break
            if all(texts[i + t] == texts[k + t] for t in range(k - i)):
                return "\n".join(texts[i:k])
    return ""


def _as_written(old: list[str], new: list[str]) -> list[str]:
    """The snippet's lines, except that those it repeats from the region they replace (trailing
    whitespace aside) keep the file's line ending (a lone CR: a mixed file's CRLF lines) and never
    gain trailing whitespace: the snippet may strip a repeated line's trailing whitespace (a blank
    line's indentation, as formatters do), not add any."""
    if not old:
        return new
    out = list(new)
    sm = difflib.SequenceMatcher(None, [l.rstrip() for l in old], [l.rstrip() for l in new], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            out[j1:j2] = [_repeated(o, n) for o, n in zip(old[i1:i2], new[j1:j2])]
    return out


def _repeated(old: str, new: str) -> str:
    cr = "\r" if old.endswith("\r") else ""
    old = old[:-1] if cr else old
    return (new if len(new) < len(old) else old) + cr
