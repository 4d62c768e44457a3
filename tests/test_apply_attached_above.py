"""Issue 43: a snippet that starts at a definition's header, with no marker before it, in a file
whose only lines above that definition are its attributes, decorators or comments.  The shape, from
a real release (orjson's yyjson.rs): the file opens with `#[repr(C)]` and `pub struct yyjson_alc {`;
the snippet showed the struct rewritten from its header on, then a marker.  With no marker before
the snippet's first line, the lines before it were deleted (the convention for lines the snippet
omits), and the attribute was lost.  Those lines are the definition's, as a definition shown
alone keeps its comment: they stay (edges._attached).  A blank line between them and the
definition, and they are deleted as before.  (On d06ea26 they were deleted in every language
but Python, whose decorator a definition's merge by name kept.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (the lines above, the definition, its new body line, a marker) per language
LANGS = {
    "rust": ("#[repr(C)]\n#[derive(Debug)]", "pub struct Alloc {\n    pub ctx: *mut ::std::ffi::c_void,\n}",
             "    pub ctx: *mut ::core::ffi::c_void,", "// ... existing code ..."),
    "python": ("@dataclass(frozen=True)", "class Alloc:\n    ctx: int = 0",
               "    ctx: int = 1", "# ... existing code ..."),
    "typescript": ("/**\n * The allocator.\n */", "export class Alloc {\n  ctx: number = 0\n}",
                   "  ctx: number = 1", "// ... existing code ..."),
    "javascript": ("// The allocator.", "export function alloc() {\n  return 0\n}",
                   "  return 1", "// ... existing code ..."),
    "go": ("// Alloc is the allocator.", "func Alloc() int {\n\treturn 0\n}",
           "\treturn 1", "// ... existing code ..."),
}
REST = {"rust": "\npub fn free() {}\n", "python": "\n\ndef free():\n    pass\n",
        "typescript": "\nexport function free() {}\n", "javascript": "\nexport function free() {}\n",
        "go": "\nfunc Free() {}\n"}


def _case(lang: str, gap: str = "", above: str | None = None) -> tuple[str, str, str]:
    top, definition, new, marker = LANGS[lang]
    above = above or top
    head, old, *tail = definition.splitlines()
    original = f"{above}\n{gap}{definition}\n{REST[lang]}"
    snippet = "\n".join([head, new] + tail + [marker]) + "\n"
    return original, snippet, original.replace(old + "\n", new + "\n", 1)


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_definitions_attributes_and_comments_above_it_stay(lang):
    original, snippet, want = _case(lang)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == want and not r.deletions


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_lines_apart_from_it_are_deleted_as_before(lang):
    above = "# The allocator." if lang == "python" else LANGS[lang][0]   # (a decorator a line apart is still
    original, snippet, want = _case(lang, gap="\n", above=above)         # the class's)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    above += "\n\n"
    assert r.text == want.replace(above, "", 1) and [d.start for d in r.deletions] == [1]
