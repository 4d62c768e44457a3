"""Issue 43: a definition written out whole after a marker, with only the last line of its doc
comment above it, keeps the rest of the comment.  The shape, from a real release (minijinja's
argtypes.rs: `// ... existing code ...`, `/// ```` and `pub struct Kwargs {` written out whole):
the comment's first line like the snippet's (`/// ```, the first of several) was taken as where the
snippet's comment starts, and the 44 lines between it and the struct were deleted.  When the
snippet's comment lines are the file's last comment lines above the definition, they are those
lines.  In the five languages (Python's comments above a `def` are `#` lines)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

LANGS = {
    "python": ("#", "# ... existing code ...", "def list_plugins(names):\n    return sorted(names)\n",
               "def before():\n    return 1\n", "\n\n"),
    "javascript": ("//", "// ... existing code ...", "function listPlugins(names) {\n  return names.sort();\n}\n",
                   "function before() {\n  return 1;\n}\n", "\n"),
    "typescript": ("//", "// ... existing code ...",
                   "function listPlugins(names: string[]): string[] {\n  return names.sort();\n}\n",
                   "function before(): number {\n  return 1;\n}\n", "\n"),
    "rust": ("///", "// ... existing code ...",
             "fn list_plugins(names: &mut Vec<String>) {\n    names.sort();\n}\n", "fn before() -> i32 {\n    1\n}\n",
             "\n"),
    "go": ("//", "// ... existing code ...", "func listPlugins(names []string) {\n\tsort.Strings(names)\n}\n",
           "func before() int {\n\treturn 1\n}\n", "\n"),
}


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_last_comment_line_shown_keeps_the_comment_above_it(lang):
    c, marker, body, before, gap = LANGS[lang]
    doc = "".join(f"{c}{t}\n" for t in ("", " Sorts the names of the plugins.", "", " Example:", "",
                                         "     list_plugins(names)", ""))
    original = before + gap + doc + body
    changed = body.replace("names", "items")
    r = merge(original, f"{marker}\n{c}\n{changed}", lang)
    assert r.ok, r.reason
    assert r.text == before + gap + doc + changed
