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


def test_new_lines_between_a_closing_brace_and_the_next_line_go_where_the_file_has_one():
    snippet = """export class Builder {
  // ... existing code ...
  lookahead(expr) {
    if (!(expr instanceof PExpr)) {
      expr = this.fromRecipe(expr);
    }
""" + NEW + """    return new Lookahead(expr);
  }
  // ... existing code ...
}
"""
    result = merge(FILE, snippet, "javascript")
    assert result.ok, result.reason
    old = _method("lookahead", "Lookahead")
    assert result.text == FILE.replace(old, old.replace("    return new Lookahead", NEW + "    return new Lookahead"))
    assert not result.deletions


def test_shown_from_the_if_alone_the_new_lines_go_to_the_method_whose_return_it_shows():
    snippet = """export class Builder {
  // ... existing code ...
    if (!(expr instanceof PExpr)) {
      expr = this.fromRecipe(expr);
    }
""" + NEW + """    return new Lookahead(expr);
  }
  // ... existing code ...
}
"""
    result = merge(FILE, snippet, "javascript")
    assert result.ok, result.reason
    old = _method("lookahead", "Lookahead")
    assert result.text == FILE.replace(old, old.replace("    return new Lookahead", NEW + "    return new Lookahead"))
