"""What a fragment's region may not delete (apply's merge): a definition whose name the snippet
never shows, one it uses without defining it, GONE lines in a row with nothing like them shown;
unless the region is anchored at both ends by text found nowhere else; a line binding a name the
lines after the region still use (unbound, a tie-break: regions' docstring).  anchors calls these."""
from __future__ import annotations

import re
from contextvars import ContextVar

from redraft.engine.apply import heaviest
from redraft.engine.apply.alike import alike, worth
from redraft.engine.apply.definitions import _indent
from redraft.engine.apply.regions import (_NOT_NAMES, arrow_name, collapsed, definition_end, definition_name,
                                          header_name, in_new_definition, matching_blocks, runs_in, type_name,
                                          used_dropped)
from redraft.engine.apply.result import Ambiguous
from redraft.engine.apply.usage import shows, uses

__all__ = ["GONE", "UNSHOWN", "UNUSED", "defines", "drops_unnamed", "guarded", "loses", "named_anew",
           "no_lost_definitions", "no_used_dropped", "unbound", "unshown"]

GONE = 5                          # see no_lost_definitions
UNSHOWN = "which the snippet does not show"   # (a definition's name: the refusal UNUSED may lift)
# definitions a region may drop unshown: a refused snippet's second reading (apply's merge checks its uses)
UNUSED: ContextVar[frozenset] = ContextVar("UNUSED", default=frozenset())


# a test written as a call with its title (`test('parses a date', t => {`, `it.only("...", ...`, `describe(`):
# a definition named by its title
_TITLED = re.compile(r"\s*(?:test|it|describe|suite|bench)(?:\.\w+)*\s*\(\s*(['\"`])(.+?)\1")
_TITLES = re.compile("^" + _TITLED.pattern, re.M)
RETITLED = 0.9                    # a title this like one the snippet has is that one, retitled (a spelling fixed)


def _title(line: str, shown: str) -> str | None:
    """The title of the test that `line` opens, unless the snippet has one like it (RETITLED)."""
    m = _TITLED.match(line)
    if m is None or any(alike(m.group(2), o.group(2), RETITLED) for o in _TITLES.finditer(shown)):
        return None
    return m.group(2)


def unshown(line: str, shown: str) -> str | None:
    """The name that a definition's header line defines, or a module's exported binding (`export
    const fromWeb: (r: Request) => HttpServerRequest = internal.fromWeb`, its CommonJS build's
    `const fromWeb = exports.fromWeb = ...`: other modules import it), or a test's title (_TITLED:
    fast-json-stringify's tests, a new one read as the rewrite of an alike one), when the snippet's
    text `shown` never has it."""
    ident = definition_name(line) or _exported_binding(line) or _title(line, shown)
    return ident if ident and not shows(ident, shown) else None


# a top-level exported binding: ESM's `export const NAME`, CommonJS's `const NAME = exports.NAME` (not
# places._EXPORTED, which tells whether a definition's header line is exported)
_BINDING = re.compile(r"(?:export\s+(?:declare\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)"
                      r"|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*exports\.\2\b)")


def _exported_binding(line: str) -> str | None:
    m = _BINDING.match(line)
    return m and (m.group(1) or m.group(2))


def no_used_dropped(orig: list[str], lines: list[str], a: int, b: int, name: str, kept=None) -> None:
    if used := used_dropped(orig, lines, a, b, kept):
        raise Ambiguous(f"{name}: would delete `{used[0]}` (line {used[1] + 1}), which the snippet uses but does not "
                        "define; show it or mark it with `... existing code ...`")


def guarded(orig: list[str], lines: list[str], top: list, name: str, opened: bool) -> list:
    """The candidates that drop no definition silently (no_lost_definitions); none: the first's
    refusal.  (`opened`: the snippet starts the file, what it leaves out there is gone.)"""
    passed, first = [], None
    for t in top:
        try:
            no_lost_definitions(orig, lines, t[1], t[2], name, outright=not (opened and t[1] == 0))
            passed.append(t)
        except Ambiguous as e:
            first = first or e
    if not passed:
        raise first
    return passed


def no_lost_definitions(orig: list[str], lines: list[str], a: int, b: int, name: str, outright: bool = True) -> None:
    """A region may not drop the first line of a definition whose name the fragment never shows
    (a whole function gone without a word is the loss users fear most), unless the region starts
    and ends with runs of the fragment's lines that occur nowhere else in the file.  `outright`: also
    refuse GONE lines in a row deleted with nothing like them in the fragment."""
    region, want = [l.strip() for l in orig[a:b + 1]], [l.strip() for l in lines]
    blocks, kept = matching_blocks(region, want)
    shown = "\n".join(lines)
    runs = [m for m in blocks if m.size]
    no_used_dropped(orig, lines, a, b, name, kept)    # (even between unique anchors)
    tail = region[runs[-1].a:] if runs else []  # (one line with words in a new definition is chance)
    if runs and runs[0].a == 0 and runs[-1].a + runs[-1].size == len(region) and \
            runs_in(orig, region[:runs[0].size], 1) == 1 and runs_in(orig, tail, 1) == 1 and \
            not (sum(map(worth, tail)) <= 1 and in_new_definition(orig, lines, runs[-1].b)):
        return                        # anchored at both ends by text found nowhere else: explicit
    unused, spans = UNUSED.get(), set()
    quoted = None                     # the file's lines inside triple-quoted strings, read once if needed
    for i in range(b - a + 1):
        ident = unshown(orig[a + i], shown) if i not in kept else None
        if ident:
            quoted = _in_strings(orig) if quoted is None else quoted
            ident = None if a + i in quoted else ident
        if ident in unused and any(shows(ident, l) and ident not in (header_name(l), arrow_name(l))  # (used
                                   for l in orig[:a] + orig[b + 1:]):   # elsewhere, not defined again: the
            spans.update(range(i, definition_end(orig, a + i) - a + 1))       # deletion the snippet means)
        elif ident:
            raise Ambiguous(f"{name}: would delete `{ident}` (line {a + i + 1}), {UNSHOWN}; "
                            "show it or mark it with `... existing code ...`")
    if not outright:
        return
    new = [want[j] for j in range(len(want)) if want[j] and not any(m.b <= j < m.b + m.size for m in runs)]
    joined = collapsed(orig[a:b + 1], kept, new)
    gone = [i for i in range(len(region)) if region[i] and i not in kept and i not in joined and i not in spans and
            not any(alike(region[i], n, 0.5) for n in new)]
    for i in gone:                    # GONE lines in a row deleted outright, nothing like them shown
        if i + GONE - 1 in gone and all(k in gone or not region[k] for k in range(i, i + GONE)):
            raise Ambiguous(f"{name}: would delete lines {a + i + 1}-{a + i + GONE}, which the snippet does not "
                            "show; show them or mark them with `... existing code ...`")


def loses(orig: list[str], lines: list[str], a: int, b: int, outright: bool = False) -> bool:
    """The region [a, b] drops a definition the fragment uses but does not define, or one the snippet
    never shows (no_lost_definitions, what it refuses but GONE lines; with `outright`, those too: the
    region does not pass the guard)."""
    try:
        no_lost_definitions(orig, lines, a, b, "", outright=outright)
    except Ambiguous:
        return True
    return False


_TRIPLE = re.compile('"""' + "|'''")   # a triple quote, either kind


def _in_strings(orig: list[str]) -> set[int]:
    """The lines that start inside a triple-quoted string: a docstring's example (rnet's blocking.py,
    `def main():` in a method's docstring) defines nothing."""
    out: set[int] = set()
    opened = None
    for i, line in enumerate(orig):
        if opened is not None:
            out.add(i)
        for m in _TRIPLE.finditer(line):
            opened = m.group() if opened is None else None if m.group() == opened else opened
    return out


_BOUND = re.compile(r"\s*\**([A-Za-z_$][\w$]*)\s*(?::[^=]|=[^=>])")


def unbound(orig: list[str], lines: list[str], a: int, b: int, kept: set[int], reach: int = 30) -> bool:
    """The region [a, b] drops (outside its `kept` lines) a line that binds a name (a typed parameter,
    an assignment) the fragment never shows, while the lines right after the region, in its block,
    still use it: the merged file would leave the kept code with an unbound name."""
    shown, after = "\n".join(lines), []
    for l in orig[b + 1:b + 1 + reach]:
        if l.strip() and _indent(l) < _indent(orig[a]):
            break
        after.append(l)
    after_text = "\n".join(after)
    for i, t in enumerate(orig[a:b + 1]):
        m = _BOUND.match(t) if i not in kept else None
        if m and len(m.group(1)) > 2 and m.group(1) not in _NOT_NAMES and not shows(m.group(1), shown) and \
                uses(m.group(1), after_text):
            return True
    return False


def named_anew(orig: list[str], lines: list[str], a: int, b: int) -> str | None:
    """Why a region (anchors._best's: not framed by lines with words, its last line without words;
    or holding the fragment's last lines further up than its end) is refused when it drops the header
    of a definition the snippet never names while the fragment brings a definition of a new name as
    deep: a new one written before the next one (the fragment's last line, `/**`, found again further
    on), or the old one renamed (cohere-ai's Client.js: a new `parse` method, its 120 lines nearly
    `embed`'s, read as `embed` rewritten; protobufjs's bundles, a new
    `Reader.prototype.size` read as `Reader.prototype.tag` rewritten)."""
    named = [(n, _indent(l)) for l in lines if (n := defines(l))]
    if not named:
        return None
    have = {n for l in orig if (n := defines(l))}
    new = {depth for n, depth in named if n not in have}
    if not new:
        return None
    shown = "\n".join(lines)
    kept = heaviest.kept(orig, [l.strip() for l in lines], a, b)
    for i in range(b - a + 1):
        line = orig[a + i]            # (an exported one: plan's renamed_export tells)
        if i not in kept and _indent(line) in new and not line.lstrip().startswith("export ") and \
                (gone := defines(line) or unshown(line, shown)) and not shows(gone, shown):
            return (f"drops `{gone}` (line {a + i + 1}), never named in the snippet, and brings a definition of a "
                    f"new name: a rename or a new one beside it? show a line of `{gone}` or mark it with "
                    "`... existing code ...`")
    return None


# what names a unit a region may drop besides definitions (drops_unnamed; stripped lines): an object's key
# opening a nested one (`C: {`), a switch's case label, a Rust match arm's variant (`Error::Gone(_) => {`)
_KEY = re.compile(r"""['"]?([A-Za-z_$][\w$]*)['"]?\s*:\s*[{\[]$""")
_CASE = re.compile(r"""case\s+['"]?([\w$.]+)['"]?\s*:""")
_ARM = re.compile(r"(?:[A-Za-z_]\w*::)+([A-Za-z_]\w*)\s*(?:\(.*\)|\{.*\})?\s*(?:if\b.*)?=>")


def drops_unnamed(region: list[str], want: list[str], kept: set[int], definitions: bool = True) -> bool:
    """The region drops a definition, or an object's key opening a nested object (`C: {`), a switch's
    case label or a Rust match arm's variant, whose name the fragment never shows (mathjs's units: `Ah: {`
    is a unit added after `C: {`, not `C` rewritten; zizmor's `CollectionError::AmbiguousRemoteRef { slug }
    => {` arm added after `RemoteWithoutWorkflows(_, slug) => {`, not that arm rewritten).  Without
    `definitions`, only keys, case labels and arms count."""
    shown = "\n".join(want)

    def unnamed(t: str) -> bool:
        m = _KEY.match(t) or _CASE.match(t) or _ARM.match(t)
        return bool(definitions and unshown(t, shown)) or m is not None and not shows(m.group(1), shown)
    return any(i not in kept and unnamed(t) for i, t in enumerate(region))


def code_lines(lines: list[str]) -> list[str]:
    """The lines that are code: not comments, not inside a triple-quoted string (the lines themselves
    when all are code or none is): candidates' likeness by code, drops_unshown's names shown."""
    inside = _in_strings(lines)
    out = [l for i, l in enumerate(lines) if i not in inside and l.strip() and
           not l.lstrip().startswith(("#", "//", "/*", "* ", "*/", '"""', "\'\'\'")) and l.strip() != "*"]
    return out if out and len(out) < len([l for l in lines if l.strip()]) else lines


# a member's line: a field of a struct, interface or class, a key of an object or a dict (`pub name: T,`,
# `name?: T | null;`, `"name": value,`)
_MEMBER = re.compile(r"\s*(?:(?:pub(?:\([\w:]+\))?|readonly|public|private|protected|static|declare)\s+)*"
                     r"([\"']?)([A-Za-z_$][\w$]*)\1\??\s*:(?!:)\s*\S.*[;,]\s*$")


def drops_unshown(orig: list[str], lines: list[str], a: int, b: int) -> str | None:
    """A name the region [a, b] drops (a line the fragment does not keep: a definition's header or a
    member's line) that the snippet's code never shows: a reading that rewrites it into the fragment's new
    lines would delete it unnamed (runloop's network-policies.ts: `/**` after a marker, then two new
    fields, read as rewriting the `allow_mcp_gateway` field before them)."""
    shown = "\n".join(code_lines(lines))
    kept = heaviest.kept(orig, [l.strip() for l in lines], a, b)
    for i, line in enumerate(orig[a:b + 1]):
        name = None if i in kept else definition_name(line) or (m := _MEMBER.match(line)) and m.group(2)
        if name and len(name) > 2 and name not in _NOT_NAMES and not shows(name, shown):
            return name
    return None


_ASSIGNED = re.compile(r"\s*[A-Za-z_$][\w$]*(?:\.[\w$]+)*\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?function\b")


def defines(line: str) -> str | None:
    """The name a definition's header line or a type alias defines, or a function assigned to a property
    (protobufjs's bundles: `Reader.prototype.size = function read_size() {`)."""
    m = _ASSIGNED.match(line)
    return definition_name(line) or type_name(line) or (m.group(1) if m else None)
