"""Grammar constraints for the denoising canvas, as token masks.

A Python line that a deeper-indented line follows must be a block header (`for ...:`, `if ...:`,
`else:` ...): an empty answer, or any other statement, leaves the file broken. For that case the
pipeline samples fixed-length candidates whose first token starts a compound statement and whose
last token ends with the block opener, and keeps the best one that parses (pipeline.py).

Masks are (vocab,) bool over the tokenizer's ids, built once per tokenizer from the decoded text of
every token.
"""
from __future__ import annotations

import re
from functools import lru_cache

import torch

__all__ = ["HEADER_LENGTHS", "header_masks"]

# compound-statement keywords (Python 3.11 grammar; `match`/`case` are soft keywords)
_HEADER_START = re.compile(r"(?:if|elif|else|for|while|with|try|except|finally|def|class|async|match|case)(?![\w])")
# candidate lengths (tokens) for a missing header: `else:` is 1-2 tokens, `for i in range(n):` ~7
HEADER_LENGTHS = (2, 3, 4, 5, 7, 9, 11)


@lru_cache(maxsize=4)
def _masks(pieces: tuple[str, ...], opener: str) -> tuple[torch.Tensor, torch.Tensor]:
    first = torch.tensor([bool(_HEADER_START.match(p)) for p in pieces])
    last = torch.tensor([p.rstrip(" \t").endswith(opener) and "\n" not in p for p in pieces])
    return first, last


def header_masks(tok, opener: str = ":") -> tuple[torch.Tensor, torch.Tensor]:
    """(first, last): which tokens may open a Python block header (its first token, decoded without
    leading space: the cursor stands after the indentation) and which may end it (text ending with
    the opener, no newline)."""
    specials = set(tok.special_ids)
    pieces = tuple("" if i in specials else tok.decode([i]) for i in range(tok.vocab_size))
    return _masks(pieces, opener)
