"""The infill plan: what the canvas is for (`Plan`: the scope, the canvas length, where the
completion must stop), and the line rules that plan and trim without a syntax tree (`plan_lines`,
`drop_duplicate_tail`). Syntax-aware planning (syntax/plan.py) and truncation (syntax/truncate.py)
make and read the same `Plan`; infill.py chooses between the two paths."""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Plan", "plan_lines", "drop_duplicate_tail"]


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


def drop_duplicate_tail(completion: str, text: str, offset: int) -> str:
    """Never repeat what the suffix already has: drop the longest tail that the rest of the line starts with."""
    line_end = text.find("\n", offset)
    after = text[offset: len(text) if line_end < 0 else line_end]
    for k in range(min(len(completion), len(after)), 0, -1):
        if after.startswith(completion[-k:]):
            return completion[:-k].rstrip() if not after.strip() else completion[:-k]
    return completion
