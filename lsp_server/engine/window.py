"""The model's context window around the cursor: the suffix's tokens from the cursor on, and the
prefix's from a line start snapped to a multiple of LINE_SNAP lines, so that the window's head
stays put while the user types a line (the context cache then re-encodes only the last few tokens).

Token ids line by line (issue 46: the window's encodes were a sixth of a loaded HTTP server's
time).  With the project's tokenizer (byte-level BPE, no normalizer, the pre-tokenizer regex of
model/tokenizer.py, special tokens encoded as text) every "\\n" starts a pre-token, and no
pre-token crosses one: no alternative of the regex matches a "\\n" but `\\n[ \\t]*`, which begins
with it, and the regex has no look-behind.  BPE merges never cross a pre-token, so a text's ids
are the concatenation of its segments' ids, a segment being the text from one "\\n" (included) up
to the next (excluded).  `window` encodes segments, each once per tokenizer (an LRU of segments:
a typist's next keystroke re-encodes only the line being typed), and sums their lengths instead of
encoding the candidate heads again.  Any other tokenizer takes the plain path (`window_plain`),
whose ids these are (tests/test_serve_window.py compares them on varied texts).
"""
from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict

__all__ = ["LINE_SNAP", "window", "window_plain"]

LINE_SNAP = 8  # the prefix window starts on a multiple of this many lines, so it stays put while typing

# the pre-tokenizer that makes "\n" a boundary of every text (model/tokenizer.py's _SPLIT)
_LINE_SAFE_REGEX = ("'(?:[sdmt]|ll|ve|re)| ?\\p{L}[\\p{L}\\p{N}_]*| ?\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+|"
                    "\\n[ \\t]*|[ \\t]+(?![^\\s])|\\s")
SEGMENTS = 65536               # segments' ids kept per tokenizer (least recently used dropped)


def _layout(text: str, offset: int, ctx_tokens: int, suffix_share: float):
    """(suffix tokens, prefix tokens, characters read either way, the head before the cursor, its
    line starts, the snapped ones: line starts on multiples of LINE_SNAP lines counted from the
    head's first line)."""
    n_suf = int(ctx_tokens * suffix_share)
    chars = 8 * ctx_tokens
    lo = max(0, offset - chars)
    head = text[lo:offset]
    starts = [0] + [i + 1 for i, ch in enumerate(head) if ch == "\n"]
    first_line = text.count("\n", 0, lo) if lo else 0
    snapped = [s for k, s in enumerate(starts) if (first_line + k) % LINE_SNAP == 0] or [0]
    return n_suf, ctx_tokens - n_suf, chars, head, starts, snapped


def _earliest(snapped: list[int], fits) -> int | None:
    """The earliest snapped start whose text fits (later starts have fewer tokens: a binary search,
    a few candidates instead of every one), or None."""
    lo_i, hi_i, best = 0, len(snapped) - 1, None
    while lo_i <= hi_i:
        mid = (lo_i + hi_i) // 2
        if fits(snapped[mid]):
            best, hi_i = snapped[mid], mid - 1
        else:
            lo_i = mid + 1
    return best


def window(tok, text: str, offset: int, ctx_tokens: int, suffix_share: float) -> tuple[list[int], list[int]]:
    """Token windows around the cursor. Reads a bounded number of characters either way (a 10 MB
    document costs the same as a small one)."""
    seg = _segments_for(tok)
    if seg is None:
        return window_plain(tok, text, offset, ctx_tokens, suffix_share)
    n_suf, n_pre, chars, head, starts, snapped = _layout(text, offset, ctx_tokens, suffix_share)
    suffix = seg.ids_upto(text[offset: offset + chars], n_suf)
    # head's segments: parts[j] = head[starts[j] - 1 : starts[j + 1] - 1] ("\n" + line), the first
    # from 0; a candidate head[s:] (s a line start) is its first line alone, then the segments after
    bounds = [0] + [s - 1 for s in starts[1:]] + [len(head)]
    parts = [seg.ids(head[bounds[j]:bounds[j + 1]]) for j in range(len(bounds) - 1)]
    after = [0] * (len(parts) + 1)           # after[j]: tokens of parts[j:]
    for j in range(len(parts) - 1, -1, -1):
        after[j] = after[j + 1] + len(parts[j])
    index = {s: j for j, s in enumerate(starts)}

    def first(s: int) -> list[int]:
        """ids of head[s:]'s first segment (its line, without the "\\n" before it)."""
        j = index[s]
        return parts[j] if j == 0 else seg.ids(head[s:bounds[j + 1]])

    def ids_from(s: int) -> list[int]:
        j = index[s]
        out = list(first(s))
        for p in parts[j + 1:]:
            out.extend(p)
        return out

    best = _earliest(snapped, lambda s: len(first(s)) + after[index[s] + 1] <= n_pre)
    if best is not None:
        return ids_from(best), suffix
    ids = ids_from(snapped[-1])
    return ids[len(ids) - n_pre:], suffix


def window_plain(tok, text: str, offset: int, ctx_tokens: int, suffix_share: float) -> tuple[list[int], list[int]]:
    """`window` by encoding each candidate text whole (any tokenizer)."""
    n_suf, n_pre, chars, head, _, snapped = _layout(text, offset, ctx_tokens, suffix_share)
    suffix = tok.encode(text[offset: offset + chars])[:n_suf]
    encoded: dict[int, list[int]] = {}

    def fits(s: int) -> bool:
        encoded[s] = tok.encode(head[s:])
        return len(encoded[s]) <= n_pre

    best = _earliest(snapped, fits)
    if best is not None:
        return encoded[best], suffix
    ids = encoded.get(snapped[-1]) or tok.encode(head[snapped[-1]:])
    return ids[len(ids) - n_pre:], suffix


class _Segments:
    """A tokenizer's ids of segments (LRU, thread-safe)."""

    def __init__(self, tok, size: int = SEGMENTS) -> None:
        self.tok, self.size = tok, size
        self.cache: OrderedDict[str, list[int]] = OrderedDict()
        self.lock = threading.Lock()

    def ids(self, s: str) -> list[int]:
        with self.lock:
            got = self.cache.get(s)
            if got is not None:
                self.cache.move_to_end(s)
                return got
        got = self.tok.encode(s)
        with self.lock:
            self.cache[s] = got
            if len(self.cache) > self.size:
                self.cache.popitem(last=False)
        return got

    def ids_upto(self, text: str, n: int) -> list[int]:
        """tok.encode(text)[:n], encoding only the segments it needs."""
        out: list[int] = []
        at = 0
        while len(out) < n and at < len(text):
            nl = text.find("\n", at + 1)
            end = len(text) if nl < 0 else nl
            out.extend(self.ids(text[at:end]))
            at = end
        return out[:n]


_BY_TOKENIZER: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_PLAIN = object()
_LOCK = threading.Lock()


def _segments_for(tok) -> "_Segments | None":
    """The tokenizer's segment cache, or None when its ids do not split at newlines (see above)."""
    try:
        got = _BY_TOKENIZER.get(tok)
    except TypeError:            # not weak-referenceable: the plain path
        return None
    if got is None:
        with _LOCK:
            got = _BY_TOKENIZER.get(tok)
            if got is None:
                got = _Segments(tok) if _line_safe(tok) else _PLAIN
                _BY_TOKENIZER[tok] = got
    return None if got is _PLAIN else got


def _line_safe(tok) -> bool:
    hf = getattr(tok, "hf", None)
    if hf is None or not getattr(hf, "encode_special_tokens", False):
        return False
    try:
        conf = json.loads(hf.to_str())
    except Exception:  # noqa: BLE001 - unknown: the plain path
        return False
    pre = conf.get("pre_tokenizer") or {}
    steps = pre.get("pretokenizers", []) if pre.get("type") == "Sequence" else [pre]
    model = conf.get("model") or {}
    return (conf.get("normalizer") is None
            and len(steps) == 2
            and steps[0].get("type") == "Split" and steps[0].get("behavior") == "Isolated"
            and not steps[0].get("invert") and (steps[0].get("pattern") or {}).get("Regex") == _LINE_SAFE_REGEX
            and steps[1].get("type") == "ByteLevel" and not steps[1].get("use_regex")
            and not steps[1].get("add_prefix_space")
            and model.get("type") == "BPE" and not model.get("dropout")
            and all(t.get("special") for t in conf.get("added_tokens", [])))
