"""Issue 43: a definition shown from one of its decorators (attributes, doc-comment lines) that is
not its first, after a marker.  The shape, from a real release (robyn's integration tests):
`# ... existing code ...`, `@pytest.mark.parametrize(...)`, the test function with a changed line;
the file has `@pytest.mark.benchmark` above the `parametrize`.  The marker stands for that line, so
it stays; Python's merge by name replaced the whole decorated definition and deleted it (a lost
line, on 406942d).  The other languages keep attributes and doc-comment lines above the first one
shown already; the tests hold all five to it."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: the lines above the definition (the first is never shown), its header, body, end
CODE = {
    "python": (["@pytest.mark.benchmark", "@pytest.mark.parametrize(\"kind\", [\"sync\", \"async\"])"],
               "def test_download(kind, session):", "    r = get(f\"/{kind}/file\")", "    assert r.ok", None),
    "rust": (["#[test]", "#[cfg(feature = \"download\")]"],
             "fn test_download() {", "    let r = get(\"/file\");", "    assert!(r.ok);", "}"),
    "typescript": (["@Injectable()", "@Retry(3)"],
                   "class Downloader {", "  fetch = get('/file');", "  ok = this.fetch.ok;", "}"),
    "javascript": (["/**", " * Downloads the file.", " * @returns the response", " */"],
                   "function download() {", "  const r = get('/file');", "  return r.ok;", "}"),
    "go": (["// Download fetches the file.", "// It reports whether the response was ok."],
           "func Download() bool {", "\tr := get(\"/file\")", "\treturn r.Ok", "}"),
}
MARK = {lang: ("# " if lang == "python" else "// ") + "... existing code ..." for lang in CODE}


def _before(lang: str) -> list[str]:
    if lang == "python":
        return ["import pytest", "", "", "def helper():", "    return 1", "", ""]
    if lang == "go":
        return ["package main", "", "func helper() int {", "\treturn 1", "}", ""]
    return ["const helper = 1;", ""] if lang != "rust" else ["const HELPER: i32 = 1;", ""]


def _definition(lang: str, second: str) -> list[str]:
    above, header, first, body, end = CODE[lang]
    return above + [header, first.replace("/file", second), body] + ([end] if end else [])


@pytest.mark.parametrize("lang", sorted(CODE))
def test_the_lines_above_the_first_shown_decorator_stay(lang):
    original = "\n".join(_before(lang) + _definition(lang, "/file")) + "\n"
    shown = _definition(lang, "/file/download")[1:]
    if lang == "javascript":                 # a block comment is shown whole or not at all
        shown = _definition(lang, "/file/download")[4:]
    r = merge(original, "\n".join([MARK[lang]] + shown) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(_before(lang) + _definition(lang, "/file/download")) + "\n"
    assert not r.deletions


def test_a_snippet_showing_every_decorator_replaces_them():
    """Shown from its first decorator, the definition's decorators are the snippet's: one it leaves
    out between them is deleted (and reported)."""
    lines = _before("python") + _definition("python", "/file")
    original = "\n".join(lines) + "\n"
    above, header, first, body, _ = CODE["python"]
    r = merge(original, "\n".join([MARK["python"], above[0], header, first, body]) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == "\n".join(_before("python") + [above[0], header, first, body]) + "\n"
    assert [(d.start, d.end) for d in r.deletions] == [(len(_before("python")) + 2,) * 2]


@pytest.mark.parametrize("lang", ["typescript", "javascript"])
def test_a_class_shown_without_its_decorators_keeps_them(lang):
    """As a Python function shown without its decorators keeps them (test_apply.py), so does a
    TypeScript or JavaScript class (on 406942d they were deleted: a multi-line one too)."""
    above = ["@Component({", "  selector: 'app-download',", "})", "@Retry(3)"]
    body = ["class Downloader {", "  fetch = get('/file');", "  ok = this.fetch.ok;", "}"]
    original = "\n".join(["const helper = 1;", ""] + above + body) + "\n"
    shown = [body[0], body[1].replace("/file", "/file/download")] + body[2:]
    r = merge(original, "\n".join(["// ... existing code ..."] + shown) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(["const helper = 1;", ""] + above + shown) + "\n"
    assert not r.deletions
