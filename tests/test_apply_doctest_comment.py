"""Issue 43: a doc comment that shows a doctest is not a marker.  The shape, from a real release
(tantivy's document.rs: `struct Document` written out whole, its `///` doc comment holding a Python
doctest whose continuation lines read `///     ...     SchemaBuilder()`): a whole-line comment
whose text starts with "..." was a marker, so the snippet read as a view of the whole file with no
marker before or after it, and the merge deleted the file's other 808 lines (reported, but not what
the snippet says).  A comment whose text after "..." is code (a call, a quote, an `=`, a trailing
comma, a line starting with `.` or `)`) says nothing of elided code; `// ...`, `// ... existing
code ...`, `// ... (snip)` and `# ... other methods` are still markers.  In five languages (the
merge fails before in Python, Go and Rust; a JSDoc ` * ...` line was never a marker)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import is_marker, merge

DOC = {"python": "#", "rust": "///", "go": "//", "javascript": " *", "typescript": " *"}


def _doc(lang: str, lines: list[str]) -> list[str]:
    body = [f"{DOC[lang]} {l}".rstrip() for l in lines]
    return ["/**", *body, " */"] if lang in ("javascript", "typescript") else body


def _definition(lang: str, doc: list[str], field: str) -> list[str]:
    if lang == "python":
        return [*_doc(lang, doc), "class Document:", f"    {field} = None"]
    if lang == "rust":
        return [*_doc(lang, doc), "pub struct Document {", f"    pub {field}: Vec<Value>,", "}"]
    if lang == "go":
        return [*_doc(lang, doc), "type Document struct {", f"\t{field.title()} []Value", "}"]
    return [*_doc(lang, doc), "class Document {", f"  {field} = [];", "}"]


def _other(lang: str, name: str) -> list[str]:
    if lang == "python":
        return [f"def {name}():", "    return 1"]
    if lang == "rust":
        return [f"fn {name}() -> i32 {{", "    1", "}"]
    if lang == "go":
        return [f"func {name}() int {{", "\treturn 1", "}"]
    return [f"function {name}() {{", "  return 1;", "}"]


DOCTEST = ["Example:", "    >>> doc = Document.from_dict(", '    ...     {"unsigned": 1000},', "    ...     schema,",
           "    ... )"]


def _file(lang: str, definition: list[str]) -> str:
    gap = ["", ""] if lang == "python" else [""]
    return "\n".join(_other(lang, "before") + gap + definition + gap + _other(lang, "after")) + "\n"


@pytest.mark.parametrize("lang", sorted(DOC))
def test_a_definition_whose_doc_comment_shows_a_doctest_replaces_that_definition_only(lang):
    old = _definition(lang, ["A document.", *DOCTEST], "fields")
    new = _definition(lang, ["A document: fields by name.", *DOCTEST], "field_values")
    r = merge(_file(lang, old), "\n".join(new) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, new)
    assert not r.deletions


@pytest.mark.parametrize("line", ["///     ...     SchemaBuilder()", '///     ...     "skiff in the Gulf"',
                                  "#     ...     schema,", " *     ... )", "//     ...         .build()"])
def test_a_doctest_continuation_is_not_a_marker(line):
    assert not is_marker(line)


@pytest.mark.parametrize("line", ["// ...", "# ... existing code ...", "    // ... rest of file", "// ... (snip)",
                                  "/* ... */", "// ... other methods", "// ... keep(x) unchanged", "# ... 3 more tests"])
def test_markers_are_still_markers(line):
    assert is_marker(line)
