"""Grammar registry: LSP languageId -> `Lang` (a tree-sitter Language plus the few facts the
planner needs). Grammars come from the per-language wheels (tree-sitter-python, -javascript,
-typescript, -rust, -go); a grammar whose wheel is missing is simply not available (the pipeline
then falls back to the line rules). Languages and parsers are created once and cached; a Parser is
not thread-safe, so `Lang.parser()` gives one per thread.
"""
from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

__all__ = ["Lang", "language_for", "language_for_uri", "LANGUAGE_IDS"]


@dataclass(frozen=True)
class Spec:
    module: str
    func: str
    block_opener: str                 # the character that opens a block at the end of a line
    indent_blocks: bool               # blocks are delimited by indentation (Python), else by braces
    line_comment: str


_SPECS: dict[str, Spec] = {
    "python": Spec("tree_sitter_python", "language", ":", True, "#"),
    "javascript": Spec("tree_sitter_javascript", "language", "{", False, "//"),
    "typescript": Spec("tree_sitter_typescript", "language_typescript", "{", False, "//"),
    "typescriptreact": Spec("tree_sitter_typescript", "language_tsx", "{", False, "//"),
    "rust": Spec("tree_sitter_rust", "language", "{", False, "//"),
    "go": Spec("tree_sitter_go", "language", "{", False, "//"),
}
_ALIASES = {"javascriptreact": "javascript", "jsx": "javascript", "js": "javascript", "ts": "typescript",
            "tsx": "typescriptreact", "py": "python", "golang": "go", "rs": "rust"}
_EXTENSIONS = {".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
               ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
               ".tsx": "typescriptreact", ".rs": "rust", ".go": "go"}
LANGUAGE_IDS = tuple(_SPECS)

# node types that hold text rather than code (the planner treats the cursor inside them specially)
COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment", "doc_comment"})
STRING_TYPES = frozenset({"string", "string_content", "string_fragment", "template_string", "string_literal",
                          "raw_string_literal", "interpreted_string_literal", "char_literal", "rune_literal",
                          "string_start", "string_end", "escape_sequence", "interpreted_string_literal_content",
                          "raw_string_literal_content"})


@dataclass
class Lang:
    name: str
    language: Any                     # tree_sitter.Language
    spec: Spec
    _local: threading.local = field(default_factory=threading.local, repr=False)

    def parser(self) -> Any:
        p = getattr(self._local, "parser", None)
        if p is None:
            import tree_sitter
            p = self._local.parser = tree_sitter.Parser(self.language)
        return p

    @property
    def block_opener(self) -> str:
        return self.spec.block_opener

    @property
    def indent_blocks(self) -> bool:
        return self.spec.indent_blocks


def _canonical(language_id: str | None) -> str | None:
    if not language_id:
        return None
    lid = language_id.strip().lower()
    lid = _ALIASES.get(lid, lid)
    return lid if lid in _SPECS else None


@lru_cache(maxsize=None)
def _load(name: str) -> Lang | None:
    spec = _SPECS[name]
    try:
        import tree_sitter
        mod = importlib.import_module(spec.module)
        return Lang(name, tree_sitter.Language(getattr(mod, spec.func)()), spec)
    except Exception:  # noqa: BLE001 - a missing or incompatible grammar wheel: no syntax for this language
        return None


def language_for(language_id: str | None) -> Lang | None:
    """The grammar for an LSP languageId, or None (unknown language or grammar not installed)."""
    name = _canonical(language_id)
    return _load(name) if name else None


def language_id_for_uri(uri: str | None) -> str | None:
    if not uri:
        return None
    return _EXTENSIONS.get(PurePosixPath(uri.split("?", 1)[0]).suffix.lower())


def language_for_uri(uri: str | None) -> Lang | None:
    """By file extension, for callers with a path but no languageId (`redraft complete`, the eval)."""
    return language_for(language_id_for_uri(uri))
