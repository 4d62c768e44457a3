"""What the lines that the other reading of a weak edge deletes mean to the edit (apply's merge,
ambiguity.py): the definitions or names they declare that the edit left unused, or the local
names they use whose declaration the edit removed.  Each test gives the reason to refuse, or None."""
from __future__ import annotations

import re

from redraft.engine.apply.definitions import Def, _error_count, _indent, collect_defs

# (collect_defs: every definition, members too)
__all__ = ["dead_definitions", "dead_names", "orphaned_locals", "shows", "declared", "uses"]

_WORD = re.compile(r"\w")
_DECLARES = re.compile(
    r"\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:pub(?:\([\w:]+\))?\s+)?"
    r"(?:(?:async|static|const|unsafe|safe|extern(?:\s+\"[^\"]*\")?)\s+)*"
    r"(?:def|class|function\*?|fn|func|struct|enum|trait|interface|type|const|let|var)\s+([A-Za-z_$][\w$]*)")
_PARAM = re.compile(r"\s*(?:pub(?:\([\w:]+\))?\s+)?(?:(?:readonly|private|public|protected|mut)\s+)*"
                    r"([A-Za-z_$][\w$]*)\??\s*(?::(?!:)|=(?![=>]))")


def declared(line: str) -> str | None:
    """The name a declaration line declares (`def`, `class`, `const`, `fn`, `type` ...), or None."""
    m = _DECLARES.match(line)
    return m.group(1) if m else None


def _word(name: str, member: bool = False) -> str:
    """`name` as a word (`x.name` only for a member: another object's otherwise)."""
    return rf"(?<![\w${'' if member else '.'}]){re.escape(name)}(?![\w$])"


def uses(name: str, text: str, member: bool = False) -> int:
    """Occurrences of `name` as a word (`x.name` only for a member: another object's otherwise)."""
    return len(re.findall(_word(name, member), text))


def shows(name: str, text: str) -> bool:
    """Whether `text` has `name` as a word anywhere (`x.name` too)."""
    return re.search(_word(name, member=True), text) is not None


def _nested(lang, orig: list[str], lo: int, hi: int, k: int, head: bool) -> list[Def]:
    """The definitions in the deleted lines [lo, hi) when the file's definitions do not tell (they
    are nested in a function's body): the deleted lines parsed on their own.  The k weak lines at
    one end of [lo, hi) equal those just past its other end, so the deletion may as well be shifted
    by up to k lines (later for a weak head, earlier for a weak tail): the first shift that parses
    without an error and holds definitions; their lines as the file's."""
    for j in range(k + 1):
        a, b = (lo + j, hi + j) if head else (lo - j, hi - j)
        seg = orig[a:b]
        if not any(l.strip() for l in seg):
            continue
        base = min(_indent(l) for l in seg if l.strip())
        seg = [l[base:] if l.strip() else "" for l in seg]
        if _error_count(lang, "\n".join(seg)):
            continue
        found = collect_defs(lang, seg)
        if found:
            for d in found:
                d.start, d.end, d.comment_start = d.start + a, d.end + a, d.comment_start + a
            return found
    return []


def dead_definitions(lang, orig: list[str], out: list[str], defs: list[Def], span, k: int, lo: int, hi: int):
    """(reason, found): the reason when the deleted lines hold whole definitions, each used outside
    itself in the file but in the merged file `out` nowhere but in itself (the edit removed their
    last use); found: whether they hold definitions at all."""
    s, e, _, _, name, _ = span
    inside = [d for d in defs if s <= d.start < e] or _nested(lang, orig, lo, hi, k, s == span[2])
    if not inside:
        return None, False
    if any(d.end >= e + k for d in inside):   # a definition may end on the other reading's weak lines
        return None, True
    top = [d for d in inside if not any(p is not d and p.start <= d.start and d.end <= p.end for p in inside)]
    whole, result = "\n".join(orig), "\n".join(out)
    for d in top:                             # uses inside the span go with it
        m = d.parent is not None
        own = uses(d.name, "\n".join(orig[min(s, d.comment_start):max(e + k, d.end + 1)]), m)
        if uses(d.name, whole, m) <= own or uses(d.name, result, m) > own:
            return None, True                 # unused already, or still used: keeping it is the reading
    d = top[0]
    return (f"{name}: its lines without words next to the marker fit two places: before `{d.name}` (lines "
            f"{d.start + 1}-{d.end + 1}), which nothing uses after this edit, or after it, deleting it; show a "
            "line past it or mark it with `... existing code ...`"), True


def _declared(lines: list[str]) -> list[str]:
    """The names that the outermost lines of `lines` (those least indented among lines with words)
    declare: definitions, variables, parameters and fields (`name: type`, `name = value`)."""
    words = [l for l in lines if _WORD.search(l)]
    if not words:
        return []
    top = min(_indent(l) for l in words)
    found = (_DECLARES.match(l) or _PARAM.match(l) for l in words if _indent(l) == top)
    return list(dict.fromkeys(m.group(1) for m in found if m))


def _code_uses(lang, text: str, names=None) -> list[tuple[int, str]]:
    """(line, name) for each identifier in code (not in a comment or a string, nor `x.name`), of
    `names` only when given."""
    out: list[tuple[int, str]] = []
    stack = [lang.parser().parse(text.encode("utf-8")).root_node]
    while stack:
        n = stack.pop()
        if "comment" in n.type:
            continue
        if "string" in n.type:          # only an interpolation in a string is code
            stack.extend(c for c in n.children if c.type in ("interpolation", "template_substitution"))
            continue
        if n.child_count:
            stack.extend(n.children)
        elif n.type.endswith("identifier") and n.type not in ("property_identifier", "field_identifier"):
            word = n.text.decode("utf-8", "replace")
            prev = n.prev_sibling
            if (names is None or word in names) and (prev is None or prev.type != "."):
                out.append((n.start_point[0], word))
    return out


def dead_names(lang, orig: list[str], out: list[str], lo: int, hi: int, name: str,
               defs: list[Def] | None = None) -> str | None:
    """The deleted lines [lo, hi) hold no whole definition but declare names (parameters, fields,
    variables), each used in the file's code outside them and in the merged file's nowhere but in
    them: the edit removed their last use.  Lines in a function's body (`defs`: the file's
    definitions) declare its locals: their uses are counted in that function, before and after."""
    names = _declared(orig[lo:hi])
    if not names:
        return None
    before = _code_uses(lang, "\n".join(orig), names)
    after = _code_uses(lang, "\n".join(out), names)
    around = [d for d in defs or () if d.members is None and d.start < lo and hi <= d.end]
    if around:                        # the innermost function around them, and the same one merged
        d = max(around, key=lambda d: d.start)
        now = [m for m in collect_defs(lang, out) if m.key == d.key and m.parent == d.parent]
        if len(now) != 1:
            return None
        m = now[0]
        before = [(r, w) for r, w in before if d.start <= r <= d.end]
        after = [(r, w) for r, w in after if m.start <= r <= m.end]
    own = [w for r, w in before if lo <= r < hi]
    for w in names:
        if not any(x == w and not lo <= r < hi for r, x in before) or sum(1 for _, x in after if x == w) > own.count(w):
            return None
    return (f"{name}: its lines without words next to the marker fit two places: before lines {lo + 1}-{hi} "
            f"(declaring `{names[0]}`, which nothing uses after this edit), or after them, deleting them; show a "
            "line past them or mark them with `... existing code ...`")


def orphaned_locals(lang, orig: list[str], out: list[str], defs: list[Def], lo: int, hi: int, name: str,
                    memo: dict | None = None) -> str | None:
    """The deleted lines [lo, hi) lie in a function's body and use a name that the function declares
    (`const x =`, `let x`, `x =`, `x :=`) outside them, and that the merged function mentions
    nowhere but in them: the edit removed its declaration, so the lines kept with it belong to the
    code the edit rewrote.  `memo`: what one merge's calls share (the parses of both files)."""
    memo = {} if memo is None else memo
    around = [d for d in defs if d.members is None and d.start < lo and hi <= d.end]
    if not around:
        return None
    d = max(around, key=lambda d: d.start)
    if "defs" not in memo:
        memo["defs"] = collect_defs(lang, out)
        memo["before"], memo["after"] = {}, {}
        for key, text in (("before", orig), ("after", out)):
            for r, w in _code_uses(lang, "\n".join(text)):
                memo[key].setdefault(w, []).append(r)
    now = [m for m in memo["defs"] if m.key == d.key and m.parent == d.parent]
    if len(now) != 1:
        return None
    m, before = now[0], memo["before"]
    inside = sorted({w for w, rows in before.items() if any(lo <= r < hi for r in rows)})
    for w in inside:
        e = re.escape(w)
        decl = re.compile(rf"(?:\b(?:const|let|var|mut)\s+{e}\b|(?<![\w$.]){e}\s*(?::=|=(?![=>])))")
        if not any(d.start <= r <= d.end and not lo <= r < hi and decl.search(orig[r]) for r in before[w]):
            continue
        kept = sum(1 for r in before[w] if lo <= r < hi)
        if sum(1 for r in memo["after"].get(w, ()) if m.start <= r <= m.end) <= kept:
            return (f"{name}: its lines without words next to the marker fit two places: before lines {lo + 1}-{hi}, "
                    f"which use `{w}`, whose declaration this edit removes, or after them, deleting them; show a "
                    "line past them or mark them with `... existing code ...`")
    return None
