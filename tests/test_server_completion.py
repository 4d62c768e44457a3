"""`textDocument/completion` (the popup fallback for clients without inline completion) and the
accept / reject commands its items carry."""
from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_helpers import ready_client, RETURN_POS, SAMPLE, inline, open_doc, popup, start, stats

pytestmark = pytest.mark.asyncio(loop_scope="module")


client = ready_client()


async def test_one_item_with_a_text_edit(client: LanguageClient):
    open_doc(client, "file:///popup.py", SAMPLE)
    listing = await popup(client, "file:///popup.py", RETURN_POS)
    assert isinstance(listing, types.CompletionList)
    assert listing.is_incomplete is True                      # every keystroke changes the infill: ask again
    assert len(listing.items) == 1
    item = listing.items[0]
    assert item.text_edit.range == types.Range(start=RETURN_POS, end=RETURN_POS)
    assert item.text_edit.new_text.strip() and "\n" not in item.text_edit.new_text
    assert item.label == item.text_edit.new_text.strip()[:60] or item.label.endswith("\u2026")
    assert item.insert_text_format in (None, types.InsertTextFormat.PlainText)
    assert item.command.command == "redraft.accept" and item.data["kind"] == "popup"
    assert "passes" in item.detail


async def test_same_infill_machinery_as_inline(client: LanguageClient):
    inline_result = await inline(client, "file:///popup.py", RETURN_POS)
    listing = await popup(client, "file:///popup.py", RETURN_POS)
    a, b = inline_result.items[0], listing.items[0]
    assert a.command.arguments[0]["scope"] == b.data["scope"] == "line-rest"
    assert a.range == b.text_edit.range


async def test_edit_covers_the_typed_identifier(client: LanguageClient):
    """At `obj.val|` the item replaces `val` with `val` + infill, so that clients filtering by the
    word at the cursor keep it."""
    open_doc(client, "file:///word.py", "data = load()\nprint(data.val\n")
    cursor = types.Position(line=1, character=14)
    listing = await popup(client, "file:///word.py", cursor)
    assert listing.items
    edit = listing.items[0].text_edit
    assert edit.range == types.Range(start=types.Position(line=1, character=11), end=cursor)
    assert edit.new_text.startswith("val") and listing.items[0].label.startswith("val")


async def test_unknown_document_answers_empty(client: LanguageClient):
    listing = await popup(client, "file:///never-opened.py", types.Position(line=0, character=0))
    assert len(listing.items) == 0


async def test_accept_and_reject_reports_are_counted(client: LanguageClient):
    item = (await popup(client, "file:///popup.py", RETURN_POS)).items[0]
    before = (await stats(client))["feedback"]
    accepted = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=item.command.command, arguments=item.command.arguments))
    assert accepted["accepted"] == before["accepted"] + 1
    rejected = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="redraft.reject", arguments=[{"id": "no-such-completion"}]))
    assert rejected["rejected"] == before["rejected"] + 1 and rejected["accepted"] == accepted["accepted"]


async def test_bad_command_arguments_are_invalid_params(client: LanguageClient):
    with pytest.raises(JsonRpcException) as err:
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="redraft.accept", arguments=[42, "x"]))
    assert err.value.code == types.ErrorCodes.InvalidParams
    with pytest.raises(JsonRpcException):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(command="redraft.nope"))
    assert (await stats(client))["model"]["state"] == "ready"  # still serving
