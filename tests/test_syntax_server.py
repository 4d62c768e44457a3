"""Syntax-aware completion through the real server: a JavaScript and a Rust document (grammars from
the tree-sitter wheels), trees kept across incremental edits, and the `syntax` setting."""
from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import ready_client, configure, inline, insert, open_doc, start, stats

pytestmark = pytest.mark.asyncio(loop_scope="module")

JS = "function total(xs) {\n  let s = 0;\n  if (xs.length > 0) {\n    \n  }\n  return s;\n}\n"
BLOCK_POS = types.Position(line=3, character=4)    # the empty body of the `if` block


client = ready_client({"enabledLanguages": ["python", "javascript", "rust"], "effort": "low", "syntax": True})


async def test_javascript_block_scope(client: LanguageClient):
    open_doc(client, "file:///total.js", JS, language="javascript")
    result = await inline(client, "file:///total.js", BLOCK_POS)
    before = (await stats(client))["requests"]
    # the answer may be empty (a weak model's body can fail the syntax check), but it was planned as a block
    assert before.get("completed", 0) + before.get("empty", 0) == 1
    for item in result.items:
        assert item.range == types.Range(start=BLOCK_POS, end=BLOCK_POS)
        assert item.command.arguments[0]["scope"] == "block"
        lines = item.insert_text.split("\n")
        assert all(line.startswith("    ") for line in lines[1:] if line.strip())  # stays inside the block


async def test_rust_comment_declines_after_incremental_edits(client: LanguageClient):
    text = "fn main() {\n    let v = vec![1, 2, 3];\n}\n"
    open_doc(client, "file:///main.rs", text, language="rust")
    insert(client, "file:///main.rs", 2, types.Position(line=1, character=26), "\n    // sum the ")
    result = await inline(client, "file:///main.rs", types.Position(line=2, character=15))
    assert len(result.items) == 0
    assert (await stats(client))["requests"].get("declined", 0) == 1
    insert(client, "file:///main.rs", 3, types.Position(line=2, character=15), "values\n    let n = ")
    result = await inline(client, "file:///main.rs", types.Position(line=3, character=12))
    for item in result.items:
        assert item.command.arguments[0]["scope"] == "line-rest" and "\n" not in item.insert_text
    # with syntax awareness off the same comment position is completed by the line rules
    configure(client, {"syntax": False})
    result = await inline(client, "file:///main.rs", types.Position(line=2, character=10))
    assert (await stats(client))["settings"]["syntax"] is False
    assert (await stats(client))["requests"].get("declined", 0) == 1


async def test_a_hole_inside_a_word_is_filled_across_lines(client: LanguageClient):
    """Inside a word of a Python file broken right there (a header's end and a line break gone),
    the server answers the hole across lines with a fill that makes the file compile."""
    configure(client, {"syntax": True})
    text = "def count_positive(xs):\n    n = 0\n    for x in xsif x > 0:\n            n += 1\n    return n\n"
    open_doc(client, "file:///hole.py", text)
    cursor = types.Position(line=2, character=text.split("\n")[2].index("xsif") + 2)   # xs|if
    result = await inline(client, "file:///hole.py", cursor)
    assert len(result.items) == 1
    item = result.items[0]
    assert item.range == types.Range(start=cursor, end=cursor)
    assert item.command.arguments[0]["scope"] == "span" and "\n" in item.insert_text
    at = text.index("xsif") + 2
    compile(text[:at] + item.insert_text + text[at:], "<hole>", "exec")
