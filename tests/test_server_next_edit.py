"""Next-edit prediction through the real server over stdio: `textDocument/copilotInlineEdit` and
`redraft/nextEdit` (custom requests, advertised as `experimental.redraftNextEdit`), their ranges in
UTF-16 and UTF-8 sessions, cancellation, staleness, versions, bad params, a 10 MB document.

Edits come from analogy (lsp_server/engine/next_edit/analogy.py; the shipped model is asked only where its config says it was trained for next edits, predict.trained_for_next_edits):
test_a_rename_is_carried_to_the_next_uses judges one's content.  Where a test needs the edit the
server should have answered, the same predictor runs in this process on the same text
(`predict_at`, or `Engine.next_edit` itself on the whole text) and the two must agree.
"""
from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import CAPABILITIES, SERVE, configure, insert, messages, model_ready, open_doc, start, stats
from redraft.lsp.convert import LineIndex, next_edit_region, plain_json, to_next_edit
from redraft.engine.next_edit.predict import NextEdit

pytestmark = pytest.mark.asyncio(loop_scope="module")
COPILOT, REDRAFT = "textDocument/copilotInlineEdit", "redraft/nextEdit"
# non-ASCII (2-byte, 3-byte and astral characters) on every line, before and inside the region
TEXT = ('def greet(name):\n    """Grüße, 🙂 name."""\n    return "héllo 🙂 wörld, " + nme\n\n\n'
        'def area(w, h):\n    return w * h  # Fläche 🙂\n')
CURSOR = types.Position(line=2, character=4)


async def session(client: LanguageClient, encodings: list[str] | None) -> None:
    caps = types.ClientCapabilities(window=CAPABILITIES.window, workspace=CAPABILITIES.workspace,
                                    text_document=CAPABILITIES.text_document,
                                    general=types.GeneralClientCapabilities(position_encodings=encodings))
    client.init_result = await start(client, capabilities=caps)
    await model_ready(client)


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    """UTF-16 positions (VS Code)."""
    await session(lsp_client, None)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def utf8_client(lsp_client: LanguageClient):
    """UTF-8 positions (Neovim, Helix)."""
    await session(lsp_client, ["utf-8", "utf-16"])
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def engine():
    """The same predictor in this process (one thread, like the server in the tests)."""
    from redraft.engine.pipeline import Engine
    return Engine(None, threads=1)


def params(uri: str, pos: types.Position, version: int | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {"uri": uri} if version is None else {"uri": uri, "version": version}
    return {"textDocument": doc, "position": {"line": pos.line, "character": pos.character}}


async def ask(client: LanguageClient, method: str, p: Any) -> Any:
    return plain_json(await client.protocol.send_request_async(method, p))  # pygls: namedtuples


def send(client: LanguageClient, msg_id: str, p: Any, method: str = REDRAFT) -> asyncio.Future:
    """Sends the request now; the future gives its answer as JSON."""
    answer = asyncio.wrap_future(client.protocol.send_request(method, p, msg_id=msg_id))
    return asyncio.ensure_future(_plain(answer))


async def _plain(answer: asyncio.Future) -> Any:
    return plain_json(await answer)


def position(p: dict[str, int]) -> tuple[int, int]:
    return p["line"], p["character"]


def applied(text: str, edit: dict[str, Any], encoding: str) -> str:
    """An edit ({range, text}, JSON) applied as a client in `encoding` applies it."""
    from redraft.lsp.convert import position_from_json
    index = LineIndex(text, encoding)
    a = index.offset(position_from_json(edit["range"]["start"]))
    b = index.offset(position_from_json(edit["range"]["end"]))
    return text[:a] + edit["text"] + text[b:]


def close(client: LanguageClient, uri: str) -> None:
    doc = types.TextDocumentIdentifier(uri=uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=doc))


async def neutral(client: LanguageClient) -> None:
    configure(client, {"redraft": {"debugStepDelayMs": 0, "enabled": True}})
    await stats(client)  # answered after the configuration was applied


async def nstats(client: LanguageClient) -> dict[str, Any]:
    return (await stats(client))["nextEdit"]


# ------------------------------------------------------------------------------------- shapes

async def test_advertised_as_experimental(client: LanguageClient):
    assert client.init_result.capabilities.experimental == {"redraftNextEdit": True}
    assert client.init_result.capabilities.position_encoding in (None, "utf-16", types.PositionEncodingKind.Utf16)


async def test_both_requests_answer_the_same_edit_in_their_shapes(client: LanguageClient):
    uri = "file:///shapes.py"
    open_doc(client, uri, TEXT)
    insert(client, uri, 2, types.Position(line=6, character=0), "# ")  # some history
    copilot = await ask(client, COPILOT, params(uri, CURSOR, 2))
    full = await ask(client, REDRAFT, params(uri, CURSOR))
    assert set(copilot) == {"edits"} and set(full) == {"edits", "region", "confidence", "forwardPasses"}
    assert isinstance(full["forwardPasses"], int) and full["forwardPasses"] >= 0
    assert [{k: e[k] for k in ("range", "text")} for e in copilot["edits"]] == \
           [{k: e[k] for k in ("range", "text")} for e in full["edits"]]
    for e in copilot["edits"]:
        assert set(e) == {"range", "text", "textDocument"} and e["textDocument"] == {"uri": uri, "version": 2}
        assert set(e["range"]) == {"start", "end"} and set(e["range"]["start"]) == {"line", "character"}
    if full["edits"]:
        assert 0.0 <= full["confidence"] <= 1.0
        assert set(full["region"]) == {"range", "text"} and full["region"]["range"]["start"]["character"] == 0
    else:
        assert full["region"] is None and full["confidence"] is None


RENAME = ("def total(prices):\n    amount = 0\n    for p in prices:\n        amount += p\n"
          "    print('amount:', amount)\n    return amount\n")


def rename_binding(client: LanguageClient, uri: str) -> str:
    """Opens RENAME and renames `amount` where it is bound, as typing over it does (version 2)."""
    open_doc(client, uri, RENAME)
    start, end = types.Position(line=1, character=4), types.Position(line=1, character=10)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=start, end=end),
                                                                 text="subtotal")]))
    return RENAME.replace("    amount = 0", "    subtotal = 0")


async def test_a_rename_is_carried_to_the_next_uses(client: LanguageClient):
    # the user renames `amount` where it is bound, typing over it; the next edit renames its three
    # other uses (not the word inside the string) and says it is sure
    uri = "file:///rename.py"
    text = rename_binding(client, uri)
    full = await ask(client, REDRAFT, params(uri, types.Position(line=1, character=12), 2))
    (edit,) = full["edits"]
    assert applied(text, edit, "utf-16") == \
        RENAME.replace("amount =", "subtotal =").replace("amount +=", "subtotal +=") \
              .replace(", amount)", ", subtotal)").replace("return amount", "return subtotal")
    assert full["confidence"] == 1.0 and full["forwardPasses"] == 0


async def test_the_next_edit_is_also_a_code_action(client: LanguageClient):
    # Helix has no way to send the next-edit requests; it lists code actions (`space a`)
    uri = "file:///rename-action.py"
    text = rename_binding(client, uri)
    at = types.Range(start=types.Position(line=1, character=12), end=types.Position(line=1, character=12))
    doc = types.TextDocumentIdentifier(uri=uri)
    (action,) = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc, range=at, context=types.CodeActionContext(diagnostics=[])))
    assert action.title.startswith("redraft: next edit") and action.kind == types.CodeActionKind.RefactorRewrite
    (change,) = action.edit.document_changes
    assert change.text_document.uri == uri and change.text_document.version == 2
    (edit,) = change.edits
    rng = {k: {"line": getattr(edit.range, k).line, "character": getattr(edit.range, k).character}
           for k in ("start", "end")}
    got = applied(text, {"range": rng, "text": edit.new_text}, "utf-16")
    assert got == text.replace("amount", "subtotal").replace("'subtotal:'", "'amount:'")
    only_fixes = types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])
    assert list(await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc, range=at, context=only_fixes))) == []
    assert list(client.init_result.capabilities.code_action_provider.code_action_kinds) == ["refactor.rewrite"]


# ------------------------------------------------------------------------------------- encodings

async def check_ranges(client: LanguageClient, engine, encoding: str) -> None:
    """The server's edit is the in-process predictor's, its range in `encoding`; applying it gives
    what applying the region (whole lines) gives, and what the predictor's offsets give."""
    from redraft.engine.next_edit.window import predict_at
    uri = f"file:///ranges-{encoding}.py"
    open_doc(client, uri, TEXT)
    full = await ask(client, REDRAFT, params(uri, CURSOR, 1))
    offset = LineIndex(TEXT, encoding).offset(CURSOR)
    expected, _ = predict_at(engine, TEXT, offset, [], uri, "low")
    if expected is None:
        assert full["edits"] == []
        return
    (edit,) = full["edits"]
    index = LineIndex(TEXT, encoding)
    for end, offset in (("start", expected.start), ("end", expected.end)):
        assert position(edit["range"][end]) == (index.position(offset).line, index.position(offset).character)
    want = TEXT[:expected.start] + expected.text + TEXT[expected.end:]
    assert applied(TEXT, edit, encoding) == want == applied(TEXT, full["region"], encoding)


async def test_ranges_in_a_utf16_session(client: LanguageClient, engine):
    await check_ranges(client, engine, "utf-16")


async def test_ranges_in_a_utf8_session(utf8_client: LanguageClient, engine):
    assert utf8_client.init_result.capabilities.position_encoding == "utf-8"
    await check_ranges(utf8_client, engine, "utf-8")


async def test_conversion_counts_code_units_of_the_encoding():
    """Model-free: an edit after astral and non-Latin characters on its line, in three encodings."""
    text = "a = 1\nb = '🙂é' + x\r\nc = 'ü'\n"
    start = text.index("x")
    edit = NextEdit(start, start + 1, "y🙂", 1, 3, "b = '🙂é' + y🙂\r\nc = 'ü'", 0.5, 3)
    want = {"utf-16": 12, "utf-8": 15, "utf-32": 11}  # 🙂: 2 / 4 / 1 units, é: 1 / 2 / 1
    for enc, col in want.items():
        index = LineIndex(text, enc)
        out = to_next_edit(edit, index)
        assert out == {"range": {"start": {"line": 1, "character": col}, "end": {"line": 1, "character": col + 1}},
                       "text": "y🙂"}
        region = next_edit_region(edit, index)
        assert region["range"] == {"start": {"line": 1, "character": 0}, "end": {"line": 3, "character": 0}}
        assert applied(text, out, enc) == applied(text, region, enc) == text.replace("+ x", "+ y🙂")
    # an end between "\r" and "\n" (no position addresses it) moves past the "\n"
    crlf = NextEdit(text.index("\r\n") + 1, text.index("\r\n") + 1, "z", 1, 3, "", 0.5, 1)
    out = to_next_edit(crlf, LineIndex(text, "utf-16"))
    assert out["text"] == "\rz\n" and applied(text, out, "utf-16") == text.replace("x\r\n", "x\rz\n")


# ------------------------------------------------------------------------------------- behaviour

async def test_cancel_request_stops_the_worker_and_answers_request_cancelled(client: LanguageClient):
    uri = "file:///cancel.py"
    open_doc(client, uri, TEXT)
    configure(client, {"redraft": {"debugStepDelayMs": 3000}})  # a pause at every should_stop check
    before = await nstats(client)
    pending = send(client, "ne-cancel", params(uri, CURSOR))
    await asyncio.sleep(0.4)
    t0 = time.monotonic()
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="ne-cancel"))
    with pytest.raises(JsonRpcException) as err:
        await asyncio.wait_for(pending, 5)
    assert err.value.code == types.LSPErrorCodes.RequestCancelled
    assert time.monotonic() - t0 < 2.0
    await neutral(client)
    after = await nstats(client)
    assert after["cancelled"] == before.get("cancelled", 0) + 1
    assert after["lastStoppedAtStep"] == 0  # stopped at its first check: the model never ran
    t1 = time.monotonic()  # the model thread is free again
    assert "edits" in await ask(client, REDRAFT, params(uri, CURSOR)) and time.monotonic() - t1 < 3.0


async def test_a_change_during_the_request_answers_empty(client: LanguageClient):
    uri = "file:///stale.py"
    open_doc(client, uri, TEXT)
    configure(client, {"redraft": {"debugStepDelayMs": 3000}})
    before = (await nstats(client)).get("stale", 0)
    t0 = time.monotonic()
    pending = send(client, "ne-stale", params(uri, CURSOR, 1))
    await asyncio.sleep(0.15)  # in flight: a change read with the request would answer it as an old version
    insert(client, uri, 2, CURSOR, "x")
    result = await asyncio.wait_for(pending, 5)
    assert result["edits"] == [] and time.monotonic() - t0 < 2.5  # the worker woke at once
    await neutral(client)
    assert (await nstats(client))["stale"] == before + 1


async def test_newest_request_for_a_document_wins_and_close_drops(client: LanguageClient):
    uri = "file:///newest.py"
    open_doc(client, uri, TEXT)
    configure(client, {"redraft": {"debugStepDelayMs": 300}})
    older = send(client, "ne-older", params(uri, CURSOR))
    newer = send(client, "ne-newer", params(uri, CURSOR))
    a, b = await asyncio.wait_for(asyncio.gather(older, newer), 20)
    assert a["edits"] == [] and isinstance(b["forwardPasses"], int)
    closing = send(client, "ne-closing", params(uri, CURSOR))
    await asyncio.sleep(0.15)  # in flight (300 ms a step): a close read with the request would come first
    close(client, uri)
    assert (await asyncio.wait_for(closing, 10))["edits"] == []
    await neutral(client)
    s = await nstats(client)
    assert s["superseded"] >= 1 and s["closed"] >= 1


async def test_an_old_version_answers_empty_at_once(client: LanguageClient):
    uri = "file:///version.py"
    open_doc(client, uri, TEXT, version=4)
    insert(client, uri, 5, CURSOR, "x")
    before = (await nstats(client)).get("version-mismatch", 0)
    t0 = time.monotonic()
    assert (await ask(client, COPILOT, params(uri, CURSOR, 4))) == {"edits": []}
    assert time.monotonic() - t0 < 1.0
    assert (await nstats(client))["version-mismatch"] == before + 1


async def test_unknown_document_and_disabled_answer_empty(client: LanguageClient):
    assert await ask(client, COPILOT, params("file:///never-opened.py", CURSOR)) == {"edits": []}
    assert messages(client, "file:///never-opened.py: the document is not open")
    open_doc(client, "file:///off.py", TEXT)
    configure(client, {"redraft": {"enabled": False}})
    assert (await ask(client, REDRAFT, params("file:///off.py", CURSOR)))["edits"] == []
    await neutral(client)
    s = await nstats(client)
    assert s["unknown-document"] >= 1 and s["disabled"] >= 1


@pytest.mark.parametrize("bad", [
    None, [], [1, 2], {"textDocument": {"uri": "file:///x.py"}},
    {"textDocument": "file:///x.py", "position": {"line": 0, "character": 0}},
    {"textDocument": {"uri": 3}, "position": {"line": 0, "character": 0}},
    {"textDocument": {"uri": "file:///x.py", "version": "2"}, "position": {"line": 0, "character": 0}},
    {"textDocument": {"uri": "file:///x.py"}, "position": {"line": -1, "character": 0}},
    {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": True}},
    {"textDocument": {"uri": "file:///x.py"}, "position": {"line": "0", "character": 0}},
])
async def test_bad_params_are_invalid_params(client: LanguageClient, bad: Any):
    for method in (COPILOT, REDRAFT):
        with pytest.raises(JsonRpcException) as err:
            await ask(client, method, bad)
        assert err.value.code == types.ErrorCodes.InvalidParams


async def test_a_10_mb_document_answers_quickly(client: LanguageClient, engine):
    unit = "def f{i}(a, b):\n    x = a + b * {i}  # é🙂\n    return x\n\n"
    text = "".join(unit.format(i=i) for i in range(170_000))
    assert len(text) > 10_000_000
    uri = "file:///big.py"
    open_doc(client, uri, text)
    cursor = types.Position(line=text.count("\n") // 2 + 1, character=4)
    await stats(client)  # the 10 MB didOpen has been read
    t0 = time.monotonic()
    copilot, ticks = await asyncio.gather(ask(client, COPILOT, params(uri, cursor, 1)), stats_latency(client))
    elapsed = time.monotonic() - t0
    assert elapsed < 3.0, elapsed
    assert max(ticks) < 1.0, ticks  # the event loop kept answering meanwhile
    # the predictor on the whole text (no window) gives the same edit
    index = LineIndex(text, "utf-16")
    expected, _ = engine.next_edit(text, cursor.line, cursor.character, [], uri, "low")
    if expected is None:
        assert copilot["edits"] == []
    else:
        assert [{k: e[k] for k in ("range", "text")} for e in copilot["edits"]] == [to_next_edit(expected, index)]
    close(client, uri)


async def stats_latency(client: LanguageClient) -> list[float]:
    out = []
    for _ in range(3):
        t = time.monotonic()
        await stats(client)
        out.append(time.monotonic() - t)
    return out


async def test_still_serving(client: LanguageClient):
    s = await stats(client)
    assert s["model"]["state"] == "ready" and s["nextEdit"]["requests"] >= 10
    open_doc(client, "file:///last.py", TEXT)
    assert "edits" in await ask(client, COPILOT, params("file:///last.py", CURSOR))


# ------------------------------------------------------------------------------ without the model

USERS = ("def fetch_user(user_id):\n    return {'id': user_id}\n\n\ndef show(user_id):\n"
         "    print(fetch_user(user_id))\n")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def loading_client(lsp_client: LanguageClient, tmp_path_factory):
    """A server whose model never finishes loading: its `modelDir`'s config.json is a FIFO that no
    one writes, so the model thread waits in open() until the teardown lets it go."""
    import os
    d = tmp_path_factory.mktemp("hanging-model")
    fifo = d / "config.json"
    os.mkfifo(fifo)
    await start(lsp_client, {"modelDir": str(d)})
    yield
    deadline = time.monotonic() + 60
    while True:   # the loader is blocked in open(): give it a writer, then a plain file for later reads
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:   # ENXIO: no reader yet (still importing torch)
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
    (d / "plain.json").write_text("{}")
    os.replace(d / "plain.json", fifo)
    os.write(fd, b"{}")
    os.close(fd)
    await lsp_client.shutdown_session()


async def test_analogy_answers_while_the_model_is_still_loading(loading_client: LanguageClient):
    client = loading_client
    uri = "file:///loading.py"
    open_doc(client, uri, USERS)
    client.text_document_did_change(types.DidChangeTextDocumentParams(   # the rename at the definition
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=4), end=types.Position(line=0, character=14)),
            text="load_user")]))
    t0 = time.monotonic()
    full = await asyncio.wait_for(ask(client, REDRAFT, params(uri, types.Position(line=0, character=13), 2)), 10)
    assert time.monotonic() - t0 < 5.0
    assert [(position(e["range"]["start"]), position(e["range"]["end"]), e["text"]) for e in full["edits"]] == \
        [((5, 10), (5, 15), "load")] and full["forwardPasses"] == 0 and full["confidence"] == 1.0
    s = await stats(client)
    assert s["model"]["state"] == "loading"            # the answer did not wait for the model
    assert s["nextEdit"]["completed"] == 1
    assert not any(isinstance(r, types.WorkDoneProgressEnd) for rs in client.progress_reports.values() for r in rs)
