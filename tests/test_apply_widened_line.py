"""Issue 43: a new line that holds an old one whole, and more (a condition widened with `|| other(...)`,
an argument added), rewrites that line: a place where it does counts it as rewritten, as it counts a
line alike character by character (eslint-plugin-unicorn's no-computed-property-existence-check: a
comment and `if (isBoolean(node, context)) {` rewritten, read as the next, unlike `if
(isKnownNonObjectReceiver(...)) {` replaced and the old check kept: 1 lost line).  A switch case whose
label the snippet never shows is not rewritten into a new one either (its no-immediate-mutation: a
case added before `case 'ArrayExpression':`, read as that case rewritten: 2 lost lines)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

JS = """const create = context => {
\tcontext.on('MemberExpression', node => {
\t\tif (!isComputed(node)) {
\t\t\treturn;
\t\t}

\t\t// A property whose value type is a known boolean is a value read, not an existence check.
\t\tif (isBoolean(node, context)) {
\t\t\treturn;
\t\t}

\t\tif (isKnownNonObjectReceiver(node.object, context)) {
\t\t\treturn;
\t\t}

\t\treport(node);
\t});
};
"""

JS_OLD = """\t\t// A property whose value type is a known boolean is a value read, not an existence check.
\t\tif (isBoolean(node, context)) {
"""
JS_NEW = """\t\t// A property with a boolean value type can hold `false` when present.
\t\t// `no-unnecessary-boolean-comparison` may rewrite a comparison into this form.
\t\tif (isBoolean(node, context) || hasBooleanType(node, context)) {
"""
JS_SNIPPET = """// ... existing code ...
const create = context => {
\t// ... existing code ...
\t\t}

""" + JS_NEW + """\t\t\treturn;
\t\t}
\t\t// ... existing code ...
};
"""

PY = """def check(node, context):
    if not is_computed(node):
        return

    # a known boolean is a value read, not an existence check
    if is_boolean(node, context):
        return

    if receiver_of(node.value) is None:
        return

    report(node)
"""

PY_OLD = """    # a known boolean is a value read, not an existence check
    if is_boolean(node, context):
"""
PY_NEW = """    # a boolean value type can hold False when present;
    # another rule may rewrite a comparison into this form
    if is_boolean(node, context) or has_boolean_type(node, context):
"""
PY_SNIPPET = """# ... existing code ...
        return

""" + PY_NEW + """        return
    # ... existing code ...
"""

CASES = {"javascript": (JS, JS_OLD, JS_NEW, JS_SNIPPET), "python": (PY, PY_OLD, PY_NEW, PY_SNIPPET)}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_widened_condition_rewrites_its_old_line(lang):
    original, old, new, snippet = CASES[lang]
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == original.replace(old, new)


SWITCH = """function isSimpleInitialValue(node) {
\tnode = unwrap(node);

\tswitch (node.type) {
\t\tcase 'Identifier':
\t\tcase 'Literal':
\t\tcase 'FunctionExpression': {
\t\t\treturn true;
\t\t}

\t\tcase 'TemplateLiteral': {
\t\t\treturn node.expressions.length === 0;
\t\t}

\t\tcase 'UnaryExpression': {
\t\t\tconst argument = unwrap(node.argument);
\t\t\treturn node.operator === '-'
\t\t\t\t&& isNumericLiteral(argument);
\t\t}

\t\tcase 'ArrayExpression': {
\t\t\treturn node.elements.every(element => !element || isSimpleInitialValue(element));
\t\t}

\t\tdefault: {
\t\t\treturn false;
\t\t}
\t}
}
"""

SWITCH_OLD = """\t\tcase 'UnaryExpression': {
\t\t\tconst argument = unwrap(node.argument);
\t\t\treturn node.operator === '-'
\t\t\t\t&& isNumericLiteral(argument);
\t\t}
"""
SWITCH_NEW = """\t\tcase 'UnaryExpression': {
\t\t\tif (['!', 'void', 'typeof'].includes(node.operator)) {
\t\t\t\treturn isSimpleInitialValue(node.argument);
\t\t\t}

\t\t\tconst argument = unwrap(node.argument);
\t\t\treturn ['+', '-', '~'].includes(node.operator)
\t\t\t\t&& isNumericLiteral(argument);
\t\t}

\t\tcase 'LogicalExpression': {
\t\t\treturn isSimpleInitialValue(node.left) && isSimpleInitialValue(node.right);
\t\t}

\t\tcase 'ConditionalExpression': {
\t\t\treturn [node.test, node.consequent, node.alternate].every(expression => isSimpleInitialValue(expression));
\t\t}

\t\tcase 'SequenceExpression': {
\t\t\treturn node.expressions.every(expression => isSimpleInitialValue(expression));
\t\t}

\t\tcase 'BinaryExpression': {
\t\t\treturn ['===', '!=='].includes(node.operator)
\t\t\t\t&& isSimpleInitialValue(node.left)
\t\t\t\t&& isSimpleInitialValue(node.right);
\t\t}
"""
SWITCH_SNIPPET = ("// ... existing code ...\nfunction isSimpleInitialValue(node) {\n\t// ... existing code ...\n"
                  "\t\tcase 'Identifier':\n"
                  "\t\tcase 'Literal':\n\t\tcase 'ThisExpression':\n\t\tcase 'FunctionExpression': {\n"
                  "\t\t\t// ... existing code ...\n\n" + SWITCH_NEW +
                  "\n\t\t// ... existing code ...\n}\n// ... existing code ...\n")


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_a_new_case_keeps_the_next_case_the_snippet_never_shows(lang):
    r = merge(SWITCH, SWITCH_SNIPPET, lang)
    assert r.ok, r.reason
    assert r.text == SWITCH.replace(SWITCH_OLD, SWITCH_NEW).replace("\t\tcase 'Literal':\n", "\t\tcase 'Literal':\n"
                                                                    "\t\tcase 'ThisExpression':\n")
