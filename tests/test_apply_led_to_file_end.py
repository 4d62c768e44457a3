"""Issue 43: a snippet's last fragment runs to the file's new end (no marker after it) and its last
line is new, while its first line is a doc line the file has before every definition.  The shape,
from a real release (effect's Duration.ts): a marker, ` * @since 1.0.0`, ` */`, the one
`export const between` and the rest of the file rewritten, an old definition in between gone and
the last line changed.

The merge used to anchor such a fragment at the last place its first line fits, where the region
it replaces is about as long as the new lines (the file's last definition), keeping the old code
and putting the fragment after it: silently wrong (JavaScript and TypeScript here; Go, Python and
Rust merge this snippet by its definitions' names and were right before).  Now, when deleting by omission, the place
where the file has the fragment's first lines as they are, and nowhere else, is taken, and the
file's end is its last anchor: what the fragment omits there is gone, as the snippet says.  A
definition the new lines still use is not deleted for it (refused), and `--keep-unmarked` does not
read it so."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (doc lines before each definition, a definition of NAME as lines, its last line rewritten, marker)
LANGS = {
    "python": (["# Since 1.0.0.", "@export"],
               lambda n: [f"def {n}(x, lo, hi):", f"    low = lo if lo is not None else {n.upper()}_MIN",
                          "    return low <= x <= hi", ""],
               lambda n: [f"def {n}(x):", "    return x * 4", ""], "# ... existing code ..."),
    "javascript": (["/**", " * @since 1.0.0", " */"],
                   lambda n: [f"export const {n} = (x, lo, hi) => {{", f"  const low = lo ?? {n.upper()}_MIN",
                              "  return low <= x && x <= hi", "}", ""],
                   lambda n: [f"export const {n} = (x) => x * 4", ""], "// ... existing code ..."),
    "typescript": (["/**", " * @since 1.0.0", " */"],
                   lambda n: [f"export const {n} = (x: number, lo: number, hi: number): boolean => {{",
                              f"  const low = lo ?? {n.upper()}_MIN", "  return low <= x && x <= hi", "}", ""],
                   lambda n: [f"export const {n} = (x: number): number => x * 4", ""], "// ... existing code ..."),
    "rust": (["/// Since 1.0.0.", "#[inline]"],
             lambda n: [f"pub fn {n}(x: i64, lo: i64, hi: i64) -> bool {{", f"    let low = lo.max({n.upper()}_MIN);",
                        "    low <= x && x <= hi", "}", ""],
             lambda n: [f"pub fn {n}(x: i64) -> i64 {{ x * 4 }}", ""], "// ... existing code ..."),
    "go": (["// Since 1.0.0.", "//"],
           lambda n: [f"func {n}(x, lo, hi int) bool {{", f"\tlow := max(lo, {n.upper()}Min)",
                      "\treturn low <= x && x <= hi", "}", ""],
           lambda n: [f"func {n}(x int) int {{ return x * 4 }}", ""], "// ... existing code ..."),
}
HEAD = {"python": ["import math", ""], "javascript": ["'use strict'", ""],
        "typescript": ["import * as order from './Order'", ""], "rust": ["use std::cmp;", ""], "go": ["package duration", ""]}


def _case(lang: str):
    doc, full, short, marker = LANGS[lang]

    def d(name, body):
        return doc + body(name)
    old_last = [line.replace("* 4", "* 3") for line in short("delta")]
    orig = HEAD[lang] + d("alpha", full) + d("between", full) + d("gamma", full) + d("retired", full) + \
        d("delta", lambda n: old_last)
    shown = d("between", full) + d("gamma", full) + d("delta", short)
    truth = HEAD[lang] + d("alpha", full) + shown
    # the snippet starts at the doc line before `between` that follows the first one
    snippet = [marker] + shown[1:]
    return "\n".join(orig), "\n".join(snippet), "\n".join(truth)


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_fragment_goes_where_its_first_lines_are_and_runs_to_the_end(lang):
    orig, snippet, truth = _case(lang)
    res = merge(orig, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth
    assert any("`retired`" in d.summary() for d in res.deletions), [d.summary() for d in res.deletions]


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_first_lines_found_twice_are_not_read_so(lang):
    """`between` defined twice: its first lines are no anchor; the merge must not put the fragment
    after the old code (the wrong merge it made before)."""
    orig, snippet, truth = _case(lang)
    doc, full, _, _ = LANGS[lang]
    twice = orig.replace("\n".join(doc + full("alpha")[:1]), "\n".join(doc + full("between")[:1]), 1)
    assert twice.count("\n".join(doc[1:] + full("between")[:1])) == 2
    res = merge(twice, snippet, lang)
    assert not res.ok or res.text.count("* 4") == 1 and "* 3" not in res.text, res.text


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_a_deleted_definition_the_new_lines_use_is_refused(lang):
    """(Go, Python and Rust merge this snippet by its definitions' names, not by this rule.)"""
    orig, snippet, truth = _case(lang)
    uses = snippet.replace("x * 4", "retired(x, 0, 1) * 4")
    res = merge(orig, uses, lang)
    assert not res.ok
    assert "`retired`" in res.reason


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_keep_unmarked_keeps_the_old_code(lang):
    orig, snippet, truth = _case(lang)
    res = merge(orig, snippet, lang, delete_unmarked=False)
    assert not res.ok or "retired" in res.text
