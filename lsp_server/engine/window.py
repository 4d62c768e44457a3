"""The model's context window around the cursor: the suffix's tokens from the cursor on, and the
prefix's from a line start snapped to a multiple of LINE_SNAP lines, so that the window's head
stays put while the user types a line (the context cache then re-encodes only the last few tokens).
"""
from __future__ import annotations

__all__ = ["LINE_SNAP", "window"]

LINE_SNAP = 8  # the prefix window starts on a multiple of this many lines, so it stays put while typing


def window(tok, text: str, offset: int, ctx_tokens: int, suffix_share: float) -> tuple[list[int], list[int]]:
    """Token windows around the cursor. Reads a bounded number of characters either way (a 10 MB
    document costs the same as a small one)."""
    n_suf = int(ctx_tokens * suffix_share)
    n_pre = ctx_tokens - n_suf
    chars = 8 * ctx_tokens
    suffix = tok.encode(text[offset: offset + chars])[:n_suf]
    lo = max(0, offset - chars)
    # candidate window starts: line starts on multiples of LINE_SNAP lines counted from lo's line
    head = text[lo:offset]
    starts = [0] + [i + 1 for i, ch in enumerate(head) if ch == "\n"]
    first_line = text.count("\n", 0, lo) if lo else 0
    snapped = [s for k, s in enumerate(starts) if (first_line + k) % LINE_SNAP == 0] or [0]
    # the earliest snapped start whose text fits n_pre tokens (later starts have fewer tokens:
    # binary search, a few encodes instead of one per start)
    lo_i, hi_i, best = 0, len(snapped) - 1, None
    while lo_i <= hi_i:
        mid = (lo_i + hi_i) // 2
        ids = tok.encode(head[snapped[mid]:])
        if len(ids) <= n_pre:
            best, hi_i = ids, mid - 1
        else:
            lo_i = mid + 1
    if best is not None:
        return best, suffix
    ids = tok.encode(head[snapped[-1]:])
    return ids[len(ids) - n_pre:], suffix
