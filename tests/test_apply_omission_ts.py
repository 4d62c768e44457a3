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


# --- a new definition before an existing one, whose last lines repeat the end of the definition
# before it: the run of the fragment's last lines found in the file reaches into the new lines and
# cuts them short; a shorter run (the existing definition's header alone) anchors it
def _fn(lang: str, name: str, arg: str, tail: str = "0") -> list[str]:
    return {
        "python": [f"def {name}({arg}):", f"    if {arg}:", "        return 1", f"    return {tail}"],
        "javascript": [f"function {name}({arg}) {{", f"  if ({arg}) {{", "    return 1;", "  }", f"  return {tail};", "}"],
        "typescript": [f"function {name}({arg}: number): number {{", f"  if ({arg}) {{", "    return 1;", "  }",
                       f"  return {tail};", "}"],
        "go": [f"func {name}({arg} int) int {{", f"\tif {arg} > 0 {{", "\t\treturn 1", "\t}", f"\treturn {tail}", "}"],
        "rust": [f"fn {name}({arg}: i32) -> i32 {{", f"    if {arg} > 0 {{", "        return 1;", "    }", f"    {tail}",
                 "}"],
    }[lang]


_HEAD = {"go": ["package main", ""]}
_GAP = {"python": ["", ""]}


@pytest.mark.parametrize("tail", ["0", "2"], ids=["repeats-previous-end", "twin-own-end"])
@pytest.mark.parametrize("lang", LANGS)
def test_new_definition_before_whose_end_repeats_the_previous_one(lang, tail):
    gap = _GAP.get(lang, [""])
    first, second, new = _fn(lang, "first", "x"), _fn(lang, "second", "y"), _fn(lang, "added", "z", tail)
    original = _HEAD.get(lang, []) + first + gap + second
    body = second[1][:len(second[1]) - len(second[1].lstrip())]
    mark = MARK.get(lang, "// ... existing code ...")
    snippet = [mark] + new + gap + [second[0], body + mark]
    r = merge(_text(original), _text(snippet), lang)
    assert r.ok, r.reason
    assert r.text == _text(_HEAD.get(lang, []) + first + gap + new + gap + second)


@pytest.mark.parametrize("lang", LANGS)
def test_new_definition_before_the_one_it_repeats_the_end_of(lang):
    """The guard's twin: the shown header is as deep as the new definition (a new function written
    right before the one whose end it repeats, the file's first): the header alone anchors it."""
    gap = _GAP.get(lang, [""])
    first, new = _fn(lang, "first", "x"), _fn(lang, "added", "z")
    original = _HEAD.get(lang, []) + first
    body = first[1][:len(first[1]) - len(first[1].lstrip())]
    mark = MARK.get(lang, "// ... existing code ...")
    r = merge(_text(original), _text([mark] + new + gap + [first[0], body + mark]), lang)
    assert r.ok, r.reason
    assert r.text == _text(_HEAD.get(lang, []) + new + gap + first)


# --- a new value after an existing function whose last statement and closing brace the fragment
# shows (one line with words, then the brace one level out): enough to anchor it
_VALUE = {"python": ["ADDED = dict(", "    z=1,", ")"], "javascript": ["export const added = () => ({", "  z: 1,", "});"],
          "typescript": ["export const added = (): { z: number } => ({", "  z: 1,", "});"],
          "rust": ["pub const ADDED: [u8; 2] = [", "    1,", "    2,", "];"],
          "go": ["var added = make(", "\tmap[string]int,", ")"]}


@pytest.mark.parametrize("brace", [True, False], ids=["brace", "twin-no-brace"])
@pytest.mark.parametrize("lang", LANGS)
def test_new_definition_after_last_statement_and_closing_brace(lang, brace):
    gap = _GAP.get(lang, [""])
    first, second = _fn(lang, "first", "x", "10"), _fn(lang, "second", "y", "20")
    new = _VALUE[lang]
    original = _HEAD.get(lang, []) + first + gap + second
    mark = MARK.get(lang, "// ... existing code ...")
    last = first[-1] if lang == "python" else first[-2]       # the body's last statement
    shown = [last] if lang == "python" or not brace else [last, first[-1]]
    indent = last[:len(last) - len(last.lstrip())]
    r = merge(_text(original), _text([indent + mark] + shown + gap + new + [mark]), lang)
    if lang == "python" or not brace:     # one line with words and nothing closing it: refused
        assert not r.ok
        return
    assert r.ok, r.reason
    assert r.text == _text(_HEAD.get(lang, []) + first + gap + new + gap + second)


# --- a re-export written after the shown lines that end a function and re-export another name
# (tRPC's createTRPCUntypedClient): `export { X } from './x'` is a statement of its own, like an
# import, at the fragment's edge
@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_reexport_after_the_shown_end_of_a_function(lang):
    fn = ["export function make(opts) {", "  const client = new Client(opts);", "  return client;", "}"]
    helper = "export { helper } from './helper';"
    original = ["import { Client } from './client';", ""] + fn + ["", helper, "", "export const other = 1;"]
    shown = [fn[0], "  return new Client(opts);", "}", "", helper, "export { Client } from './client';"]
    out = _merge(lang, original, shown)
    assert out == _text(original[:2] + shown + original[8:])


# --- imports merged: a new first import, then imports of the file with one left out between them
# (tanstack vue-query's tests): the shown part runs from the first import found, so the new line goes
# before it and the left-out import is deleted; the shorter reading (only the imports next to the code
# anchor, the others "new") would have them twice
NEW_IMPORT = {"python": "import abc", "javascript": "const zlib = require('zlib');",
              "typescript": "import { z } from './z';", "rust": "use std::collections;", "go": '\t"bufio"'}


@pytest.mark.parametrize("lang", LANGS)
def test_new_first_import_then_imports_with_one_left_out(lang):
    head, (a, b, c, d), tail, _ = FILES[lang]
    end = next(i for i, l in enumerate(tail) if l.strip() and l.strip() not in (")",)) + 1
    original = head + [a, b, "", c, d] + tail
    out = _merge(lang, original, [NEW_IMPORT[lang], a, b, d] + tail[:end])
    assert out == _text(head + [NEW_IMPORT[lang], a, b, d] + tail)
