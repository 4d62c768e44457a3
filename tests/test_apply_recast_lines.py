"""Issue 43: a fragment that recasts a call written over many lines into a few (a `.format(` call
and its arguments made an f-string), where the file has the fragment's first and last lines in two
functions.  The shape, from a real release (pyparsing's core.py): `_default_start_debug_action` and
`_default_exception_debug_action` both start with `cache_hit_str = ...` and `print(`; the snippet
rewrites the first one's nine-line `.format(` call as three f-string lines.

The merge took the second function, whose old call had fewer lines to drop, and rewrote its message
with the first one's: silently wrong, two lines lost.  A dropped line that is no longer like any new
line one for one, but whose words are mostly in the new lines, now counts as recast (a part of a
replaced line): the first function's arguments are all in the f-strings, the second's are not.
A recast line counts for less than a line rewritten one for one (anchors.RECAST_WEIGHT), so a place
that drops several lines more still loses (the same shape without the first call's extra wrapping
`(`/`)` lines, written in Go or Rust, goes to the second function); JavaScript and TypeScript merge
this one by the lines around it with or without the rule."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, snippet, the old lines, the new lines)
LANGS = {
    "python": ('''def start_action(instring, loc, expr, cache_hit=False):
    cache_hit_str = "*" if cache_hit else ""
    print(
        (
            "{}Match {} at loc {}({},{})".format(
                cache_hit_str,
                expr,
                loc,
                lineno(loc, instring),
                col(loc, instring),
            )
        )
    )


def exception_action(instring, loc, expr, exc, cache_hit=False):
    cache_hit_str = "*" if cache_hit else ""
    print(
        "{}Match {} failed, {} raised: {}".format(
            cache_hit_str, expr, type(exc).__name__, exc
        )
    )
''', '''# ... existing code ...
    cache_hit_str = "*" if cache_hit else ""
    print(
        (
            f"{cache_hit_str}Match {expr} at loc {loc}"
            f"({lineno(loc, instring)},{col(loc, instring)})"
        )
    )

# ... existing code ...
''', '''            "{}Match {} at loc {}({},{})".format(
                cache_hit_str,
                expr,
                loc,
                lineno(loc, instring),
                col(loc, instring),
            )
''', '''            f"{cache_hit_str}Match {expr} at loc {loc}"
            f"({lineno(loc, instring)},{col(loc, instring)})"
'''),
    "javascript": ('''function startAction(instring, loc, expr, cacheHit) {
  const cacheHitStr = cacheHit ? "*" : "";
  console.log(
    (
      format(
        "{}Match {} at loc {}({},{})",
        cacheHitStr,
        expr,
        loc,
        lineno(loc, instring),
        col(loc, instring),
      )
    )
  );
}

function exceptionAction(instring, loc, expr, exc, cacheHit) {
  const cacheHitStr = cacheHit ? "*" : "";
  console.log(
    format("{}Match {} failed, {} raised: {}",
      cacheHitStr, expr, typeof exc, exc
    )
  );
}
''', '''// ... existing code ...
  const cacheHitStr = cacheHit ? "*" : "";
  console.log(
    (
      `${cacheHitStr}Match ${expr} at loc ${loc}` +
      `(${lineno(loc, instring)},${col(loc, instring)})`
    )
  );
}

// ... existing code ...
''', '''      format(
        "{}Match {} at loc {}({},{})",
        cacheHitStr,
        expr,
        loc,
        lineno(loc, instring),
        col(loc, instring),
      )
''', '''      `${cacheHitStr}Match ${expr} at loc ${loc}` +
      `(${lineno(loc, instring)},${col(loc, instring)})`
'''),
}
LANGS["typescript"] = tuple(t.replace("(instring, loc, expr, cacheHit)", "(instring: string, loc: number, expr: Expr, "
                                      "cacheHit: boolean)") for t in LANGS["javascript"])


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_call_recast_in_fewer_lines_goes_where_its_arguments_were(lang):
    original, snippet, old, new = LANGS[lang]
    assert original.count(old) == 1
    res = merge(original, snippet, lang)
    assert res.ok, res.reason
    assert res.text == original.replace(old, new), res.text
