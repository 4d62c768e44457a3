"""Issue 43: new lines written between two blank-separated groups of context (the end of one test,
the header of the next) go where those groups meet, not at an earlier place that shows the same
first lines and would delete the definitions between.

The shape, from a real release (deepdiff's tests/test_delta.py): a fragment of the lines that end a
test (`assert delta + t1 == t2`, `assert t1 + delta == t2`, a blank line), a new test, then a blank
line and the next test's header.  Several tests end with the same two asserts.  The fragment's three
first and three last lines frame the right place too, but there the file has one blank line where
the fragment has two (one before the new lines, one after): the frames share that blank line.  Such
a place now counts as framed, as the earlier one always did; before, that earlier place, framed and
unique enough, won and deleted a whole test."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (marker, a test's text with NAME and BODY in it, the new test's name, its body lines)
LANGS = {
    "python": ("# ... existing code ...", "def NAME():\n    x = BODY\n    assert x + 1 == 2\n    assert 1 + x == 2\n"),
    "javascript": ("// ... existing code ...",
                   "function NAME() {\n  const x = BODY;\n  check(x + 1, 2);\n  check(1 + x, 2);\n}\n"),
    "typescript": ("// ... existing code ...",
                   "export function NAME(): void {\n  const x: number = BODY;\n  check(x + 1, 2);\n  check(1 + x, 2);\n}\n"),
    "rust": ("// ... existing code ...",
             "fn NAME() {\n    let x = BODY;\n    assert_eq!(x + 1, 2);\n    assert_eq!(1 + x, 2);\n}\n"),
    "go": ("// ... existing code ...",
           "func NAME(t *testing.T) {\n\tx := BODY\n\tcheck(t, x+1, 2)\n\tcheck(t, 1+x, 2)\n}\n"),
}
HEAD = {"python": "import sys\n", "javascript": "const check = require('./check');\n",
        "typescript": "import { check } from './check';\n", "rust": "use std::fmt;\n",
        "go": "package sample\n\nimport \"testing\"\n"}


def _test(lang: str, name: str, body: str) -> str:
    return LANGS[lang][1].replace("NAME", name).replace("BODY", body)


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_new_lines_between_two_blank_separated_groups_delete_nothing(lang):
    marker = LANGS[lang][0]
    tests = [_test(lang, "test_first", "1"), _test(lang, "test_second", "1"), _test(lang, "test_third", "2")]
    text = HEAD[lang] + "\n" + "\n".join(tests)
    new = _test(lang, "test_added", "1").replace("1 == 2", "1 == 3").replace("2)", "3)").replace("2);", "3);")
    second, third = tests[1].splitlines(), tests[2].splitlines()
    tail = second[-2:]                             # its last two lines (a check, the closing brace)
    snippet = "\n".join([marker, *tail, "", *new.splitlines(), "", *third[:2], marker]) + "\n"
    truth = HEAD[lang] + "\n" + "\n".join([tests[0], tests[1], new, tests[2]])
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth
