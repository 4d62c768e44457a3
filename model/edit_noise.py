"""Silence for next-edit training (model/edit_data.py: nothing is due after these edits): no edit at
all (noise_none), a comment edited or added (noise_comment), a new statement such as a print, an
assert or a TODO (noise_line), a literal found once in the window changed (noise_single). Each
takes (text, rng, lang) and returns the user's steps, or None; noise_done, a propagation carried
out everywhere, lives beside the propagations in model/edit_data.py."""
from __future__ import annotations

import random
import re

from redraft.model.edit_sites import (_COMMENT, _SKIP_NAMES, _WORDS, Site, _offset, _replace_sites, apply_sites,
                                      close_paren, distinctive, new_literal, scan)
from redraft.model.edits import Step


def _code_rows(lines: list[str]) -> list[int]:
    return [r for r, x in enumerate(lines) if x.strip()]


def gen_noise_none(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    lines = text.split("\n")
    rows = _code_rows(lines) or [0]
    r = rng.choice(rows)
    ind = len(lines[r]) - len(lines[r].lstrip())
    return [(text, text, _offset(lines, r, rng.randint(ind, len(lines[r]))))]


_NOTES = ["TODO: handle errors here", "see above", "keep in sync with the caller", "NOTE: slow path", "fast path",
          "fix later", "the cache is cleared below", "may be None", "in bytes", "sorted by name"]


def gen_noise_comment(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    lines, cm = text.split("\n"), _COMMENT.get(lang, "//")
    comments = [r for r, x in enumerate(lines) if x.lstrip().startswith(cm) and len(x.strip()) > len(cm) + 3]
    if comments and rng.random() < 0.6:
        r = rng.choice(comments)
        words = re.findall(r"[A-Za-z]{3,}", lines[r])
        note = rng.choice(_NOTES)
        new = lines[r].replace(rng.choice(words), rng.choice(_WORDS), 1) if words and rng.random() < 0.5 \
            else lines[r].rstrip() + rng.choice([f"; {note}", f" ({note})", f". {note.capitalize()}."])
        site = Site(r, r + 1, [new], (0, len(new)))
    else:
        rows = _code_rows(lines)
        if not rows:
            return None
        r = rng.choice(rows)
        ind = lines[r][: len(lines[r]) - len(lines[r].lstrip())]
        note = ind + cm + " " + rng.choice(_NOTES)
        site = Site(r, r + 1, [note, lines[r]], (0, len(note)))
    return apply_sites(lines, [site], [0])


_LINES = {"python": ["print({v})", "assert {v} is not None", "# TODO: check {v}", "", "logger.debug(\"%s\", {v})"],
          "javascript": ["console.log({v});", "// TODO: check {v}", ""],
          "rust": ["dbg!(&{v});", "// TODO: check {v}", ""],
          "go": ["fmt.Println({v})", "// TODO: check {v}", ""]}
_LINES["typescript"] = _LINES["typescriptreact"] = _LINES["javascript"]


def gen_noise_line(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    lines = text.split("\n")
    ok = []
    for r, x in enumerate(lines[:-1]):
        s = x.strip()
        if not s or s[-1] in ":([{,\\" or close_paren("(" + s + ")", 0) != len(s) + 1:
            continue
        nxt = next((y for y in lines[r + 1:] if y.strip()), "")
        if len(nxt) - len(nxt.lstrip()) <= len(x) - len(x.lstrip()):
            ok.append(r)
    if not ok:
        return None
    r = rng.choice(ok)
    names = re.findall(r"[A-Za-z_]\w*", lines[r])
    v = next((n for n in names if n not in _SKIP_NAMES), "result")
    ind = lines[r][: len(lines[r]) - len(lines[r].lstrip())]
    new = rng.choice(_LINES.get(lang, _LINES["javascript"])).format(v=v)
    new = ind + new if new else new
    return apply_sites(lines, [Site(r, r + 1, [lines[r], new], (1, len(new)))], [0])


def gen_noise_single(text: str, rng: random.Random, lang: str = "python") -> list[Step] | None:
    sc = scan(text, lang)
    once = [(t, o[0]) for t, o in sc.literals.items() if len(o) == 1 and (distinctive(t) or t.isdigit())]
    if not once:
        return None
    t, occ = rng.choice(once)
    new = new_literal(t, rng)
    if not new or new == t or new in sc.literals:
        return None
    return apply_sites(sc.lines, _replace_sites(sc.lines, [occ], new), [0])
