"""Issue 43: a tab-indented JavaScript file whose functions carry JSDoc blocks, and a snippet written
with spaces: the block comments' inner lines (` * @param ...`, ` */`) sit one space past the comment's
indentation in either kind, so they tell neither kind, and converting the snippet to tabs keeps that
one space (dependency-cruiser's reporters, fresh32: 23 cases refused as "snippet is indented with
spaces (4) but the file uses tabs", counting the snippet's JSDoc lines as space-indented and refusing
their one odd space).  A bundle that holds a module indented with spaces keeps a snippet that is that
module's own lines as written (msgpackr's dist/node.cjs)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

FILE = """/**
 * Returns the results of a cruise as a csv.
 *
 * @param {ICruiseResult} pResults - the output of a cruise
 * @returns {IReporterOutput}
 */
export default function csv(pResults) {
\treturn {
\t\toutput: report(pResults.modules),
\t\texitCode: 0,
\t};
}

/**
 * Joins the rows.
 */
function report(pModules) {
\treturn pModules.map(toRow).join("\\n");
}
"""

SNIPPET = """/**
 * Returns the results of a cruise as a csv.
 *
 * @param {ICruiseResult} pResults - the output of a cruise
 * @returns {IReporterOutput}
 */
export default function csv(pResults) {
    return {
        output: report(pResults.modules),
        exitCode: pResults.summary.error > 0 ? 1 : 0,
    };
}
// ... existing code ...
"""


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_a_space_snippet_with_jsdoc_becomes_tabs(lang):
    r = merge(FILE, SNIPPET, lang)
    assert r.ok, r.reason
    assert r.text == FILE.replace("\t\texitCode: 0,", "\t\texitCode: pResults.summary.error > 0 ? 1 : 0,")


def test_an_odd_indent_that_is_no_comment_is_still_refused():
    """A line of code two spaces in (not a block comment's inner line) has no tab form."""
    snippet = SNIPPET.replace("        exitCode:", "          exitCode:")
    r = merge(FILE, snippet, "javascript")
    assert not r.ok
    assert "indented with spaces" in r.reason


MODULE = """
// src/stream.js
function unpackChunk (state, chunk) {
  if (chunk.length === 0) return [];
  const values = state.unpackr.unpackMultiple(chunk);
  return values;
}
"""
# the tab part given a `try {` / `} catch (error) {` of its own
GUARDED = FILE.replace('function report(pModules) {\n\treturn pModules.map(toRow).join("\\n");\n}',
                       'function report(pModules) {\n\ttry {\n\t\treturn pModules.map(toRow).join("\\n");\n'
                       '\t} catch (error) {\n\t\treturn "";\n\t}\n}')
EDITED = """function unpackChunk (state, chunk) {
  if (chunk.length === 0) return [];
  const values = state.unpackr.unpackMultiple(chunk) || [];
  return values;
}
"""
# rewritten: its lines partly the file's spaced ones, partly lines the tab part has too (`try {`), more of
# them found spaced
REWRITTEN = """function unpackChunk (state, chunk) {
  if (chunk.length === 0) return [];
  try {
    const values = state.unpackr.unpackMultiple(chunk);
    return values;
  } catch (error) {
    throw new Error('Unpacking failed', { cause: error });
  }
}
"""


@pytest.mark.parametrize("tabbed, function", [(FILE, EDITED), (GUARDED, REWRITTEN)], ids=["edited", "rewritten"])
def test_a_bundles_spaced_module_keeps_its_spaces(tabbed, function):
    bundle = tabbed + MODULE
    r = merge(bundle, "// ... existing code ...\n" + function, "javascript")
    assert r.ok, r.reason
    assert r.text == bundle[:bundle.index("function unpackChunk")] + function
