"""Issue 43: a minified file, whose one line is tens of thousands of characters.

The shape, from real releases (@tanstack's production bundles, fresh2 development cases since
session 36): the snippet is the new bundle line and the file's last line.  The merge's rules on
rewritten lines compare lines character by character (difflib's ratio, quadratic in their length):
one such merge took three minutes, the editor waiting.  Lines over alike.LONG characters are
compared by their first and last characters; the merge is the same."""
from __future__ import annotations

import difflib

from redraft.engine.apply import merge
from redraft.engine.apply.alike import HALF, LONG, alike


def _bundle(version: int, changed: int) -> str:
    fns = ";".join(f"function f{i}(a){{return a+{i * version if i == changed else i}}}" for i in range(2500))
    return f"!function(t,e){{{fns}}}(this);"


def test_a_minified_bundle_is_merged_whole():
    old, new = _bundle(1, 1200), _bundle(7, 1200)
    assert len(old) > 10 * LONG
    text = old + "\n//# sourceMappingURL=index.production.js.map\n"
    snippet = new + "\n//# sourceMappingURL=index.production.js.map\n"
    res = merge(text, snippet, "javascript")
    assert res.ok, res.reason
    assert res.text == snippet and not res.deletions


def test_alike_is_difflibs_ratio_on_lines_of_ordinary_length():
    pairs = [("return a + b", "return a - b"), ("x = compute(1)", "y = other()"), ("", "a"),
             ("converter.register_structure_hook(datetime, validate_datetime)",
              "converter.register_unstructure_hook(date, lambda v: v.isoformat())")]
    for a, b in pairs:
        r = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
        for least in (0.3, 0.5, 0.6, 0.9):
            assert alike(a, b, least) == (r >= least)


def test_alike_reads_a_long_lines_ends():
    head, tail = "a" * HALF, "z" * HALF
    assert alike(head + "x" * LONG + tail, head + "y" * LONG + tail, 0.9)      # the ends agree
    assert not alike("q" * HALF + "x" * LONG + tail, head + "x" * LONG + "r" * HALF, 0.5)
