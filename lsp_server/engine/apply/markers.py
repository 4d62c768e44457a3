"""Marker lines: whole-line comments that stand for elided code (`# ... existing code ...`, `// ...`)."""
from __future__ import annotations

import re

__all__ = ["is_marker"]

_MARKER_WORDS = ("existing", "rest of", "unchanged", "keep", "remaining", "omitted", "same as", "previous",
                 "other ", "code")
_CODE = re.compile(r"\w\(|[=;\"'`{}<>]|,\s*$|^[.)\]]")   # a doctest's continuation: `...     schema,`
_DIRECTIVE = re.compile(r"@|(?:eslint|prettier|istanbul|noqa|pragma|pylint|nolint|type:)")   # `@ts-ignore ...`
_COMMENT_STRIP = re.compile(r"^(?:#+|//+|/\*+|\*+|<!--|--)|(?:\*+/|-->)$")


def is_marker(line: str) -> bool:
    """A whole-line comment standing for elided code: `# ... existing code ...`, `// ...`."""
    s = line.strip()
    if not s.startswith(("#", "//", "/*")):
        return False
    body = s
    for _ in range(2):
        body = _COMMENT_STRIP.sub("", body.strip()).strip()
    body = body.replace("\u2026", "...").lower()
    if body.startswith("..."):        # ... unless the rest is code, as in a doctest shown in a doc comment
        rest = body[3:].strip()       # (`///     ...     SchemaBuilder()`): it says nothing of elided code
        return not (rest and _CODE.search(rest) and not rest.endswith("...") and
                    not any(w in rest for w in _MARKER_WORDS))
    # prose ending in "..." is common in real comments: then it must be short or say what it stands for;
    # a tool's directive is neither (@math.gl's `// @ts-ignore gl-matrix types...`)
    return body.endswith("...") and (len(body.split()) <= 3 and not _DIRECTIVE.match(body) or
                                     any(w in body for w in _MARKER_WORDS))
