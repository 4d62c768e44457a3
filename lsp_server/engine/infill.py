"""Infill planning and post-processing (torch-free; `pipeline` re-exports these).

Two paths, chosen per request:
* syntax-aware (the default for languages with a tree-sitter grammar, see lsp_server/syntax/):
  `syntax.plan.plan_syntax` decides from the cursor's syntactic context and
  `syntax.truncate.finish` post-processes with the document's tree;
* the line rules below (languages without a grammar, or `Request.syntax = False` / the `syntax`
  setting off, which reproduces the pre-tree-sitter behaviour exactly for measurement).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Plan", "plan_infill", "plan_lines", "postprocess", "postprocess_lines", "drop_duplicate_tail"]


@dataclass
class Plan:
    scope: str          # "line" (a fresh line), "line-rest" (end of a typed line), "inline" (text follows
                        # the cursor), "string" (inside a string literal), "block" (the body of a block
                        # just opened: several lines), "span" (a hole in a broken document: across lines)
    canvas_len: int
    stop_at_newline: bool = True
    boundary: str = "line"   # where the completion must stop: "line" | "statement" | "expression" |
                             # "string" | "block" | "span" (where the parse errors are fewest)
    syntax: bool = False     # planned from a syntax tree (post-processing then uses the tree too)
    indent: str = ""         # block scope: the indentation of the line that opened the block
    quote: str | None = None  # string scope: the delimiter that closes the string


def plan_lines(text: str, offset: int, max_tokens: int) -> Plan | None:
    """Simple line rules. None: do not complete here."""
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:offset], text[offset:line_end]
    if after.strip():
        if before and (before[-1].isalnum() or before[-1] == "_") and (after[0].isalnum() or after[0] == "_"):
            return None  # in the middle of an identifier
        return Plan("inline", min(16, max_tokens))
    if not before.strip():
        return Plan("line", max_tokens)
    return Plan("line-rest", max_tokens)


def resolve_tree(text: str, language_id: str | None, uri: str | None, tree: Any = None) -> Any:
    """The `SyntaxTree` for text: the caller's (a SyntaxTree, or the TreeHandle the server keeps per
    document, parsed incrementally here), else a fresh parse when the language has a grammar; None
    without a grammar."""
    from .syntax.languages import language_for, language_for_uri
    from .syntax.trees import MAX_SYNTAX_CHARS, SyntaxTree, TreeHandle
    if isinstance(tree, TreeHandle):
        return tree.get()
    if tree is not None:
        return tree
    if len(text) > MAX_SYNTAX_CHARS:
        return None
    lang = language_for(language_id) if language_id else language_for_uri(uri)
    return SyntaxTree.parse(lang, text) if lang is not None else None


def plan_infill(text: str, offset: int, max_tokens: int, *, syntax_tree: Any = None) -> Plan | None:
    """The plan for a completion at offset. With a `syntax_tree` (a syntax.SyntaxTree of exactly
    this text) the syntax-aware planner decides; without one, the line rules."""
    if syntax_tree is None:
        return plan_lines(text, offset, max_tokens)
    from .syntax.plan import plan_syntax
    return plan_syntax(syntax_tree, text, offset, max_tokens)


def drop_duplicate_tail(completion: str, text: str, offset: int) -> str:
    """Never repeat what the suffix already has: drop the longest tail that the rest of the line starts with."""
    line_end = text.find("\n", offset)
    after = text[offset: len(text) if line_end < 0 else line_end]
    for k in range(min(len(completion), len(after)), 0, -1):
        if after.startswith(completion[-k:]):
            return completion[:-k].rstrip() if not after.strip() else completion[:-k]
    return completion


def postprocess_lines(completion: str, plan: Plan, text: str, offset: int) -> str:
    """The line rules' post-processing: cut at the first newline, strip, drop a duplicated tail."""
    if plan.stop_at_newline:
        completion = completion.split("\n", 1)[0]
    return drop_duplicate_tail(completion.rstrip(), text, offset)


def postprocess(completion: str, plan: Plan, text: str, offset: int, syntax_tree: Any = None,
                balance: bool = False) -> str:
    """Post-process a sampled candidate. Syntax plans get syntax-aware truncation against the tree;
    `balance` adds the bracket/quote balance check (cheap, no grammar needed)."""
    if plan.syntax and syntax_tree is not None:
        from .syntax.truncate import finish
        return finish(completion, plan, text, offset, syntax_tree)
    if balance:
        from .syntax.truncate import balance_brackets
        if plan.stop_at_newline:
            completion = completion.split("\n", 1)[0]
        completion = balance_brackets(completion.rstrip(), text, offset)
    return postprocess_lines(completion, plan, text, offset)
