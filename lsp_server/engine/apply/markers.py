"""Marker lines: whole-line comments that stand for elided code (`# ... existing code ...`, `// ...`)."""
from __future__ import annotations

import re
from contextvars import ContextVar

__all__ = ["OWN", "is_marker", "own_comments"]

_MARKER_WORDS = ("existing", "rest of", "unchanged", "keep", "remaining", "omitted", "same as", "previous",
                 "other ", "code")
_CODE = re.compile(r"\w\(|[=;\"'`{}<>]|,\s*$|^[.)\]]")   # a doctest's continuation: `...     schema,`
_DIRECTIVE = re.compile(r"@|(?:eslint|prettier|istanbul|noqa|pragma|pylint|nolint|type:)")   # `@ts-ignore ...`
_COMMENT_STRIP = re.compile(r"^(?:#+|//+|/\*+|\*+|<!--|--)|(?:\*+/|-->)$")
# the file's own prose comments with "..." (own_comments), set while it is merged: its lines, not markers
OWN: ContextVar[frozenset] = ContextVar("OWN", default=frozenset())
_WORDS = re.compile(r"\w+")


def _body(s: str) -> str:
    for _ in range(2):
        s = _COMMENT_STRIP.sub("", s.strip()).strip()
    return s.replace("\u2026", "...").lower()


def own_comments(lines: list[str]) -> frozenset:
    """The bodies of the file's whole-line comments that would read as markers but are prose (two
    words at least; none of _MARKER_WORDS after leading dots): markdown's `# Comment, php etc...`,
    textual's `# ...and replace the old load with a new one.`  A snippet showing one, even recased,
    shows the file's line."""
    bodies = (_body(l) for l in lines if l.lstrip().startswith(("#", "//", "/*")) and
              ("..." in l or "\u2026" in l))
    return frozenset(b for b in bodies if len(_WORDS.findall(b)) >= 2 and
                     not (b.startswith("...") and any(w in b for w in _MARKER_WORDS)))


def is_marker(line: str) -> bool:
    """A whole-line comment standing for elided code: `# ... existing code ...`, `// ...`."""
    s = line.strip()
    if not s.startswith(("#", "//", "/*")):
        return False
    body = _body(s)
    if body in OWN.get():
        return False
    if body.startswith("..."):        # ... unless the rest is code, as in a doctest shown in a doc comment
        rest = body[3:].strip()       # (`///     ...     SchemaBuilder()`): it says nothing of elided code
        return not (rest and _CODE.search(rest) and not rest.endswith("...") and
                    not any(w in rest for w in _MARKER_WORDS))
    # prose ending in "..." is common in real comments: then it must be short or say what it stands for;
    # a tool's directive is neither (@math.gl's `// @ts-ignore gl-matrix types...`)
    return body.endswith("...") and (len(body.split()) <= 3 and not _DIRECTIVE.match(body) or
                                     any(w in body for w in _MARKER_WORDS))
