"""`context.selectedCompletionInfo`: with the popup open on an item, the inline answer must agree
with that item (VS Code hides ghost text that does not), so it replaces the item's range with the
item's text followed by the model's infill for the document as it reads with the item accepted."""
from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lsp_helpers import open_doc, ready_client, stats
from redraft.lsp.completions import with_selection
from redraft.engine.plan import Plan
from redraft.engine.pipeline import Completion

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = ready_client()


def _selected(line: int, start: int, end: int, text: str) -> types.InlineCompletionContext:
    rng = types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=end))
    return types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Automatic,
                                         selected_completion_info=types.SelectedCompletionInfo(range=rng, text=text))


async def _inline(client: LanguageClient, uri: str, pos: types.Position,
                  context: types.InlineCompletionContext) -> types.InlineCompletionList:
    return await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos, context=context))


async def test_answer_extends_the_selected_popup_item(client: LanguageClient):
    # the user typed `le`, the popup selects `len`: ghost text must read `len...` over `le`
    # (the shipped model completes `total = len` with `(items)`)
    uri = "file:///selected.py"
    open_doc(client, uri, "items = [1, 2, 3]\ntotal = le\n")
    context = _selected(1, 8, 10, "len")
    result = await _inline(client, uri, types.Position(line=1, character=10), context)
    assert len(result.items) == 1
    item = result.items[0]
    assert item.range == context.selected_completion_info.range
    assert item.insert_text.startswith("len") and len(item.insert_text) > len("len")
    assert "\n" not in item.insert_text


async def test_selection_after_wide_characters_uses_utf16_ranges(client: LanguageClient):
    # "😀" is two UTF-16 units: the item's range is the selection's, in the client's units
    uri = "file:///selected-emoji.py"
    open_doc(client, uri, 'items = ["😀", "数据"]\ntotal = le\n')
    context = _selected(1, 8, 10, "len")
    result = await _inline(client, uri, types.Position(line=1, character=10), context)
    assert result.items and result.items[0].range == context.selected_completion_info.range
    assert result.items[0].insert_text.startswith("len")


async def test_selection_that_does_not_contain_the_cursor_answers_empty(client: LanguageClient):
    uri = "file:///selected-elsewhere.py"
    open_doc(client, uri, "items = [1, 2, 3]\ntotal = le\n")
    before = (await stats(client))["requests"].get("selection-elsewhere", 0)
    result = await _inline(client, uri, types.Position(line=1, character=10), _selected(0, 0, 5, "items"))
    assert not result.items
    assert (await stats(client))["requests"]["selection-elsewhere"] == before + 1


def _completion(text: str, start: int, end: int) -> Completion:
    return Completion(text=text, start=start, end=end, plan=Plan(scope="line-rest", canvas_len=8),
                      forward_passes=1)


async def test_with_selection_maps_the_infill_back_to_the_document():
    doc = "total = le)\n"                        # the popup item `len` over [8, 10)
    text = "total = len)\n"                      # the document with the item accepted
    a, b, n = 8, 10, 3
    # a plain insertion at the item's end
    edit = with_selection(_completion("(x", 11, 11), text, a, b, n)
    assert (edit.start, edit.end, edit.text) == (8, 10, "len(x")
    assert doc[:edit.start] + edit.text + doc[edit.end:] == "total = len(x)\n"
    # an infill that also replaces the `)` after the cursor
    edit = with_selection(_completion("(x))", 11, 12), text, a, b, n)
    assert (edit.start, edit.end) == (8, 11)
    assert doc[:edit.start] + edit.text + doc[edit.end:] == "total = len(x))\n"
