"""Issue 43: a definition replaced by a new one of another name, among definitions the snippet
shows whole with no marker between them (a real release: rnet's client.rs, `pub mod body;` /
`pub mod nogil;` / `pub mod req;` / `pub mod resp;` where the file had `pub mod future;` in place of
`nogil`).  The lines the snippet omits between two shown definitions are deleted (issue 43's
omission); with a new definition there too, it takes their place (plan._unshown_between) instead of
going in beside them while the old one stays."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: a definition named {n}, comment, separator between definitions
LANGS = {
    "rust": ("pub fn {n}() -> u32 {{\n    {v}\n}}", "//", "\n"),
    "python": ("def {n}():\n    return {v}", "#", "\n\n"),
    "javascript": ("export function {n}() {{\n  return {v};\n}}", "//", "\n"),
    "typescript": ("export function {n}(): number {{\n  return {v};\n}}", "//", "\n"),
    "go": ("func {n}() int {{\n\treturn {v}\n}}", "//", "\n"),
}


def _defs(lang: str, names: list[str]) -> list[str]:
    return [LANGS[lang][0].format(n=n, v=len(n) * 7) for n in names]


def _file(lang: str, names: list[str]) -> str:
    head = {"go": "package area\n\n", "python": "import math\n\n\n"}.get(lang, "")
    sep = LANGS[lang][2]
    return head + ("\n" + sep).join(_defs(lang, ["first"] + names + ["last"])) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_definition_takes_the_place_of_the_one_omitted_between_shown_ones(lang):
    c, sep = LANGS[lang][1], LANGS[lang][2]
    shown = ("\n" + sep).join(_defs(lang, ["width", "breadth", "height"]))
    snippet = f"{c} ... existing code ...\n{shown}\n{sep}{c} ... existing code ...\n"
    r = merge(_file(lang, ["width", "depth", "height"]), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, ["width", "breadth", "height"])


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_definition_with_nothing_omitted_is_inserted(lang):
    c, sep = LANGS[lang][1], LANGS[lang][2]
    shown = ("\n" + sep).join(_defs(lang, ["width", "breadth", "height"]))
    snippet = f"{c} ... existing code ...\n{shown}\n{sep}{c} ... existing code ...\n"
    r = merge(_file(lang, ["width", "height"]), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, ["width", "breadth", "height"])
    assert not r.deletions
