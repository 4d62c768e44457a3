"""Cancellation and staleness. The server runs with the `debugStepDelayMs` test hook (a pause
after each denoising step), so that a request is reliably still denoising when the test cancels
it or edits the document."""
from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from lsp_helpers import (ready_client, RETURN_POS, SAMPLE, configure, inline, inline_params, insert,
                         open_doc, popup, start, stats)

pytestmark = pytest.mark.asyncio(loop_scope="module")
DELAY_MS = 200


client = ready_client({"debugStepDelayMs": DELAY_MS, "effort": "instant"})


def send_inline(client: LanguageClient, msg_id: str, uri: str, pos: types.Position) -> asyncio.Future:
    fut = client.protocol.send_request(types.TEXT_DOCUMENT_INLINE_COMPLETION, inline_params(uri, pos), msg_id=msg_id)
    return asyncio.wrap_future(fut)


async def test_cancel_request_stops_denoising_and_answers_request_cancelled(client: LanguageClient):
    open_doc(client, "file:///cancel.py", SAMPLE)
    configure(client, {"redraft": {"effort": "max"}})  # one position per step: ~6 s at 200 ms a step
    cancelled_before = (await stats(client))["requests"].get("cancelled", 0)
    pending = send_inline(client, "to-cancel", "file:///cancel.py", RETURN_POS)
    await asyncio.sleep(0.6)                            # it is denoising now
    t0 = time.monotonic()
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="to-cancel"))
    with pytest.raises(JsonRpcException) as err:
        await asyncio.wait_for(pending, 5)
    assert err.value.code == types.LSPErrorCodes.RequestCancelled  # -32800
    assert time.monotonic() - t0 < 4.0  # the rest of an uncancelled run is ~5.8 s of sleeps alone
    configure(client, {"redraft": {"effort": "instant"}})
    # the denoising loop itself stopped (should_stop), well before its 32 steps ...
    await asyncio.sleep(2 * DELAY_MS / 1000)
    s = await stats(client)
    assert s["requests"]["cancelled"] == cancelled_before + 1
    assert s["lastStoppedAtStep"] is not None and s["lastStoppedAtStep"] < 10
    # ... so the model is free: an instant request (2 steps) is answered at once
    t1 = time.monotonic()
    result = await inline(client, "file:///cancel.py", RETURN_POS)
    assert result.items and time.monotonic() - t1 < 4.0  # a busy model would hold it ~5 s


async def test_newest_request_for_a_document_wins(client: LanguageClient):
    open_doc(client, "file:///newest.py", SAMPLE)
    older = send_inline(client, "older", "file:///newest.py", RETURN_POS)
    newer = send_inline(client, "newer", "file:///newest.py", RETURN_POS)
    older_result, newer_result = await asyncio.wait_for(asyncio.gather(older, newer), 10)
    assert len(older_result.items) == 0 and len(newer_result.items) == 1
    assert (await stats(client))["requests"]["superseded"] >= 1


async def test_inline_and_popup_do_not_supersede_each_other(client: LanguageClient):
    open_doc(client, "file:///both.py", SAMPLE)
    a, b = await asyncio.gather(inline(client, "file:///both.py", RETURN_POS),
                                popup(client, "file:///both.py", RETURN_POS))
    assert len(a.items) == 1 and len(b.items) == 1


async def test_result_for_an_older_version_is_never_returned(client: LanguageClient):
    uri = "file:///stale.py"
    open_doc(client, uri, SAMPLE)
    before = (await stats(client))["requests"].get("stale", 0)
    pending = send_inline(client, "stale-1", uri, RETURN_POS)
    await asyncio.sleep(0.15)    # in flight: a change read with the request would come first (a fresh request)
    insert(client, uri, 2, RETURN_POS, "width")             # the user typed on while the model ran
    result = await asyncio.wait_for(pending, 10)
    assert len(result.items) == 0
    assert (await stats(client))["requests"]["stale"] == before + 1
    # the current version is served normally, at the new cursor
    cursor = types.Position(line=RETURN_POS.line, character=RETURN_POS.character + 5)
    fresh = await inline(client, uri, cursor)
    assert fresh.items and fresh.items[0].range.start == cursor


async def test_closing_the_document_drops_its_request(client: LanguageClient):
    uri = "file:///closed.py"
    open_doc(client, uri, SAMPLE)
    pending = send_inline(client, "closing", uri, RETURN_POS)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert len((await asyncio.wait_for(pending, 10)).items) == 0


async def test_typing_burst_without_cancels_answers_only_the_newest(client: LanguageClient):
    """Neovim 0.12's client asks after every keystroke and cancels nothing until insert mode ends:
    every request is answered, those overtaken by a keystroke empty, and the newest at its cursor."""
    uri = "file:///burst.py"
    open_doc(client, uri, SAMPLE)
    pending, col = [], RETURN_POS.character
    for version, ch in enumerate("width", start=2):
        insert(client, uri, version, types.Position(line=RETURN_POS.line, character=col), ch)
        col += 1
        pending.append(send_inline(client, f"burst-{version}", uri, types.Position(line=RETURN_POS.line, character=col)))
        await asyncio.sleep(0.05)
    results = await asyncio.wait_for(asyncio.gather(*pending), 20)
    assert all(len(r.items) == 0 for r in results[:-1])
    assert len(results[-1].items) == 1
    assert results[-1].items[0].range.start == types.Position(line=RETURN_POS.line, character=col)
