"""Infill planning and post-processing: which path plans a request and trims its answer (torch-free).

Two paths, chosen per request:
* syntax-aware (the default for languages with a tree-sitter grammar, see lsp_server/engine/syntax/):
  `syntax.plan.plan_syntax` decides from the cursor's syntactic context and
  `syntax.truncate.finish` post-processes with the document's tree;
* the line rules below (languages without a grammar, or `Request.syntax = False` / the `syntax`
  setting off, which reproduces the pre-tree-sitter behaviour exactly for measurement).
"""
from __future__ import annotations

from typing import Any

from redraft.engine.plan import Plan, drop_duplicate_tail, plan_lines

__all__ = ["plan_infill", "postprocess", "postprocess_lines", "resolve_tree"]


def resolve_tree(text: str, language_id: str | None, uri: str | None, tree: Any = None) -> Any:
    """The `SyntaxTree` for text: the caller's (a SyntaxTree, or the TreeHandle the server keeps per
    document, parsed incrementally here), else a fresh parse when the language has a grammar; None
    without a grammar."""
    from redraft.engine.syntax.languages import language_for, language_for_uri
    from redraft.engine.syntax.trees import MAX_SYNTAX_CHARS, SyntaxTree, TreeHandle
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
    from redraft.engine.syntax.plan import plan_syntax
    return plan_syntax(syntax_tree, text, offset, max_tokens)


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
        from redraft.engine.syntax.truncate import finish
        return finish(completion, plan, text, offset, syntax_tree)
    if balance:
        from redraft.engine.syntax.truncate import balance_brackets
        if plan.stop_at_newline:
            completion = completion.split("\n", 1)[0]
        completion = balance_brackets(completion.rstrip(), text, offset)
    return postprocess_lines(completion, plan, text, offset)
