"""`redraft serve`: the language server (pygls 2.x), inline completion from the in-process model.

Features: incremental text sync; `textDocument/inlineCompletion` (advertised because the feature
is registered with `InlineCompletionOptions`; it honours the popup's `selectedCompletionInfo`);
`textDocument/completion` with the same infill as a single item (for clients without inline
completion: Helix, Zed); `workspace/executeCommand` for `redraft.accept`, `redraft.reject` (local
feedback reports), `redraft.stats` and `redraft.applyEdit` (merge a lazy edit snippet into an open
document; the client applies the result through `workspace/applyEdit`);
`workspace/didChangeConfiguration`; the `redraft/status` notification (model state, effort, on/off)
for clients that announce `experimental.redraftStatus`; next-edit prediction as
`textDocument/copilotInlineEdit` and `redraft/nextEdit` (custom requests, advertised as
`capabilities.experimental.redraftNextEdit`). The editor clients that use all this live
in editors/. Handlers stay small and delegate: documents.py (text sync), completions.py (requests,
cancellation, staleness), next_edits.py (the same for next edits), engine_host.py (the model),
apply_command.py (redraft.applyEdit), settings.py, feedback.py, convert.py (every LSP <-> internal
conversion), protocol.py (the validation layer in front of pygls' dispatch, and other pygls
adjustments).

The model may be remote (the `backend` setting or `redraft serve --backend*`, engine/backends): the
host then holds a RemoteEngine with the same interface, and `redraft/status` carries the backend's
public description and, while it fails, "backend unreachable: <why>".

Nothing here may take the process down: malformed messages get a JSON-RPC error, requests that
cannot be served answer empty, problems are reported with window/logMessage or showMessage.
"""
from __future__ import annotations

import asyncio
import logging
import sys
import threading
import uuid
from dataclasses import asdict, replace
from importlib import metadata
from typing import Any, Callable

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import lsp_method

from redraft.lsp.apply_edit import ApplyService
from redraft.lsp.completions import CompletionService
from redraft.lsp.convert import (next_edit_action, next_edit_params, next_edit_region, normalize_encoding,
                      to_completion_item, to_inline_item, to_next_edit)
from redraft.lsp.documents import DocumentStore
from redraft.engine.host import EngineHost, EngineUnavailable, Level
from redraft.lsp.feedback import FeedbackLog
from redraft.engine.next_edit.history import EditHistory
from redraft.lsp.inline_edits import NextEditService, Outcome, stats_of
from redraft.lsp.protocol import RedraftProtocol, converter_factory, read_messages
from redraft.lsp.workspace import Workspace, roots_of
from redraft.engine.settings import Settings, parse_settings

try:
    __version__ = metadata.version("redraft")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

logger = logging.getLogger("redraft.server")
COPILOT_INLINE_EDIT = "textDocument/copilotInlineEdit"
NEXT_EDIT = "redraft/nextEdit"
EXPERIMENTAL = {"redraftNextEdit": True}  # capabilities.experimental: what clients can tell from it


class ServerProtocol(RedraftProtocol):
    """RedraftProtocol, and EXPERIMENTAL in the server's capabilities (pygls builds them after the
    initialize handler has run, from the standard features only)."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {**(result.capabilities.experimental or {}), **EXPERIMENTAL}
        return result


class RedraftServer(LanguageServer):
    """The LanguageServer plus the state its handlers delegate to (also the engine's `Reporter`)."""

    def __init__(self) -> None:
        super().__init__("redraft", __version__, protocol_cls=ServerProtocol, converter_factory=converter_factory,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = Settings()
        self.docs = DocumentStore()
        self.history = EditHistory()   # recent edits, for next-edit prediction
        self.feedback = FeedbackLog()
        self.host = EngineHost(self)
        self.completions = CompletionService(self.host, self.docs, self)
        self.next_edits = NextEditService(self.host, self.docs, self.history, self)
        self.applier = ApplyService(self.docs)
        self.project = Workspace()   # the workspace index (pygls owns `workspace`)

    # -- Reporter ---------------------------------------------------------------------------------
    def log(self, kind: types.MessageType | Level, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=types.MessageType(int(kind)), message=message))

    def show(self, kind: types.MessageType | Level, message: str) -> None:
        self.window_show_message(types.ShowMessageParams(type=types.MessageType(int(kind)), message=message))

    async def progress_begin(self, title: str, message: str) -> str | None:
        if not get_capability(self.client_capabilities, "window.work_done_progress", False):
            return None
        token = f"redraft-{uuid.uuid4().hex[:8]}"
        try:
            await self.work_done_progress.create_async(token)
        except Exception as e:  # noqa: BLE001 - no progress bar is no reason to fail
            logger.warning("work done progress refused: %s", e)
            return None
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, message=message))
        return token

    def progress_end(self, token: str | None, message: str) -> None:
        if token is not None:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def status_changed(self) -> None:
        """`redraft/status` for clients that asked for it (`experimental.redraftStatus` in their
        capabilities, e.g. the VS Code extension's status-bar item): the model's state, the effort
        and whether completions are on. Sent when a load starts or ends and on every settings change."""
        experimental = getattr(self.client_capabilities, "experimental", None)
        if not (isinstance(experimental, dict) and experimental.get("redraftStatus")):
            return
        model = self.host.status()
        state = {"loading": "loading", "ready": "ready", "failed": "failed"}.get(model["state"], "starting")
        message = model["error"] or model["message"] or ""
        # `backend`: the remote backend's public description ({"kind": "local"} for the in-process
        # model); while it fails, state "failed" and the message "backend unreachable: <why>"
        self.protocol.notify("redraft/status", {"state": state, "message": message, "effort": self.settings.effort,
                                                "enabled": self.settings.enabled, "modelDir": model["modelDir"],
                                                "device": model["device"], "backend": model["backend"]})

    # -- helpers for the handlers -----------------------------------------------------------------
    @property
    def encoding(self) -> str:
        caps = getattr(self.protocol, "server_capabilities", None)
        return normalize_encoding(getattr(caps, "position_encoding", None))

    def apply_settings(self, raw: Any, source: str) -> None:
        """Parse and apply settings; problems are shown, never raised."""
        self.settings, problems, ignored = parse_settings(raw, self.settings)
        if problems:
            self.show(types.MessageType.Warning, f"redraft: bad {source}: " + "; ".join(problems))
            for p in problems:
                self.log(types.MessageType.Warning, f"{source}: {p}")
        if ignored:
            self.log(types.MessageType.Log, f"{source}: ignoring unknown settings {', '.join(ignored)}")
        if self.project.index is not None or self.host.started:
            self.configure_workspace()
        if self.host.started:  # reload only if the model settings changed (start() is a no-op otherwise)
            self.host.start(self.settings)
            self.status_changed()

    def configure_workspace(self) -> None:
        """The workspace index for the current settings; the file watcher registered once it exists."""
        had = self.project.index is not None
        self.project.configure(self.settings)
        self.completions.workspace = self.project.index
        reg = None if had else self.project.registration(self.client_capabilities)
        if reg is not None:
            self.client_register_capability(reg)

    async def next_edit(self, params: Any) -> Outcome | None:
        """The next-edit requests' params (untyped: lsprotocol has no type for them, so pygls
        hands them over as namedtuples) -> a prediction, or None; a wrong shape is InvalidParams."""
        try:
            uri, version, position = next_edit_params(params)
        except ValueError as e:
            raise JsonRpcInvalidParams(f"Invalid params: {e}") from None
        return await self.next_edits.predict(uri, position, self.encoding, self.settings, version)

    def report(self, verdict: str, args: tuple[Any, ...]) -> dict[str, int]:
        if len(args) > 1 or (args and not isinstance(args[0], dict)):
            raise JsonRpcInvalidParams.of(ValueError(f"expected one completion payload object, got {list(args)!r}"))
        counters, problem = self.feedback.report(verdict, args[0] if args else {}, self.settings.feedback_file)
        if problem:
            self.log(types.MessageType.Warning, problem)
        return counters

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Errors outside a request (protocol.py answers the requests): the local log, and the
        client's log while the transport is open. A failed write closes it: nothing more is written,
        and the failure is not reported through it."""
        if self.protocol.closed or (source is JsonRpcInternalError and isinstance(error, (OSError, ValueError))):
            self.protocol.closed = True  # pygls reports a failed write with JsonRpcInternalError
            logger.warning("the client's transport is gone: %s", error)
            return
        if source is JsonRpcException and isinstance(error, (ValueError, RecursionError)):
            # pygls' own read loop (TCP) could not decode a message
            self.protocol.reject(None, types.ErrorCodes.ParseError, f"Parse error: {error}"[:300])
            return
        if source is FeatureRequestError:
            return  # the request was answered with the error already
        try:
            self.log(types.MessageType.Error, f"redraft: {type(error).__name__}: {error}"[:2000])
        except Exception:  # noqa: BLE001 - e.g. no transport yet
            logger.exception("cannot report %s", error)

    def _start_io_async(self, stdin: Any = None, stdout: Any = None) -> None:
        """pygls' stdio server with the project's read loop (protocol.read_messages: the one
        validation layer in front of pygls' dispatch)."""
        self._stop_event = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(read_messages(self._stop_event, reader, self.protocol))
        except BrokenPipeError:
            logger.error("the client closed the connection; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()


server = RedraftServer()


@server.feature(types.INITIALIZE)
def on_initialize(ls: RedraftServer, params: types.InitializeParams) -> None:
    ls.lsp_loop = asyncio.get_event_loop()   # the HTTP API beside it reaches the engine through it
    ls.apply_settings(params.initialization_options, "initializationOptions")
    ls.project.roots = roots_of(params)


@server.feature(types.INITIALIZED)
def on_initialized(ls: RedraftServer, params: types.InitializedParams) -> None:
    if ls.settings.preload_model:   # load the model now, in the background, with $/progress
        ls.host.start(ls.settings)
    ls.configure_workspace()    # index the workspace's files, in the background


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: RedraftServer, params: None) -> None:
    ls.next_edits.shutdown()
    ls.completions.shutdown()
    ls.applier.shutdown()


@server.feature(types.EXIT)
def on_exit(ls: RedraftServer, params: None) -> None:
    ls.next_edits.shutdown()
    ls.completions.shutdown()
    ls.applier.shutdown()
    ls.protocol.closed = True  # a load or a denoising still running must not write to a closed stdout


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def on_configuration(ls: RedraftServer, params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings
    if not raw and get_capability(ls.client_capabilities, "workspace.configuration", False):
        pulled = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="redraft")]))
        raw = pulled[0] if pulled else None
    ls.apply_settings(raw, "configuration")


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def on_open(ls: RedraftServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.completions.invalidate(doc.uri)
    ls.next_edits.invalidate(doc.uri)
    ls.docs.open(doc.uri, doc.text, doc.version, doc.language_id)
    ls.history.forget(doc.uri)  # a (re)open gives a new text: older hunks do not apply to it
    if ls.settings.language_enabled(doc.language_id):
        ls.project.opened(doc.uri, doc.text)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def on_change(ls: RedraftServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.completions.invalidate(uri)  # in-flight results for the old text are stale: stop them now
    ls.next_edits.invalidate(uri)
    before = ls.docs.get(uri)
    doc = ls.docs.change(uri, params.text_document.version, params.content_changes, ls.encoding)
    if doc is None:
        ls.log(types.MessageType.Warning, f"didChange for {uri}, which is not open: ignored")
    else:
        ls.history.observe(uri, before.text, doc.text, doc.version)  # never raises


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def on_close(ls: RedraftServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.completions.invalidate(uri, "closed")
    ls.next_edits.invalidate(uri, "closed")
    ls.docs.close(uri)
    ls.host.forget(uri)
    ls.history.forget(uri)
    ls.project.closed(uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def on_save(ls: RedraftServer, params: types.DidSaveTextDocumentParams) -> None:
    doc = ls.docs.get(params.text_document.uri)
    ls.project.saved(params.text_document.uri, doc.text if doc is not None else params.text)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def on_watched_files(ls: RedraftServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.project.watched(params.changes)


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
async def on_inline_completion(ls: RedraftServer, params: types.InlineCompletionParams) -> types.InlineCompletionList:
    selected = params.context.selected_completion_info if params.context else None
    out = await ls.completions.complete(params.text_document.uri, params.position, ls.encoding, ls.settings,
                                        "inline", selected)
    if out is None:
        return types.InlineCompletionList(items=[])
    ls.feedback.shown(out.payload)
    return types.InlineCompletionList(items=[to_inline_item(out.completion, out.index, out.payload)])


@server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", "(", "="]))
async def on_completion(ls: RedraftServer, params: types.CompletionParams) -> types.CompletionList:
    out = await ls.completions.complete(params.text_document.uri, params.position, ls.encoding, ls.settings, "popup")
    if out is None:
        return types.CompletionList(is_incomplete=True, items=[])
    ls.feedback.shown(out.payload)
    return types.CompletionList(is_incomplete=True, items=[to_completion_item(out.completion, out.index, out.payload)])


@server.feature(COPILOT_INLINE_EDIT)
async def on_copilot_inline_edit(ls: RedraftServer, params: Any) -> dict[str, Any]:
    """`{textDocument: {uri, version?}, position}` -> `{edits: [{range, text, textDocument}]}`: the
    next edit near the cursor (Copilot's inline-edit request), none when the model sees none."""
    out = await ls.next_edit(params)
    if out is None or out.edit is None:
        return {"edits": []}
    document = {"uri": out.uri, "version": out.version}
    return {"edits": [{**to_next_edit(out.edit, out.index), "textDocument": document}]}


@server.feature(NEXT_EDIT)
async def on_next_edit(ls: RedraftServer, params: Any) -> dict[str, Any]:
    """The same as copilotInlineEdit, plus `region` (the whole lines the model rewrote, as
    {range, text}), `confidence` and `forwardPasses`; region and confidence null without an edit."""
    out = await ls.next_edit(params)
    if out is None or out.edit is None:
        return {"edits": [], "region": None, "confidence": None, "forwardPasses": out.forward_passes if out else 0}
    document = {"uri": out.uri, "version": out.version}
    return {"edits": [{**to_next_edit(out.edit, out.index), "textDocument": document}],
            "region": next_edit_region(out.edit, out.index), "confidence": out.edit.confidence,
            "forwardPasses": out.forward_passes}


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.RefactorRewrite]))
async def on_code_action(ls: RedraftServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The next edit at the start of the range as a code action (for editors without the next-edit
    requests, Helix); none when no edit is due or the client asked only for other kinds."""
    only = params.context.only
    if only and not any(types.CodeActionKind.RefactorRewrite.value.startswith(k) for k in only):
        return []
    out = await ls.next_edits.predict(params.text_document.uri, params.range.start, ls.encoding, ls.settings,
                                      kind="code-action")
    if out is None or out.edit is None:
        return []
    return [next_edit_action(out.edit, out.index, out.uri, out.version)]


@server.command("redraft.accept")
def on_accept(ls: RedraftServer, *args: Any) -> dict[str, int]:
    return ls.report("accepted", args)


@server.command("redraft.reject")
def on_reject(ls: RedraftServer, *args: Any) -> dict[str, int]:
    return ls.report("rejected", args)


@server.command("redraft.stats")
def on_stats(ls: RedraftServer, *args: Any) -> dict[str, Any]:
    """Counters; with `{"uri": U}` also that document's version, length and SHA-256 (never its text),
    so that a client can check that the server's copy matches its own, and its recent edits' count."""
    settings = asdict(ls.settings)
    settings["backend"] = ls.settings.backend.describe() if ls.settings.backend is not None else None
    out = {"feedback": ls.feedback.snapshot(), "requests": dict(ls.completions.stats),
           "lastStoppedAtStep": ls.completions.last_stopped_at_step, "model": ls.host.status(),
           "documents": len(ls.docs), "settings": settings, "nextEdit": stats_of(ls.next_edits),
           "workspace": ls.project.stats()}
    uri = args[0].get("uri") if args and isinstance(args[0], dict) else None
    if isinstance(uri, str):
        out["document"] = ls.docs.fingerprint(uri)
        out["recentEdits"] = ls.history.count(uri)
    return out


@server.command("redraft.applyEdit")
async def on_apply_edit(ls: RedraftServer, *args: Any) -> dict[str, Any]:
    """`[{"uri", "snippet", "version"?}]`: merge the snippet into the open document (on a worker
    thread), send the client the edit (`workspace/applyEdit`, one TextEdit per changed hunk, for the
    version merged), answer {"applied", "version", "hunks", "linesAdded", "linesRemoved",
    "failureReason"?}. Bad arguments, a stale version or a refused merge: an error, nothing sent."""
    return await ls.applier.run(ls, args)


def shared_engine():
    """The language server's engine and model thread, for the HTTP API beside it (blocking; called
    off both event loops). EngineUnavailable until the client has initialized and the model loaded."""
    loop = getattr(server, "lsp_loop", None)
    if loop is None:
        raise EngineUnavailable("the language server has not been initialized by its client yet")
    engine = asyncio.run_coroutine_threadsafe(server.host.get(server.settings), loop).result(600)
    if engine is None:
        raise EngineUnavailable("the model is not loaded (see the language server's messages)")
    return engine, server.host.model_thread


def run(model_dir: str | None = None, effort: str | None = None, log_level: str = "WARNING",
        tcp: tuple[str, int] | None = None, beside: Callable[[], Any] | None = None, backend: Any = None) -> int:
    """`redraft serve`: the language server on stdio (or `tcp`), the model preloaded; `beside` starts
    what shares its engine (the HTTP API of `--stdio --http`) before the server starts reading.
    `backend` (the `--backend*` flags, a BackendConfig): the model that answers unless the client's
    `backend` setting names another."""
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    server.host.default_model_dir = model_dir
    server.host.default_backend = backend
    if backend is None or not backend.remote or backend.fallback == "local":
        server.host.preload()   # torch is imported only where a local model may run
    if effort:
        server.settings = replace(server.settings, effort=effort)
    if beside is not None:
        beside()
    if tcp:
        server.start_tcp(*tcp)
    else:
        server.start_io()
    return 0
