"""Synthetic edit sequences for next-edit prediction (the format: model/edits.py; where edits can
happen, and new names and values: model/edit_sites.py).

Each generator takes (text, rng, lang) and returns the user's steps `(text before, text after,
cursor offset after)` in the order the user makes them (a step with before == after is a move of
the cursor), or None where the file offers nothing for it. `case_from_steps` (model/edits.py) cuts
one case from them: the first k steps are the history, the rest is what is due.

Propagations (the same change at several places; sites are whole lines, identifiers found by
tree-sitter, lsp_server/engine/syntax/languages.py, so strings and comments are left alone):
- rename: an identifier (or attribute name) used >= 3 times in the window, renamed line by line;
- literal: a distinctive literal (a number of 2+ digits, a float, a string of 3+ characters) or a
  dotted attribute path on 2+ lines, changed on each;
- param (Python, JavaScript): a parameter added to (or an unused one removed from) a one-line
  `def` and the matching argument at every call site, the user moving near each call first;
- wrap: parallel lines (same indent, same shape of right-hand side, not a bare constant) whose
  value gets wrapped (`int(x)`, `str(x)`, ...);
- kwarg (Python): a keyword argument added to every one-line call of one callee (not a builtin);
- decorator (Python): a decorator added above each undecorated def of one indentation level.
The order is top-down half the time, else from a middle site upward first or downward first, so
the next edit is below the cursor, above it, or out of the region (a jump).
- fill: a propagation where the user has typed part of the next site (the history's last edit
  is the partial line, the cursor after the typed characters); the target completes it.
Silence ("noise": nothing is due): noise_none (no edits, the cursor somewhere), noise_done (a
propagation carried out everywhere, the cursor left there or moved), noise_comment (a comment
edited or added), noise_line (a new statement: a print, an assert, a TODO), noise_single (a
literal found once in the window changed); all but noise_done are in model/edit_noise.py.

KINDS gives each kind's share of the training cases: 30% silence by construction, and the
jumps' halves trained as silence (model/edits.py case_examples) bring the rows whose answer is the
region unchanged to ~40%. A propagation's case is one whose next edit lies in the region
NEAR_SHARE of the time where it has one. Measured on the held-out split (1,500 rows of
edit_stream's draw, seed 1): 31% noise, 26% below, 10% above, 12% fill-in, 22% jump; 41% of the
rows' answers are the region unchanged; ~240 rows/s on one core (FIM rows: ~1,900/s).
"""
from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Iterator

from redraft.model.edit_noise import gen_noise_comment, gen_noise_line, gen_noise_none, gen_noise_single
from redraft.model.edit_sites import close_paren, Site, scan, _offset, apply_sites, _order, _replace_sites, new_name, distinctive, new_literal, _SKIP_NAMES, _WORDS, _COMMENT
from redraft.model.edits import Step, EditCase, case_examples, case_from_steps, line_hunk

if TYPE_CHECKING:
    from redraft.model.data import Example
    from redraft.model.tokenizer import Tokenizer

KINDS = {"rename": 0.21, "literal": 0.12, "param": 0.08, "wrap": 0.07, "kwarg": 0.07, "decorator": 0.03,
         "fill": 0.12, "noise_none": 0.07, "noise_done": 0.09, "noise_comment": 0.05, "noise_line": 0.05,
         "noise_single": 0.04}
NEAR_SHARE = 0.7     # a propagation's case is one whose next edit is in the region this often (if it has one)
WINDOW_LINES = 150   # cases are cut from a window of the file (the model's context sees ~40 lines of it)



# ----------------------------------------------------------------------------- propagations

def _rows(occs) -> int:
    return len({o[0] for o in occs})


def gen_rename(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    sc = scan(text, lang)
    groups = [(k, o) for k, o in sc.names.items()
              if len(o) >= 3 and _rows(o) >= 2 and k[0] not in _SKIP_NAMES and not k[0].startswith("__")]
    if not groups:
        return None
    (old, _), occs = rng.choice(groups)
    sites = _replace_sites(sc.lines, occs, new_name(old, rng, sc.taken, lang))
    return apply_sites(sc.lines, sites, _order(len(sites), rng))


def gen_literal(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    sc = scan(text, lang)
    lits = [("lit", t, o) for t, o in sc.literals.items() if _rows(o) >= 2 and distinctive(t)]
    paths = [("path", t, o) for t, o in sc.paths.items() if _rows(o) >= 2]
    cands = lits + paths
    if not cands:
        return None
    what, old, occs = rng.choice(cands)
    if what == "lit":
        new = new_literal(old, rng)
    else:
        parts = old.split(".")
        lo = 1 if parts[0] in ("self", "this", "cls") or len(parts) == 2 else 0
        i = len(parts) - 1 if rng.random() < 0.6 else rng.randrange(lo, len(parts))
        parts[i] = new_name(parts[i], rng, sc.taken, lang)
        new = ".".join(parts)
    if not new or new == old:
        return None
    sites = _replace_sites(sc.lines, occs, new)
    return apply_sites(sc.lines, sites, _order(len(sites), rng))


def split_args(s: str) -> list[str]:
    out, depth, cur, q = [], 0, "", None
    for c in s:
        if q:
            q = None if c == q else q
        elif c in "'\"":
            q = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0 and not q:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return out + [cur.strip()] if cur.strip() or out else out


_DEF = {"python": re.compile(r"^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\("),
        "javascript": re.compile(r"^(\s*)(?:export\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(")}
_PLAIN = re.compile(r"^[A-Za-z_$][\w$]*$")


def _moves_near(lines: list[str], row: int, rng: random.Random) -> int:
    """A line near `row` (1-3 above or 1-2 below) where the user puts the cursor before editing it."""
    d = rng.choice([-3, -2, -1, -1, 1, 2])
    return min(max(0, row + d), len(lines) - 1)


def gen_param(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    if lang not in _DEF:
        return None
    sc = scan(text, lang)
    lines = sc.lines
    defs = []
    for r, line in enumerate(lines):
        m = _DEF[lang].match(line)
        if m and (c := close_paren(line, m.end() - 1)) is not None:
            params = split_args(line[m.end():c])
            if all(_PLAIN.match(p) for p in params) and ", ".join(params) == line[m.end():c]:
                defs.append((r, m, c, params))
    rng.shuffle(defs)
    for r, m, c, params in defs:
        name, indent = m.group(2), len(m.group(1))
        method = lang == "python" and params[:1] in (["self"], ["cls"])
        calls, seen = [], set()
        for callee, occ in sc.calls.items():
            if callee != name and not callee.endswith("." + name):
                continue
            shift = 1 if method and "." in callee else 0
            for cr, o, cc in occ:
                args = split_args(lines[cr][o + 1:cc])
                if len(args) != len(params) - shift or any("=" in a or a.startswith("*") for a in args) \
                        or ", ".join(args) != lines[cr][o + 1:cc]:
                    calls = None
                    break
                if cr not in seen:
                    seen.add(cr)
                    calls.append((cr, o + 1, cc, args, shift))
            if calls is None:
                break
        if not calls:
            continue
        calls.sort()
        body_end = next((i for i in range(r + 1, len(lines)) if lines[i].strip() and
                         len(lines[i]) - len(lines[i].lstrip()) <= indent), len(lines))
        body = "\n".join(lines[r + 1:body_end])
        removable = [i for i, p in enumerate(params) if not (method and i == 0)
                     and not re.search(r"(?<![\w$])" + re.escape(p) + r"(?![\w$])", body)]
        if removable and rng.random() < 0.4:
            i = rng.choice(removable)
            new_params = params[:i] + params[i + 1:]
            edit = lambda args, shift: args[:i - shift] + args[i - shift + 1:]
        else:
            p = next((w for w in rng.sample(_WORDS, len(_WORDS)) if not re.search(rf"\b{w}\b", text)), None)
            if not p:
                continue
            new_params = params + [p]
            edit = lambda args, shift: args + [p]
        dl = lines[r][:m.end()] + ", ".join(new_params) + lines[r][c:]
        sites = [Site(r, r + 1, [dl], (0, m.end() + len(", ".join(new_params))))]
        for cr, a0, cc, args, shift in calls:
            inner = ", ".join(edit(args, shift))
            sites.append(Site(cr, cr + 1, [lines[cr][:a0] + inner + lines[cr][cc:]], (0, a0 + len(inner))))
        steps = apply_sites(lines, sites, [0])
        for k in range(1, len(sites)):
            if rng.random() < 0.6:  # the user moves near the call first
                cur = steps[-1][1]
                cl = cur.split("\n")
                row = _moves_near(cl, sites[k].r0, rng)
                if row != sites[k].r0:
                    steps.append((cur, cur, _offset(cl, row, len(cl[row]) - len(cl[row].lstrip()))))
            steps += apply_sites(lines, sites, list(range(k + 1)))[-1:]
        return steps
    return None


_ASSIGN = {
    "python": re.compile(r"^(\s*(?:return\s+|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?::\s*[\w\[\], .]+)?=(?!=)\s*))(.+?)(\s*)$"),
    "javascript": re.compile(r"^(\s*(?:return\s+|(?:const|let|var)\s+[A-Za-z_$][\w$]*\s*(?::\s*[^=]+)?=\s*|"
                             r"[A-Za-z_$][\w$.]*\s*=(?!=)\s*))(.+?)(;?\s*)$"),
    "rust": re.compile(r"^(\s*(?:let\s+(?:mut\s+)?[a-z_]\w*\s*(?::\s*[^=]+)?=\s*|return\s+))(.+?)(;\s*)$"),
    "go": re.compile(r"^(\s*(?:[A-Za-z_]\w*\s*:?=\s*|return\s+))(.+?)(\s*)$"),
}
_ASSIGN["typescript"] = _ASSIGN["typescriptreact"] = _ASSIGN["javascript"]
_WRAPS = {
    "python": ["int({})", "str({})", "float({})", "list({})", "tuple({})", "bool({})", "len({})", "repr({})",
               "sorted({})", "abs({})", "set({})", "{}.strip()", "{}.lower()", "{}.copy()", "round({}, 2)",
               "Path({})", "self._convert({})", "max(0, {})", "np.asarray({})", "os.fspath({})"],
    "javascript": ["String({})", "Number({})", "await {}", "Math.floor({})", "JSON.stringify({})", "Boolean({})",
                   "[...{}]", "{}.trim()", "parseInt({}, 10)"],
    "rust": ["Some({})", "{}.clone()", "{}.to_string()", "Box::new({})", "{}?", "Ok({})", "{}.into()"],
    "go": ["int64({})", "string({})", "float64({})", "len({})", "strings.TrimSpace({})"],
}
_WRAPS["typescript"] = _WRAPS["typescriptreact"] = _WRAPS["javascript"]


_NAME = re.compile(r"(?<![\"'\w])[A-Za-z_]\w*")
_CONSTS = {"True", "False", "None", "true", "false", "null", "nil", "undefined"}


def _shape(expr: str) -> str:
    s = re.sub(r"\"[^\"]*\"|'[^']*'", "s", expr)
    s = re.sub(r"[A-Za-z_]\w*", "a", s)
    return re.sub(r"\d+", "0", s)


def gen_wrap(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    if lang not in _ASSIGN:
        return None
    lines, found = text.split("\n"), []
    cm = _COMMENT.get(lang, "//")
    for r, line in enumerate(lines):
        m = _ASSIGN[lang].match(line)
        if not m or cm in m.group(2) or len(m.group(2)) > 60:
            continue
        e = m.group(2)
        if e[-1] in "([{,\\:+-*/" or split_args(e) != [e] or e.startswith(("lambda", "yield", "await", "{")) \
                or close_paren("(" + e + ")", 0) != len(e) + 1 or not (set(_NAME.findall(e)) - _CONSTS):
            continue
        key = (len(line) - len(line.lstrip()), _shape(e), m.group(1).lstrip().startswith("return"))
        found.append((r, key, m))
    chains, by_key = [], {}
    for r, key, m in found:
        ch = by_key.get(key)
        if ch and r - ch[-1][0] <= 3:
            ch.append((r, key, m))
        else:
            by_key[key] = [(r, key, m)]
            chains.append(by_key[key])
    chains = [c for c in chains if len(c) >= 2]
    if not chains:
        return None
    chain = rng.choice(chains)
    w = rng.choice(_WRAPS[lang])
    sites = []
    for r, _, m in chain:
        lead, e = m.group(1), m.group(2)
        new = w.format(e)
        sites.append(Site(r, r + 1, [lead + new + m.group(3)], (0, len(lead) + len(new))))
    return apply_sites(lines, sites, _order(len(sites), rng))


_KWARGS = [("timeout", "30"), ("strict", "True"), ("check", "True"), ("encoding", '"utf-8"'), ("default", "None"),
           ("exist_ok", "True"), ("reverse", "True"), ("verbose", "False"), ("stacklevel", "2"), ("flush", "True"),
           ("key", "str"), ("dtype", "float"), ("errors", '"replace"'), ("maxsplit", "1"), ("copy", "False"),
           ("retries", "3"), ("sort_keys", "True"), ("indent", "2"), ("missing_ok", "True"), ("limit", "10")]


def gen_kwarg(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    if lang != "python":
        return None
    sc = scan(text, lang)
    lines, groups = sc.lines, []
    for callee, occ in sc.calls.items():
        rows: dict[int, tuple] = {}
        for r, o, c in occ:
            if r not in rows and "*" not in lines[r][o:c]:
                rows[r] = (r, o + 1, c)
        if len(rows) >= 2 and callee not in _SKIP_NAMES:
            groups.append(sorted(rows.values()))
    if not groups:
        return None
    group = rng.choice(groups)
    kw, val = rng.choice(_KWARGS)
    if any(kw + "=" in lines[r][a:c] for r, a, c in group):
        return None
    sites = []
    for r, a, c in group:
        inner = lines[r][a:c].rstrip()
        ins = ("" if not inner else (" " if inner.endswith(",") else ", ")) + f"{kw}={val}"
        cut = a + len(inner)
        sites.append(Site(r, r + 1, [lines[r][:cut] + ins + lines[r][c:]], (0, cut + len(ins))))
    return apply_sites(lines, sites, _order(len(sites), rng))


_DECOS = ["functools.cache", "torch.no_grad()", "pytest.mark.slow", "typing.final", "abstractmethod", "override",
          "functools.lru_cache(maxsize=None)", "cached_property", "contextmanager", "deprecated"]


def gen_decorator(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    if lang != "python":
        return None
    lines = text.split("\n")
    defs: dict[str, list[int]] = {}
    for r, line in enumerate(lines):
        m = re.match(r"^(\s*)(?:async\s+)?def\s", line)
        if m:
            defs.setdefault(m.group(1), []).append(r)
    groups = [v for v in defs.values() if len(v) >= 2]
    if not groups:
        return None
    rows = rng.choice(groups)
    used = sorted({m.group(1) for line in lines if (m := re.match(r"^\s*@([\w.]+(?:\(.*\))?)\s*$", line))})
    deco = rng.choice(used) if used and rng.random() < 0.4 else rng.choice(_DECOS)
    sites = []
    for r in rows:
        if r == 0 or not lines[r - 1].lstrip().startswith("@"):  # undecorated defs only
            ind = lines[r][: len(lines[r]) - len(lines[r].lstrip())]
            sites.append(Site(r, r + 1, [ind + "@" + deco, lines[r]], (0, len(ind) + 1 + len(deco))))
    if len(sites) < 2:
        return None
    return apply_sites(lines, sites, _order(len(sites), rng))


PROPAGATIONS = {"rename": gen_rename, "literal": gen_literal, "param": gen_param, "wrap": gen_wrap,
                "kwarg": gen_kwarg, "decorator": gen_decorator}


def to_fill(steps: list[Step], rng: random.Random) -> tuple[list[Step], int] | None:
    """The steps with the user half-way through typing one site (after at least one whole edit):
    (steps, k) where the first k steps end with the partial line."""
    real = [i for i, (b, a, _) in enumerate(steps) if b != a]
    cands = []
    for i in real[1:]:
        b, a, _ = steps[i]
        i0, i1, new = line_hunk(b, a)
        if i1 - i0 == 1 and len(new) == 1:
            old = b.split("\n")[i0]
            p = 0
            while p < min(len(old), len(new[0])) and old[p] == new[0][p]:
                p += 1
            s = 0
            while s < min(len(old), len(new[0])) - p and old[-1 - s] == new[0][-1 - s]:
                s += 1
            if len(new[0]) - s - p >= 2:
                cands.append((i, i0, old, new[0], p, s))
    if not cands:
        return None
    i, row, old, new, p, s = rng.choice(cands)
    j = rng.randint(1, len(new) - s - p - 1)
    partial = new[:p + j] + old[len(old) - s:]
    b, a, cur = steps[i]
    bl = b.split("\n")
    mid = "\n".join(bl[:row] + [partial] + bl[row + 1:])
    return steps[:i] + [(b, mid, _offset(bl, row, p + j)), (mid, a, cur)] + steps[i + 1:], i + 1


# ----------------------------------------------------------------------------- silence
# (the generators that need no propagation: model/edit_noise.py)

def gen_noise_done(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    """A propagation carried out at every site; half the time the user then moves (within 8 lines)."""
    gen = PROPAGATIONS[rng.choice(["rename", "rename", "literal", "param", "wrap", "kwarg", "decorator"])]
    steps = gen(text, rng, lang)
    if not steps:
        return None
    if rng.random() < 0.5:
        t = steps[-1][1]
        lines = t.split("\n")
        row = t[:steps[-1][2]].count("\n")
        r = min(max(0, row + rng.randint(-8, 8)), len(lines) - 1)
        steps.append((t, t, _offset(lines, r, len(lines[r]))))
    return steps


NOISE = {"noise_none": gen_noise_none, "noise_comment": gen_noise_comment, "noise_line": gen_noise_line,
         "noise_single": gen_noise_single, "noise_done": gen_noise_done}


# ----------------------------------------------------------------------------- cases

def pick_kind(rng: random.Random, weights: dict[str, float] = KINDS) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


_TOP = re.compile(r"(?:async def|def|class|import|from|function|export|const|let|var|fn|pub|impl|func|type|"
                  r"struct|interface|mod|use)\b|@")


def pick_window(text: str, rng: random.Random, n: int = WINDOW_LINES) -> tuple[int, str]:
    """(first line, text) of a window of at most n lines, starting at a top-level definition or
    import (not inside a docstring, which the parser would then read as code)."""
    lines = text.split("\n")
    if len(lines) <= n:
        return 0, text
    starts = [i for i in range(len(lines) - n // 2) if _TOP.match(lines[i])] or [0]
    s = rng.choice(starts)
    return s, "\n".join(lines[s:s + n])


def sample_case(text: str, rng: random.Random, kind: str, lang: str = "python", file_id: str = "") -> EditCase | None:
    """One case of `kind` from a window of `text` (None where the window offers none)."""
    start, win = pick_window(text, rng)
    fid = f"{file_id}@{start}"
    if kind in NOISE:
        steps = NOISE[kind](win, rng, lang)
        return case_from_steps(steps, len(steps), fid, kind) if steps else None
    if kind == "fill":
        steps = PROPAGATIONS[rng.choice(["rename", "rename", "literal", "kwarg", "wrap", "param"])](win, rng, lang)
        filled = to_fill(steps, rng) if steps else None
        return case_from_steps(filled[0], filled[1], fid, kind) if filled else None
    steps = PROPAGATIONS[kind](win, rng, lang)
    if not steps:
        return None
    last = max(i for i, (b, a, _) in enumerate(steps) if b != a)
    ks = list(range(1, last + 1))
    rng.shuffle(ks)
    want_near, first = rng.random() < NEAR_SHARE, None
    for k in ks[:6]:
        c = case_from_steps(steps, k, fid, kind)
        if c is not None and (not want_near or c.category != "jump"):
            return c
        first = first or c
    return first


# ----------------------------------------------------------------------------- training streams

def edit_stream(texts: list[str], tok: Tokenizer, seq_len: int, seed: int, lang: str = "python") -> Iterator[Example]:
    """Next-edit training rows forever (mirrors model/data.py's example_stream): a generator kind
    drawn by its weight (model/edit_data.py KINDS), tried on up to 8 random files before another
    kind is drawn, so the shares hold even where a kind rarely applies."""
    rng = random.Random(seed)
    while True:
        kind = pick_kind(rng)
        for _ in range(8):
            i = rng.randrange(len(texts))
            case = sample_case(texts[i], rng, kind, lang=lang, file_id=f"train:{i}")
            ex = case_examples(tok, case, rng, seq_len) if case is not None else None
            if ex is not None:
                yield ex
                break


def mixed_stream(texts: list[str], tok: Tokenizer, seq_len: int, seed: int, edit_share: float) -> Iterator[Example]:
    """FIM rows (model/data.py) with a share `edit_share` of next-edit rows, each from its own stream."""
    from redraft.model.data import example_stream
    rng = random.Random(seed * 31 + 7)
    fim, edits = example_stream(texts, tok, seq_len, seed), edit_stream(texts, tok, seq_len, seed + 99991)
    while True:
        yield next(edits) if rng.random() < edit_share else next(fim)


def batch_stream(texts: list[str], tok: Tokenizer, seq_len: int, batch_size: int, seed: int, workers: int = 0,
                 edit_share: float = 0.0):
    """model/data.py's batch_stream over mixed_stream (`redraft train --edit-share`)."""
    from redraft.model import data
    return data.batch_stream(texts, tok, seq_len, batch_size, seed, workers,
                             examples=lambda s: mixed_stream(texts, tok, seq_len, s, edit_share))
