"""Issue 43: a lone closing line (`}`) shown after a marker indented deeper than it closes the
block the marker is in.  The shape, from a real release (Redux Toolkit's mapBuilders.ts, a lazy
snippet of `interface ActionReducerMapBuilder`: its changed members, `  // ... existing code ...`,
then the interface's `}` and a marker): the file has another `}` at column 0 further down, and a
JSDoc example between (lines at column 0 inside `/** */`) hid the block's end, so the merge refused
it as matching two places.  Lines inside `/* */` comments are no longer taken for the block's end.
In the four brace languages (Python closes its blocks by indentation; the Go case merged before too)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = "// ... existing code ..."

# (block opener, a member's three lines, its middle line changed, the block's last line, closer)
SHAPES = {
    "typescript": ("export interface Builder<S> {", ["  addCase(", "    type: string,", "  ): Builder<S>"],
                   "    type: string, reducer: Reducer<S>,", "  last(): void", "}"),
    "javascript": ("const builder = {", ["  addCase(", "    type,", "  ) { return this; },"],
                   "    type, reducer,", "  last: 1,", "};"),
    "rust": ("impl Builder {", ["    fn add_case(", "        t: &str,", "    ) -> &Self { self }"],
             "        t: &str, r: Reducer,", "    fn last(&self) {}", "}"),
    "go": ("type Builder struct {", ["\tName string", "\tKind int", "\tSize int"], "\tKind int64", "\tLast bool", "}"),
}


def _ind(lang: str) -> str:
    return "\t" if lang == "go" else ("    " if lang == "rust" else "  ")


def _block(lang: str, name: str, middle: str) -> list[str]:
    opener, member, _, last, closer = SHAPES[lang]
    ind = _ind(lang)
    return [opener.replace("Builder", name).replace("builder", name.lower()), member[0], middle, member[2],
            f"{ind}/*", f"{ind} * Example:", "doc(example)", f"{ind} */", last, closer]


def _file(lang: str, middle: str) -> str:
    return "\n".join(_block(lang, "Builder", middle) + [""] + _block(lang, "Other", SHAPES[lang][1][1])) + "\n"


@pytest.mark.parametrize("lang", sorted(SHAPES))
def test_a_lone_closing_line_after_a_deeper_marker_closes_the_markers_block(lang):
    opener, member, changed, _, closer = SHAPES[lang]
    snippet = "\n".join([opener, member[0], changed, member[2], _ind(lang) + MARK, closer, MARK]) + "\n"
    r = merge(_file(lang, member[1]), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, changed)
