"""Syntax-aware infill planning: from the cursor's place in the tree, whether to complete, the
scope, the canvas and the boundary where the completion must stop.

Decisions (in order):
1. Inside an identifier with identifier text right after the cursor: no completion (as the line
   rules: the user is editing a word), unless the document is broken at the cursor (truncate.py
   `broken_at`: a hole, such as part of a line or several lines gone): scope "span", a SPAN_CANVAS
   canvas free to run across lines, kept where it leaves the fewest parse errors.
2. Inside a comment (including at the end of a line comment): no completion; the model writes
   code, and a prose completion is rarely what one wants there.
3. Inside a string literal: scope "string", a 16-token canvas, stop at the newline and at the
   string's closing delimiter (the suffix already closes the string).
4. On a fresh line right after a line that opens a block (ends with ":" in Python, "{" in the
   brace languages; the opener itself not in a comment or string), indented deeper than that line,
   with an empty body (the next non-blank line is at the opener's indentation or shallower, or the
   end of the document): scope "block", several lines, stopping where the block ends. Canvas: 128
   tokens for the body of a definition (function, method, class, impl, trait), 64 otherwise (the
   model's canvas buckets are 16/32/64/128).
5. Python: a fresh line followed by a line indented deeper (not inside brackets) must be a block's
   header (`for ...:`, `if ...:`): scope "line", boundary "header"; truncation then keeps only a
   prefix that ends with ":" (tree-sitter's Python grammar accepts some unexpected indents, so the
   error count alone cannot tell), or nothing.
6. Otherwise as the line rules, with syntactic boundaries: a fresh line completes one statement
   ("line", canvas max_tokens), the end of a typed line the rest of the statement ("line-rest",
   max_tokens), text after the cursor the rest of the expression ("inline", 16 tokens). All stop
   at the newline; truncation then keeps the longest prefix that parses no worse than the document.
"""
from __future__ import annotations

import re
from typing import Any

from redraft.engine.plan import Plan
from redraft.engine.syntax.languages import COMMENT_TYPES
from redraft.engine.syntax.trees import SyntaxTree, encode
from redraft.engine.syntax.truncate import broken_at

__all__ = ["plan_syntax", "span_plan", "BLOCK_CANVAS", "DEFINITION_CANVAS", "INLINE_CANVAS", "SPAN_CANVAS"]

BLOCK_CANVAS = 64
SPAN_CANVAS = 64
DEFINITION_CANVAS = 128
INLINE_CANVAS = 16
# string nodes as a whole (their children, e.g. string_content, are parts of them)
STRING_NODES = frozenset({"string", "template_string", "string_literal", "raw_string_literal",
                          "interpreted_string_literal", "char_literal", "rune_literal"})
_DEFINITION_LINE = re.compile(r"\s*(?:(?:pub(?:\([\w:]+\))?|export|default|async|unsafe|const|extern(?: \"\w+\")?|"
                              r"static|abstract|private|public|protected)\s+)*"
                              r"(?:def|class|fn|func|function\*?|impl|trait|interface|struct|enum)\b")
_DEFINITION_WORDS = ("function", "method", "class", "impl", "trait", "interface", "struct")


def _ident(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _ancestors(node: Any) -> list[Any]:
    out = []
    while node is not None:
        out.append(node)
        node = node.parent
    return out


def _at(st: SyntaxTree, byte: int) -> list[Any]:
    """The chain of nodes (smallest first) containing the byte range [byte, byte+1)."""
    return _ancestors(st.root.descendant_for_byte_range(byte, byte + 1))


def in_comment(st: SyntaxTree, b: int) -> bool:
    """Is a cursor at byte b inside a comment (a line comment's end counts as inside)?"""
    if b == 0:
        return False
    for node in _at(st, b - 1):
        if node.type in COMMENT_TYPES or node.type.endswith("comment"):
            if node.start_byte < b < node.end_byte:
                return True
            if node.end_byte == b:  # at its end: inside a line comment, after a block comment
                body = st.source[node.start_byte:node.end_byte]
                return not body.endswith(b"*/")
    return False


def string_at(st: SyntaxTree, b: int) -> Any | None:
    """The string literal node the cursor is strictly inside (after its opening delimiter)."""
    if b == 0:
        return None
    for node in _at(st, b - 1):
        if node.type in STRING_NODES and node.start_byte < b < node.end_byte and not node.has_error:
            return node
    return None


def _closing_quote(st: SyntaxTree, node: Any) -> str | None:
    body = st.source[node.start_byte:node.end_byte].decode("utf-8", "surrogatepass")
    for q in ('"""', "'''", '"', "'", "`"):
        if body.endswith(q) and len(body) >= 2 * len(q):
            return q
    return None


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _width(indent: str) -> int:
    return len(indent.expandtabs(8))


def _block_plan(st: SyntaxTree, text: str, line_start: int, before: str) -> Plan | None:
    """Scope "block" if the cursor is on a fresh line opening an empty block body."""
    lang = st.lang
    # previous non-blank line
    end = line_start - 1
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        if text[start:end].strip():
            break
        end = start - 1
    else:
        return None
    if end <= 0:
        return None
    prev = text[start:end].rstrip("\r")
    stripped = prev.rstrip()
    if not stripped.endswith(lang.block_opener):
        return None
    opener_indent = _indent(prev)
    if _width(before) <= _width(opener_indent):
        return None
    opener_at = start + len(stripped) - 1
    b = len(encode(text[:opener_at]))
    chain = _at(st, b)
    if any(n.type in STRING_NODES or n.type.endswith("comment") for n in chain):
        return None
    # the body must be empty: the next non-blank line after the cursor's is at the opener's depth or shallower
    nl = text.find("\n", line_start)
    while nl >= 0:
        nxt_end = text.find("\n", nl + 1)
        nxt = text[nl + 1: len(text) if nxt_end < 0 else nxt_end].rstrip("\r")
        if nxt.strip():
            if _width(_indent(nxt)) > _width(opener_indent) and not nxt.lstrip().startswith(("}", ")", "]")):
                return None
            break
        nl = nxt_end
    return Plan("block", DEFINITION_CANVAS if _is_definition(chain, prev) else BLOCK_CANVAS,
                stop_at_newline=False, boundary="block", syntax=True, indent=opener_indent)


def _is_definition(chain: list[Any], opener_line: str) -> bool:
    """Does the block opened on this line belong to a definition (function, class, impl ...)? The
    constructs are the nodes up to the outermost one starting on the opener's line (the innermost non-ERROR one for a
    signature over several lines); the line's keywords decide when error recovery hides it."""
    if _DEFINITION_LINE.match(opener_line):
        return True
    row = chain[0].start_point[0]
    seen: list[Any] = []   # the constructs from the opener up to the one the line starts
    for node in chain[1:]:
        if node.parent is None:
            break
        if node.is_error:
            continue
        if node.start_point[0] != row:
            if not seen:
                seen.append(node)
            break
        seen.append(node)
    return any(any(w in n.type for w in _DEFINITION_WORDS) for n in seen)


def _needs_header(text: str, line_start: int, before: str) -> bool:
    """Indentation-block languages: is the next non-blank line indented deeper than the cursor's
    (and not a continuation inside brackets)? Then the missing line must open a block."""
    from redraft.engine.syntax.truncate import bracket_scan
    nl = text.find("\n", line_start)
    while nl >= 0:
        nxt_end = text.find("\n", nl + 1)
        nxt = text[nl + 1: len(text) if nxt_end < 0 else nxt_end].rstrip("\r")
        if nxt.strip():
            if _width(_indent(nxt)) <= _width(before):
                return False
            head = text[max(0, line_start - 4000): line_start]
            return not bracket_scan(head[head.find("\n") + 1:] if line_start > 4000 else head, "#")[0]
        nl = nxt_end
    return False


def span_plan(st: SyntaxTree, b: int) -> Plan | None:
    """A hole at byte b (the document broken there): filled across lines; None where it is not broken."""
    if not broken_at(st, b):
        return None
    return Plan("span", SPAN_CANVAS, stop_at_newline=False, boundary="span", syntax=True)


def plan_syntax(st: SyntaxTree, text: str, offset: int, max_tokens: int) -> Plan | None:
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:offset], text[offset:line_end].rstrip("\r")
    b = len(encode(text[:offset]))
    if after.strip() and before and _ident(before[-1]) and _ident(after[0]):
        # in the middle of an identifier: a word being edited, or a hole in a broken document
        return span_plan(st, b) if not in_comment(st, b) else None
    if in_comment(st, b):
        return None
    node = string_at(st, b)
    if node is not None:
        return Plan("string", min(INLINE_CANVAS, max_tokens), boundary="string", syntax=True,
                    quote=_closing_quote(st, node))
    if not before.strip() and not after.strip():
        block = _block_plan(st, text, line_start, before)
        if block is not None:
            return block
        if st.lang.indent_blocks and _needs_header(text, line_start, before):
            return Plan("line", max_tokens, boundary="header", syntax=True)
        return Plan("line", max_tokens, boundary="statement", syntax=True)
    if after.strip():
        return Plan("inline", min(INLINE_CANVAS, max_tokens), boundary="expression", syntax=True)
    return Plan("line-rest", max_tokens, boundary="statement", syntax=True)
