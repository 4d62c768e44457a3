"""Issue 43: a fragment that brings new lines between two `}` where the file has one (a new `if` block
after an `if` that ends in `}`) is framed at its place: its first three lines end with that `}`, its
last three start with the new block's `}`, and the place's five lines hold both frames, sharing the
`}` (anchors._framed, as a shared blank line is: tests/test_apply_shared_blank.py), when the first
frame opens the block that `}` closes (a `});` closing a call opened above it frames nothing:
mathjs's generated entry files, each `parse,` / `typed: ...` / `});` alike).  Before, the
places framed apart were only those from an earlier method's copy of the first lines, which delete
the methods between (fresh34's ohm-js Builder.js and its four bundles: refused, "would delete
`lookahead`")."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge


def _method(name: str, node: str) -> str:
    return f"""  {name}(expr) {{
    if (!(expr instanceof PExpr)) {{
      expr = this.fromRecipe(expr);
    }}
    return new {node}(expr);
  }}
"""


FILE = "export class Builder {\n" + _method("not", "Not") + _method("star", "Star") + \
    _method("lookahead", "Lookahead") + _method("plus", "Plus") + "}\n"

NEW = """    if (this.options.eliminateLookaheads) {
      return new Not(new Not(expr));
    }
"""
# the method's `if`, the new lines, its last lines, and markers to the file's end
SHOWN = "".join(_method("lookahead", "Lookahead").splitlines(keepends=True)[1:4]) + NEW + \
    "    return new Lookahead(expr);\n  }\n  // ... existing code ...\n}\n"


@pytest.mark.parametrize("header", ["  lookahead(expr) {\n", ""], ids=["with its method's header", "from the if"])
def test_new_lines_between_a_closing_brace_and_the_next_line_go_where_the_file_has_one(header):
    """Shown from the `if` alone, the place is the method whose `return` the fragment shows too."""
    result = merge(FILE, "export class Builder {\n  // ... existing code ...\n" + header + SHOWN, "javascript")
    assert result.ok, result.reason
    old = _method("lookahead", "Lookahead")
    assert result.text == FILE.replace(old, old.replace("    return new Lookahead", NEW + "    return new Lookahead"))
    assert not result.deletions
