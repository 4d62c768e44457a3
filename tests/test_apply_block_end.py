"""Issue 43: a new method after lines that end another, when those lines also sit inside a third.

The shape, from a real release (attrs' tests/test_annotations.py): the snippet shows the last three
lines of a test method, a blank line and a new, less indented method, then a marker.  The three
lines are in the file twice: at the end of that method, and inside an earlier one whose body goes
on after them.  The merge refused ("matches more than one place").  The new lines, less indented
than the shown ones, say that the shown lines end their block; a place where the file's block goes
on after them cannot be it.

In the brace languages the shown lines end with the block's `}`, which settles it already; where
they end a block at both places the snippet is still refused (twins, all five languages)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

PY_FILE = '''class TestResolve:
    def test_simple(self):
        C = make()
        assert int is fields(C).x.type
        assert str is fields(C).y.type
        check(C, x=int, y=str)

    def test_other(self):
        pass

    def test_resolve(self):
        C = resolve(make())
        assert int is fields(C).x.type
        assert str is fields(C).y.type

    def test_last(self):
        pass
'''
NEW_METHOD = '''    def test_extra(self):
        C = resolve(make(), extras=True)
        assert float is fields(C).x.type
'''
SHOWN = "        assert int is fields(C).x.type\n        assert str is fields(C).y.type\n"


def test_a_new_method_goes_after_the_lines_where_they_end_their_method():
    assert PY_FILE.count(SHOWN) == 2
    snippet = "    # ... existing code ...\n" + SHOWN + "\n" + NEW_METHOD + "    # ... existing code ...\n"
    r = merge(PY_FILE, snippet, "python")
    assert r.ok, r.reason
    at = PY_FILE.rindex(SHOWN) + len(SHOWN)
    assert r.text == PY_FILE[:at] + "\n" + NEW_METHOD + PY_FILE[at:]


# (file whose two functions end alike, the snippet's shown end, a new function, marker)
TWINS = {
    "python": ("def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n",
               "    x = 1\n    return x\n", "\n\ndef c():\n    return 2\n", "# ... existing code ..."),
    "javascript": ("function a() {\n  const x = 1;\n  return x;\n}\n\nfunction b() {\n  const x = 1;\n  return x;\n}\n",
                   "  return x;\n}\n", "\nfunction c() {\n  return 2;\n}\n", "// ... existing code ..."),
    "typescript": ("function a(): number {\n  const x = 1;\n  return x;\n}\n\nfunction b(): number {\n  const x = 1;\n"
                   "  return x;\n}\n", "  return x;\n}\n", "\nfunction c(): number {\n  return 2;\n}\n",
                   "// ... existing code ..."),
    "go": ("package p\n\nfunc A() int {\n\tx := 1\n\treturn x\n}\n\nfunc B() int {\n\tx := 1\n\treturn x\n}\n",
           "\treturn x\n}\n", "\nfunc C() int {\n\treturn 2\n}\n", "// ... existing code ..."),
    "rust": ("fn a() -> i32 {\n    let x = 1;\n    x\n}\n\nfn b() -> i32 {\n    let x = 1;\n    x\n}\n",
             "    x\n}\n", "\nfn c() -> i32 {\n    2\n}\n", "// ... existing code ..."),
}


@pytest.mark.parametrize("lang", list(TWINS))
def test_lines_that_end_a_block_at_two_places_are_still_refused(lang):
    text, shown, new, marker = TWINS[lang]
    snippet = f"{marker}\n{shown}{new}{marker}\n"
    r = merge(text, snippet, lang)
    assert not r.ok
    assert "matches more than one place" in r.reason
