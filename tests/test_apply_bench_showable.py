"""The apply benchmark's case builders (bench/apply_cases.py, bench/apply_omission.py) never ask for
a deletion that no snippet can show.

A diff hunk's context is three lines.  When a deleted test ends as the one before it does (`    )`
and two blank lines), the hunk's context before the deletion is those repeated lines: the snippet
shows a marker, then `    )` and two blank lines, then the next test, and that reads as the end
of the deleted test, kept.  Every one of the 32 development cases of that shape (22 release, one
omission, 9 of the omission stress set) was refused or wrong whatever the merge did.  The builders
now widen the context until the snippet shows a line that tells the places apart, or leave the
hunk out when that would reach the file's start or end; 27 of those cases are then exact."""
from __future__ import annotations

import difflib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import apply_cases  # noqa: E402
import apply_omission  # noqa: E402

from redraft.engine.apply import merge  # noqa: E402


def _test(name: str, arg: str) -> list[str]:
    return [f"def {name}():", "    assert (", f"        convert({arg!r})", '        == "x"', "    )", "", ""]


OLD = ["import io", "", ""] + _test("test_a", "a") + _test("test_b", "b") + ["def test_d():", "    pass"]
NEW = ["import io", "", ""] + _test("test_a", "a") + ["def test_d():", "    pass"]


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def test_the_hunks_own_context_repeats_the_deleted_lines():
    """The premise: difflib's context before the deleted test is lines the deleted test ends with."""
    [group] = difflib.SequenceMatcher(None, OLD, NEW, autojunk=False).get_grouped_opcodes(3)
    (_, c1, c2, _, _), (tag, _, b, _, _) = group[0], group[1]
    assert tag == "delete" and OLD[c1:c2] == OLD[b - (c2 - c1):b]
    widened = apply_cases.showable(OLD, group)
    assert widened[0][1] < c1 and widened[1:] == list(group[1:])


def test_a_multi_case_shows_a_line_that_tells_the_places_apart():
    [(shape, snippet, truth)] = list(apply_cases._multi_cases("python", OLD, NEW))
    assert shape == "multi" and truth == NEW
    assert "        convert('a')" in snippet                # test_a's own line, before its `)`
    r = merge(_text(OLD), _text(snippet), "python")
    assert r.ok and r.text == _text(NEW), r.reason


def test_an_omission_case_shows_it_too():
    [(shape, snippet, truth)] = [c for c in apply_omission.diff_cases("python", OLD, NEW) if c[0] != "new-after"]
    assert shape == "delete-between" and truth == NEW and "        convert('a')" in snippet
    r = merge(_text(OLD), _text(snippet), "python")
    assert r.ok and r.text == _text(NEW), r.reason


def test_a_deletion_whose_context_would_need_the_files_end_is_left_out():
    """`x`, `y` deleted before the file's last lines, `x`, `y`: no line after them tells the two
    apart, so the hunk is left out (as a deletion at the file's very end is)."""
    old = ["a = 1", "b = 2", "x = 1", "y = 2", "x = 1", "y = 2"]
    group = [("equal", 0, 2, 0, 2), ("delete", 2, 4, 2, 2), ("equal", 4, 6, 2, 4)]
    assert apply_cases.showable(old, group) is None
    assert apply_cases.showable(old[:-1] + ["z = 3"], group) == group    # `z` differs from `y`: shown as is


def test_a_new_definition_case_brings_only_the_new_definition():
    """The new release adds `deleteBy` before module constants that stay where they were: a
    new-before case would show the constants as part of the new definition and its truth would
    define them twice (tanstack-form-core's utils.ts).  No such case is cut; new-after, which shows
    the lines before the new definition, still is."""
    def fn(name):
        return [f"export function {name}(obj: any) {{", "  const path = makePathArray(obj)", "  path.reverse()",
                "  return path", "}", ""]
    consts = ["const reFind = /^(\\d*)$/gm", "const intPrefix = '__int__'", ""]
    old = fn("setBy") + consts + fn("makePathArray")
    new = fn("setBy") + fn("deleteBy") + consts + fn("makePathArray")
    cases = list(apply_omission.new_def_cases("typescript", apply_omission.language_for("typescript"), old, new))
    assert [shape for shape, _, _ in cases] == ["new-after"]
    assert all(truth.count(consts[0]) == 1 for _, _, truth in cases)


def _module(name: str) -> list[str]:
    return [f"// src/{name}.ts", f"function {name}Handler(api) {{", "  const state = api.getState();",
            f"  api.dispatch({{ type: '{name}' }});", "  return state.value;", "}", f"var {name}Timeout = 1e3;",
            f"export {{ {name}Handler }};", ""]


def test_a_combination_that_takes_half_of_a_move_is_left_out():
    """The new release moves a module from the top of a bundle to its end (redux-toolkit's bundles):
    the diff inserts it at the end and deletes it at the top, in hunks that fall in different cases.
    The case with the insertion alone would have the module twice, which neither release has; it is
    left out, and the case with the deletion alone, which has the module once, is kept."""
    filler = [f"const value{i} = compute({i});" for i in range(60)]
    old = ["'use strict';", ""] + _module("cache") + filler + ["export default {};"]
    new = ["'use strict';", ""] + [l.replace("compute(", "computeAgain(") if i % 15 == 7 else l
                                   for i, l in enumerate(filler)] + _module("cache") + ["export default {};"]
    cases = apply_cases.file_cases("dev", "demo", "src/bundle.js", _text(old), _text(new))
    truths = [c.truth.splitlines() for c in cases if c.shape == "multi"]
    assert len(list(apply_cases._multi_cases("javascript", old, new))) == 2
    assert len(truths) == 1 and truths[0].count("// src/cache.ts") == 0
    assert apply_cases._half_move(old + _module("cache"), old, new, {})
    assert not apply_cases._half_move(new, old, new, {})


def test_a_file_the_new_release_reindents_gives_no_case():
    """A release that switched a file from spaces to tabs (a bundler's output, @tanstack/router-core
    1.160 -> 1.171) would ask for the old file with one function in tabs; the merge keeps the file's
    style, so such a file gives no case (session 47: 368 of fresh13's cases were of that kind)."""
    old = "function f(a) {\n  const b = a + 1;\n  return b;\n}\n\nfunction g() {\n  return 2;\n}\n"
    new = old.replace("  ", "\t").replace("a + 1", "a + 2")
    assert apply_cases.file_cases("x", "p", "f.js", old, new) == []
    same_style = old.replace("a + 1", "a + 2")
    cases = apply_cases.file_cases("x", "p", "f.js", old, same_style)
    functions = [c for c in cases if c.shape == "function"]
    assert functions and all(merge(c.original, c.snippet, "javascript").text == c.truth for c in functions)
