"""`textDocument/inlineCompletion` end to end: result shape, insertion range, positions with
astral-plane characters and CRLF, and a typing session of incremental edits."""
from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import ready_client, RETURN_POS, SAMPLE, inline, insert, open_doc, popup, start

pytestmark = pytest.mark.asyncio(loop_scope="module")


client = ready_client()


async def test_result_shape_and_insertion_range(client: LanguageClient):
    open_doc(client, "file:///shape.py", SAMPLE)
    result = await inline(client, "file:///shape.py", RETURN_POS)
    assert isinstance(result, types.InlineCompletionList) and len(result.items) == 1
    item = result.items[0]
    assert isinstance(item.insert_text, str) and item.insert_text.strip()
    assert "\n" not in item.insert_text                          # a single-line scope stops at the newline
    assert item.range == types.Range(start=RETURN_POS, end=RETURN_POS)  # an insertion at the cursor
    assert item.command.command == "redraft.accept"
    payload = item.command.arguments[0]
    assert payload["uri"] == "file:///shape.py" and payload["kind"] == "inline"
    assert payload["scope"] == "line-rest" and payload["chars"] == len(item.insert_text)
    assert payload["forward_passes"] >= 1 and payload["latency_ms"] > 0


async def test_declines_inside_an_identifier(client: LanguageClient):
    open_doc(client, "file:///ident.py", "value = compute_total(x)\n")
    result = await inline(client, "file:///ident.py", types.Position(line=0, character=12))  # comp|ute
    assert len(result.items) == 0


async def test_range_after_astral_characters_is_in_utf16_units(client: LanguageClient):
    # "😀" is one code point but two UTF-16 units, "é" is e + a combining mark (two code points)
    text = 'label = "😀😀 cafe\u0301" + \n'
    open_doc(client, "file:///emoji.py", text)
    cursor = types.Position(line=0, character=len(text.rstrip("\n").encode("utf-16-le")) // 2)
    assert cursor.character == len(text) - 1 + 2
    result = await inline(client, "file:///emoji.py", cursor)
    assert result.items and result.items[0].range == types.Range(start=cursor, end=cursor)


async def test_crlf_document(client: LanguageClient):
    # (the shipped model answers this cursor with a non-empty line; an empty answer would leave
    # nothing to check, so the prompt is one it completes)
    text = "def double(n):\r\n    x = \r\n\r\nprint(double(2))\r\n"
    open_doc(client, "file:///crlf.py", text)
    result = await inline(client, "file:///crlf.py", types.Position(line=1, character=8))
    assert result.items
    item = result.items[0]
    assert item.range.start == types.Position(line=1, character=8) and "\r" not in item.insert_text


async def test_typing_session(client: LanguageClient):
    """Incremental edits between requests: every answer lands at the new cursor, and the server's
    copy of the document follows the edits (the popup item echoes the identifier just typed)."""
    uri = "file:///typing.py"
    open_doc(client, uri, "def total(prices):\n    \n")
    line, col, version = 1, 4, 1
    # (the last chunk is one the shipped model completes with a non-empty line: a checkpoint change
    # may need another; the protocol checks do not depend on what it writes)
    for chunk in ["result = 0", "\n    for p in prices:", "\n        result += p", "\n    print(res"]:
        version += 1
        insert(client, uri, version, types.Position(line=line, character=col), chunk)
        *_, last = chunk.split("\n")
        line, col = line + chunk.count("\n"), (len(last) if "\n" in chunk else col + len(chunk))
        cursor = types.Position(line=line, character=col)
        result = await inline(client, uri, cursor)
        for item in result.items:
            assert item.range == types.Range(start=cursor, end=cursor)
    assert result.items, "the last request (after `print(res`) gets a completion"
    listing = await popup(client, uri, cursor)
    assert listing.items and listing.items[0].text_edit.new_text.startswith("res")
    assert listing.items[0].text_edit.range.start == types.Position(line=line, character=col - 3)
