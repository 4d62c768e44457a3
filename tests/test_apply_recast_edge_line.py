"""Issue 43: a fragment whose first (or last) line is new, a rewrite of the file's line right before
(after) where its other lines anchor, replaces that line: a bundle's export list with a name added,
shown with the source-map line after it (@internationalized/date's dist/import.mjs and module.js were
refused: "its first line is not in the file"); a test's parametrize list whose first line changed
(y-py, inline-snapshot).  A new line unlike its neighbour, or as like the shown line next to it
(a sibling added), is still refused."""
from __future__ import annotations

from redraft.engine.apply import merge

BUNDLE = """import {fromDate as $a$fromDate, toTime as $a$toTime} from "./conversion.mjs";
import {today as $b$today} from "./queries.mjs";

function $c$helper(x) {
  return x;
}

export {$a$fromDate as fromDate, $a$toTime as toTime, $b$today as today};
//# sourceMappingURL=module.js.map
"""

SNIPPET = """import {fromDate as $a$fromDate, fromDateToLocal as $a$fromDateToLocal, toTime as $a$toTime} \
from "./conversion.mjs";
// ... existing code ...
export {$a$fromDate as fromDate, $a$fromDateToLocal as fromDateToLocal, $a$toTime as toTime, $b$today as today};
//# sourceMappingURL=module.js.map
"""


def test_a_rewritten_first_line_replaces_the_line_before_the_anchor():
    result = merge(BUNDLE, SNIPPET, "javascript")
    assert result.ok, result.reason
    assert result.text == BUNDLE.replace(
        "{fromDate as $a$fromDate, toTime", "{fromDate as $a$fromDate, fromDateToLocal as $a$fromDateToLocal, toTime"
    ).replace("$a$fromDate as fromDate, $a$toTime", "$a$fromDate as fromDate, $a$fromDateToLocal as fromDateToLocal, "
              "$a$toTime")


PY = """import pytest


@pytest.mark.parametrize("value,expected", [
    (1, "1"),
    (None, "none"),
])
def test_render(value, expected):
    assert render(value) == expected


def test_other():
    assert render(2) == "2"
"""


def test_a_rewritten_first_line_after_a_marker_replaces_the_line_before():
    snippet = """# ... existing code ...
@pytest.mark.parametrize(("value", "expected"), [
    (1, "1"),
    (None, "none"),
    (True, "yes"),
])
# ... existing code ...
"""
    result = merge(PY, snippet, "python")
    assert result.ok, result.reason
    assert result.text == PY.replace('"value,expected"', '("value", "expected")').replace(
        '    (None, "none"),\n', '    (None, "none"),\n    (True, "yes"),\n')


def test_a_new_first_line_unlike_the_line_before_is_refused():
    snippet = """# ... existing code ...
SAMPLES = [(True, "yes")]
    (1, "1"),
    (None, "none"),
])
# ... existing code ...
"""
    result = merge(PY, snippet, "python")
    assert not result.ok
    assert "first line is not in the file" in result.reason


def test_a_new_sibling_before_a_shown_line_is_no_rewrite_of_the_line_above():
    """`register("beta", ...)` is as like the shown `register("gamma", ...)` as the file's
    `register("alpha", ...)` above: a line added among siblings, not that line rewritten (refused
    as before, not merged deleting `alpha`)."""
    file = 'def setup():\n    register("alpha", handler_a)\n    register("gamma", handler_c)\n' \
           '    register("delta", handler_d)\n'
    snippet = '# ... existing code ...\n    register("beta", handler_b)\n    register("gamma", handler_c)\n' \
              '# ... existing code ...\n'
    result = merge(file, snippet, "python")
    assert not result.ok
    assert "first line is not in the file" in result.reason
