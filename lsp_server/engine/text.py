"""Text helpers the engine's callers share."""
from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(s: str) -> str:
    """Lone surrogates (JSON can carry them) -> U+FFFD: the same size in UTF-8 (3 bytes), UTF-16
    (1 unit) and UTF-32, and encodable without error handlers."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", s)
