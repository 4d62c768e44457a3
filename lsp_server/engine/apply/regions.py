"""Rules on a fragment's chosen region that read what the merged file would hold (apply's merge,
called from anchors.anchor once the best candidate is known):

* a doubled line at a weak edge: a fragment whose last lines have no word in them (`{`, `)`, `}`,
  blanks) anchors its tail at the first place those lines recur after its head.  When the line with
  words the fragment shows just above them is found once in the file, after that region and followed
  there by the same weak lines, the nearest reading keeps that line and the fragment brings it
  again: the merged file has it twice.  The region that ends there takes it in (the fragment
  replaces it), when it is a candidate.  The same holds for a fragment's first lines, mirrored;
* a definition defined twice: a fragment that defines a name (a function, method, class header, at
  the depth the file defines it, not inside a class of the fragment's own) that the file defines once,
  after the previous fragment, outside the chosen region, leaves the merged file with two
  definitions of it (a region anchored on a later `}` / `/**` that agrees with the fragment's last
  methods).  The best of the candidates that take every such definition in wins, when there are any;
* a doubled run: the fragment's first (last) two lines, both with words, found together once in the
  file, after the previous fragment and outside the chosen region, would be in the merged file
  twice.  The best candidate that takes them in wins; with none (they lie in another block than any
  region that reaches the fragment's other end), the merge refuses.  Neither rule holds for lines
  inside a definition the fragment brings and the file does not have: new code may repeat a line;
* a head found twice: the chosen region holds the fragment's first lines again further down and
  does not keep that copy (it deletes it with what lies between): the region from that copy to the
  same last line is taken, unless the first rewrites every line it drops or the second deletes a
  definition the fragment uses (repeated_head);
* the same for candidates tied for best: those that take in the file's one definition of a name
  the fragment defines again (type aliases and functions written as values counted too) win;
* an unbound name: a region that drops a line binding a name (a typed parameter, an assignment)
  that the fragment never shows, while the lines right after it still use it, gives way to the
  best candidate that does not (lost.unbound);
* places that fit alike: the one after which the next fragment's first line follows (leads_to);
* a chance frame: the fragment's last lines hold one line with words, inside a definition it brings
  and the file does not have (at any depth): not a frame that makes a deletion explicit
  (chance_tail, in_new_definition);
* the block's old last lines: a fragment that stops inside a block before a less indented marker
  takes in the old lines after its region when they are unreachable after its last statement
  (`return`, `raise`, `throw`) or lines it moved up (old_tail);
* what a dropped line defines: a header that reads as code (reads_as_code), a name the fragment
  defines again (defines_name), for anchors' guard against deleting a definition the snippet uses
  (used_dropped);
* a lone closing line after a deeper marker: the end of the marker's block (closing_head); the
  innermost block around an indented marker (innermost); of closing lines that end their block, the
  place where the block's remaining lines are the fragment's first as they are (ends_as); a
  definition's last line (definition_end, for anchors' guard when the deletion is the snippet's);
* a bracket's lines rewritten: joined on one new line, or reopened by a like new line (collapsed),
  not deleted lines for anchors' guard."""
from __future__ import annotations

import difflib
import re
from collections import Counter

from redraft.engine.apply.alike import _WORD, alike
from redraft.engine.apply.definitions import _indent
from redraft.engine.apply.usage import declared, shows, uses

__all__ = ["arrow_name", "balanced", "block_end", "chance_tail", "defined_name", "doubled_edge", "doubled_run",
           "ends_block", "header_name", "in_new_definition", "old_tail", "redefined", "runs_in", "type_name",
           "IMPORT_LINE"]

# a definition's header line in any of the five languages, its name in group 1 or 2 (anchors, edges, plan)
_HEADER = re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\([\w:]+\))?\s+)?(?:static\s+)?(?:async\s+)?"
                     r"(?:def|class|function\*?|fn|func|impl|struct|enum|trait|interface|macro_rules!|mod)"
                     r"\s+\(?\s*([A-Za-z_$][\w$]*)"
                     r"|^\s*(?:(?:public|private|protected|static|readonly|override)\s+)*(?:async\s+)?"
                     r"(?:get\s+|set\s+)?"
                     r"([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\([^)]*\)\s*(?::\s*[^={;]+)?\{\s*$")
IMPORT_LINE = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|(?:pub\s+)?use\s"   # an import's first line
                         r"|(?:const|let|var)\s+\w+\s*=\s*require\()")
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "function", "return", "with", "elif"}


def _strip(lines: list[str]) -> list[str]:
    return [l.strip() for l in lines]


def block_end(orig: list[str], start: int, indent: int, comments: bool = False) -> int:
    """The first line after `start` indented less than `indent` (len(orig) if none).  `comments`:
    lines inside `/* */` comments aside (a doc comment's example may start at column 0)."""
    inside = False
    for j in range(start + 1, len(orig)):
        t = orig[j].strip()
        if comments and (inside or t.startswith("/*")):
            inside = "*/" not in (t if inside else t[2:])      # (to the comment's last line)
            continue
        if t and _indent(orig[j]) < indent:
            return j
    return len(orig)


def definition_end(orig: list[str], h: int) -> int:
    """The last line of the definition whose header is line h: its body, and its closing line."""
    j = block_end(orig, h, _indent(orig[h]) + 1)
    return j if j < len(orig) and orig[j].strip()[:1] in ("}", ")", "]") else j - 1


def innermost(orig: list[str], items: list, pos: int, marker_before: int | None, head) -> list:
    """Those of several items (heads or candidates) in the innermost block around an indented marker
    (right after the previous fragment) that has any; all of them otherwise."""
    return inner_level(orig, items, pos, marker_before, head)[1] if len(items) > 1 else items


def inner_level(orig: list[str], items: list, pos: int, marker_before: int | None, head) -> tuple[int, list]:
    """(the indentation of that innermost block, 0 when none has any; those in it, else all)."""
    for level in range(marker_before or 0, 0, -1):
        end = block_end(orig, pos - 1, level)
        while end < len(orig) and orig[end].lstrip()[:1] in (")", "]") and orig[end].rstrip().endswith(("{", ":")):
            end = block_end(orig, end, level)   # (a signature's closing line: its body is the block too)
        inside = [x for x in items if head(x) <= end]
        if inside:
            return level, inside
    return 0, items


def leave_block(orig: list[str], heads: list[int], cands: list, pos: int, marker_before: int) -> bool:
    """A fragment's candidates all end outside the innermost block around the indented marker before
    it that has any of its first line's places (heads): it ends that block (anchors.anchor)."""
    return inner_level(orig, heads, pos, marker_before, lambda a: a)[0] > \
        inner_level(orig, cands, pos, marker_before, lambda c: c[2])[0]


def ends_as(orig: list[str], a: int, b: int, shown: list[str]) -> bool:
    """The original lines [a, b) with text are the first of `shown` (stripped lines with text), in order."""
    region = [l.strip() for l in orig[a:b] if l.strip()]
    return region == shown[:len(region)]


def balanced(lines: list[str]) -> bool:
    """The lines open as many brackets as they close."""
    text = "".join(lines)
    return sum(map(text.count, "{([")) == sum(map(text.count, "})]"))


def opener(lines: list[str], i: int) -> str | None:
    """The line that opens the block line i closes (stripped): the nearest line above it at its
    indent with a word in it, none less indented between (None: the block opens above `lines`)."""
    indent = _indent(lines[i])
    for j in range(i - 1, -1, -1):
        if lines[j].strip() and _indent(lines[j]) < indent:
            return None
        if _indent(lines[j]) == indent and _WORD.search(lines[j]):
            return lines[j].strip()
    return None


def closer_opener(lines: list[str]) -> str | None:
    """The line opening the block that the fragment's last line closes, when that line is a closer
    with no word and the fragment opens the block (a region ending with alike closing braces that
    close a block opened by another line is not the same place); None otherwise."""
    last = lines[-1].strip()
    return opener(lines, len(lines) - 1) if last[:1] in ("}", ")", "]") and not _WORD.search(last) else None


def in_new_definition(orig: list[str], lines: list[str], j: int) -> bool:
    """The fragment's line `lines[j]` lies in the body of a definition the fragment brings and the
    file does not have (by name), at any depth: new code, which may well repeat a line the file has
    elsewhere (a method `union` of a new `impl ItemsView` ends as the file's `union` does)."""
    level = _indent(lines[j])
    for h in range(j - 1, -1, -1):            # the blocks around it, innermost first
        if lines[h].strip() and _indent(lines[h]) < level:
            ident = header_name(lines[h]) or type_name(lines[h])    # (a type alias: trpc's `type A = B & {`)
            if ident and ident not in _NOT_NAMES and \
                    not any(ident in o and ident in (header_name(o), type_name(o)) for o in orig):   # (cheap first)
                return True
            level = _indent(lines[h])
    return False


_EXIT = re.compile(r"(?:return|raise|throw)\b")
UNREACHABLE_WHY = "the block's old last lines: unreachable after the snippet's new last statement"
MOVED_WHY = "the block's old last lines: the snippet moved them up"


def old_tail(orig: list[str], lines: list[str], a: int, b: int, marker_after: int) -> tuple[int, str] | None:
    """A fragment that stops inside a block, before a less indented marker, leaves the block's old
    lines after its region in place.  When the fragment's last statement leaves the block (`return`,
    `raise`, `throw`) those lines could never run: (the end of the last of them, UNREACHABLE_WHY).
    When each of them is a line the fragment brings once more than its region has, the snippet moved
    them up and the merge would have them twice: (that end, MOVED_WHY).  At most four lines, no
    definition among them; else None."""
    last = max((j for j, l in enumerate(lines) if l.strip()), default=None)
    if last is None:
        return None
    depth = _indent(lines[last])
    if marker_after >= depth:
        return None
    start = next((j for j in range(last, -1, -1) if lines[j].strip() and _indent(lines[j]) == depth and
                  lines[j].strip()[0] not in ")]}"), None)
    tail = [j for j in range(b + 1, block_end(orig, b, depth)) if orig[j].strip()]
    if not tail or len(tail) > 4 or any(header_name(orig[j]) for j in tail):
        return None
    if start is not None and _EXIT.match(lines[start].strip()):
        return tail[-1], UNREACHABLE_WHY
    brought = Counter(l.strip() for l in lines) - Counter(l.strip() for l in orig[a:b + 1])
    if all(_WORD.search(orig[j]) for j in tail) and not Counter(orig[j].strip() for j in tail) - brought:
        return tail[-1], MOVED_WHY
    return None


def reachable(orig: list[str], lines: list[str], cands: list) -> list:
    """Of several candidates (score, head, tail) for a fragment whose first line is a closing one
    and that has a line with words at that line's depth after it, in the same block: those whose
    head does not end a statement that leaves the block (`return (`, `throw new Error(`), where that
    line could never run; all of them when none is left or the fragment is not so."""
    mine = _indent(lines[0])
    nxt = next((l for l in lines[1:] if l.strip() and (_indent(l) < mine or _WORD.search(l) and
                                                        _indent(l) == mine)), None)
    if lines[0].strip()[:1] not in ")]}" or nxt is None or _indent(nxt) < mine:
        return cands                  # (no such line before the fragment leaves the block)
    return [c for c in cands if not _ends_exit(orig, c[1])] or cands


def _ends_exit(orig: list[str], a: int) -> bool:
    """Line `a`, a closing one, ends a statement whose first line (at its depth, not a closing one)
    is a `return`, `raise` or `throw`."""
    depth = _indent(orig[a])
    for j in range(a - 1, -1, -1):
        t = orig[j].strip()
        if t and _indent(orig[j]) < depth:
            return False
        if t and _indent(orig[j]) == depth and t[0] not in ")]}":
            return _EXIT.match(t) is not None
    return False


def chance_tail(orig: list[str], lines: list[str], frame: int) -> bool:
    """The fragment's last `frame` lines (anchors.FRAME) hold one line with words, inside a
    definition the fragment brings and the file does not have: where the file has them too, that is
    chance, not a frame (a new `impl ItemsView` whose last method ends `Ok(HashTrieSetPy { inner })`,
    `}`, `}` as an old impl does, 200 lines further on)."""
    tail = range(max(0, len(lines) - frame), len(lines))
    worded = [j for j in tail if _WORD.search(lines[j])]
    return len(worded) == 1 and in_new_definition(orig, lines, worded[0])


def runs_in(orig: list[str], seq: list[str], most: int) -> int:
    """How many times the file has the lines `seq` (stripped) in a row, counted up to `most` + 1
    (a run found once anchors a region explicitly; qs's tests each end with a blank line,
    `st.end();` and `});`, fifteen times: a fragment ending so is framed by chance)."""
    hits = 0
    for j in range(len(orig) - len(seq) + 1):
        if orig[j].strip() == seq[0] and all(orig[j + t].strip() == seq[t] for t in range(1, len(seq))):
            hits += 1
            if hits > most:
                break
    return hits


def ends_block(orig: list[str], b: int, indent: int) -> bool:
    """The file's first line with text after line `b` is indented `indent` or less (or there is
    none): a region ending at `b` ends its block there, as new lines less indented after it say."""
    nxt = next((l for l in orig[b + 1:] if l.strip()), None)
    return nxt is None or _indent(nxt) <= indent


def leads_to(orig: list[str], cands: list[tuple[int, int, int]], first: str, indent: int) -> list[tuple[int, int, int]]:
    """The one candidate after which the next fragment's first line comes under the marker between
    them (no line less indented than the marker before it: `def __init__(` shown in several classes,
    a marker in its body, then a line found in one class's `__init__` only), else the one after which
    it comes at all (the same call shown twice, each with its own new line); else all of them."""
    want = first.rstrip()
    at = [j for j, l in enumerate(orig) if l.rstrip() == want]      # where that line is

    def follows(end: int, strict: bool) -> bool:
        j = next((j for j in at if j > end), None)
        return j is not None and not (strict and any(l.strip() and _indent(l) < indent for l in orig[end + 1:j]))
    for strict in (True, False):
        led = [c for c in cands if follows(c[2], strict)]
        if len(led) == 1:
            return led
    return cands


def doubled_edge(orig: list[str], lines: list[str], pos: int, a: int, b: int) -> int | None:
    """The file line that the region [a, b] leaves out and the merged file would have twice (see
    the module's docstring), or None."""
    want, file = _strip(lines), _strip(orig)
    n = len(want)
    k = 0                               # weak last lines
    while k < n - 1 and not _WORD.search(want[n - 1 - k]):
        k += 1
    if k and want.count(want[n - 1 - k]) == 1 and not in_new_definition(orig, lines, n - 1 - k):
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


def header_name(line: str) -> str | None:
    """The name a definition's header line defines (_HEADER), or None."""
    m = _HEADER.match(line)
    return m and (m.group(1) or m.group(2))


def type_name(line: str) -> str | None:
    """The name a type alias defines (`export type X = ...`)."""
    m = re.match(r"\s*(?:export\s+)?type\s+([A-Za-z_$][\w$]*)", line)
    return m.group(1) if m else None


_ARROW = re.compile(r"\s*(?:(?:export\s+)?(const|let|var)\s+|(?:(?:public|private|protected|static|readonly)\s+)*)"
                    r"([A-Za-z_$][\w$]*)\s*(?::\s*[^=]+)?=\s*(?:async\s*)?(?:<[^=]*>\s*)?(?:\([^)]*\)?|function\b)")


def same(a: str, b: str) -> bool:
    """The two lines are alike but for trailing whitespace."""
    return a.rstrip() == b.rstrip()


def definition_name(line: str) -> str | None:
    """The name a definition's header line defines (header_name, arrow_name), not a keyword."""
    name = header_name(line) or arrow_name(line)
    return name if name not in _NOT_NAMES else None


def arrow_name(line: str) -> str | None:
    """The name a function written as a value defines (`export const f = (x) => ...`; a class field's
    with the arrow on its line: `emit: EmitFn = (event) => {`)."""
    m, ends = _ARROW.match(line), line.rstrip().endswith(("(", ","))
    return m.group(2) if m and ("=>" in line or m.group(1) and ("function" in line or ends)) else None


def defined_name(line: str) -> str | None:
    """The name a line defines: a definition's header, a type alias, a function written as a value."""
    return header_name(line) or type_name(line) or arrow_name(line)


def redefined(orig: list[str], lines: list[str], pos: int, a: int = 0, b: int = -1,
              reader=header_name) -> list[int]:
    """Definition headers of the file (after `pos`, outside [a, b]) whose name the fragment defines
    too at the same depth, not inside a definition the fragment opens (a class of its own), each name
    defined once in the fragment and once in the block the region is in (the file, for no region):
    the merged file would define it twice (the region kept the old definition and the fragment brings
    the new one).  `reader`: the name a line defines (header_name, or defined_name to count type
    aliases and functions written as values)."""
    shown: Counter[str] = Counter()
    depth: dict[str, int] = {}
    opened: list[int] = []                # depths of the headers the fragment shows
    for l in lines:
        n = reader(l)
        if not n or n in _NOT_NAMES:
            continue
        if not any(d < _indent(l) for d in opened):
            shown[n] += 1
            depth[n] = _indent(l)
        opened.append(_indent(l))
    if not shown:
        return []
    at: dict[str, list[int]] = {}
    blocks = {d: _enclosing(orig, a, d) for d in set(depth.values())} if b >= a else {}
    for j, l in enumerate(orig):
        n = reader(l)
        if n in shown and (not blocks or blocks[depth[n]][0] < j < blocks[depth[n]][1]):
            at.setdefault(n, []).append(j)
    return sorted(js[0] for n, js in at.items() if shown[n] == 1 and len(js) == 1 and pos <= js[0] and
                  not a <= js[0] <= b and _indent(orig[js[0]]) == depth[n])


def _enclosing(orig: list[str], a: int, depth: int) -> tuple[int, int]:
    """(header, end) around the definition's block, as deep as `depth`, that line a is in: the lines
    strictly between are that class's or impl's (another one's methods aside); the whole file when
    that block is not a definition's (a call's: `test(..., () => {`)."""
    lo = next((i for i in range(a - 1, -1, -1) if orig[i].strip() and _indent(orig[i]) < depth), -1)
    return (lo, block_end(orig, lo, depth)) if depth and lo >= 0 and definition_name(orig[lo]) else (-1, len(orig))


def doubled_run(orig: list[str], lines: list[str], pos: int, a: int, b: int) -> list[int]:
    """The place of the fragment's first (last) two lines, both with words, found together once in
    the file after `pos` and outside the region [a, b]: the merged file would have them twice."""
    want, file = _strip(lines), _strip(orig)
    out: list[int] = []
    for run, at_end in ((want[:2], False), (want[-2:], True)):
        if len(want) < 4 or not all(_WORD.search(t) for t in run) or \
                at_end and in_new_definition(orig, lines, len(want) - 2):
            continue
        at = [j for j in range(len(file) - 1) if file[j] == run[0] and file[j + 1] == run[1]]
        if len(at) == 1 and pos <= at[0] and not a <= at[0] <= b and not a <= at[0] + 1 <= b:
            out += [at[0], at[0] + 1]
    return out


def repeated_head(orig: list[str], lines: list[str], a: int, b: int, frame: int) -> int | None:
    """The first later place inside the region [a, b] where the file has the fragment's first
    `frame` lines again (with a word among them), not all kept by the region: the region takes
    the head at the earlier copy and deletes the later one, which the fragment's head fits as well.
    None when the region rewrites every line it drops (_rewrites: nothing deleted silently)."""
    want, region = _strip(lines), _strip(orig[a:b + 1])
    head = want[:frame]
    if len(want) <= frame or not any(_WORD.search(t) for t in head):
        return None
    found = None
    for j in range(1, len(region) - frame + 1):
        if region[j:j + frame] == head:
            found = matching_blocks(region, want) if found is None else found
            if not all(j + i in found[1] for i in range(frame)):
                return None if _rewrites(region, want, *found) else a + j
    return None


# a typed parameter, an assignment: not usage._PARAM, which also reads a block's `try:` / `else:` as one
def reads_as_code(ident: str, line: str) -> bool:
    """The header line reads as code, not prose ("function is to ..." in a docstring): its name is
    followed by a parameter list, type parameters, a body, a type, or Go's `struct`/`interface`."""
    return re.search(rf"(?<![\w$]){re.escape(ident)}(?:\s*[(<{{:;=]|\s+(?:struct|interface)\b)", line) is not None


def defines_name(ident: str, lines: list[str]) -> bool:
    """Some line of the fragment defines `ident`: a definition's header, a declaration, a member."""
    member = re.compile(r"\s*(?:(?:public|private|protected|static|readonly|async|get|set)\s+)*"
                        rf"{re.escape(ident)}\s*[(:=<]")
    if any(header_name(l) == ident or declared(l) == ident or member.match(l) for l in lines):
        return True
    importing = False                 # ... or imports it (the definition moved to another module)
    for l in lines:
        t = l.strip()
        importing = importing or IMPORT_LINE.match(l) is not None
        if importing and shows(ident, l):
            return True
        importing = importing and t.endswith(("{", ",", "("))
    return False


def matching_blocks(region: list[str], want: list[str]) -> tuple[list, set[int]]:
    """The runs of stripped lines that a region and a fragment share in order (difflib's), and the
    region's lines in them (kept)."""
    blocks = difflib.SequenceMatcher(None, region, want, autojunk=False).get_matching_blocks()
    return blocks, {i for m in blocks for i in range(m.a, m.a + m.size)}


def replaces(orig: list[str], lines: list[str], a: int, b: int) -> bool:
    """The region agrees with the fragment somewhere, and every line it drops has a like line among
    the fragment's new ones (a replacement, not a deletion)."""
    region, want = _strip(orig[a:b + 1]), _strip(lines)
    return _rewrites(region, want, *matching_blocks(region, want))


def _rewrites(region: list[str], want: list[str], blocks: list, kept: set[int]) -> bool:
    """replaces, given the stripped lines and their matching_blocks."""
    new = [want[j] for j in set(range(len(want))) - {j for m in blocks for j in range(m.b, m.b + m.size)} if want[j]]
    dropped = [l for i, l in enumerate(region) if l and i not in kept]
    return bool(kept) and len(dropped) <= len(new) and all(
        any(alike(d, n, 0.5) for n in new) for d in dropped)


def used_dropped(orig: list[str], lines: list[str], a: int, b: int, kept: set[int] | None = None):
    """(name, line) of the first definition the region [a, b] drops (not in `kept`, region indices;
    by default those of matching_blocks) whose name the fragment uses but does not define: the new
    lines would call what they remove."""
    if kept is None:
        kept = matching_blocks([l.strip() for l in orig[a:b + 1]], [l.strip() for l in lines])[1]
    shown = "\n".join(lines)
    for i in range(b - a + 1):
        ident = (header_name(orig[a + i]) or type_name(orig[a + i])) if i not in kept else None
        if ident and ident not in _NOT_NAMES and reads_as_code(ident, orig[a + i]) and uses(ident, shown) and \
                not defines_name(ident, lines):
            return ident, a + i
    return None


_CLOSER = re.compile(r"\s*[)\]}]+[;,)]*\s*$")


def closing_head(orig: list[str], heads: list[int], pos: int, line: str, marker_before: int | None) -> list[int]:
    """A lone closing line (`}`) after a marker indented deeper than it closes the block that the
    marker is in: of its places, the file's first line after `pos` as little indented as it, when
    that is one of them (mapBuilders.ts: an interface's `}` after `  // ... existing code ...`,
    another interface's `}` later in the file, a JSDoc example at column 0 between); else all of them."""
    if len(heads) < 2 or marker_before is None or marker_before <= _indent(line) or not _CLOSER.match(line):
        return heads
    end = block_end(orig, pos - 1, _indent(line) + 1, comments=True)
    return [end] if end in heads else heads


def collapsed(region: list[str], kept: set[int], new: list[str]) -> set[int]:
    """Dropped lines that are the arguments of a call (a bracket's lines) which a new line writes
    on one line: `PyObjectSerializer::new(` / five argument lines / `);` become one line starting
    as the first did (a formatter joins them when they got shorter); or a block whose opening line
    a like new line opens again (`pub struct NumpySerializer {` -> `pub struct NumpySerializer<'a> {`,
    its fields rewritten): rewritten, not deleted."""
    out: set[int] = set()
    for i, line in enumerate(region):
        t = line.strip()
        if i in kept or not t.endswith(("(", "[", "{")) or len(t) < 8 or not any(
                n.startswith(t) and len(n) > len(t) + 1 or n != t and n[-1] == t[-1] and alike(n, t, 0.7) for n in new):
            continue
        close = block_end(region, i, _indent(line) + 1)
        if close < len(region) and region[close].strip()[0] in ")]}" and \
                all(k not in kept for k in range(i + 1, close)):
            out.update(range(i, close + 1))
    return out
