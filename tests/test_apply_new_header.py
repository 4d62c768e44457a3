"""Issue 43: a snippet that starts at the file's new first line and rewrites the file's header
comment.  The shape, from a real release (Python Markdown's modules, one commit over many files):
the module docstring became `#` comments plus a shorter docstring, dropping a paragraph; the
snippet shows the new header, then the file's first imports, then a marker.  The paragraph's
lines, deleted with nothing like them in the snippet, tripped the guard against a region deleting
five lines in a row outright, and the merge refused.  A snippet that starts the file (no marker
before a new first line, a marker elsewhere) says what the file's start now is: what it leaves out
there is deleted.  Twin: with a marker before the new header, the old one stays."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

PARAGRAPH = ["Legacy notes:", "1. tabs become four spaces", "2. nested lists are ignored", "3. <br> tags stay",
             "4. no unicode support"]
# (old header, new header, the first lines of code, the rest, marker)
FILES = {
    "python": (['"""', "Toolkit", ""] + PARAGRAPH + ['"""'],
               ["# Toolkit", "# License: BSD.", "", '"""', "Post-processors run on the text of the document.", '"""'],
               ["import re", "from . import util"], ["", "", "def build():", "    return util.Registry()"],
               "# ... existing code ..."),
    "javascript": (["/*", " * Toolkit", " *"] + [" * " + l for l in PARAGRAPH] + [" */"],
                   ["// Toolkit", "// License: BSD.", "", "/* Post-processors run on the text of the document. */"],
                   ['import { util } from "./util.js";', 'import re from "re";'],
                   ["", "export function build() {", "  return util.registry();", "}"], "// ... existing code ..."),
    "typescript": (["/*", " * Toolkit", " *"] + [" * " + l for l in PARAGRAPH] + [" */"],
                   ["// Toolkit", "// License: BSD.", "", "/* Post-processors run on the text of the document. */"],
                   ['import { util } from "./util";', 'import type { Registry } from "./registry";'],
                   ["", "export function build(): Registry {", "  return util.registry();", "}"],
                   "// ... existing code ..."),
    "go": (["// Toolkit", "//"] + ["// " + l for l in PARAGRAPH],
           ["// Toolkit, version 2", "// License: BSD.", "//", "// Post-processors run on the text of the document."],
           ["package toolkit", ""], ['import "strings"', "", "func Build() string {", '\treturn strings.ToUpper("x")', "}"],
           "// ... existing code ..."),
    "rust": (["//! Toolkit", "//!"] + ["//! " + l for l in PARAGRAPH],
             ["//! Toolkit, version 2", "//! License: BSD.", "//!", "//! Post-processors run on the text of the document."],
             ["use std::collections::HashMap;", "use crate::util;"],
             ["", "pub fn build() -> HashMap<String, u32> {", "    util::registry()", "}"], "// ... existing code ..."),
}
LANGS = list(FILES)


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_a_snippet_that_starts_the_file_deletes_the_old_header(lang):
    old, new, code, rest, m = FILES[lang]
    gap = [""] if lang != "go" else []
    r = merge(_text(old + gap + code + rest), _text(new + gap + code + [m]), lang)
    assert r.ok, r.reason
    assert r.text == _text(new + gap + code + rest)


@pytest.mark.parametrize("lang", LANGS)
def test_with_a_marker_before_it_the_old_header_stays(lang):
    old, new, code, rest, m = FILES[lang]
    gap = [""] if lang != "go" else []
    r = merge(_text(old + gap + code + rest), _text([m] + new + gap + code + [m]), lang)
    assert not r.ok or all(l in r.text.split("\n") for l in old)
