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


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_rewritten_first_comment_line_replaces_the_comment_from_its_old_first_line(lang):
    """peewee's examples/twitter/app.py, css-inline's lib.rs: the snippet's comment above a definition
    written out whole, its first line edited and its last line dropped; the file's comment's first
    line (like the snippet's, not the same) was kept above the new comment."""
    c, marker, body, before, gap = LANGS[lang]
    old = [" Sorts the names of the plugins -- in place -- the way", " the registry lists them", " (see registry.md)"]
    new = [" Sorts the names of the plugins in place, the way", " the registry lists them."]
    original = before + gap + "".join(f"{c}{t}\n" for t in old) + body
    changed = body.replace("names", "items")
    r = merge(original, "".join(f"{c}{t}\n" for t in new) + changed, lang)
    assert r.ok, r.reason
    assert r.text == before + gap + "".join(f"{c}{t}\n" for t in new) + changed


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_definition_shown_alone_as_it_is_drops_the_comment_it_omits(lang):
    """peewee's app.py, primp's imp/mod.rs (`pub mod firefox;` without its `#[cfg(...)]`): a snippet
    that is one definition, as the file has it, without the comment (or attributes, decorators)
    above it.  Read as changing nothing, it was merged to the file as it was; what it changes is
    the lines above it it leaves out: deleted, and reported."""
    c, marker, body, before, gap = LANGS[lang]
    doc = "".join(f"{c}{t}\n" for t in (" Sorts the names of the plugins.", " In place."))
    r = merge(before + gap + doc + body, body, lang)
    assert r.ok, r.reason
    assert r.text == before + gap + body
    at = len((before + gap).splitlines()) + 1
    assert [(d.start, d.end) for d in r.deletions] == [(at, at + 1)]


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_definition_shown_alone_and_changed_keeps_the_comment_it_omits(lang):
    """Twin: the same definition changed, without its comment, keeps the comment (a snippet showing
    a function's new body need not copy its doc comment)."""
    c, marker, body, before, gap = LANGS[lang]
    doc = "".join(f"{c}{t}\n" for t in (" Sorts the names of the plugins.", " In place."))
    changed = body.replace("names", "items")
    r = merge(before + gap + doc + body, changed, lang)
    assert r.ok, r.reason
    assert r.text == before + gap + doc + changed


@pytest.mark.parametrize("lang, above, line", [
    ("rust", '#[cfg(feature = "impersonate")]\n', "pub mod firefox;\n"),
    ("python", "@functools.cache\n", "def firefox():\n    return FIREFOX\n"),
])
def test_a_definition_shown_alone_as_it_is_drops_the_attributes_it_omits(lang, above, line):
    """primp's imp/mod.rs: `pub mod firefox;` shown alone, its `#[cfg(...)]` gone in the release."""
    original = f"pub mod chrome;\n\n{above}{line}" if lang == "rust" else f"{above}{line}"
    r = merge(original, line, lang)
    assert r.ok, r.reason
    assert r.text == original.replace(above, "")
    assert len(r.deletions) == 1


def test_the_comment_starts_where_its_next_lines_follow_too():
    """rnet's http2.rs: a snippet shows `///`, `/// [Section 5.1.1]: ...`, the struct's attributes
    (one of them edited) and the struct; the file's doc comment has `///` twice.  The comment's
    last lines did not match as the file has them (the attribute was edited), so the first `///` of
    the file's comment was taken for where the snippet's starts: the six lines between were
    deleted.  Of the places of its first line, the one its next lines follow is taken."""
    doc = ["/// A stream identifier, as described in [Section 5.1.1].", "///",
           "/// Streams are identified with an unsigned 31-bit integer; those", "/// a client opens are odd.",
           "///", "/// [Section 5.1.1]: https://example.org/rfc7540#section-5.1.1"]
    before = "fn before() -> i32 {\n    1\n}\n\n"
    original = before + "\n".join(doc + ["#[derive(Clone)]", "#[pyclass(frozen)]", "pub struct StreamId(u32);"]) + "\n"
    snippet = "\n".join(["// ... existing code ...", *doc[-2:], "#[derive(Clone)]",
                         "#[pyclass(frozen, from_py_object)]", "pub struct StreamId(u32);"]) + "\n"
    r = merge(original, snippet, "rust")
    assert r.ok, r.reason
    assert r.text == original.replace("#[pyclass(frozen)]", "#[pyclass(frozen, from_py_object)]")
