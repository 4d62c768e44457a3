"""A missing Python block header: token constraints, the stricter error count, and the pipeline's
constrained candidates (real grammar, real tokenizer and checkpoint)."""
from __future__ import annotations

import pytest

from redraft.engine.infill import plan_infill, resolve_tree
from redraft.engine.syntax.constraints import HEADER_LENGTHS, header_masks
from redraft.engine.syntax.trees import encode
from redraft.engine.syntax.truncate import insertion_errors

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


@pytest.fixture(scope="module")
def engine():
    from redraft.engine.pipeline import Engine
    return Engine(threads=1)


def test_pipeline_header_is_empty_or_fixes_the_file(engine):
    """Whatever the model proposes for a missing header, the pipeline answers with a line that ends
    with ':' and makes the function compile, or with nothing."""
    from redraft.engine.pipeline import Request
    docs = [DOC,
            "def f(items):\n    out = []\n    \n        out.append(i * 2)\n    return out\n",
            "def g(a, b):\n    \n        return a\n    return b\n"]
    for doc in docs:
        cursor = doc.index("    \n") + 4
        comp = engine.complete(Request(text=doc, offset=cursor, uri="file:///h.py"))
        assert comp is not None and comp.plan.boundary == "header"
        if comp.text:
            assert comp.text.endswith(":")
            compile(doc[:cursor] + comp.text + doc[cursor:], "<doc>", "exec")
        assert comp.forward_passes >= 1


BODY_DOCS = [  # a block just opened whose only statement is missing: the file does not compile as is
    "def count(s):\n    n = 0\n    for c in s:\n        <|>\n    return n\n",
    "def first(xs):\n    for x in xs:\n        if x > 0:\n            <|>\n    return None\n",
]


@pytest.mark.parametrize("doc", BODY_DOCS)
def test_pipeline_repairs_a_missing_block_body(engine, doc):
    """An answer that leaves the block empty (nothing, or only a comment) is replaced by a statement
    that makes the file compile."""
    from redraft.engine.pipeline import Request
    cursor, doc = doc.index("<|>"), doc.replace("<|>", "")  # on the blank body line, indented
    with pytest.raises(SyntaxError):
        compile(doc, "<doc>", "exec")
    comp = engine.complete(Request(text=doc, offset=cursor, uri="file:///b.py"))
    assert comp is not None and comp.text.strip() and not comp.text.lstrip().startswith("#")
    compile(doc[:cursor] + comp.text + doc[cursor:], "<doc>", "exec")


def test_repair_costs_nothing_when_the_file_is_fine(engine):
    """No candidates (no forward passes) where the document compiles without an insertion."""
    from redraft.engine.infill import plan_infill, resolve_tree
    from redraft.engine.pipeline import Request
    doc = "def f(xs):\n    total = 0\n    \n    return total\n"
    cursor = doc.index("    \n") + 4
    tree = resolve_tree(doc, "python", None)
    plan = plan_infill(doc, cursor, 32, syntax_tree=tree)
    req = Request(text=doc, offset=cursor)
    assert engine._repair(req, plan, tree, [], None, None) == (None, "", 0)
    assert engine._repair(req, plan, tree, [], None, None, free="total += 1") == (None, "", 0)
