"""Issue 43, TypeScript/JavaScript pass: imports reordered by a fragment anchored on other import
lines (bench/apply.py --suite omission, shape `reorder`).  An import line just above (or below)
the fragment's region that the fragment shows again, elsewhere, is moved there, not kept by the
marker and copied (plan._moved_imports).  Twins: the same file where the line the rule reads is
not repeated by the fragment, or is a statement instead of an import (both left as before)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ..."}
# (lines before the imports, four imports a b c d, lines after them, a statement for the twin)
FILES = {
    "python": ([], ["import os", "import sys", "import json", "import re"],
               ["", "", "def main():", "    return os.sep, sys.argv, json.dumps(re.escape('a'))"],
               "os.umask(0o22)"),
    "javascript": (["'use strict';", ""],
                   ["const fs = require('fs');", "const os = require('os');", "const path = require('path');",
                    "import util from 'util';"],
                   ["", "function main() {", "  return [fs, os, path, util];", "}"],
                   "process.umask(0o22);"),
    "typescript": (["/* router */"],
                   ["import { a } from './a';", "import { b } from './b';", "import type { C } from './c';",
                    "import { d } from './d';"],
                   ["", "export function main(c: C): number {", "  return a + b + d + c.n;", "}"],
                   "console.log('loaded');"),
    "rust": ([], ["use std::fmt;", "use std::io;", "pub use std::fs;", "use std::env;"],
             ["", "fn main() {", "    let _ = (fmt::Error, io::stdin(), fs::read(\"a\"), env::args());", "}"],
             "include!(\"gen.rs\");"),
    "go": (["package main", "", "import ("], ['\t"fmt"', '\t"os"', '\tstr "strings"', '\t"bytes"'],
           [")", "", "func main() {", "\tfmt.Println(os.Args, str.ToUpper(\"a\"), bytes.MinRead)", "}"],
           None),
}
LANGS = list(FILES)


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _merge(lang: str, original: list[str], fragment: list[str]) -> str:
    mark = MARK.get(lang, "// ... existing code ...")
    r = merge(_text(original), _text([mark] + fragment + [mark]), lang)
    assert r.ok, r.reason
    return r.text


@pytest.mark.parametrize("lang", LANGS)
def test_import_above_the_region_shown_again_is_moved(lang):
    head, (a, b, c, d), tail, _ = FILES[lang]
    out = _merge(lang, head + [a, b, c, d] + tail, [b, a, c])
    assert out == _text(head + [b, a, c, d] + tail)


@pytest.mark.parametrize("lang", LANGS)
def test_import_below_the_region_shown_again_is_moved(lang):
    head, (a, b, c, d), tail, _ = FILES[lang]
    out = _merge(lang, head + [a, b, c, d] + tail, [b, d, c])
    assert out == _text(head + [a, b, d, c] + tail)


@pytest.mark.parametrize("lang", LANGS)
def test_twin_import_above_not_shown_again_is_kept(lang):
    head, (a, b, c, d), tail, _ = FILES[lang]
    out = _merge(lang, head + [a, b, c, d] + tail, [b, c])
    assert out == _text(head + [a, b, c, d] + tail)


@pytest.mark.parametrize("lang", LANGS)
def test_twin_import_below_not_shown_again_is_kept(lang):
    head, (a, b, c, d), tail, _ = FILES[lang]
    out = _merge(lang, head + [a, b, c, d] + tail, [b, c])
    assert out.count(d) == 1


@pytest.mark.parametrize("lang", [lang for lang in LANGS if FILES[lang][3]])
def test_twin_statement_above_shown_again_is_not_moved(lang):
    """The same edit where the line above the region is a statement: a repeated statement may be
    meant (it runs twice), so the marker keeps it and the fragment's copy is added."""
    head, (_, b, c, d), tail, stmt = FILES[lang]
    out = _merge(lang, head + [stmt, b, c, d] + tail, [b, stmt, c])
    assert out == _text(head + [stmt, b, stmt, c, d] + tail)


def test_go_string_line_is_an_import_only_inside_an_import_block():
    """Go: a string alone on a line is an import spec inside `import (`; the same line ending a
    string concatenation is not (what the rule reads, line by line)."""
    from redraft.engine.apply.plan import _is_import
    block = ["package main", "", "import (", '\t"fmt"', "", '\tstr "strings"', ")"]
    concat = ["package main", "", "func main() {", '\ts := "a" +', '\t\t"fmt"', '\t_ = s', "}"]
    assert _is_import(block, 3) and _is_import(block, 5)
    assert not _is_import(concat, 4)
    assert not _is_import(block, 4)
