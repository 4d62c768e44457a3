"""The workspace index's life in the language server: its folders from `initialize`, built in the
background after `initialized`, kept current from didOpen / didSave / didClose and the file
watcher (`workspace/didChangeWatchedFiles`, registered dynamically where the client allows it).

Design decisions:
* Nothing here blocks a request: the build and every re-read from disk run on worker threads;
  an open document's text is indexed from memory (one file's parse, a few milliseconds).
* didChange does not touch the index: the document's own lines are read directly at each
  request (workspace/candidates.py), and indexing half-typed lines would offer them back.
* No workspace folder (a single file, `untitled:`) means no index: completions work as before.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from lsprotocol import types

from redraft.engine.settings import Settings
from redraft.engine.syntax.languages import LANGUAGE_IDS
from redraft.engine.workspace.files import uri_path
from redraft.engine.workspace.index import WorkspaceIndex
from redraft.engine.workspace.scan import EXTENSIONS

log = logging.getLogger("redraft.workspace")
WATCH_ID = "redraft-watch-sources"


def roots_of(params: types.InitializeParams) -> list[Path]:
    roots = [uri_path(f.uri) for f in (params.workspace_folders or [])]
    if not roots:
        roots = [uri_path(params.root_uri)] if params.root_uri else []
    if not roots and params.root_path:
        roots = [Path(params.root_path)]
    return [r for r in roots if r is not None and r.is_dir()]


class Workspace:
    def __init__(self) -> None:
        self.roots: list[Path] = []
        self.index: WorkspaceIndex | None = None
        self._key: tuple | None = None

    def configure(self, settings: Settings) -> None:
        """(Re)build the index when the folders or the index settings change; drop it when off."""
        langs = tuple(LANGUAGE_IDS) if "*" in settings.enabled_languages else \
            tuple(lang for lang in settings.enabled_languages if lang in EXTENSIONS)
        key = (tuple(self.roots), langs, settings.workspace_max_files, settings.workspace_max_file_kb,
               settings.debug_index_delay_ms) \
            if settings.workspace_index and self.roots and langs else None
        if key == self._key:
            return
        if self.index is not None:
            self.index.stop()
        self._key, self.index = key, None
        if key is not None:
            self.index = WorkspaceIndex(self.roots, langs, max_files=settings.workspace_max_files,
                                        max_bytes=settings.workspace_max_file_kb * 1024,
                                        delay_s=settings.debug_index_delay_ms / 1000)
            self.index.start()

    def opened(self, uri: str, text: str) -> None:
        path = uri_path(uri)
        if self.index is not None and path is not None:
            self.index.update(path, text, force=True)

    def saved(self, uri: str, text: str | None) -> None:
        path = uri_path(uri)
        if self.index is None or path is None:
            return
        if text is not None:
            self.index.update(path, text, force=True)
        else:
            self._in_background([path], [])

    def closed(self, uri: str) -> None:
        path = uri_path(uri)
        if self.index is not None and path is not None:
            self._in_background([path], [])   # the file on disk is the truth again

    def watched(self, changes: list[types.FileEvent]) -> None:
        if self.index is None:
            return
        refresh, remove = [], []
        for ch in changes:
            path = uri_path(ch.uri)
            if path is not None:
                (remove if ch.type == types.FileChangeType.Deleted else refresh).append(path)
        self._in_background(refresh, remove)

    def _in_background(self, refresh: list[Path], remove: list[Path]) -> None:
        index = self.index

        def run() -> None:
            for p in remove:
                index.remove(p)
            for p in refresh:
                index.refresh(p)
        threading.Thread(target=run, name="redraft-index-update", daemon=True).start()

    def registration(self, client_capabilities: Any) -> types.RegistrationParams | None:
        """The file watcher's dynamic registration, where the client allows it and there is an index."""
        dyn = getattr(getattr(getattr(client_capabilities, "workspace", None), "did_change_watched_files", None),
                      "dynamic_registration", False)
        if not dyn or self.index is None:
            return None
        exts = sorted({e.lstrip(".") for lang in self.index.languages for e in EXTENSIONS.get(lang, ())})
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/*.{{{','.join(exts)}}}")]
        return types.RegistrationParams(registrations=[types.Registration(
            id=WATCH_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))])

    def stats(self) -> dict[str, Any] | None:
        return None if self.index is None else self.index.snapshot_stats() | {"roots": [str(r) for r in self.roots]}
