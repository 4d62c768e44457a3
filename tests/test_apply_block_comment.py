"""Issue 43: a definition written out whole with a shorter doc comment replaces the file's whole
block comment above it.  The shape, from a real release (svgo's coa.js: `/**`, ` * Show list of
available plugins ...`, ` */` above `function showAvailablePlugins()` became one line, `/** Show list
... */`): the snippet's comment replaced as many lines right above the definition as it has, one,
the file's ` */`, and left `/**` and the middle line above the new comment, an unclosed comment.  The
comment's lines are now replaced up to its `/**`.  In the four languages with block comments
(Python's doc comments are docstrings, inside the definition)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

DEFS = {
    "javascript": ("function listPlugins(names) {", "  return names.sort().join('\\n');", "}"),
    "typescript": ("function listPlugins(names: string[]): string {", "  return names.sort().join('\\n');", "}"),
    "rust": ("fn list_plugins(names: &mut Vec<String>) -> String {", "    names.sort();", "    names.join(\"\\n\")",
             "}"),
    "go": ("func listPlugins(names []string) string {", "\tsort.Strings(names)",
           "\treturn strings.Join(names, \"\\n\")", "}"),
}
BEFORE = {"javascript": "function before() {\n  return 1;\n}\n",
          "typescript": "function before(): number {\n  return 1;\n}\n",
          "rust": "fn before() -> i32 {\n    1\n}\n", "go": "func before() int {\n\treturn 1\n}\n"}


@pytest.mark.parametrize("lang", sorted(DEFS))
def test_a_shorter_doc_comment_replaces_the_whole_block_comment(lang):
    body = "\n".join(DEFS[lang]) + "\n"
    old_doc = "/**\n * Show the list of plugins with a short description.\n */\n"
    new_doc = "/** Show the list of plugins with a short description. */\n"
    changed = body.replace("names", "items")
    r = merge(BEFORE[lang] + "\n" + old_doc + body, new_doc + changed, lang)
    assert r.ok, r.reason
    assert r.text == BEFORE[lang] + "\n" + new_doc + changed
