"""Issue 43: a fragment whose first and last lines are closing braces, a new block between them,
tied between several places.  The shape, from a real release (orjson's build.rs): `if
supports("core_intrinsics") {`, a marker, `}`, a new block, `}`, a marker.  No line with words of
the file is in the fragment, so it fits after each of three `if` blocks alike; the innermost block
around the marker took it, replacing the block after that one, where the release replaced the
last one.  The merge now refuses, naming the places (places.braces_tied); shown with the lines of
the block before it, the new block is added after that block.  (On 9fe1149 every language merged
the first reading.)  Python has no closing braces; its blocks end by indentation."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: (function header, end of statement, `if (`, `) {`)
SYNTAX = {
    "javascript": ("function build() {", ";", "if (", ") {"),
    "typescript": ("function build(): void {", ";", "if (", ") {"),
    "rust": ("fn main() {", ";", "if ", " {"),
    "go": ("func main() {", "", "if ", " {"),
}


def _code(lang: str, body: list[str]) -> str:
    header, end, if_, then = SYNTAX[lang]
    ind = "\t" if lang == "go" else "    "
    out = []
    for line in body:
        depth = len(line) - len(line.lstrip(">"))
        t = line.lstrip(">").replace(";", end).replace("IF(", if_).replace("){", then)
        out.append(ind * depth + t if t else "")
    return "\n".join([header] + out + ["}"]) + "\n"


BLOCKS = [
    ">println(\"start\");", "",
    ">IF(supports(\"core_intrinsics\")){", ">>println(\"intrinsics\");", ">}", "",
    ">IF(supports(\"optimize_attribute\")){", ">>println(\"optimize\");", ">}", "",
    ">IF(supports(\"trusted_len\")){", ">>println(\"trusted_len\");", ">}", "",
    ">println(\"done\");",
]
NEW_BLOCK = [
    ">println(\"start\");", "",
    ">IF(supports(\"core_intrinsics\")){", ">>// ... existing code ...", ">}", "",
    ">IF(disabled(\"simd\")){", ">>println(\"simd\");", ">}", "",
    ">// ... existing code ...",
]


@pytest.mark.parametrize("lang", sorted(SYNTAX))
def test_brace_only_anchors_tied_between_blocks_are_refused(lang):
    original = _code(lang, BLOCKS)
    r = merge(original, _code(lang, NEW_BLOCK), lang)
    assert not r.ok
    assert "without words" in r.reason and "show a line with words" in r.reason


@pytest.mark.parametrize("lang", sorted(SYNTAX))
def test_shown_with_the_lines_of_its_block_the_new_block_is_added(lang):
    """With the block before it shown whole (a line with words), the new block goes right after it
    and the blocks a marker after it stands for stay."""
    original = _code(lang, BLOCKS)
    body = BLOCKS[:5] + NEW_BLOCK[5:]
    r = merge(original, _code(lang, body), lang)
    assert r.ok, r.reason
    assert r.text == _code(lang, BLOCKS[:6] + NEW_BLOCK[6:10] + BLOCKS[6:])
