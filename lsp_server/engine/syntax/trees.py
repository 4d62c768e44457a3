"""A document's syntax tree, kept current incrementally.

The server's documents are immutable snapshots (documents.py); so is a `SyntaxTree`: `edit`
returns a new one. The old tree is copied before `Tree.edit` (a cheap reference-counted copy), so
a request still working on the previous snapshot keeps a valid tree, and the new tree is parsed
with the edited old one, which lets tree-sitter reuse every unchanged subtree (a keystroke costs
about the edited region, not the document).

Text is given to tree-sitter as UTF-8; lone surrogates (JSON can carry them) are encoded with
"surrogatepass", three bytes each, the same size as the U+FFFD the pipeline substitutes, so byte
offsets agree with the text the model sees. Points are (row, byte column) with rows counted at
"\\n", as tree-sitter counts them.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from redraft.engine.syntax.languages import Lang

__all__ = ["SyntaxTree", "TreeHandle", "encode", "point_at", "MAX_SYNTAX_CHARS"]

MAX_SYNTAX_CHARS = 2_000_000  # larger documents get no tree (the line rules apply)
MAX_PENDING_EDITS = 512       # more unparsed edits than this: the next use parses afresh


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def point_at(src: bytes, byte: int) -> tuple[int, int]:
    row = src.count(b"\n", 0, byte)
    return row, byte - (src.rfind(b"\n", 0, byte) + 1)


@dataclass(frozen=True)
class SyntaxTree:
    lang: Lang
    source: bytes
    tree: Any                      # tree_sitter.Tree for exactly `source`

    @classmethod
    def parse(cls, lang: Lang, text: str) -> "SyntaxTree":
        src = encode(text)
        return cls(lang, src, lang.parser().parse(src))

    @classmethod
    def from_bytes(cls, lang: Lang, src: bytes) -> "SyntaxTree":
        return cls(lang, src, lang.parser().parse(src))

    @property
    def root(self) -> Any:
        return self.tree.root_node

    def edit(self, old_text: str, start: int, end: int, new_text: str) -> "SyntaxTree":
        """The tree after replacing old_text[start:end] (code point offsets) with new_text."""
        new_src, edit = input_edit(self.source, old_text, start, end, new_text)
        tree = self.tree.copy()
        tree.edit(**edit)
        return SyntaxTree(self.lang, new_src, self.lang.parser().parse(new_src, tree))

    def insertion(self, at_byte: int, text: str) -> "SyntaxTree":
        """The tree with `text` inserted at a byte offset (for checking completion candidates)."""
        src = self.source
        inserted = encode(text)
        new_src = src[:at_byte] + inserted + src[at_byte:]
        p = point_at(src, at_byte)
        tree = self.tree.copy()
        tree.edit(start_byte=at_byte, old_end_byte=at_byte, new_end_byte=at_byte + len(inserted),
                  start_point=p, old_end_point=p, new_end_point=point_at(new_src, at_byte + len(inserted)))
        return SyntaxTree(self.lang, new_src, self.lang.parser().parse(new_src, tree))

    def errors(self) -> list[tuple[int, int, bool]]:
        """(start_byte, end_byte, is_missing) of every ERROR and MISSING node (only subtrees that
        contain errors are visited, so an error-free tree costs nothing)."""
        root = self.root
        if not root.has_error:
            return []
        out, stack = [], [root]
        while stack:
            node = stack.pop()
            if node.is_error or node.is_missing:
                out.append((node.start_byte, node.end_byte, node.is_missing))
                if node.is_missing:
                    continue
            stack.extend(c for c in node.children if c.has_error or c.is_missing)
        return out

    def error_count(self) -> int:
        return len(self.errors())


def input_edit(src: bytes, old_text: str, start: int, end: int, new_text: str) -> tuple[bytes, dict[str, Any]]:
    """(new source, Tree.edit arguments) for replacing old_text[start:end] with new_text; src is
    old_text's encoding."""
    start_byte = len(encode(old_text[:start]))
    old_end_byte = start_byte + len(encode(old_text[start:end]))
    inserted = encode(new_text)
    new_src = src[:start_byte] + inserted + src[old_end_byte:]
    new_end_byte = start_byte + len(inserted)
    return new_src, dict(start_byte=start_byte, old_end_byte=old_end_byte, new_end_byte=new_end_byte,
                         start_point=point_at(src, start_byte), old_end_point=point_at(src, old_end_byte),
                         new_end_point=point_at(new_src, new_end_byte))


class TreeHandle:
    """A document snapshot's tree, parsed when first used (a completion request), not per keystroke.

    didChange records each edit (`Tree.edit` arguments, computed against the text it applies to);
    `get()` then copies the last parsed tree, applies the pending edits in order and reparses once
    with it, so a burst of typing costs one incremental parse, in the worker thread that needs it
    rather than on the server's event loop. Snapshots stay independent: a handle never changes the
    tree another handle holds. Thread-safe."""

    def __init__(self, lang: Lang, source: bytes, base: SyntaxTree | None = None,
                 edits: tuple[dict[str, Any], ...] = ()) -> None:
        self.lang, self.source = lang, source
        self._base, self._edits = base, edits
        self._tree: SyntaxTree | None = base if base is not None and not edits and base.source == source else None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, lang: Lang, text: str) -> "TreeHandle":
        return cls(lang, encode(text))

    @property
    def parsed(self) -> bool:
        return self._tree is not None

    @property
    def pending_edits(self) -> int:
        return len(self._edits)

    def get(self) -> SyntaxTree:
        with self._lock:
            if self._tree is None:
                parser = self.lang.parser()
                if self._base is None:
                    self._tree = SyntaxTree(self.lang, self.source, parser.parse(self.source))
                else:
                    tree = self._base.tree.copy()
                    for e in self._edits:
                        tree.edit(**e)
                    self._tree = SyntaxTree(self.lang, self.source, parser.parse(self.source, tree))
                self._base, self._edits = None, ()
            return self._tree

    def edit(self, old_text: str, start: int, end: int, new_text: str) -> "TreeHandle":
        """The handle for the text after replacing old_text[start:end] with new_text (no parsing)."""
        new_src, edit = input_edit(self.source, old_text, start, end, new_text)
        with self._lock:
            base, edits = (self._tree, ()) if self._tree is not None else (self._base, self._edits)
        if base is None or len(edits) >= MAX_PENDING_EDITS:
            return TreeHandle(self.lang, new_src)  # never parsed, or too many edits: a fresh parse when used
        return TreeHandle(self.lang, new_src, base, edits + (edit,))
