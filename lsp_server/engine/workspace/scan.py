"""What one file gives the workspace index (its code lines, its tree-sitter definitions), the
build's child process that reads them (`scan`: list, read and parse the files, send their lines and
definitions to the parent), and the signals the parent stops it with while a request runs
(`signal_child`; WorkspaceIndex.serving)."""
from __future__ import annotations

import atexit
import os
import signal
import time
from pathlib import Path
from typing import Iterable, NamedTuple

from redraft.engine.workspace.files import list_files

__all__ = ["EXTENSIONS", "MAX_LINE", "Definition", "extensions_of", "language_of", "is_code_line", "code_lines",
           "definitions", "scan", "signal_child"]

MAX_LINE = 200           # longer lines are not candidates (and rarely repeat)
EXTENSIONS = {"python": {".py", ".pyi"}, "javascript": {".js", ".mjs", ".cjs", ".jsx"},
              "typescript": {".ts", ".tsx", ".mts", ".cts"}, "rust": {".rs"}, "go": {".go"}}
COMMENT_STARTS = ("#", "//", "/*", "*", '"""', "'''")

# tree-sitter node types that define a name, per language: (node type, kind)
DEF_NODES = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": {"function_declaration": "function", "class_declaration": "class", "method_definition": "method",
                   "generator_function_declaration": "function"},
    "typescript": {"function_declaration": "function", "class_declaration": "class", "method_definition": "method",
                   "interface_declaration": "interface", "type_alias_declaration": "type", "enum_declaration": "enum"},
    "rust": {"function_item": "function", "struct_item": "struct", "enum_item": "enum", "trait_item": "trait",
             "type_item": "type", "const_item": "const", "static_item": "static"},
    "go": {"function_declaration": "function", "method_declaration": "method", "type_spec": "type"},
}


class Definition(NamedTuple):
    """(the index stores these fields as plain tuples: see index.py `_defs`)"""
    name: str
    kind: str
    signature: str      # the definition's first line, stripped
    path: str
    line: int           # 0-based


def extensions_of(languages: Iterable[str]) -> set[str]:
    """The file extensions of these languages."""
    return {e for lang in languages for e in EXTENSIONS.get(lang, ())}


def language_of(path: str, enabled: Iterable[str]) -> str | None:
    suffix = Path(path).suffix.lower()
    for lang in enabled:
        if suffix in EXTENSIONS.get(lang, ()):
            return lang
    return None


def is_code_line(s: str) -> bool:
    """A stripped line worth indexing: 3..MAX_LINE characters, not a comment line."""
    return 3 <= len(s) <= MAX_LINE and not s.startswith(COMMENT_STARTS)


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped line) of the lines worth indexing (is_code_line)."""
    return [(i, s) for i, s in enumerate(raw.strip() for raw in text.split("\n")) if is_code_line(s)]


def definitions(text: str, language: str, path: str) -> list[Definition]:
    """The file's definitions (top level and one level of nesting: methods), from tree-sitter."""
    nodes = DEF_NODES.get(language)
    if not nodes:
        return []
    try:
        from redraft.engine.syntax.languages import language_for
        lang = language_for(language)
        if lang is None:
            return []
        data = text.encode("utf-8", "surrogatepass")
        root = lang.parser().parse(data).root_node
    except Exception:  # noqa: BLE001 - a grammar that cannot parse this file gives no definitions
        return []
    lines = text.split("\n")
    out: list[Definition] = []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        for child in node.children:
            kind = nodes.get(child.type)
            if kind is not None:
                name_node = child.child_by_field_name("name")
                if name_node is not None:
                    row = child.start_point[0]
                    name = data[name_node.start_byte:name_node.end_byte].decode("utf-8", "replace")
                    sig = lines[row].strip() if row < len(lines) else ""
                    out.append(Definition(name, kind, sig[:MAX_LINE], path, row))
            if depth < 3 and child.child_count:
                stack.append((child, depth + 1))
    return out


_STOPPED: set[int] = set()   # build children stopped while a request runs (resumed at exit, see below)


def signal_child(pid: int, sig: int) -> None:
    """Send `sig` to the build's child; one that has already exited is no error."""
    (_STOPPED.add if sig == signal.SIGSTOP else _STOPPED.discard)(pid)
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


@atexit.register
def _resume_stopped() -> None:
    """A stopped child never sees multiprocessing's SIGTERM at exit (and its join would wait forever):
    resume them first (atexit runs this before multiprocessing's own handler, registered earlier)."""
    for pid in list(_STOPPED):
        signal_child(pid, signal.SIGCONT)


def scan(conn, roots: list[str], languages: tuple[str, ...], max_files: int, max_bytes: int, batch: int = 32,
         delay_s: float = 0.0) -> None:
    """The build's child process: every indexable file's code lines and definitions, sent in
    batches of `batch` files as ("files", [(path, language, lines, definitions)]); then what was
    skipped, the files that could not be read, and ("done", None)."""
    exts = extensions_of(languages)
    errors, left = 0, max_files
    try:
        os.nice(10)                         # the model's threads come first on a small machine
    except OSError:
        pass
    try:
        for root in roots:
            try:
                paths, skipped = list_files(Path(root), exts, left, max_bytes)
            except Exception:  # noqa: BLE001 - a root that cannot be listed indexes nothing
                continue
            conn.send(("skipped", skipped))
            out = []
            for p in paths:
                key = str(p)
                lang = language_of(key, languages)
                try:
                    text = p.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError, ValueError):
                    errors += 1
                    continue
                defs = [tuple(d) for d in definitions(text, lang, key)]
                out.append((key, lang, [s for _, s in code_lines(text)], defs))
                left -= 1
                if delay_s:
                    time.sleep(delay_s)
                    batch = 1                   # the test hook: every file sent as it is read
                if len(out) >= batch:
                    conn.send(("files", out))
                    out = []
            if out:
                conn.send(("files", out))
        conn.send(("errors", errors))
        conn.send(("done", None))
    except (BrokenPipeError, OSError):
        pass                                # the parent stopped listening
    finally:
        conn.close()
