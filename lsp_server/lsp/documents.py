"""Open documents: the server's own store instead of pygls' workspace.

Why not pygls' `Workspace`: it splits lines with `str.splitlines` (which also breaks at \\f, \\v,
\\u2028 ... where editors do not, so an incremental edit below a form feed lands on the wrong line)
and re-walks every line in Python on each change (a 10 MB file costs ~0.5 s per keystroke). Here
edits go through `convert.apply_change` (the LSP's own line rules, the negotiated position
encoding) and cost one string splice.

A `Document` is immutable: a request keeps the snapshot it started from, and the version it had, so
the completion code can tell whether the document moved on while the model was running.

Syntax trees: a document in a language with a tree-sitter grammar (lsp_server/engine/syntax) carries a
`TreeHandle` for its text. Each didChange edit is recorded as a tree edit (byte offsets and points);
the first completion request that needs the tree applies the pending edits to the last parsed tree
(`Tree.edit`) and reparses once with it (tree-sitter reuses every unchanged subtree): never a
reparse from scratch per keystroke, and no parsing on the event loop at all. A whole-text change,
a document over `MAX_SYNTAX_CHARS`, or a failure gives a fresh parse or no tree (the line rules).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Any, Iterable

from redraft.lsp.convert import apply_change, change_span


@dataclass(frozen=True)
class Document:
    uri: str
    text: str
    version: int | None
    language_id: str
    tree: Any = None        # syntax.TreeHandle of `text`, or None (no grammar, too large)


class DocumentStore:
    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    def fingerprint(self, uri: str) -> dict[str, Any] | None:
        """Version, length and SHA-256 of a document's text (UTF-8, "surrogatepass"), or None."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        digest = hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()
        return {"version": doc.version, "length": len(doc.text), "sha256": digest}

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)

    def open(self, uri: str, text: str, version: int | None, language_id: str) -> Document:
        language_id = (language_id or "").lower()
        doc = self._docs[uri] = Document(uri, text, version, language_id, _parse(language_id, text))
        return doc

    def change(self, uri: str, version: int | None, changes: Iterable[Any], encoding: str) -> Document | None:
        """Apply content changes in order (each relative to the previous result). Unknown URI: None."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        text, tree = doc.text, doc.tree
        for change in changes:
            span = change_span(text, change, encoding) if tree is not None else None
            new = apply_change(text, change, encoding) if span is None else text[:span[0]] + change.text + text[span[1]:]
            tree = _edited(tree, text, span, change.text, new, doc.language_id)
            text = new
        doc = self._docs[uri] = replace(doc, text=text, version=version, tree=tree)
        return doc

    def close(self, uri: str) -> bool:
        return self._docs.pop(uri, None) is not None

    def __len__(self) -> int:
        return len(self._docs)


def _parse(language_id: str, text: str) -> Any:
    """A handle that parses on first use (no work now)."""
    from redraft.engine.syntax.languages import language_for
    from redraft.engine.syntax.trees import MAX_SYNTAX_CHARS, TreeHandle
    lang = language_for(language_id)
    if lang is None or len(text) > MAX_SYNTAX_CHARS:
        return None
    try:
        return TreeHandle.of(lang, text)
    except Exception:  # noqa: BLE001 - no tree is no reason to fail the edit: the line rules apply
        return None


def _edited(tree: Any, old: str, span: tuple[int, int] | None, inserted: str, new: str, language_id: str) -> Any:
    """The handle after one change: an incremental edit for a ranged change, a fresh handle otherwise."""
    from redraft.engine.syntax.trees import MAX_SYNTAX_CHARS
    if tree is None or span is None or len(new) > MAX_SYNTAX_CHARS:
        return _parse(language_id, new)
    try:
        return tree.edit(old, span[0], span[1], inserted)
    except Exception:  # noqa: BLE001
        return _parse(language_id, new)
