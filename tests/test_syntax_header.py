"""A missing Python block header: token constraints, the stricter error count, and the pipeline's
constrained candidates (real grammar, real tokenizer and checkpoint)."""
from __future__ import annotations

import pytest

from lsp_server.infill import plan_infill, resolve_tree
from lsp_server.syntax.constraints import HEADER_LENGTHS, header_masks
from lsp_server.syntax.trees import encode
from lsp_server.syntax.truncate import insertion_errors

DOC = "def count_neg(xs):\n    n = 0\n    \n        n += 1\n    return n\n"
CURSOR = DOC.index("    \n") + 4


def test_header_masks(shipped):
    tok = shipped.tokenizer
    first, last = header_masks(tok)
    firsts = {tok.decode([i]) for i in first.nonzero().squeeze(1).tolist()}
    lasts = [tok.decode([i]) for i in last.nonzero().squeeze(1).tolist()]
    assert {"if", "for", "while", "else", "elif", "def"} <= firsts
    assert not any(p.startswith(("iff", "format", "define")) for p in firsts)  # whole keywords only
    assert ":" in lasts and all(p.rstrip().endswith(":") and "\n" not in p for p in lasts)
    assert not (first[list(tok.special_ids)].any() or last[list(tok.special_ids)].any())
    assert min(HEADER_LENGTHS) >= 2  # first and last constraints on distinct positions


def test_plan_asks_for_a_header():
    tree = resolve_tree(DOC, "python", None)
    plan = plan_infill(DOC, CURSOR, 32, syntax_tree=tree)
    assert (plan.scope, plan.boundary) == ("line", "header")


def test_insertion_errors_compiles_python():
    tree = resolve_tree(DOC, "python", None)
    at = len(encode(DOC[:CURSOR]))
    assert insertion_errors(tree, at, "for x in xs:") == 0
    assert insertion_errors(tree, at, "") >= 1            # the unexpected indent
    # tree-sitter accepts a `try:` with no handler; CPython does not
    assert insertion_errors(tree, at, "try:") >= 1


def test_pipeline_header_is_empty_or_fixes_the_file():
    """Whatever the model proposes for a missing header, the pipeline answers with a line that ends
    with ':' and makes the function compile, or with nothing."""
    from lsp_server.pipeline import Engine, Request
    eng = Engine(threads=1)
    docs = [DOC,
            "def f(items):\n    out = []\n    \n        out.append(i * 2)\n    return out\n",
            "def g(a, b):\n    \n        return a\n    return b\n"]
    for doc in docs:
        cursor = doc.index("    \n") + 4
        comp = eng.complete(Request(text=doc, offset=cursor, uri="file:///h.py"))
        assert comp is not None and comp.plan.boundary == "header"
        if comp.text:
            assert comp.text.endswith(":")
            compile(doc[:cursor] + comp.text + doc[cursor:], "<doc>", "exec")
        assert comp.forward_passes >= 1
