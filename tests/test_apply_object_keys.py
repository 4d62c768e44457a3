"""Issue 43: a new entry of an object literal written after the entry before it.  The shape, from a
real release (mathjs's type/unit/Unit.js, its CommonJS and ESM builds): the snippet shows the last
lines of `C: {...}` (`value: 1,`, `offset: 0`, `},` -- lines every unit ends with), the new
`Ah: {...}`, then the comment and first lines of the next unit.  The region from the same lines at
the end of `coulomb`, the unit before `C`, read `Ah` as `C` rewritten (its lines are like `C`'s)
and deleted `C`.  A region that drops a key opening a nested object (`C: {`) whose name the
fragment never shows gets no credit for rewriting (anchors._drops_unnamed, as for a definition), so
the nearer place wins.  In the languages with such literals (JavaScript, TypeScript, Python's dicts,
Go's map literals; Rust's struct literals name a type after the key)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: (key format, opening, item format, closing of an entry, closing of the literal, marker)
LANGS = {
    "javascript": ("{k}: {{", "const UNITS = {{", "    {f}: {v},", "  },", "};", "//"),
    "typescript": ("{k}: {{", "const UNITS: Record<string, Unit> = {{", "    {f}: {v},", "  },", "};", "//"),
    "python": ('"{k}": {{', "UNITS = {{", '    "{f}": {v},', "  },", "}", "#"),
    "go": ('"{k}": {{', "var Units = map[string]Unit{{", "    {F}: {v},", "  },", "}", "//"),
}


def _entry(lang: str, key: str, prefixes: str, value: int) -> list[str]:
    head, _, item, close, *_ = LANGS[lang]
    rows = [("name", f'"{key}"'), ("base", "BASE_CHARGE"), ("prefixes", prefixes), ("value", str(value)),
            ("offset", "0")]
    return ["  " + head.format(k=key)] + [item.format(f=f, F=f.title(), v=v) for f, v in rows] + [close]


def _file(lang: str, entries: list[list[str]]) -> str:
    _, opening, _, _, closing, c = LANGS[lang]
    farad = [l.replace("BASE_CHARGE", "BASE_CAPACITANCE") for l in _entry(lang, "farad", "LONG", 1)]
    lines = [opening.format()] + [l for e in entries for l in e] + [f"  {c} capacitance"] + farad + [closing]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_entry_goes_after_the_one_whose_last_lines_the_snippet_shows(lang):
    c = LANGS[lang][5]
    coulomb, charge = _entry(lang, "coulomb", "LONG", 1), _entry(lang, "C", "SHORT", 1)
    ah = _entry(lang, "Ah", "SHORT", 3600)
    farad = _entry(lang, "farad", "LONG", 1)
    snippet = [f"{c} ... existing code ..."] + charge[-3:] + ah + [f"  {c} capacitance", farad[0], farad[1],
                                                                   f"    {c} ... existing code ..."]
    r = merge(_file(lang, [coulomb, charge]), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, [coulomb, charge, ah])
