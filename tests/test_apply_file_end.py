"""Issue 43: a new definition added at the end of the file, after the lines that end the last
one, when every definition ends with those same lines.  The shape, from a real release (Python
Markdown's test_admonition.py): the snippet is a marker, the last test's three closing lines, a blank
line and a new test that closes with the same three lines.  The fragment's first and last lines were
alike, so any two of their places framed it, and the merge read the new test as a rewrite of the
last one (deleting it).  Frames alike at both ends no longer make a region explicit, and with no
marker after the snippet (what follows it is deleted), its shown lines go where they are the file's
last lines: the new definition is appended.  Twins: with a marker after the snippet, no definition
is rewritten (the merge appends or refuses), nor when other lines end the file."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# a test named `n` (`N` capitalized) that closes with the same lines as every other, and the marker
TESTS = {
    "python": (lambda n, N: [f"def test_{n}(self):", "    self.check(", f"        '{n}',", "        extensions=['x']",
                             "    )"], "# ... existing code ..."),
    "javascript": (lambda n, N: [f"test('{n}', () => {{", f"  check('{n}', {{", "    extensions: ['x'],", "  });",
                                 "});"], "// ... existing code ..."),
    "typescript": (lambda n, N: [f"export function {n}(): Result {{", f"  return check('{n}', {{",
                                 "    extensions: ['x'],", "  });", "}"], "// ... existing code ..."),
    "go": (lambda n, N: [f"func Test{N}(t *testing.T) {{", f"\tcheck(t, \"{n}\",", "\t\t[]string{\"x\"})", "}"],
           "// ... existing code ..."),
    "rust": (lambda n, N: [f"fn {n}() {{", f"    check(\"{n}\", &[", "        \"x\",", "    ]);", "}"],
             "// ... existing code ..."),
}
# (three definitions, each closing with the same lines; a new one closing alike; the marker)
FILES = {lang: ([test(n, n.capitalize()) for n in ("one", "two", "three")], test("four", "Four"), marker)
         for lang, (test, marker) in TESTS.items()}
LANGS = list(FILES)
GAP = [""]                      # between definitions


def _file(lang: str, defs: list[list[str]]) -> list[str]:
    out = ["package checks", ""] if lang == "go" else []
    for k, d in enumerate(defs):
        out += d + (GAP if k < len(defs) - 1 else [])
    return out


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_new_definition_after_the_file_s_alike_last_lines_is_appended(lang):
    defs, new, m = FILES[lang]
    snippet = [m] + defs[-1][-3:] + GAP + new
    r = merge(_text(_file(lang, defs)), _text(snippet), lang)
    assert r.ok, r.reason
    assert r.text == _text(_file(lang, defs + [new]))
    assert r.deletions == []


@pytest.mark.parametrize("lang", LANGS)
def test_with_a_marker_after_it_no_definition_is_rewritten(lang):
    defs, new, m = FILES[lang]
    snippet = [m] + defs[-1][-3:] + GAP + new + [m]
    r = merge(_text(_file(lang, defs)), _text(snippet), lang)
    assert not r.ok and "more than one place" in r.reason or r.text == _text(_file(lang, defs + [new]))


@pytest.mark.parametrize("lang", LANGS)
def test_when_other_lines_end_the_file_no_definition_is_rewritten(lang):
    defs, new, m = FILES[lang]
    src = _file(lang, defs) + GAP + (["// the end"] if lang != "python" else ["# the end"])
    snippet = [m] + defs[-1][-3:] + GAP + new
    r = merge(_text(src), _text(snippet), lang)
    assert not r.ok or r.text.startswith(_text(_file(lang, defs + [new])))
    assert all(not d.definitions for d in r.deletions)


def _method(name: str, body: str) -> list[str]:
    return [f"    def {name}(self):", "        self.assertRenders(", "            self.dedent(", f"                '{body}'",
            "            ),", "            self.dedent(", f"                '<p>{body}</p>'", "            ),",
            "            extensions=['admonition']", "        )"]


def test_a_new_test_method_after_the_last_alike_one():
    """The release's own shape: methods of a test class, each closing with the same three lines."""
    src = ["class TestAdmonition(TestCase):", ""]
    for k, name in enumerate("abc"):
        src += _method(f"test_{name}", name) + ([""] if k < 2 else [])
    new = _method("test_d", "d")
    r = merge(_text(src), _text(["# ... existing code ..."] + src[-3:] + [""] + new), "python")
    assert r.ok, r.reason
    assert r.text == _text(src + [""] + new) and r.deletions == []
