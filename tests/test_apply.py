"""`redraft.engine.apply.merge`: lazy edit snippets applied to real files (the CLI: test_apply_cli.py)."""
import difflib
import textwrap
from pathlib import Path

import pytest

from redraft.engine.apply import MAX_BYTES, is_marker, merge

M = "# ... existing code ..."
TEXTWRAP = Path(textwrap.__file__).read_text(encoding="utf-8")
DIFFLIB = Path(difflib.__file__).read_text(encoding="utf-8")


def ok(original, snippet, language="python"):
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


def refused(original, snippet, language="python"):
    r = merge(original, snippet, language)
    assert not r.ok, "expected a refusal, got:\n" + r.text
    assert r.reason and "\n" not in r.reason
    return r.reason


def changed_lines(a, b):
    return [l for l in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0)
            if l[:1] in "+-" and not l.startswith(("+++", "---"))]


GO = """package store

import (
\t"errors"
\t"sync"
)

// ErrNotFound is returned when a key is missing.
var ErrNotFound = errors.New("not found")

// Store is a concurrency-safe map.
type Store struct {
\tmu   sync.Mutex
\tdata map[string]string
}

// New makes an empty store.
func New() *Store {
\treturn &Store{data: map[string]string{}}
}

// Get returns the value for key.
func (s *Store) Get(key string) (string, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tv, ok := s.data[key]
\tif !ok {
\t\treturn "", ErrNotFound
\t}
\treturn v, nil
}

// Put stores a value.
func (s *Store) Put(key, value string) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\ts.data[key] = value
}
"""

JS = """import { readFile } from "fs/promises";

export class Cache {
  constructor(limit) {
    this.limit = limit;
    this.items = new Map();
  }

  get(key) {
    return this.items.get(key);
  }

  set(key, value) {
    if (this.items.size >= this.limit) {
      const first = this.items.keys().next().value;
      this.items.delete(first);
    }
    this.items.set(key, value);
  }
}

export const loadJson = async (path) => {
  const text = await readFile(path, "utf8");
  return JSON.parse(text);
};

function helper(x) {
  return x * 2;
}
"""

RUST = """use std::collections::HashMap;

/// A word counter.
#[derive(Debug, Default)]
pub struct Counter {
    counts: HashMap<String, usize>,
}

impl Counter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, word: &str) {
        *self.counts.entry(word.to_string()).or_insert(0) += 1;
    }

    pub fn get(&self, word: &str) -> usize {
        self.counts.get(word).copied().unwrap_or(0)
    }
}

fn main() {
    let mut c = Counter::new();
    c.add("hello");
    println!("{}", c.get("hello"));
}
"""


# --- markers ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [M, "    // ... existing code ...", "# ... rest of the file ...", "// ...",
                                  "/* ... existing code ... */", "# ...", "  # keep the rest ...",
                                  "# ... unchanged", "// \u2026 existing code \u2026",
                                  "# rest of the methods ...", "// keep ...", "# KEEP ..."])
def test_markers(line):
    assert is_marker(line)


@pytest.mark.parametrize("line", ["...", "x = f(...)", "# a comment", "print('# ...')", "// see below",
                                  "    # from starting any matching block at a junk element ...",
                                  "// @ts-ignore gl-matrix types...", "// eslint-disable-next-line ...",
                                  "# noqa: E501 ..."])
def test_not_markers(line):
    assert not is_marker(line)


# --- shape 1: full replacement of definitions ------------------------------------------------

def test_full_replacement_python_function():
    snippet = "def indent(text, prefix, predicate=None):\n    return prefix + text\n"
    out = ok(TEXTWRAP, snippet)
    start = TEXTWRAP.index("def indent(")
    end = TEXTWRAP.index('\n\n\nif __name__ == "__main__":')
    assert out == TEXTWRAP[:start] + snippet.rstrip("\n") + TEXTWRAP[end:]


def test_full_replacement_two_definitions_keep_everything_else():
    snippet = ("def wrap(text, width=70, **kwargs):\n    return [text]\n\n\n"
               "def fill(text, width=70, **kwargs):\n    return text\n")
    out = ok(TEXTWRAP, snippet)
    assert "    return [text]" in out and "def shorten(" in out and "class TextWrapper:" in out
    assert out.count("\ndef wrap(") == 1 and out.count("\ndef fill(") == 1


def test_full_replacement_method_without_class():
    snippet = "    def _fix_sentence_endings(self, chunks):\n        return None\n"
    out = ok(TEXTWRAP, snippet)
    assert "    def _fix_sentence_endings(self, chunks):\n        return None\n\n    def _handle_long_word" in out


def test_full_replacement_class_members_and_new_member_js():
    snippet = ("export class Cache {\n  get(key) {\n    return this.items.get(String(key));\n  }\n\n"
               "  has(key) {\n    return this.items.has(key);\n  }\n}\n")
    out = ok(JS, snippet, "javascript")
    assert "return this.items.get(String(key));\n  }\n\n  has(key) {" in out
    assert "  set(key, value) {" in out and "constructor(limit)" in out


def test_full_replacement_arrow_function_js():
    snippet = 'export const loadJson = async (path) => {\n  return JSON.parse(await readFile(path, "utf8"));\n};\n'
    out = ok(JS, snippet, "javascript")
    assert changed_lines(JS, out) == ['-  const text = await readFile(path, "utf8");', "-  return JSON.parse(text);",
                                      '+  return JSON.parse(await readFile(path, "utf8"));']


def test_full_replacement_rust_method_in_impl():
    snippet = ("impl Counter {\n    pub fn get(&self, word: &str) -> usize {\n"
               "        *self.counts.get(word).unwrap_or(&0)\n    }\n}\n")
    out = ok(RUST, snippet, "rust")
    assert changed_lines(RUST, out) == ["-        self.counts.get(word).copied().unwrap_or(0)",
                                        "+        *self.counts.get(word).unwrap_or(&0)"]


def test_full_replacement_rust_with_doc_comment_and_attribute():
    snippet = ("/// A word counter (case-insensitive).\n#[derive(Debug, Default, Clone)]\npub struct Counter {\n"
               "    counts: HashMap<String, usize>,\n}\n")
    out = ok(RUST, snippet, "rust")
    assert changed_lines(RUST, out) == ["-/// A word counter.", "-#[derive(Debug, Default)]",
                                        "+/// A word counter (case-insensitive).", "+#[derive(Debug, Default, Clone)]"]


def test_full_replacement_go_method_keeps_its_comment():
    snippet = "func (s *Store) Put(key, value string) {\n\ts.data[key] = value\n}\n"
    out = ok(GO, snippet, "go")
    assert "// Put stores a value.\nfunc (s *Store) Put(key, value string) {\n\ts.data[key] = value\n}\n" in out
    assert out.startswith(GO[:GO.index("// Put")])


def test_new_definition_next_to_a_replaced_one():
    snippet = "def dedent(text):\n    return text\n\n\ndef undent(text):\n    return text\n"
    out = ok(TEXTWRAP, snippet)
    assert "def dedent(text):\n    return text\n\n\ndef undent(text):\n    return text\n" in out


def test_new_definition_without_anchor_is_refused():
    assert "cannot place new definition `brand_new`" in refused(TEXTWRAP, "def brand_new():\n    pass\n")


def test_new_definition_after_marker_is_appended():
    out = ok(TEXTWRAP, M + "\n\ndef brand_new(x):\n    return x\n")
    assert out == TEXTWRAP + "\n\ndef brand_new(x):\n    return x\n"


def test_new_definition_after_marker_go_with_spaces_snippet_becomes_tabs():
    out = ok(GO, "// ... existing code ...\n\nfunc (s *Store) Len() int {\n    return len(s.data)\n}\n", "go")
    assert out == GO + "\nfunc (s *Store) Len() int {\n\treturn len(s.data)\n}\n"


# --- shape 2: lazy snippets with markers -----------------------------------------------------

def test_lazy_method_inside_class_python():
    snippet = f"class TextWrapper:\n    {M}\n    def _split(self, text):\n        return []\n    {M}\n"
    out = ok(TEXTWRAP, snippet)
    assert "    def _split(self, text):\n        return []\n\n    def _fix_sentence_endings" in out
    assert all(l.startswith("-") for l in changed_lines(TEXTWRAP, out)[:-1])


def test_lazy_inside_function_body_go():
    snippet = ("func (s *Store) Get(key string) (string, error) {\n\ts.mu.Lock()\n\t// ... existing code ...\n"
               "\tif !ok {\n\t\treturn \"\", errors.New(\"missing \" + key)\n\t}\n\treturn v, nil\n}\n")
    out = ok(GO, snippet, "go")
    assert changed_lines(GO, out) == ["-\t\treturn \"\", ErrNotFound", "+\t\treturn \"\", errors.New(\"missing \" + key)"]


def test_lazy_js_method_with_markers():
    snippet = ("export class Cache {\n  // ... existing code ...\n  get(key) {\n    if (!this.items.has(key)) return;\n"
               "    return this.items.get(key);\n  }\n  // ... existing code ...\n}\n")
    out = ok(JS, snippet, "javascript")
    assert changed_lines(JS, out) == ["+    if (!this.items.has(key)) return;"]


def test_lazy_two_fragments_keep_text_between():
    lines = TEXTWRAP.split("\n")
    i = next(j for j, l in enumerate(lines) if l.startswith("__all__ = ["))
    after = next(l for l in lines[i + 1:] if l.strip())
    new_all = lines[i].replace("]", ", 'x']")
    snippet = (f"{M}\nimport re\n\n{new_all}\n\n{after}\n"
               f"{M}\ndef shorten(text, width, **kwargs):\n    return text[:width]\n\n\n{M}\n")
    out = ok(TEXTWRAP, snippet)
    lines = changed_lines(TEXTWRAP, out)
    assert "+" + new_all in lines and "-" + TEXTWRAP.split("\n")[i] in lines
    assert "+    return text[:width]" in lines and "class TextWrapper:" in out and "def indent(" in out


def test_lazy_rust_new_method_in_impl():
    snippet = ("impl Counter {\n    // ... existing code ...\n    pub fn get(&self, word: &str) -> usize {\n"
               "        self.counts.get(word).copied().unwrap_or(0)\n    }\n\n    pub fn len(&self) -> usize {\n"
               "        self.counts.len()\n    }\n}\n")
    out = ok(RUST, snippet, "rust")
    assert changed_lines(RUST, out) == ["+", "+    pub fn len(&self) -> usize {", "+        self.counts.len()", "+    }"]


def test_head_kept_without_leading_marker_and_tail_kept():
    # a chunk from the middle of the file, no markers at all: head and tail are kept
    snippet = "def fill(text, width=70, **kwargs):\n    w = TextWrapper(width=width, **kwargs)\n    return w.fill(text)\n"
    out = ok(TEXTWRAP, snippet)
    assert out.startswith(TEXTWRAP[:TEXTWRAP.index("def fill(")]) and out.endswith(TEXTWRAP[-300:])
    assert changed_lines(TEXTWRAP, out) == [
        l for l in changed_lines(TEXTWRAP, out) if l.startswith("-") or "w.fill" in l or "TextWrapper(width" in l]


def test_fragment_with_leading_and_trailing_marker_only_changes_between_anchors():
    snippet = f"{M}\n    if margin:\n        text = re.sub(r'(?m)^' + margin, '', text)\n        text = text  # edited\n    return text\n{M}\n"
    out = ok(TEXTWRAP, snippet)
    assert changed_lines(TEXTWRAP, out) == ["+        text = text  # edited"]


# --- safety: line endings, final newline, tabs, non-ASCII -------------------------------------

def test_crlf_original_keeps_crlf():
    original = TEXTWRAP.replace("\n", "\r\n")
    out = ok(original, "def indent(text, prefix, predicate=None):\n    return prefix + text\n")
    assert out.count("\r\n") == out.count("\n") and out.endswith("\r\n")
    assert out.replace("\r\n", "\n") == ok(TEXTWRAP, "def indent(text, prefix, predicate=None):\n    return prefix + text\n")


def test_crlf_snippet_on_lf_original():
    out = ok(TEXTWRAP, "def indent(text, prefix, predicate=None):\r\n    return prefix + text\r\n")
    assert "\r" not in out


def test_no_final_newline_kept():
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2"
    assert ok(original, "def b():\n    return 3\n") == "def a():\n    return 1\n\n\ndef b():\n    return 3"
    assert ok(original + "\n", "def b():\n    return 3") == "def a():\n    return 1\n\n\ndef b():\n    return 3\n"


def test_non_ascii():
    original = "def grüß(name):\n    return f'Grüß dich, {name} ☕'\n\n\ndef other():\n    return '日本'\n"
    out = ok(original, "def grüß(name):\n    return f'Servus, {name} ☕'\n")
    assert out == original.replace("Grüß dich", "Servus")


def test_go_tabs_kept_and_space_snippet_converted():
    snippet = "func New() *Store {\n    s := &Store{data: map[string]string{}}\n    return s\n}\n"
    out = ok(GO, snippet, "go")
    assert "func New() *Store {\n\ts := &Store{data: map[string]string{}}\n\treturn s\n}" in out


def test_go_tabs_refused_when_spaces_do_not_convert():
    reason = refused(GO, "func New() *Store {\n    s := 1\n      return nil\n}\n", "go")
    assert "tabs" in reason


def test_indent_unit_mismatch_refused():
    assert "indents by 2" in refused(TEXTWRAP, "def indent(text, prefix, predicate=None):\n  if text:\n    return text\n")


def test_large_file_of_ten_thousand_lines():
    original = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(2500))
    out = ok(original, f"{M}\ndef f1234(x):\n    return x - 1234\n{M}\n")
    assert changed_lines(original, out) == ["-    return x + 1234", "+    return x - 1234"]


# --- refusals --------------------------------------------------------------------------------

@pytest.mark.parametrize("snippet,language,words", [
    ("", "python", "empty"),
    ("  \n\n", "python", "empty"),
    (f"{M}\n\n{M}\n", "python", "only marker"),
    ("def f():\x00\n", "python", "binary"),
    ("def f(): pass\n", "cobol", "no grammar"),
    ("def f(): pass\n", "", "no grammar"),
    ("this line is not in the file\n", "python", "not in the file"),
])
def test_refusals_bad_input(snippet, language, words):
    assert words in refused(TEXTWRAP, snippet, language)


def test_refuses_huge_file():
    assert "larger than 2 MB" in refused("x = 1\n" * (MAX_BYTES // 6 + 1), "x = 2\n")


def test_refuses_ambiguous_anchor():
    original = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
    reason = refused(original, f"{M}\n    x = 1\n    y = 2\n    return x\n{M}\n")
    assert "more than one place" in reason and "`x = 1`" in reason


def test_refuses_fragments_out_of_order():
    snippet = f"{M}\ndef shorten(text, width, **kwargs):\n{M}\nclass TextWrapper:\n{M}\n"
    assert "`class TextWrapper:`" in refused(TEXTWRAP, snippet)


def test_refuses_result_that_parses_worse():
    snippet = f"{M}\n    if margin:\n        text = re.sub(r'(?m)^' + margin, '', text\n    return text\n{M}\n"
    assert "parse" in refused(TEXTWRAP, snippet)


def test_refuses_ambiguous_definition():
    assert "more than one place" in refused(DIFFLIB, "    def __init__(self):\n        pass\n")


def test_refuses_new_definition_between_markers():
    assert "no anchor" in refused(TEXTWRAP, f"{M}\ndef brand_new():\n    pass\n{M}\n")


def test_refuses_class_replacement_that_drops_members():
    snippet = "class Cache {\n  count = 0;\n  constructor() {}\n  get(key) {\n    return 1;\n  }\n}\n"
    reason = refused(JS.replace("export class", "class"), snippet, "javascript")
    assert "omits `set`" in reason
    snippet = "class TextWrapper:\n    x = 1\n\n    def wrap(self, text):\n        return [text]\n"
    assert "omits `__init__`" in refused(TEXTWRAP, snippet)


def test_refuses_lone_surrogates():
    assert "Unicode" in refused(TEXTWRAP, "def f():\n    return '\ud800'\n")


def test_lazy_python_inside_function_body():
    snippet = (f"def dedent(text):\n    {M}\n    if margin:\n        text = re.sub(r'(?m)^' + margin, '', text)\n"
               "        text = text.strip()\n    return text\n")
    out = ok(TEXTWRAP, snippet)
    assert changed_lines(TEXTWRAP, out) == ["+        text = text.strip()"]


def test_js_and_rust_refusals():
    assert "`nothing`" in refused(JS, "// ... existing code ...\n  nothing(like) {\n    this();\n  }\n",
                                        "javascript")
    assert "indents by 2" in refused(RUST, "fn main() {\n  let c = 1;\n}\n", "rust")


def test_decorators_the_snippet_leaves_out_are_kept():
    """A method shown without its decorators (as Rust keeps attributes): the decorators stay."""
    src = "class A:\n    @property\n    def size(self):\n        return 1\n\n    def other(self):\n        return 2\n"
    assert ok(src, "    def size(self):\n        return 2\n") == src.replace("return 1", "return 2")
    multi = "@pytest.mark.parametrize(\n    'x', [1],\n)\ndef test(x):\n    assert x\n"
    assert ok(multi, "def test(x):\n    assert x == 1\n") == multi.replace("assert x\n", "assert x == 1\n")
    # a snippet that shows decorators replaces them
    assert ok(src, "    @cached_property\n    def size(self):\n        return 2\n") == \
        src.replace("@property", "@cached_property").replace("return 1", "return 2")
