"""A headless LSP client for the bot: starts `redraft serve` over stdio (pygls' LanguageClient) and
does what an editor does (open, edit, ask for next edits, run commands, apply the edits the server
sends).  Positions are negotiated in UTF-32 (code points), so Python string offsets are positions."""
from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

TIMEOUT = 120.0


class ServerError(RuntimeError):
    pass


class HeadlessClient:
    def __init__(self, root: Path, on_apply: Callable[[types.WorkspaceEdit], bool] | None = None) -> None:
        self.root = root
        self.lsp = LanguageClient("redraft-ci", "1")
        self.versions: dict[str, int] = {}
        self.on_apply = on_apply
        self.messages: list[str] = []          # the server's warnings and errors

        @self.lsp.feature(types.WORKSPACE_APPLY_EDIT)
        def _apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
            ok = self.on_apply is not None and self.on_apply(params.edit)
            return types.ApplyWorkspaceEditResult(applied=ok, failure_reason=None if ok else "not applied")

        @self.lsp.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def _progress(params: Any) -> None:
            return None

        @self.lsp.feature(types.WINDOW_LOG_MESSAGE)
        def _log(params: types.LogMessageParams) -> None:
            if params.type in (types.MessageType.Error, types.MessageType.Warning):
                self.messages.append(params.message)

        @self.lsp.feature(types.WINDOW_SHOW_MESSAGE)
        def _show(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

        @self.lsp.feature(types.PROGRESS)
        def _progress_report(params: Any) -> None:
            return None

        @self.lsp.feature(types.WORKSPACE_CONFIGURATION)
        def _configuration(params: types.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

    async def start(self, model_dir: str | None = None) -> None:
        args = ["-m", "redraft", "serve", "--log-level", "ERROR"] + (["--model", model_dir] if model_dir else [])
        # run from this package's own directory: `python -m` puts the working directory first on
        # sys.path, and the repository under review may hold modules of the same names
        await self.lsp.start_io(sys.executable, *args, cwd=str(Path(__file__).resolve().parents[2]))
        caps = types.ClientCapabilities(
            general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf32]),
            workspace=types.WorkspaceClientCapabilities(apply_edit=True))
        init = await asyncio.wait_for(self.lsp.initialize_async(types.InitializeParams(
            capabilities=caps, root_uri=self.root.as_uri(),
            # next edits come by analogy: the model loads only if a request needs it, and the bot
            # needs no workspace index
            initialization_options={"redraft": {"enabledLanguages": ["python", "javascript", "typescript",
                                                                      "typescriptreact", "rust", "go"],
                                                 "preloadModel": False, "workspaceIndex": False}})), TIMEOUT)
        enc = init.capabilities.position_encoding
        if str(getattr(enc, "value", enc)) != "utf-32":
            raise ServerError(f"the server chose the {enc} position encoding; the bot needs utf-32")
        self.lsp.initialized(types.InitializedParams())

    def uri(self, path: str) -> str:
        return (self.root / path).as_uri()

    def open(self, path: str, text: str, language_id: str) -> None:
        self.versions[path] = 1
        self.lsp.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=self.uri(path), language_id=language_id, version=1, text=text)))

    def replace(self, path: str, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        self.versions[path] += 1
        rng = types.Range(start=types.Position(line=start[0], character=start[1]),
                          end=types.Position(line=end[0], character=end[1]))
        self.lsp.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri(path), version=self.versions[path]),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=text)]))

    def close(self, path: str) -> None:
        self.lsp.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri(path))))

    async def next_edit(self, path: str, line: int, col: int) -> dict[str, Any] | None:
        """The server's next edit at (line, col): {"range", "text", "confidence"} or None."""
        out = await asyncio.wait_for(self.lsp.protocol.send_request_async("redraft/nextEdit", {
            "textDocument": {"uri": self.uri(path), "version": self.versions[path]},
            "position": {"line": line, "character": col}}), TIMEOUT)
        edits = getattr(out, "edits", None) or (out.get("edits") if isinstance(out, dict) else None)
        if not edits:
            return None
        e = edits[0]
        get = (lambda o, k: o[k]) if isinstance(e, dict) else getattr
        rng = get(e, "range")
        s, t = get(rng, "start"), get(rng, "end")
        conf = out["confidence"] if isinstance(out, dict) else getattr(out, "confidence", None)
        return {"start": (get(s, "line"), get(s, "character")), "end": (get(t, "line"), get(t, "character")),
                "text": get(e, "text"), "confidence": conf}

    async def apply_snippet(self, path: str, snippet: str) -> Any:
        return await asyncio.wait_for(self.lsp.workspace_execute_command_async(types.ExecuteCommandParams(
            command="redraft.applyEdit", arguments=[{"uri": self.uri(path), "snippet": snippet}])), TIMEOUT)

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.lsp.shutdown_async(None), 20)
            self.lsp.exit(None)
        except Exception:  # noqa: BLE001 - the server may already be gone
            pass
        try:
            await asyncio.wait_for(self.lsp.stop(), 20)
        except Exception:  # noqa: BLE001
            pass
