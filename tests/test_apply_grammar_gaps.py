"""Issue 43: a snippet whose own lines hold a construct the tree-sitter grammar cannot read.

The shape, from real code (effect's data modules, TypeScript): a snippet rewrites a definition
whose overloads are call signatures returning a function type, one after another.  That is valid
TypeScript, but tree-sitter-typescript reads it with an ERROR node; the merge placed the snippet
exactly, then refused it: "the result does not parse as well as the original".  An error inside a
top-level statement that starts among the lines the snippet wrote, before the snippet's last line
there, and that the statement has parsed alone, does not depend on where the lines went: it is not
the merge's doing, so it does not count against the result; the merge says so in a warning
(`MergeResult.warnings`, a stderr line of `redraft apply`, `warnings` in the LSP and HTTP
answers).  The same gap in the other grammars:
Python 3.13's type parameter defaults, JavaScript's `accessor` fields (decorators), Rust 2024's
`safe fn` in an `unsafe extern` block (whose name the merge must still read as declared).  Go's
grammar read every construct tried, so Go has only the twin.

Twin: the same kind of line inside a definition whose first line is the file's (above a marker)
still refuses: there the error could be the placement's."""
from __future__ import annotations

import subprocess
import sys

import pytest

from redraft.engine.apply import merge

# (marker, definition before, old definition, new definition, definition after, gap between)
GAPS = {
    "python": ("# ... existing code ...", "def head(items):\n    return items[:1]\n",
               "def first(items):\n    return items[0]\n",
               "def first[T = int](items: list[T]) -> T:\n    value = items[0]\n    return value\n",
               "def last(items):\n    return items[-1]\n", "\n\n"),
    "javascript": ("// ... existing code ...", "export function head(items) {\n  return items.slice(0, 1);\n}\n",
                   "export class Counter {\n  count = 0;\n  bump() {\n    this.count += 1;\n  }\n}\n",
                   "export class Counter {\n  accessor count = 0;\n  bump() {\n    this.count += 1;\n  }\n}\n",
                   "export function last(items) {\n  return items.at(-1);\n}\n", "\n"),
    "typescript": ("// ... existing code ...", "export const head = <A>(self: List<A>): List<A> => self.slice(0, 1)\n",
                   "export const take: {\n  <A>(self: List<A>, n: number): List<A>\n} = dual(2, takeImpl)\n",
                   "export const take: {\n  (n: number): <A>(self: List<A>) => List<A>\n"
                   "  <A>(self: List<A>, n: number): List<A>\n} = dual(2, takeImpl)\n",
                   "export const last = <A>(self: List<A>): A => self[self.length - 1]\n", "\n"),
    "rust": ("// ... existing code ...", "pub fn head(items: &[i32]) -> &[i32] {\n    &items[..1]\n}\n",
             'extern "C" {\n    pub fn abs(x: i32) -> i32;\n}\n',
             'unsafe extern "C" {\n    pub safe fn abs(x: i32) -> i32;\n}\n',
             "pub fn last(items: &[i32]) -> i32 {\n    items[items.len() - 1]\n}\n", "\n"),
}

# the warning: the new definition's line with `[T = int]`, `accessor`, `safe fn`; TypeScript's two signatures
UNREAD = {"python": "line 5 does not parse (python grammar); merged as the snippet wrote it",
          "javascript": "line 6 does not parse (javascript grammar); merged as the snippet wrote it",
          "typescript": "lines 4-5 do not parse (typescript grammar); merged as the snippet wrote them",
          "rust": "line 6 does not parse (rust grammar); merged as the snippet wrote it"}


def _snippet(marker: str, before: str, new: str, after: str, gap: str) -> str:
    """A marker, the end of the definition before, the new definition, the first line of the one
    after, a marker: the snippet's edges anchor it."""
    return f"{marker}\n{before.rstrip().splitlines()[-1]}\n{gap}{new}{gap}{after.splitlines()[0]}\n{marker}\n"


@pytest.mark.parametrize("lang", list(GAPS))
def test_a_definition_the_grammar_cannot_read_is_merged_as_written_with_a_warning(lang):
    marker, before, old, new, after, gap = GAPS[lang]
    r = merge(before + gap + old + gap + after, _snippet(marker, before, new, after, gap), lang)
    assert r.ok, r.reason
    assert r.text == before + gap + new + gap + after
    assert r.warnings == [UNREAD[lang]]
    plain = merge(before + gap + old + gap + after, _snippet(marker, before, old.replace("0", "1"), after, gap), lang)
    assert plain.ok and plain.warnings == []                     # lines the grammar reads: no warning


def test_the_command_line_prints_the_warning_on_stderr(tmp_path):
    marker, before, old, new, after, gap = GAPS["typescript"]
    f, s = tmp_path / "list.ts", tmp_path / "snippet.ts"
    f.write_text(before + gap + old + gap + after, encoding="utf-8")
    s.write_text(_snippet(marker, before, new, after, gap), encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "redraft", "apply", str(f), str(s)], capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode() == before + gap + new + gap + after
    assert p.stderr.decode().splitlines() == [
        "redraft apply: warning: lines 4-5 do not parse (typescript grammar); merged as the snippet wrote them"]


# (file, snippet): the line the grammar cannot read (or a typo, for Go) sits inside a definition
# whose first line the snippet leaves to a marker
INSIDE = {
    "python": ("class Box:\n    def head(self, items):\n        return items[:1]\n\n"
               "    def first(self, items):\n        return items[0]\n\n"
               "    def last(self, items):\n        return items[-1]\n",
               "    # ... existing code ...\n        return items[:1]\n\n"
               "    def first[T = int](self, items: list[T]) -> T:\n        return items[0]\n\n"
               "    def last(self, items):\n    # ... existing code ...\n"),
    "javascript": ("export class Counter {\n  step = 1;\n  count = 0;\n  bump() {\n"
                   "    this.count += this.step;\n  }\n}\n",
                   "  // ... existing code ...\n  step = 1;\n  accessor count = 0;\n  bump() {\n"
                   "  // ... existing code ...\n"),
    "typescript": ("export namespace L {\n  export const head = 1\n  export const take: {\n"
                   "    <A>(self: List<A>, n: number): List<A>\n  } = dual(2, takeImpl)\n}\n",
                   "  // ... existing code ...\n  export const take: {\n"
                   "    (n: number): <A>(self: List<A>) => List<A>\n"
                   "    <A>(self: List<A>, n: number): List<A>\n  } = dual(2, takeImpl)\n"
                   "// ... existing code ...\n"),
    "rust": ('unsafe extern "C" {\n    pub fn labs(x: i64) -> i64;\n    pub fn abs(x: i32) -> i32;\n'
             "    pub fn exit(code: i32);\n}\n",
             "    // ... existing code ...\n    pub fn labs(x: i64) -> i64;\n    pub safe fn abs(x: i32) -> i32;\n"
             "    pub fn exit(code: i32);\n    // ... existing code ...\n"),
    "go": ('package util\n\nimport "strings"\n\nfunc Build() string {\n\tname := "x"\n'
           "\treturn strings.ToUpper(name)\n}\n",
           '// ... existing code ...\n\tname := "x"\n\treturn strings.ToUpper(name\n}\n'),
}


@pytest.mark.parametrize("lang", list(INSIDE))
def test_the_same_error_inside_a_definition_the_file_starts_is_refused(lang):
    text, snippet = INSIDE[lang]
    r = merge(text, snippet, lang)
    assert not r.ok
    assert r.reason == "the result does not parse as well as the original"


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_an_error_that_reaches_into_the_files_lines_is_refused(lang):
    """An unclosed `((` in the new definition: the grammar's error runs past the lines the snippet
    wrote into the file's, where the placement could be the cause, so the check counts it."""
    marker, before, old, new, after, gap = GAPS[lang]
    lines = new.splitlines(True)
    lines[1] = lines[1].rstrip("\n") + " ((\n"
    r = merge(before + gap + old + gap + after, _snippet(marker, before, "".join(lines), after, gap), lang)
    assert not r.ok
    assert r.reason == "the result does not parse as well as the original"
