"""Syntax-aware post-processing on real snippets, per language: block boundaries, bracket and quote
balance against the suffix, duplicate-suffix removal and truncation to the longest prefix that adds
no parse error. `|` marks the cursor; the candidate is what the sampler might have produced."""
from __future__ import annotations

import pytest

from redraft.engine.infill import plan_infill, postprocess, postprocess_lines, resolve_tree
from redraft.engine.plan import plan_lines
from redraft.engine.syntax.truncate import balance_brackets, bracket_scan, syntax_truncate


def finish(language: str, marked: str, candidate: str) -> str:
    offset = marked.index("|")
    text = marked[:offset] + marked[offset + 1:]
    tree = resolve_tree(text, language, None)
    plan = plan_infill(text, offset, 32, syntax_tree=tree)
    assert plan is not None and plan.syntax
    return postprocess(candidate, plan, text, offset, tree, balance=True)


CASES = [
    # --- Python
    ("python", "def f(x):\n    |\n", "y = x + 1\n    return y\nprint(3)\n", "y = x + 1\n    return y"),
    ("python", "def f(xs):\n    for x in xs:\n        |\n    return xs\n", "x += 1\n        print(x)\n    return 5",
     "x += 1\n        print(x)"),
    ("python", "def f(x):\n    |\n", "return (x +\n        1)\nfoo", "return (x +\n        1)"),  # line 3 dedents
    ("python", "def f(x):\n    |\n", "return (x +\n    1\nfoo", "return"),      # unclosed: back to a clean prefix
    ("python", "def f(x):\n    |\n", "y = (x +\n    z = 2", "y"),                  # no line parses: cut in line 1
    ("python", "def f(x):\n    return |\n", "x + (", "x"),                            # syntax truncation
    ("python", "def f(x):\n    return |\n", "x + 1  # sum\nprint(2)", "x + 1  # sum"),
    ("python", "total = |\n", "compute(a, b", "compute"),                               # fixes the hole's error
    ("python", "def f(x):\n    return (x + |)\n", "1)", "1"),                         # the suffix closes it
    ("python", "def f(x):\n    return foo(x, |\n", "1)) + 2", "1)"),                  # may close one, not two
    ("python", "print(|)\n", "x)", "x"),                                               # duplicate tail
    ("python", "name = 'Hello, |'\n", "world' + 'x", "world"),                         # quote balance
    ("python", "def f(x):\n    return |\n", "))", ""),                                 # nothing usable
    ("python", "def f(x):\n    return |\n\ndef g(:\n    pass\n", "x * 2", "x * 2"),     # an old error elsewhere
    ("python", "def f(xs):\n    |\n        print(x)\n", "for x in xs:\nfoo", "for x in xs:"),  # a header
    ("python", "def f(xs):\n    |\n        print(x)\n", "x = 1", ""),                 # no header: nothing
    ("python", "def f(xs):\n    y = 0\n    |\n        y += x\n    return y\n", "for x in xs: y = 1 +", "for x in xs:"),
    # --- JavaScript / TypeScript
    ("javascript", "function f(x) {\n  |\n}\n", "const y = x + 1;\n  return y;\n}\nfoo();", "const y = x + 1;\n  return y;"),
    ("javascript", "function f(x) {\n  |", "return x;\n}\nfoo()", "return x;\n}"),      # no closer yet: keep it
    ("javascript", "let a = compute(|, 2);\n", "a + b, 2);", "a + b"),
    ("javascript", "const s = `sum: ${a} |`;\n", "total` + x", "total"),
    ("typescript", "const n: number = |\n", "Math.max(1, 2));", "Math.max(1, 2)"),
    ("typescript", "class Stack<T> {\n  |\n}\n", "items: T[] = [];\n  push(x: T) { this.items.push(x); }\n}",
     "items: T[] = [];\n  push(x: T) { this.items.push(x); }"),
    # --- Rust
    ("rust", "fn main() {\n    let v = vec![1, |];\n}\n", "2, 3];", "2, 3"),
    ("rust", "fn main() {\n    for x in &v {\n        |\n    }\n}\n", 'println!("{}", x);\n    }\n}', 'println!("{}", x);'),
    ("rust", "fn main() {\n    let n = |\n}\n", "v.len() +;", "v.len()"),
    # --- Go
    ("go", "package main\n\nfunc main() {\n\tx := |\n}\n", "add(1, 2)\n\treturn", "add(1, 2)"),
    ("go", "package main\n\nfunc main() {\n\tx := |\n}\n", "add(1, 2))", "add(1, 2)"),
    ("go", "package main\n\nfunc add(a, b int) int {\n\t|\n}\n", "return a + b\n}\n\nfunc", "return a + b"),
]


@pytest.mark.parametrize("language,doc,candidate,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_finish(language, doc, candidate, expected):
    assert finish(language, doc, candidate) == expected


def test_bracket_scan_skips_strings_and_comments():
    assert bracket_scan("f(')', \"(\") # (\n]", "#") == ([], [16])
    assert bracket_scan("a[0]) }", "//") == ([], [4, 6])
    assert bracket_scan('"""(\n)""" (', "#") == (["("], [])


def test_balance_without_a_grammar():
    text = "call(a, )\n"
    offset = text.index(")")
    assert balance_brackets("b)", text, offset) == "b"
    assert balance_brackets("b, g(c))", "call(a, \n", len("call(a, ")) == "b, g(c))"
    plan = plan_lines(text, offset, 32)
    assert postprocess("b))", plan, text, offset, None, balance=True) == "b"


def test_syntax_off_is_the_line_rules():
    text = "def f(x):\n    return (x + )\n"
    offset = text.index(")")
    plan = plan_lines(text, offset, 32)
    for cand in ("1)", "1))", "y\nz", "x + (  "):
        assert postprocess(cand, plan, text, offset) == postprocess_lines(cand, plan, text, offset)


def test_truncation_prefers_fewest_errors_then_longest():
    text = "total = \n"
    tree = resolve_tree(text, "python", None)
    assert tree.error_count() > 0
    assert syntax_truncate("f(1) + g(2", tree, len("total = ")) == "f(1) + g"
    assert syntax_truncate("   ", tree, 8) == ""


def test_brace_block_ends_at_a_dedent_too():
    assert finish("javascript", "function f(x) {\n  |\n}\n", "x += 1;\n  return x;\nfoo();") == "x += 1;\n  return x;"
    assert finish("go", "package main\n\nfunc f() {\n\tif ok {\n\t\t|\n\t}\n}\n", "a()\n\t\tb()\n\t}\n\tc()") == "a()\n\t\tb()"


@pytest.mark.parametrize("doc, piece", [
    ('def f(l: list):\n    """Sort."""\n    \n    l[::3] = sorted(l[::3])\n    return l\n', "s ="),
    ("def f(n):\n    if n:\n        n = 1\n    \n    return n - 1\n", "else:"),
])
def test_python_cut_must_compile_where_tree_sitter_is_lenient(doc, piece):
    """`x =` before a statement, `else:` with no block after it: tree-sitter's grammar reports no
    error, CPython does; the truncation refuses such a cut (the file compiled without it)."""
    from redraft.engine.syntax.trees import encode
    cursor = doc.index("    \n") + 4
    tree = resolve_tree(doc, "python", None)
    at = len(encode(doc[:cursor]))
    assert not tree.insertion(at, piece).errors()       # what tree-sitter alone would let through
    out = syntax_truncate(piece, tree, at)
    compile(doc[:cursor] + out + doc[cursor:], "<doc>", "exec")
    assert out != piece
