"""Issue 43: a fragment after an indented marker stays in the marker's block, unless a line of it
that the file has once is elsewhere.  The shape, from a real release (pydash's predicates.py): a
snippet shows `def is_decreasing(value):`, its docstring's first line and a marker inside it, then
`True`, `>>> is_empty(True)`, `True`, `>>> is_empty("foo")`, `False`, `>>> is_empty(None)`, `True`:
doctests of `is_empty`, 60 lines on, with one quote style changed.  The marker's block is
`is_decreasing`'s, whose docstring has `True` lines too, so the fragment rewrote its doctests there
and deleted one; the file's `>>> is_empty(True)`, found once, was left beside a second copy.

A line of the fragment that the file has once places it more surely than the marker's depth: when
no candidate in the marker's block holds one and another candidate does, the others are kept
(anchors._in_marker_block).  The same shape in every language: a list of checks in a function,
generic `True`/`true,` lines, the marker inside the first function's list, after its header and the
list's first line (as Python's docstring's).  (On 9fe1149 every language rewrote the first
function's lines.)  Right after a definition's header, the marker is that definition's body
(test_apply_marker_after_header.py)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

PYTHON = '''import operator


def is_decreasing(value):
    """
    Check if value is decreasing.

    Examples:
        >>> is_decreasing([5, 4, 4, 3])
        True
        >>> is_decreasing([5, 5, 5])
        True
        >>> is_decreasing([5, 4, 5])
        False
    """
    return is_monotone(value, operator.ge)


def is_empty(value):
    """
    Check if value is empty.

    Examples:
        >>> is_empty(0)
        True
        >>> is_empty(True)
        True
        >>> is_empty('foo')
        False
        >>> is_empty(None)
        True
    """
    return is_boolean(value) or not value
'''
PYTHON_SNIPPET = '''# ... existing code ...
def is_decreasing(value):
    """
    Check if value is decreasing.
    # ... existing code ...
        True
        >>> is_empty(True)
        True
        >>> is_empty("foo")
        False
        >>> is_empty(None)
        True
        # ... existing code ...
'''

# per language: (function header with {name}, list opening, list closing, function end, true, false, null, comment)
BRACES = {
    "javascript": ("function {name}() {{", "  return [", "  ]", "}", "true", "false", "null", "//"),
    "typescript": ("function {name}(): unknown[] {{", "  return [", "  ]", "}", "true", "false", "null", "//"),
    "rust": ("fn {name}() -> Vec<Value> {{", "    vec![", "    ]", "}", "Value::from(true)", "Value::from(false)",
             "Value::Null", "//"),
    "go": ("func {name}() []any {{", "\treturn []any{", "\t}", "}", "true", "false", "nil", "//"),
}


def _braces(lang: str) -> tuple[str, str, str]:
    head, opening, closing, end, yes, no, null, c = BRACES[lang]
    ind = "\t\t" if lang == "go" else "    "

    def items(rows):
        return [f"{ind}{r}," for r in rows]
    first = [head.format(name="decreasingCases"), opening] + items(
        ["isDecreasing(5, 4, 4, 3)", yes, "isDecreasing(5, 5, 5)", yes, "isDecreasing(5, 4, 5)", no]) + [closing, end]
    second = [head.format(name="emptyCases"), opening] + items(
        ["isEmpty(0)", yes, f"isEmpty({yes})", yes, "isEmpty('foo')", no, f"isEmpty({null})", yes]) + [closing, end]
    original = "\n".join(first + [""] + second) + "\n"
    snippet = "\n".join([f"{c} ... existing code ...", first[0], first[1], f"{ind}{c} ... existing code ..."] + items(
        [yes, f"isEmpty({yes})", yes, 'isEmpty("foo")', no, f"isEmpty({null})", yes]) +
        [f"{ind}{c} ... existing code ..."]) + "\n"
    return original, snippet, original.replace("isEmpty('foo')", 'isEmpty("foo")')


def _case(lang: str) -> tuple[str, str, str]:
    if lang == "python":
        return PYTHON, PYTHON_SNIPPET, PYTHON.replace(">>> is_empty('foo')", '>>> is_empty("foo")')
    return _braces(lang)


@pytest.mark.parametrize("lang", ["python", *sorted(BRACES)])
def test_a_line_found_once_outweighs_the_markers_block(lang):
    original, snippet, truth = _case(lang)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == truth


@pytest.mark.parametrize("lang", ["python", *sorted(BRACES)])
def test_without_such_a_line_the_fragment_stays_in_the_markers_block(lang):
    """The fragment's generic lines alone (`True`, `False`, ...) go to the marker's block: the
    first function changes, the second stays as it was."""
    original, snippet, _ = _case(lang)
    kept = [l for l in snippet.split("\n") if "isEmpty" not in l and "is_empty" not in l]
    at = next(i for i, l in enumerate(kept) if l.strip() in ("True", "true,", "Value::from(true),"))
    new = kept[at].replace("True", "False").replace("true", "false")
    r = merge(original, "\n".join(kept[:at + 1] + [new] + kept[at + 1:]), lang)
    assert r.ok, r.reason
    second = original[original.index("def is_empty" if lang == "python" else "emptyCases") - 4:]
    assert r.text.endswith(second) and r.text != original
