"""Issue 43: a fragment framed by its own first and last lines at one place only, where the region
between would delete a definition the snippet never shows, while a shorter region from the same first
line, ending at a closer copy of its last lines, deletes none and agrees better: the frame's far end
was a chance copy of lines every such block has (eslint-plugin-unicorn's prefer-simplified-conditions:
an `if` rewritten to span several lines, its last lines `) {`, `replacement = ...`, `}` found again in
the next function, which the merge deleted: 29 lost lines).  A definition deleted between frames
with no such closer place is still deleted (a deletion shown by omission).  (Python places a fragment
holding a definition's header by that name: not read so.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

JS = """function needsParentheses(node) {
\treturn ['UnaryExpression', 'AwaitExpression'].includes(node.type);
}

function getLogicalReplacementText(node, operator, replacement, context) {
\tif (shouldAddParentheses(node, operator, context)) {
\t\treplacement = `(${replacement})`;
\t}

\treturn needsSemicolon(node, context, replacement)
\t\t? `;${replacement}`
\t\t: replacement;
}

function getDeMorganReplacementText(node, context) {
\tconst {argument} = node;
\tconst operator = negatedOperators.get(argument.operator);
\tlet replacement = [argument.left, operator, argument.right].join(' ');

\tif (
\t\tisEqualityComparison(argument.left)
\t\t&& !isParenthesized(argument.left, context)
\t) {
\t\treplacement = `(${replacement})`;
\t}

\treturn getLogicalReplacementText(node, operator, replacement, context);
}

function getNegatedReplacementText(node, context) {
\tlet replacement = `!${node.argument}`;
\tif (
\t\tisParenthesized(node, context)
\t) {
\t\treplacement = `(${replacement})`;
\t}

\treturn replacement;
}
"""

JS_OLD_IF = "\tif (shouldAddParentheses(node, operator, context)) {\n"
JS_NEW_IF = """\t// Keep `in` grouped so the replacement stays a valid `for` initializer.
\tif (
\t\tshouldAddParentheses(node, operator, context)
\t\t|| hasInKeyword(node, context)
\t) {
"""
JS_SNIPPET = """// ... existing code ...
}

function getLogicalReplacementText(node, operator, replacement, context) {
""" + JS_NEW_IF + """\t\treplacement = `(${replacement})`;
\t}

\t// ... existing code ...
"""

CASES = {"javascript": (JS, JS_OLD_IF, JS_NEW_IF, JS_SNIPPET), "typescript": (JS, JS_OLD_IF, JS_NEW_IF, JS_SNIPPET)}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_condition_split_over_lines_keeps_the_next_function(lang):
    original, old, new, snippet = CASES[lang]
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == original.replace(old, new)
    assert not r.deletions


def test_a_function_omitted_between_frames_is_still_deleted():
    """Framed at both ends, its last lines found nowhere closer: the function between the frames, which
    the snippet omits, is deleted (and reported)."""
    original = JS + "\nfunction tail(node) {\n\treturn node;\n}\n"
    snippet = """// ... existing code ...
\t\t? `;${replacement}`
\t\t: replacement;
}

function tail(node) {
\treturn node;
}
"""
    r = merge(original, snippet, "javascript")
    assert r.ok, r.reason
    assert r.text == JS[:JS.index("function getDeMorganReplacementText")] + "function tail(node) {\n\treturn node;\n}\n"
    assert "getDeMorganReplacementText" in " ".join(map(str, r.deletions))
