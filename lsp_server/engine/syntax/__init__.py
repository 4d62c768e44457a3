"""Syntax awareness from tree-sitter grammars (one wheel per language, see languages.py).

* languages.py: the grammar registry, by LSP languageId (and by file extension for callers that
  have only a path).
* trees.py: a document's tree, kept up to date incrementally (`tree.edit` + reparse with the old
  tree) as the server applies didChange edits (`TreeHandle`: edits recorded per change, one
  incremental reparse when a completion needs the tree).
* plan.py: the infill plan from the cursor's syntactic context (complete or not, scope, canvas,
  boundary).
* truncate.py: post-processing of a candidate (block boundary, bracket/quote balance against the
  suffix, duplicate-suffix removal, and syntax-aware truncation: the longest prefix that adds no
  parse error the document did not already have).
"""
from redraft.engine.syntax.languages import Lang, language_for, language_for_uri
from redraft.engine.syntax.trees import SyntaxTree, TreeHandle, encode

__all__ = ["Lang", "language_for", "language_for_uri", "SyntaxTree", "TreeHandle", "encode"]
