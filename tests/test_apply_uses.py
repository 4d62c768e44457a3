"""Issue 43: a fragment's region may not delete a definition whose name the fragment uses but
does not define (it would leave the new code calling what it just removed).  The shape, from a real
release (effect's MutableList.ts): a new function written before an existing one, opening with a
line the file has (`/** @internal */`, a decorator, an attribute) right above the definition the
new function uses.  Anchored on that line, the region would swallow that definition;
the merge instead places the new lines before the shown existing ones.  Twins: when the fragment
defines the name again (a rewrite), the region may replace it."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (the repeated opening line, the used definition, a new function using it, an existing function: its
# first two lines and the rest, the marker)
FILES = {
    "python": ("@internal", ["class Node:", "    def __init__(self, v):", "        self.v = v"],
               ["def make_node(v):", "    return Node(v)"],
               ["def empty():", '    """Creates an empty list."""'], ["    return []"], "# ... existing code ..."),
    "javascript": ("/** @internal */", ["class Node {", "  constructor(v) {", "    this.v = v;", "  }", "}"],
                   ["const makeNode = (v) => new Node(v);"],
                   ["/** Creates an empty list. */", "export const empty = () => {"], ["  return [];", "};"],
                   "// ... existing code ..."),
    "typescript": ("/** @internal */", ["class Node<T> {", "  constructor(readonly v: T) {}", "}"],
                   ["const makeNode = <T>(v: T): Node<T> => new Node(v);"],
                   ["/** Creates an empty list. */", "export const empty = <T>(): T[] => {"], ["  return [];", "};"],
                   "// ... existing code ..."),
    "go": ("// internal", ["type Node struct {", "\tv int", "}"],
           ["func makeNode(v int) *Node {", "\treturn &Node{v: v}", "}"],
           ["// Empty creates an empty list.", "func Empty() []int {"], ["\treturn nil", "}"], "// ... existing code ..."),
    "rust": ("#[derive(Debug)]", ["pub struct Node {", "    v: i32,", "}"],
             ["fn make_node(v: i32) -> Node {", "    Node { v }", "}"],
             ["/// Creates an empty list.", "pub fn empty() -> Vec<i32> {"], ["    Vec::new()", "}"],
             "// ... existing code ..."),
}
LANGS = list(FILES)


def _gap(lang: str) -> list[str]:
    return ["", ""] if lang == "python" else [""]


def _src(lang: str) -> list[str]:
    rep, used, _, first, rest, _ = FILES[lang]
    head = ["package list", ""] if lang == "go" else (["def internal(f):", "    return f", "", ""]
                                                       if lang == "python" else [])
    return head + [rep] + used + _gap(lang) + first + rest


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_new_definition_opening_with_a_repeated_line_keeps_what_it_uses(lang):
    rep, used, new, first, rest, m = FILES[lang]
    src = _src(lang)
    snippet = [m, rep] + new + _gap(lang) + first + [m]
    r = merge(_text(src), _text(snippet), lang)
    assert r.ok, r.reason
    at = len(src) - len(first) - len(rest)
    assert r.text == _text(src[:at] + [rep] + new + _gap(lang) + src[at:])
    assert r.deletions == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_fragment_that_defines_the_name_again_may_replace_it(lang):
    """The same opening line and the used definition rewritten in the fragment: replaced there."""
    rep, used, new, first, rest, m = FILES[lang]
    src = _src(lang)
    edited = [used[0]] + [l.replace("v", "value") for l in used[1:]]
    r = merge(_text(src), _text([m, rep] + edited + [m]), lang)
    assert r.ok, r.reason
    at = src.index(rep)
    assert r.text == _text(src[:at + 1] + edited + src[at + 1 + len(used):])


IMPORTS = {"python": ("import os", "from nodes import Node"),
           "javascript": ("import fs from 'fs';", "import { Node } from './node';"),
           "typescript": ("import * as fs from 'fs';", "import { Node } from './node';"),
           "rust": ("use std::fs;", "use crate::node::Node;")}


@pytest.mark.parametrize("lang", list(IMPORTS))
def test_a_definition_the_fragment_imports_instead_may_go(lang):
    """The fragment imports the name it uses (the definition moved to another module): the region
    from the imports to the shown function replaces the file's own definition.  (Go imports
    packages, not names.)"""
    rep, used, new, first, rest, m = FILES[lang]
    old, added = IMPORTS[lang]
    src = [old] + _gap(lang) + [rep] + used + _gap(lang) + first + rest
    if lang == "python":
        src = [old, ""] + _src(lang)[:4] + src[2:]
    snippet = [m, old, added] + _gap(lang) + first + [m]
    r = merge(_text(src), _text(snippet), lang)
    assert r.ok, r.reason
    at = src.index(first[0])
    assert r.text == _text(src[:src.index(old) + 1] + [added] + _gap(lang) + src[at:])
