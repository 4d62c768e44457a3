"""Issue 43: a new definition after a shown one, whose last line the file also has further on.

The shape, from a real release (pluggy's test_pluginmanager.py): a snippet shows the last lines of
a test, then a new test, then a marker.  The new test ends with `assert out == [10, 1]`, a line that
a later test of the file also has, once.  That one line was read as the fragment's closing anchor,
and the region from the shown test to it was replaced: five tests between (162 lines) were deleted
without a word, the region's ends being lines found nowhere else.  A closing run of one line with
words, inside a definition the fragment brings and the file does not have, is a new line that the
file has by chance, not an anchor: the new test goes after the shown one and nothing is deleted.
Nor does such a line count as one the merged file would have twice (the rule that makes a region
take in a line the fragment shows once and the file has once, further on): brace languages, whose
new test ends with `}`, had the new test replace the later one's body."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (marker, a test function (name, plugin, expected) -> lines, gap between functions, the names)
LANGS = {
    "python": ("# ... existing code ...", lambda n, p, e: [
        f"def {n}(pm):", "    out = []", f"    pm.register({p}())", f"    assert out == {e}"], "\n\n",
        ("test_a", "test_b", "test_c", "test_d", "test_new")),
    "javascript": ("// ... existing code ...", lambda n, p, e: [
        f"function {n}(pm) {{", "  const out = [];", f"  pm.register(new {p}());", f"  expect(out).toEqual({e});",
        "}"], "\n", ("testA", "testB", "testC", "testD", "testNew")),
    "typescript": ("// ... existing code ...", lambda n, p, e: [
        f"function {n}(pm: Manager): void {{", "  const out: number[] = [];", f"  pm.register(new {p}());",
        f"  expect(out).toEqual({e});", "}"], "\n", ("testA", "testB", "testC", "testD", "testNew")),
    "go": ("// ... existing code ...", lambda n, p, e: [
        f"func {n}(pm *Manager) {{", "\tout := []int{}", f"\tpm.Register(&{p}{{}})",
        f"\tpm.Expect(out, []int{{{e[1:-1]}}})", "}"], "\n", ("TestA", "TestB", "TestC", "TestD", "TestNew")),
    "rust": ("// ... existing code ...", lambda n, p, e: [
        f"fn {n}(pm: &mut Manager) {{", "    let out: Vec<i32> = vec![];", f"    pm.register({p}::new());",
        f"    assert_eq!(out, vec!{e});", "}"], "\n", ("test_a", "test_b", "test_c", "test_d", "test_new")),
}


def _fn(lang: str, name: str, plugin: str, expected: str) -> str:
    return "\n".join(LANGS[lang][1](name, plugin, expected)) + "\n"


def _file(lang: str) -> tuple[list[str], str]:
    """(the file's four tests, the last one ending as the new one does; the new test)."""
    a, b, c, d, new = LANGS[lang][3]
    return ([_fn(lang, a, "PluginA", "[1, 10]"), _fn(lang, b, "PluginB", "[2]"), _fn(lang, c, "PluginC", "[3]"),
             _fn(lang, d, "PluginD", "[10, 1]")], _fn(lang, new, "PluginN", "[10, 1]"))


def _snippet(lang: str, first: str, new: str) -> str:
    """A marker, the first test's lines but its header, the new function, a marker."""
    marker, gap = LANGS[lang][0], LANGS[lang][2]
    return f"{marker}\n" + "".join(first.splitlines(True)[1:]) + gap + new + f"{marker}\n"


@pytest.mark.parametrize("lang", list(LANGS))
def test_a_new_function_ending_as_a_later_one_does_goes_after_the_shown_one(lang):
    gap = LANGS[lang][2]
    fns, new = _file(lang)
    text = gap.join(fns)
    assert text.count(new.splitlines()[3]) == 1          # its last statement: once in the file, in test d
    r = merge(text, _snippet(lang, fns[0], new), lang)
    assert r.ok, r.reason
    assert r.text == gap.join(fns[:1] + [new] + fns[1:])
    assert r.deletions == []
