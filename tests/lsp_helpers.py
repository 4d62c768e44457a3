"""Shared pieces of the language-server tests: the real `redraft serve` as a subprocess over stdio,
driven by pytest-lsp (or, for raw bytes, by redraft.lsp.stdio_client)."""
from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

SERVE = [sys.executable, "-m", "redraft", "serve"]
# one torch thread: the test machine is small and busy. "syntax": False: the protocol tests assert that
# an item comes back, and with syntax-aware truncation that depends on the model's quality (a
# candidate that cannot be cut to a clean parse answers empty, by design); the syntax path has its
# own server test (tests/test_syntax_server.py), which turns it back on.
# "gate": "always": these tests are about the protocol and the drafting, so every draft is shown (the
# gate has its own tests, tests/test_workspace_server.py).
TEST_OPTIONS: dict[str, Any] = {"threads": 1, "syntax": False, "gate": "always"}

CAPABILITIES = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(configuration=True),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(),
        completion=types.CompletionClientCapabilities(),
        inline_completion=types.InlineCompletionClientCapabilities(),
    ),
)

SAMPLE = '''def area(width: float, height: float) -> float:
    """Area of a rectangle."""
    return 


def greet(name: str) -> str:
    message = "Hello, " + name
    return message
'''
RETURN_POS = types.Position(line=2, character=11)  # after "    return "


async def start(client: LanguageClient, options: dict[str, Any] | None = None,
                capabilities: types.ClientCapabilities = CAPABILITIES) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities, initialization_options={**TEST_OPTIONS, **(options or {})}))


async def model_ready(client: LanguageClient, timeout: float = 90.0) -> str:
    """Wait for the end of the model-loading $/progress; returns its message."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for reports in client.progress_reports.values():
            ends = [r for r in reports if isinstance(r, types.WorkDoneProgressEnd)]
            if ends:
                return ends[-1].message or ""
        await asyncio.sleep(0.05)
    raise TimeoutError("the model did not finish loading")


async def until(predicate, timeout: float = 60.0):
    """Poll `predicate` until it returns something truthy (returned); TimeoutError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.05)
    return value


def open_doc(client: LanguageClient, uri: str, text: str, language: str = "python", version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))


def insert(client: LanguageClient, uri: str, version: int, at: types.Position, text: str) -> None:
    """An incremental didChange inserting `text` at `at`."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=text)]))


def configure(client: LanguageClient, settings: Any) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))


def inline_params(uri: str, pos: types.Position) -> types.InlineCompletionParams:
    return types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos,
        context=types.InlineCompletionContext(trigger_kind=types.InlineCompletionTriggerKind.Invoked))


async def inline(client: LanguageClient, uri: str, pos: types.Position) -> types.InlineCompletionList:
    return await client.text_document_inline_completion_async(inline_params(uri, pos))


async def popup(client: LanguageClient, uri: str, pos: types.Position) -> types.CompletionList:
    return await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=pos))


async def stats(client: LanguageClient) -> dict[str, Any]:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="redraft.stats"))


def messages(client: LanguageClient, needle: str) -> list[str]:
    """showMessage and logMessage texts that contain `needle`."""
    return [m.message for m in [*client.messages, *client.log_messages] if needle in m.message]


def raw_session(uri: str, text: str):
    """The real server through the raw client (redraft.lsp.stdio_client), initialized with one torch
    thread, every draft shown (gate "always") and no capabilities, `text` open at `uri`: for tests that
    write exact bytes."""
    from redraft.lsp.stdio_client import JsonRpcStdioClient
    c = JsonRpcStdioClient()
    c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                             "initializationOptions": {"threads": 1, "gate": "always"}})
    c.notify("initialized", {})
    c.open_document(uri, text)
    return c


def ready_client(options: dict[str, Any] | None = None):
    """A module-scoped pytest-lsp `client` fixture: the real server over stdio, initialized with
    TEST_OPTIONS + `options`, the model loaded; shut down after the module."""
    @pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
    async def client(lsp_client: LanguageClient):
        await start(lsp_client, options)
        await model_ready(lsp_client)
        yield
        await lsp_client.shutdown_session()
    return client
