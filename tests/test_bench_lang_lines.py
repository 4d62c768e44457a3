"""bench/lang_lines.py: the case picker (deterministic, cut rules, the document + expected rest give
back the file), the metrics on hand-made answers, and one real completion per language."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import lang_lines as ll  # noqa: E402

PY = '''"""Small helpers for reading settings files."""
import os


def load_settings(path, defaults=None):
    # merge the file's values over the defaults
    values = dict(defaults or {})
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def settings_path(name):
    return os.path.join(os.path.expanduser("~"), ".config", name)
'''
JS = '''// Debounce a function: call it once the calls stop for `wait` ms.
function debounce(fn, wait) {
  let timer = null;
  return function debounced(...args) {
    /* cancel the pending call, then schedule this one
       with the same arguments */
    clearTimeout(timer);
    timer = setTimeout(() => fn.apply(this, args), wait);
  };
}

module.exports = { debounce };
'''
TS = '''export interface Point {
  x: number;
  y: number;
}

export function distance(a: Point, b: Point): number {
  const dx = a.x - b.x;
  const dy = a.y - b.y;
  return Math.sqrt(dx * dx + dy * dy);
}
'''
DTS = '''export declare function parseDuration(text: string, strict?: boolean): number;
export declare const DEFAULT_UNITS: ReadonlyArray<string>;
'''
RS = '''/// A counter that wraps at a limit.
pub struct Counter {
    value: u32,
    limit: u32,
}

impl Counter {
    pub fn new(limit: u32) -> Self {
        Counter { value: 0, limit }
    }

    pub fn tick(&mut self) -> u32 {
        self.value = (self.value + 1) % self.limit;
        self.value
    }
}
'''
GO = '''package stack

// Stack is a LIFO of strings.
type Stack struct {
	items []string
}

func (s *Stack) Push(item string) {
	s.items = append(s.items, item)
}

func (s *Stack) Pop() (string, bool) {
	if len(s.items) == 0 {
		return "", false
	}
	item := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return item, true
}
'''
COMMENTS_ONLY = '''# This module only explains things in comments and nothing else at all.
# Another long comment line that must never be picked as a case.
x = 1
'''
RECORDS = [
    {"path": "python3.11/settings.py", "text": PY},            # no "lang": Python
    {"path": "python3.11/notes.py", "text": COMMENTS_ONLY, "lang": "python"},
    {"path": "js/pkg/debounce.js", "text": JS, "lang": "javascript"},
    {"path": "js/pkg/src/geometry.ts", "text": TS, "lang": "typescript"},
    {"path": "js/pkg/index.d.ts", "text": DTS},                 # no "lang": by suffix
    {"path": "rust/counter/src/lib.rs", "text": RS, "lang": "rust"},
    {"path": "go/stack/stack.go", "text": GO, "lang": "go"},
    {"path": "go/big.go", "text": "package big\n// " + "x" * ll.MAX_FILE_BYTES + "\n", "lang": "go"},
]
ORIGINAL = {r["path"]: r["text"] for r in RECORDS}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    with gzip.open(d / "heldout.jsonl.gz", "wt", encoding="utf-8") as f:
        for r in RECORDS:
            f.write(json.dumps(r) + "\n")
    return d


def test_files_by_language(corpus):
    files = ll.load_files(corpus, ll.LANGS)
    assert {lang: [p for p, _ in fs] for lang, fs in files.items()} == {
        "python": ["python3.11/notes.py", "python3.11/settings.py"],
        "javascript": ["js/pkg/debounce.js"],
        "typescript": ["js/pkg/index.d.ts", "js/pkg/src/geometry.ts"],
        "rust": ["rust/counter/src/lib.rs"],
        "go": ["go/stack/stack.go"]}  # big.go is over the size cap
    assert ll.language_id("typescript", "a/b.tsx") == "typescriptreact"


def test_cases_follow_the_rules(corpus):
    files = ll.load_files(corpus, ll.LANGS)
    cases = ll.pick_cases(files, per_lang=100, seed=0)
    assert cases == ll.pick_cases(files, per_lang=100, seed=0)        # deterministic
    assert {c.lang for c in cases} == set(ll.LANGS)
    assert all(c.path != "python3.11/notes.py" for c in cases)       # comment lines are never cases
    per_file = {}
    for c in cases:
        per_file[c.path] = per_file.get(c.path, 0) + 1
        original = ORIGINAL[c.path]
        assert c.doc[: c.cursor] + c.expected + c.doc[c.cursor:] == original
        line = original.split("\n")[c.line - 1]
        before = c.doc[: c.cursor].rsplit("\n", 1)[-1]
        assert line == before + c.expected and c.doc[c.cursor] == "\n"   # the rest of the line, newline kept
        indent = len(line) - len(line.lstrip())
        assert sum(not ch.isspace() for ch in line) >= 12
        assert len(before) - indent >= 4 and before[-1] in ll.BOUNDARY
        assert not line.lstrip().startswith(("#", "//", "/*", "*", "///"))
        assert any(ch.isalnum() for ch in c.expected)
    assert max(per_file.values()) == 2
    assert len(ll.pick_cases(files, per_lang=1, seed=0)) == 5
    three = ll.pick_cases(files, per_lang=3, seed=0)    # one file per language but TypeScript's two
    assert [sum(c.lang == lang for c in three) for lang in ll.LANGS] == [2, 2, 3, 2, 2]
    assert ll.pick_cases(files, per_lang=3, seed=1) != three


def test_whole_lines_and_random_spans(corpus):
    """--cut lines: from a code line's first character through the end of it and of 1-4 lines more
    (the last newline kept); --cut span: 1-120 characters from a cut point, across lines too. The
    document and the removed text give back the file either way."""
    files = ll.load_files(corpus, ll.LANGS)
    assert ll.pick_cases(files, 100, 0, "rest") == ll.pick_cases(files, 100, 0)
    for kind in ("lines", "span"):
        cases = ll.pick_cases(files, per_lang=100, seed=0, cut_kind=kind)
        assert cases == ll.pick_cases(files, per_lang=100, seed=0, cut_kind=kind)
        multi = 0
        for c in cases:
            original = ORIGINAL[c.path]
            assert c.doc[: c.cursor] + c.expected + c.doc[c.cursor:] == original
            multi += "\n" in c.expected
            if kind == "lines":
                before = c.doc[: c.cursor].rsplit("\n", 1)[-1]
                assert not before.strip() and not c.expected[0].isspace()     # from the code's start
                assert c.doc[c.cursor:].startswith("\n") or c.cursor == len(c.doc)
                assert 1 <= c.expected.count("\n") <= 4 or c.cursor == len(c.doc)
            else:
                assert 1 <= len(c.expected) <= 120
        assert multi > 0
    with pytest.raises(ValueError, match="unknown cut"):
        ll.hole(PY, 0, 4, "word", __import__("random").Random(0))


def test_cut_points():
    line = "    total = compute(a.b, 1.5)"
    cuts = ll.cut_points(line)
    assert [line[:i][-4:] for i in cuts] == ["l = ", "ute(", "e(a.", ".b, "]   # not `1.` + `5`
    assert ll.cut_points("    value == other") == [13]        # not between the two `=`, nor before a space
    assert ll.cut_points("use std::io::Read;") == [4, 9, 13]  # after `::`, never between its colons


def test_no_cut_in_or_before_a_comment_or_in_a_docstring():
    line = "total = compute(a, b)  # the sum of a and b"
    assert [c for _, _, cuts in ll.file_cuts("x.py", line + "\n", "python") for c in cuts] == [8, 16, 19]
    go = "package p\n\nvar x = f(1) // ERROR \"mismatched types\"\n"
    assert [line for line, _, _ in ll.file_cuts("x.go", go, "go")] == [2]
    assert all(c < go.split("\n")[2].index("//") for _, _, cuts in ll.file_cuts("x.go", go, "go") for c in cuts)
    doc = ('def f():\n    """Return the answer, computed the long way.\n'
           '    Second line of the docstring, also prose.\n    """\n')
    assert ll.file_cuts("x.py", doc, "python") == []


def _case(lang: str, text: str, line_start: str) -> ll.Case:
    cut = text.index(line_start) + len(line_start)
    end = text.index("\n", cut)
    return ll.Case(lang, lang, "x", 1, text[:cut] + text[end:], cut, text[cut:end])


def test_metrics():
    c = _case("python", "def f(a, b):\n    return max(a, b) + 1\n", "return ")
    assert c.expected == "max(a, b) + 1"
    s = ll.score(c, " max(a, b) + 1 ")
    assert s["exact"] and not s["exact_raw"] and s["sim"] == 1.0 and s["parse"] and not s["empty"]
    s = ll.score(c, "max(a, b)")
    assert not s["exact"] and s["sim"] == pytest.approx(2 * 9 / (9 + 13)) and s["parse"]
    assert not ll.score(c, "max(a, b")["parse"]                     # an unclosed bracket
    assert ll.score(c, "")["parse"] and ll.score(c, "")["empty"]   # a bare `return` parses
    c1 = _case("python", "x = f(a)\ny = 2\n", "x = ")
    assert not ll.score(c1, "")["parse"] and ll.score(c1, "g(b)")["parse"]   # `x = ` alone does not parse
    c2 = _case("go", "package p\n\nfunc f(a int) int {\n\treturn g(a, 2)\n}\n", "return g(")
    assert ll.score(c2, "a, 2)")["parse"] and not ll.score(c2, "a, 2")["parse"] and not ll.score(c2, "a 2)")["parse"]
    c3 = _case("rust", "fn f(v: &[u8]) -> usize {\n    v.iter().count()\n}\n", "v.")
    assert ll.score(c3, "len()")["parse"] and not ll.score(c3, "len(")["parse"]
    c4 = _case("typescript", TS, "export ")   # judged on the whole file, not the window around the cursor
    assert ll.score(c4, c4.expected)["parse"] and not ll.score(c4, "")["parse"]
    assert not ll.score(c4, "function distance(a: Point, b: Point): number")["parse"]
    rows = [{**ll.score(c1, g), "ms": ms, "declined": d, "path": p}
            for g, ms, d, p in [("f(a)", 10, False, "a.py"), ("", 1, True, "b.d.ts"), ("f(", 30, False, "c.py")]]
    s = ll.summarise(rows)
    assert s["n"] == 3 and s["exact"] == pytest.approx(1 / 3) and s["empty"] == pytest.approx(1 / 3)
    assert s["declined"] == 1 and s["p50_ms"] in (10, 30) and s["dts"] == 1
    assert s["parse"] == pytest.approx(1 / 3) and s["parse_answered"] == pytest.approx(1 / 2)
    assert "| python | 3 (1 .d.ts) |" in ll.table({"python": s})
    both = ll.summarise_all([{**r, "lang": "typescript"} for r in rows], ll.LANGS)
    assert list(both) == ["typescript", "typescript (no .d.ts)"] and both["typescript (no .d.ts)"]["n"] == 2


@pytest.fixture(scope="module")
def engine():
    from redraft.engine.pipeline import Engine
    return Engine(None, threads=2)


def test_real_pipeline_one_case_per_language(corpus, engine):
    cases = ll.pick_cases(ll.load_files(corpus, ll.LANGS), per_lang=1, seed=0)
    rows = ll.run(engine, cases, "instant")
    assert [r["lang"] for r in rows] == list(ll.LANGS)
    for r in rows:
        assert isinstance(r["got"], str) and 0 <= r["sim"] <= 1 and r["ms"] > 0
        assert "\n" not in r["got"].strip("\n")                      # a single-line answer
