"""Where a synthetic edit can happen (model/edit_data.py's generators use these): the scan of a
file's window for identifiers, literals and attribute paths by line (tree-sitter where a grammar
exists, lsp_server/engine/syntax/languages.py, else regexes), line-level sites and the user's steps through
them, and new names and literal values that look like a programmer's."""
from __future__ import annotations

import builtins
import keyword
import random
import re
from dataclasses import dataclass
from functools import lru_cache

from redraft.model.edits import Step

# names never chosen as a propagation's identifier nor as a statement's variable
_SKIP_NAMES = set(dir(builtins)) | set(keyword.kwlist) | {"self", "cls", "this", "_", "true", "false", "nil", "null"}


_WORDS = ("value item count total index result data name key path node size offset buffer config state items "
          "entry record target source options params context handler parser token text line label limit "
          "timeout prefix suffix width height flags mode level score weight parent child header body").split()
_ABBR = {"number": "num", "index": "idx", "count": "cnt", "value": "val", "message": "msg", "string": "str",
         "temporary": "tmp", "length": "len", "config": "cfg", "context": "ctx", "request": "req",
         "response": "resp", "result": "res", "argument": "arg", "parameter": "param", "directory": "dir"}
_ABBR.update({v: k for k, v in list(_ABBR.items())})
_COMMENT = {"python": "#"}
_NODES = {  # names, attribute names, literals, attribute paths
    "python": ({"identifier"}, set(), {"integer", "float", "string"}, {"attribute"}),
    "javascript": ({"identifier", "shorthand_property_identifier"}, {"property_identifier"}, {"number", "string"},
                   {"member_expression"}),
    "rust": ({"identifier"}, {"field_identifier"}, {"integer_literal", "float_literal", "string_literal"},
             {"field_expression"}),
    "go": ({"identifier"}, {"field_identifier"}, {"int_literal", "float_literal", "interpreted_string_literal"},
           {"selector_expression"}),
}
_NODES["typescript"] = _NODES["typescriptreact"] = _NODES["javascript"]
_PATH = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$")


@dataclass


class Site:          # one line-level change: lines [r0, r1) of the original become `new`
    r0: int
    r1: int
    new: list[str]
    cur: tuple[int, int]   # cursor after it: (line within `new`, column)


@dataclass
class Scan:
    lines: list[str]
    names: dict        # (text, "name" | "attr") -> [(row, c0, c1)]
    literals: dict     # text -> [(row, c0, c1)]
    paths: dict        # text -> [(row, c0, c1)]
    calls: dict        # callee text -> [(row, column of "(", column of ")")]: one-line argument lists

    @property
    def taken(self) -> set[str]:
        return {n for n, _ in self.names}


# ----------------------------------------------------------------------------- scanning

@lru_cache(maxsize=4)
def scan(text: str, lang: str = "python") -> Scan:
    lines = text.split("\n")
    names, literals, paths, calls = {}, {}, {}, {}
    try:
        from redraft.engine.syntax.languages import language_for
        lg = language_for(lang)
    except ImportError:
        lg = None
    if lg is None or lang not in _NODES:
        return _scan_regex(lines, lang)
    ident, attr, lit, path = _NODES[lang]
    root = lg.parser().parse(text.encode("utf-8")).root_node

    def col(row: int, byte: int) -> int:
        s = lines[row]
        return byte if s.isascii() else len(s.encode("utf-8")[:byte].decode("utf-8", "ignore"))

    def add(d, key, n):
        (r, b0), (r1, b1) = n.start_point, n.end_point
        if r == r1 and r < len(lines):
            d.setdefault(key, []).append((r, col(r, b0), col(r, b1)))

    stack = [root]
    while stack:
        n = stack.pop()
        t = n.type
        if (t in ident or t in attr) and n.end_byte > n.start_byte:   # not a parser's MISSING node
            p = n.parent
            if p is not None and p.type == "keyword_argument" and p.children[0].start_byte == n.start_byte:
                continue
            is_attr = t in attr or (p is not None and p.type == "attribute" and p.children[-1].start_byte == n.start_byte)
            add(names, (n.text.decode("utf-8", "replace"), "attr" if is_attr else "name"), n)
            continue
        if t in lit:
            add(literals, n.text.decode("utf-8", "replace"), n)
        elif t in path and _PATH.match(n.text.decode("utf-8", "replace")):
            add(paths, n.text.decode("utf-8", "replace"), n)
        elif t in ("call", "call_expression") and len(n.children) >= 2:
            f, args = n.children[0], n.children[-1]
            (r, b0), (r1, b1) = args.start_point, args.end_point
            callee = f.text.decode("utf-8", "replace")
            if r == r1 and r < len(lines) and args.type in ("argument_list", "arguments") and \
                    (callee.isidentifier() or _PATH.match(callee)):
                calls.setdefault(callee, []).append((r, col(r, b0), col(r, b1) - 1))
        stack.extend(reversed(n.children))
    return Scan(lines, names, literals, paths, calls)


def _scan_regex(lines: list[str], lang: str) -> Scan:
    """Without a grammar: words, numbers, quoted strings and dotted paths outside line comments."""
    names, literals, paths, calls = {}, {}, {}, {}
    cm = _COMMENT.get(lang, "//")
    for r, line in enumerate(lines):
        code = line.split(cm, 1)[0]
        for m in re.finditer(r"\"[^\"\\]*\"|'[^'\\]*'|(?<![\w.])\d[\d.]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", code):
            s = m.group()
            if s[0] in "\"'" or s[0].isdigit():
                literals.setdefault(s, []).append((r, m.start(), m.end()))
                continue
            if "." in s:
                paths.setdefault(s, []).append((r, m.start(), m.end()))
            parts = s.split(".")
            pos = m.start()
            for i, part in enumerate(parts):
                names.setdefault((part, "attr" if i else "name"), []).append((r, pos, pos + len(part)))
                pos += len(part) + 1
            if code[m.end():m.end() + 1] == "(" and (c := close_paren(code, m.end())) is not None:
                calls.setdefault(s, []).append((r, m.end(), c))
    return Scan(lines, names, literals, paths, calls)


# ----------------------------------------------------------------------------- sites -> steps

def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(x) + 1 for x in lines[:line]) + col


def apply_sites(lines: list[str], sites: list[Site], order: list[int]) -> list[Step]:
    steps, done, prev = [], set(), "\n".join(lines)
    for idx in order:
        done.add(idx)
        out, i = [], 0
        for j in sorted(done, key=lambda j: sites[j].r0):
            out += lines[i:sites[j].r0] + sites[j].new
            i = sites[j].r1
        out += lines[i:]
        s = sites[idx]
        row = s.r0 + s.cur[0] + sum(len(t.new) - (t.r1 - t.r0) for j, t in enumerate(sites) if j in done and t.r0 < s.r0)
        after = "\n".join(out)
        steps.append((prev, after, _offset(out, row, s.cur[1])))
        prev = after
    return steps


def _order(n: int, rng: random.Random) -> list[int]:
    """Top-down half the time; else from a middle site upward first, or downward first."""
    r = rng.random()
    if n < 2 or r < 0.5:
        return list(range(n))
    s = rng.randrange(1, n)
    if r < 0.75:
        return [s, *range(s - 1, -1, -1), *range(s + 1, n)]
    return [s, *range(s + 1, n), *range(s - 1, -1, -1)]


def _replace_sites(lines: list[str], occs: list[tuple[int, int, int]], new) -> list[Site]:
    """One site per line: every occurrence on it replaced by new(old_text) (or the string new)."""
    rows: dict[int, list] = {}
    for r, c0, c1 in sorted(occs):
        if not rows.get(r) or rows[r][-1][1] <= c0:
            rows.setdefault(r, []).append((c0, c1))
    sites = []
    for r, spans in sorted(rows.items()):
        line, shift, cur = lines[r], 0, None
        for c0, c1 in spans:
            rep = new if isinstance(new, str) else new(line[c0 + shift:c1 + shift])
            line = line[:c0 + shift] + rep + line[c1 + shift:]
            cur = cur if cur is not None else c0 + shift + len(rep)
            shift += len(rep) - (c1 - c0)
        sites.append(Site(r, r + 1, [line], (0, cur)))
    return sites


# ----------------------------------------------------------------------------- new names and values

def _split_words(name: str, camel: bool = False) -> tuple[list[str], str]:
    if camel and name.isalnum() and name.islower():
        return [name], "camel"
    if "_" in name.strip("_") or name.islower() or name.isupper():
        return [w for w in name.split("_") if w], "upper" if name.isupper() and len(name) > 1 else "snake"
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", name)
    return [p.lower() for p in parts] or [name], "pascal" if name[0].isupper() else "camel"


def _join_words(words: list[str], style: str, lead: str) -> str:
    if style == "snake":
        return lead + "_".join(words)
    if style == "upper":
        return lead + "_".join(words).upper()
    s = "".join(w.capitalize() for w in words)
    return lead + (s if style == "pascal" else s[:1].lower() + s[1:])


def new_name(old: str, rng: random.Random, taken: set[str], lang: str = "python") -> str:
    """A plausible new name in old's style (snake, camel, Pascal, UPPER; a one-word lower-case name
    is camelCased outside Python and Rust): a word added or replaced, an abbreviation expanded or
    made, a plural."""
    lead = old[: len(old) - len(old.lstrip("_"))]
    words, style = _split_words(old.lstrip("_") or old, camel=lang not in ("python", "rust"))
    for _ in range(20):
        w, op = list(words), rng.random()
        if op < 0.3:
            w.append(rng.choice(_WORDS))
        elif op < 0.45:
            w.insert(0, rng.choice(_WORDS))
        elif op < 0.75:
            w[rng.randrange(len(w))] = rng.choice(_WORDS)
        elif op < 0.9 and any(x in _ABBR for x in w):
            i = rng.choice([i for i, x in enumerate(w) if x in _ABBR])
            w[i] = _ABBR[w[i]]
        else:
            w[-1] = w[-1][:-1] if w[-1].endswith("s") and len(w[-1]) > 2 else w[-1] + "s"
        cand = _join_words(w, style, lead)
        if cand != old and cand not in taken and cand.isidentifier() and not keyword.iskeyword(cand):
            return cand
    return old + "2"


_STR = re.compile(r"^([rbfuRBFU]{0,2})('|\")(.*)\2$", re.S)


def distinctive(lit: str) -> bool:
    m = _STR.match(lit)
    if m:
        return len(m.group(3)) >= 3 and "\\" not in m.group(3)
    digits = lit.replace("_", "")
    return ("." in digits or len(digits) >= 2) and bool(re.fullmatch(r"\d[\d.]*", digits))


def new_literal(lit: str, rng: random.Random) -> str | None:
    m = _STR.match(lit)
    if m:
        pre, q, body = m.groups()
        words = re.findall(r"[A-Za-z]{3,}", body)
        r = rng.random()
        if r < 0.35 and words:
            w = rng.choice(words)
            body = body.replace(w, rng.choice(_WORDS), 1)
        elif r < 0.55 and body.lower() != body:
            body = body.lower()
        elif r < 0.7 and body.upper() != body:
            body = body.upper()
        else:
            body += rng.choice(["_v2", "_new", "2", "-old", ".bak", "s"])
        return pre + q + body + q
    try:
        if "." in lit:
            x = float(lit.replace("_", ""))
            y = rng.choice([x * 2, x / 2, x + 0.1, x * 10])
            s = f"{y:.6g}"
            return s if ("." in s or "e" in s) else s + ".0"
        x = int(lit.replace("_", ""))
    except ValueError:
        return None
    return str(rng.choice([x + 1, x * 2, x * 10, max(1, x // 2) if x > 2 else x + 2, x - 1 if x > 10 else x + 5]))


def close_paren(s: str, i: int) -> int | None:
    """Index of the bracket closing s[i] on this line (quotes skipped), or None."""
    depth, q = 0, None
    for j in range(i, len(s)):
        c = s[j]
        if q:
            if c == "\\":
                continue
            if c == q:
                q = None
        elif c in "'\"`":
            q = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return None
