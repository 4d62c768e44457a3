"""`initialize`: the capabilities redraft advertises, and the model load behind $/progress."""
from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import SERVE, model_ready, start
from redraft.lsp.stdio_client import JsonRpcStdioClient

pytestmark = pytest.mark.asyncio(loop_scope="module")
RESULT: dict[str, types.InitializeResult] = {}


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    RESULT["init"] = await start(lsp_client)
    yield
    await lsp_client.shutdown_session()


async def test_inline_completion_is_advertised(client: LanguageClient):
    # pygls 2.1 advertises it only because the feature is registered with InlineCompletionOptions
    assert RESULT["init"].capabilities.inline_completion_provider is not None


async def test_popup_completion_is_advertised(client: LanguageClient):
    provider = RESULT["init"].capabilities.completion_provider
    assert provider is not None and "." in (provider.trigger_characters or [])


async def test_commands_are_advertised(client: LanguageClient):
    commands = RESULT["init"].capabilities.execute_command_provider.commands
    assert {"redraft.accept", "redraft.reject", "redraft.stats"} <= set(commands)


async def test_incremental_sync_and_utf16(client: LanguageClient):
    caps = RESULT["init"].capabilities
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close is True
    assert caps.position_encoding == types.PositionEncodingKind.Utf16
    assert RESULT["init"].server_info.name == "redraft"


async def test_model_loads_in_process_with_progress(client: LanguageClient):
    message = await model_ready(client)
    assert "model loaded" in message
    begins = [r for reports in client.progress_reports.values() for r in reports
              if isinstance(r, types.WorkDoneProgressBegin)]
    assert begins and begins[0].title == "redraft"
    stats = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="redraft.stats"))
    assert stats["model"]["state"] == "ready" and stats["model"]["device"] in ("cpu", "cuda")
    # the precision auto chose for this machine's CPU, reported with the CPU and logged at load
    from redraft.model.precision import choose, cpu_info
    cpu = cpu_info()
    assert stats["model"]["precision"] == choose("auto", stats["model"]["device"], cpu.flags)
    assert stats["model"]["cpu"] == cpu.summary() and f"precision {stats['model']['precision']}" in message


async def test_utf8_position_encoding_when_the_client_prefers_it():
    """A client that offers UTF-8 first gets it, and every position (edits, requests, results) is
    then counted in UTF-8 bytes."""
    c = JsonRpcStdioClient()
    try:
        init = c.request("initialize", {"processId": None, "rootUri": None, "initializationOptions": {"threads": 1, "gate": "always"},
                                        "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}})
        assert init["capabilities"]["positionEncoding"] == "utf-8"
        c.notify("initialized", {})
        uri, line = "file:///utf8.py", 'print("😀é", s)'
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                           "text": f"s = 1\n{line}\n"}})
        at = len(line[:-1].encode())  # before ")": 17 bytes, but only 14 UTF-16 units
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": at}, "end": {"line": 1, "character": at}}, "text": ".up"}]})
        cursor = {"line": 1, "character": at + 3}  # print("😀é", s.up|)
        listing = c.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": cursor})
        edit = listing["items"][0]["textEdit"]
        assert edit["range"] == {"start": {"line": 1, "character": at + 1}, "end": cursor}
        assert edit["newText"].startswith("up")
    finally:
        assert c.close() == 0
