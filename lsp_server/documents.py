"""Open documents: the server's own store instead of pygls' workspace.

Why not pygls' `Workspace`: it splits lines with `str.splitlines` (which also breaks at \\f, \\v,
\\u2028 ... where editors do not, so an incremental edit below a form feed lands on the wrong line)
and re-walks every line in Python on each change (a 10 MB file costs ~0.5 s per keystroke). Here
edits go through `convert.apply_change` (the LSP's own line rules, the negotiated position
encoding) and cost one string splice.

A `Document` is immutable: a request keeps the snapshot it started from, and the version it had, so
the completion code can tell whether the document moved on while the model was running.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from .convert import apply_change


@dataclass(frozen=True)
class Document:
    uri: str
    text: str
    version: int | None
    language_id: str


class DocumentStore:
    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def open(self, uri: str, text: str, version: int | None, language_id: str) -> Document:
        doc = self._docs[uri] = Document(uri, text, version, (language_id or "").lower())
        return doc

    def change(self, uri: str, version: int | None, changes: Iterable[Any], encoding: str) -> Document | None:
        """Apply content changes in order (each relative to the previous result). Unknown URI: None."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        text = doc.text
        for change in changes:
            text = apply_change(text, change, encoding)
        doc = self._docs[uri] = replace(doc, text=text, version=version)
        return doc

    def close(self, uri: str) -> bool:
        return self._docs.pop(uri, None) is not None

    def __len__(self) -> int:
        return len(self._docs)
