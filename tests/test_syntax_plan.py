"""Syntax-aware infill planning on real snippets, per language: whether to complete, the scope, the
canvas and the boundary. `|` marks the cursor."""
from __future__ import annotations

import pytest

from redraft.engine.infill import plan_infill, resolve_tree
from redraft.engine.plan import plan_lines
from redraft.engine.syntax.plan import BLOCK_CANVAS, DEFINITION_CANVAS, INLINE_CANVAS


def plan(language: str, marked: str, max_tokens: int = 32):
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    tree = resolve_tree(text, language, None)
    assert tree is not None
    return plan_infill(text, offset, max_tokens, syntax_tree=tree)


CASES = [
    # language, document, scope (None: no completion), canvas, boundary
    ("python", "def f(x):\n    |\n", "block", DEFINITION_CANVAS, "block"),
    ("python", "class Point:\n    |\n\n\nprint(1)\n", "block", DEFINITION_CANVAS, "block"),
    ("python", "def f(xs):\n    for x in xs:\n        |\n    return xs\n", "block", BLOCK_CANVAS, "block"),
    ("python", "def f(xs):\n    for x in xs:\n        |\n        print(x)\n", "line", 32, "statement"),
    ("python", "def f(xs):\n    |\n        print(x)\n", "line", 32, "header"),
    ("python", "x = foo(\n    |\n        a)\n", "line", 32, "statement"),
    ("python", "def f(x):\n    return |\n", "line-rest", 32, "statement"),
    ("python", "def f(x):\n    return g(|)\n", "inline", INLINE_CANVAS, "expression"),
    ("python", "value = comp|ute_total(x)\n", None, 0, ""),
    ("python", "x = 1  # add the |\n", None, 0, ""),
    ("python", "# TODO: |\nx = 1\n", None, 0, ""),
    ("python", "name = 'Hello, |'\n", "string", INLINE_CANVAS, "string"),
    ("python", "d = {'a': 1}  # '{' |\n", None, 0, ""),
    ("javascript", "function total(xs) {\n  |\n}\n", "block", DEFINITION_CANVAS, "block"),
    ("javascript", "const f = (a) => {\n  |\n};\n", "block", DEFINITION_CANVAS, "block"),
    ("javascript", "if (ready) {\n  |\n}\n", "block", BLOCK_CANVAS, "block"),
    ("javascript", "const s = `sum: ${a} |`;\n", "string", INLINE_CANVAS, "string"),
    ("javascript", "/* block | comment */\nlet a = 1;\n", None, 0, ""),
    ("javascript", "let a = 1; /* done */ |\n", "line-rest", 32, "statement"),
    ("javascript", "let a = compute(|, 2);\n", "inline", INLINE_CANVAS, "expression"),
    ("typescript", "class Stack<T> {\n  |\n}\n", "block", DEFINITION_CANVAS, "block"),
    ("typescript", "const n: number = |\n", "line-rest", 32, "statement"),
    ("rust", "fn main() {\n    let v = vec![1, 2];\n    for x in &v {\n        |\n    }\n}\n", "block", BLOCK_CANVAS, "block"),
    ("rust", "impl Stack {\n    |\n}\n", "block", DEFINITION_CANVAS, "block"),
    ("rust", "fn main() {\n    // say |\n}\n", None, 0, ""),
    ("rust", 'fn main() {\n    println!("{} |", x);\n}\n', "string", INLINE_CANVAS, "string"),
    ("go", "package main\n\nfunc add(a, b int) int {\n\t|\n}\n", "block", DEFINITION_CANVAS, "block"),
    ("go", "package main\n\nfunc main() {\n\tfor i := 0; i < 3; i++ {\n\t\t|\n\t}\n}\n", "block", BLOCK_CANVAS, "block"),
    ("go", "package main\n\nfunc main() {\n\tx := |\n}\n", "line-rest", 32, "statement"),
    ("typescriptreact", "const App = () => {\n  |\n};\n", "block", DEFINITION_CANVAS, "block"),
]


@pytest.mark.parametrize("language,doc,scope,canvas,boundary", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_scope_canvas_and_boundary(language, doc, scope, canvas, boundary):
    p = plan(language, doc)
    if scope is None:
        assert p is None
        return
    assert p is not None and p.syntax
    assert (p.scope, p.canvas_len, p.boundary) == (scope, canvas, boundary)
    assert p.stop_at_newline == (scope != "block")


def test_block_records_the_openers_indentation():
    p = plan("python", "class A:\n    def f(self):\n        |\n")
    assert p.scope == "block" and p.indent == "    "


def test_block_opener_inside_a_string_is_no_block():
    p = plan("python", "s = '''x:\n    |\n'''\n")
    assert p is None or p.scope != "block"


def test_string_scope_knows_its_closing_quote():
    assert plan("python", 'x = "ab|"\n').quote == '"'
    assert plan("javascript", "let s = `a|`;\n").quote == "`"


def test_languages_without_a_grammar_use_the_line_rules():
    assert resolve_tree("hello", "plaintext", None) is None
    assert resolve_tree("hello", None, "notes.txt") is None
    assert resolve_tree("x = 1\n", None, "file:///a/b.py") is not None  # by extension when no languageId
    text = "def f(x):\n    \n"
    assert plan_infill(text, text.index("    \n") + 4, 32) == plan_lines(text, text.index("    \n") + 4, 32)
    assert plan_lines(text, text.index("    \n") + 4, 32).scope == "line"
