"""`redraft.engine.apply.merge` and `redraft apply` on awkward input: CRLF files, files without a final
newline, tab-indented files with space-indented snippets, non-ASCII text; every refusal the merge can
give (one test per reason, naming the fragment or definition); and bad input (empty snippet, markers
only, binary data, a 10 MB file, a snippet in another language) through both the function and the CLI,
which must refuse with one clear line and leave the file's bytes, mtime and directory untouched."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from redraft.engine.apply import MAX_BYTES, merge

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).resolve().parent / "apply_fixtures"
FILES = {"python": "inventory.py", "javascript": "ledger.js", "typescript": "router.ts", "rust": "parser.rs",
         "go": "queue.go"}
SRC = {lang: (FIX / name).read_text(encoding="utf-8") for lang, name in FILES.items()}
M = {"python": "# ... existing code ...", "javascript": "// ... existing code ...", "typescript": "/* ... */",
     "rust": "// ...", "go": "// ... existing code ..."}

# one function per language, its old text and a new version (Go with tabs, as in the file)
EDIT = {
    "python": ("    def free_space(self) -> int:\n"
               "        return self.capacity - sum(self.stock.values())\n",
               "    def free_space(self) -> int:\n"
               "        used = sum(self.stock.values())\n        return max(self.capacity - used, 0)\n"),
    "javascript": ("  hasAccount(code) {\n    return this.accounts.has(code);\n  }\n",
                   "  hasAccount(code) {\n    return this.accounts.has(String(code));\n  }\n"),
    "typescript": ('  get(pattern: string, handler: Handler<C>): this {\n'
                   '    return this.add("GET", pattern, handler);\n  }\n',
                   '  get(pattern: string, handler: Handler<C>): this {\n'
                   '    this.add("HEAD" as Method, pattern, handler);\n'
                   '    return this.add("GET", pattern, handler);\n  }\n'),
    "rust": ("    fn offset(&self) -> usize {\n"
             "        self.tokens.get(self.pos).map(|(o, _)| *o).unwrap_or(self.end)\n    }\n",
             "    fn offset(&self) -> usize {\n        match self.tokens.get(self.pos) {\n"
             "            Some((o, _)) => *o,\n            None => self.end,\n        }\n    }\n"),
    "go": ("func (q *Queue) Ack(token string) error {\n\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n"
           "\tif _, ok := q.leases[token]; !ok {\n",
           "func (q *Queue) Ack(token string) error {\n\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n"
           "\tif _, ok := q.leases[token]; !ok {\n\t\tq.seq++\n"),
}


def snippet_for(lang: str, nl: str = "\n") -> str:
    """The new version of EDIT's function between markers (Go: a lazy head of Ack, tail elided)."""
    new = EDIT[lang][1]
    tail = "\t\treturn ErrUnknownLease\n\t// ... existing code ...\n" if lang == "go" else ""
    pad = new[:len(new) - len(new.lstrip())]
    return (f"{pad}{M[lang]}\n{new}{tail}{pad}{M[lang]}\n").replace("\n", nl)


def expected(lang: str, text: str | None = None) -> str:
    text = SRC[lang] if text is None else text
    old, new = EDIT[lang]
    assert text.count(old) == 1
    return text.replace(old, new)


def ok(original: str, snippet: str, language: str) -> str:
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


def refused(original: str, snippet: str, language: str) -> str:
    r = merge(original, snippet, language)
    assert not r.ok, "expected a refusal, got a merge"
    assert r.reason and "\n" not in r.reason and r.text == ""
    return r.reason


LANGS = list(FILES)


@pytest.mark.parametrize("lang", LANGS)
def test_plain_edit(lang):
    assert ok(SRC[lang], snippet_for(lang), lang) == expected(lang)


# --- line endings, final newline ----------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("snippet_nl", ["\n", "\r\n"], ids=["lf-snippet", "crlf-snippet"])
def test_crlf_file_keeps_crlf(lang, snippet_nl):
    crlf = SRC[lang].replace("\n", "\r\n")
    out = ok(crlf, snippet_for(lang, snippet_nl), lang)
    assert out == expected(lang).replace("\n", "\r\n")


@pytest.mark.parametrize("lang", ["python", "go"])
def test_crlf_snippet_on_lf_file_gives_lf(lang):
    out = ok(SRC[lang], snippet_for(lang, "\r\n"), lang)
    assert "\r" not in out and out == expected(lang)


def test_mixed_line_endings_keep_each_kept_line_as_it_was():
    lines = SRC["python"].split("\n")[:-1]
    mixed = "".join(l + ("\r\n" if i % 2 else "\n") for i, l in enumerate(lines))
    old, new = EDIT["python"]
    at = mixed.index(old.split("\n")[0])
    end = mixed.index(old.split("\n")[1]) + len(old.split("\n")[1])
    end = end + (2 if mixed[end] == "\r" else 1)
    out = ok(mixed, snippet_for("python"), "python")
    first = mixed.index("\n", at) + 1                    # the unchanged `def` line, with its own ending
    assert mixed[first - 2] == "\r"
    assert out == mixed[:first] + new.split("\n", 1)[1] + mixed[end:]   # new lines get "\n"; the rest is as it was


@pytest.mark.parametrize("lang", LANGS)
def test_file_without_final_newline(lang):
    text = SRC[lang].rstrip("\n")
    assert ok(text, snippet_for(lang), lang) == expected(lang, text)
    no_final = snippet_for(lang).rstrip("\n")                # nor the snippet: the file keeps its newline
    assert ok(SRC[lang], no_final, lang) == expected(lang)


@pytest.mark.parametrize("lang,last_old,last_new", [
    ("python", "    _demo()", '    print("start")\n    _demo()'),
    ("go", "\t\tdone++\n\t}\n}", "\t\tdone += 1\n\t}\n}"),
    ("typescript",
     '    out[decodeURIComponent(k)] = decodeURIComponent(v.replace(/\\+/g, " "));\n  }\n  return out;\n}',
     "    out[decodeURIComponent(k)] = decodeURIComponent(v);\n  }\n  return out;\n}"),
])
def test_edit_of_the_last_lines_of_a_file_without_final_newline(lang, last_old, last_new):
    text = SRC[lang].rstrip("\n")
    assert text.endswith(last_old)
    snippet = f"{M[lang]}\n{text[:text.rindex(last_old)].rsplit(chr(10), 2)[-2]}\n{last_new}\n"
    out = ok(text, snippet, lang)
    assert out == text[:len(text) - len(last_old)] + last_new and not out.endswith("\n")


@pytest.mark.parametrize("lang,new_def", [
    ("python", "def main() -> None:\n    _demo()"),
    ("go", "// Size is the number of jobs in all states.\nfunc (s Stats) Size() int {\n\treturn s.Ready + s.Dead\n}"),
    ("rust", "fn helper() -> u8 {\n    1\n}"),
])
def test_new_definition_appended_to_a_file_without_final_newline(lang, new_def):
    text = SRC[lang].rstrip("\n")
    gap = "\n\n\n" if lang == "python" else "\n\n"
    assert ok(text, f"{M[lang]}\n\n{new_def}\n", lang) == text + gap + new_def


# --- indentation: tabs vs spaces ----------------------------------------------------------------

@pytest.mark.parametrize("unit", [4, 2, 8])
def test_go_space_indented_snippet_becomes_tabs(unit):
    snippet = snippet_for("go").replace("\t", " " * unit)
    assert "\t" not in snippet
    assert ok(SRC["go"], snippet, "go") == expected("go")


def test_go_tab_snippet_and_python_tab_snippet_for_a_spaces_file():
    assert ok(SRC["go"], snippet_for("go"), "go") == expected("go")
    tabbed = snippet_for("python").replace("    ", "\t")
    assert "    " not in tabbed
    assert ok(SRC["python"], tabbed, "python") == expected("python")


def test_tab_indented_python_file_with_space_snippet():
    text = SRC["python"].replace("    ", "\t")
    out = ok(text, snippet_for("python"), "python")
    assert out == expected("python").replace("    ", "\t")


# --- non-ASCII ----------------------------------------------------------------------------------

UNICODE = {  # lang: (a line of the fixture, a non-ASCII definition added before it, a new version of that)
    "python": ("def _demo() -> None:",
               'def größe(länge: float, breite: float) -> str:\n    """Fläche in m² — 面积 📦."""\n'
               '    return f"{länge * breite:.2f} m²"\n\n\n',
               'def größe(länge: float, breite: float) -> str:\n    """Fläche — 面积 📦✨."""\n'
               '    return f"{länge * breite:.3f} m² 🚀"\n'),
    "javascript": ("const sumCents", "export const grüße = (name) => `¡Hola, ${name}! 👋 你好`;\n\n",
                   "export const grüße = (name) => `¡Hola, ${name}! 👋 こんにちは`;\n"),
    "typescript": ("export enum LogLevel {", "export const 挨拶 = (名前: string): string => `こんにちは、${名前} 🎌`;\n\n",
                   "export const 挨拶 = (名前: string): string => `やあ、${名前} 🎌`;\n"),
    "rust": ("/// Evaluate an expression", 'pub fn größe(x: f64) -> String {\n    format!("{} m² 📦", x)\n}\n\n',
             'pub fn größe(x: f64) -> String {\n    format!("{} m² 📦 面积", x)\n}\n'),
    "go": ("// Drain leases", '// Größe formats an area: “m²”.\nfunc Größe(x float64) string {\n'
           '\treturn fmt.Sprintf("%v m² 📦", x)\n}\n\n',
           'func Größe(x float64) string {\n\treturn fmt.Sprintf("%v m² 📦 面积", x)\n}\n'),
}


def with_unicode(lang: str) -> str:
    at, added, _ = UNICODE[lang]
    assert SRC[lang].count(at) == 1
    return SRC[lang].replace(at, added + at)


@pytest.mark.parametrize("lang", LANGS)
def test_non_ascii_identifiers_strings_cjk_emoji(lang):
    _, added, new = UNICODE[lang]
    text = with_unicode(lang)
    old = added.rstrip("\n") + "\n"
    if lang == "go":                                    # the snippet has no comment: the file's is kept
        old = old[old.index("func "):]
    assert text.count(old) == 1
    assert ok(text, new, lang) == text.replace(old, new)
    assert ok(text, snippet_for(lang), lang) == expected(lang, text)   # an ASCII edit in a non-ASCII file


# --- every refusal the merge gives: one line, naming the fragment or definition -----------------

PY, GO, JS = SRC["python"], SRC["go"], SRC["javascript"]
REFUSALS = [
    ("nul-in-snippet", PY, "def f():\x00\n    pass\n", "python", "binary data (NUL bytes)"),
    ("nul-in-file", PY.replace("CURRENCY", "CURR\x00ENCY", 1), snippet_for("python"), "python", "binary data"),
    ("lone-surrogate", PY, "# ...\n    x = '\udcff'\n", "python", "not valid Unicode"),
    ("file-too-large", "x = 1\n" * (MAX_BYTES // 6 + 1), "x = 2\n", "python", "file is larger than 2 MB"),
    ("snippet-too-large", PY, "x = 1\n" * (MAX_BYTES // 6 + 1), "python", "snippet is larger than 2 MB"),
    ("no-grammar", PY, snippet_for("python"), "cobol", "no grammar for language 'cobol'"),
    ("empty", PY, "", "python", "empty snippet"),
    ("whitespace-only", PY, " \n\t\n\n", "python", "empty snippet"),
    ("markers-only", GO, "// ... existing code ...\n\n\t// ...\n/* ... rest of the file ... */\n", "go",
     "snippet has only marker lines"),
    ("parses-worse", JS, "// ...\n  hasAccount(code) {\n    return this.accounts.has(code;\n  }\n// ...\n",
     "javascript", "the result does not parse as well as the original"),
    ("same-lines-twice", PY, f"{M['python']}\n{EDIT['python'][1]}{M['python']}\n{EDIT['python'][1]}", "python",
     "two parts of the snippet edit the same lines"),
    ("anchored-then-same-def", PY, "# ...\n"
     "        for res in [r for r in self.reservations if r.order_id == order_id]:\n"
     "            self.locations[res.location].take(res.sku, res.quantity)\n# ...\n"
     "    def ship(self, order_id: str) -> list[tuple[str, int]]:\n        return []\n", "python",
     "two parts of the snippet edit the same lines"),
    ("new-def-between-markers", PY, f"{M['python']}\ndef brand_new() -> None:\n    pass\n{M['python']}\n", "python",
     "cannot place new definition `brand_new`: no anchor"),
    ("first-line-not-in-file", GO, "// ...\n\tq.closed = true\n\tq.mu.Lock()\n// ...\n", "go",
     "fragment `q.closed = true`: its first line is not in the file"),
    ("last-line-not-in-file", JS, "// ...\n  hasAccount(code) {\n    return this.accounts.has(code);\n  }\n"
     "  accountCount() {\n", "javascript", "fragment `hasAccount(code) {`: its last line is not in the file"),
    ("fragment-ambiguous", GO, "// ...\n\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n// ...\n", "go",
     "fragment `q.mu.Lock()`: matches more than one place in the file"),
    ("definition-ambiguous", PY, "    def __init__(self) -> None:\n        pass\n", "python",
     "definition `__init__` matches more than one place in the file"),
    ("definition-elsewhere", PY, "def free_space(self) -> int:\n    return 0\n", "python",
     "definition `free_space` is at a different place or indentation in the file"),
    ("class-omits-members", PY, "@dataclass\nclass Location:\n    code: str\n    capacity: int = 2000\n\n"
     "    def quantity(self, sku: str) -> int:\n        return self.stock.get(sku, 0)\n", "python",
     "`Location` in the snippet omits `free_space`, `put`, `take` of the file"),
    ("spaces-for-tabs", GO, "func (q *Queue) Ack(token string) error {\n    q.mu.Lock()\n      defer q.mu.Unlock()\n"
     "    return nil\n}\n", "go", "snippet is indented with spaces (4) but the file uses tabs"),
    ("indent-unit", JS, "    hasAccount(code) {\n        return this.accounts.has(code);\n    }\n", "javascript",
     "snippet indents by 4 spaces but the file by 2"),
]


@pytest.mark.parametrize("original,snippet,language,reason", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_refusal(original, snippet, language, reason):
    assert reason in refused(original, snippet, language)


@pytest.mark.parametrize("language", ["typescript", "javascript"])
def test_a_formatters_deeper_step_is_not_another_unit(language):
    """A 2-space file; the snippet's new lines step by 4 after `{` where a formatter puts an object
    type inside a conditional type (@effect/io's Config.ts, prettier), while the file's lines it shows
    keep their own indentation: merged as written.  The same snippet with those lines re-indented in
    4-space steps is refused (the existing `indent-unit` case)."""
    head = ["export function pick(value) {", "  if (value) {", "    return value;", "  }", "  return null;", "}", ""]
    typed = ["export type Pick<T> = T extends string", "  ? {", "      kind: 'text'", "    }",
             "  : T extends number", "    ? {", "        kind: 'number'", "      }", "    : never;"] \
        if language == "typescript" else ["export const pick2 = (v) => typeof v === 'string'", "  ? {",
                                          "      kind: 'text',", "    }", "  : typeof v === 'number'", "    ? {",
                                          "        kind: 'number',", "      }", "    : null;"]
    original = "\n".join(head + ["export const other = 1;"]) + "\n"
    snippet = "\n".join(["// ... existing code ..."] + head[1:5] + ["}", ""] + typed + ["// ... existing code ..."]) + "\n"
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    assert r.text == "\n".join(head + typed + ["", "export const other = 1;"]) + "\n"
    wider = "\n".join(" " * 2 * (len(l) - len(l.lstrip(" "))) + l.lstrip(" ") for l in snippet.split("\n"))
    assert "spaces but the file by 2" in refused(original, wider, language)


def test_first_line_refusal_names_the_fragment_after_the_previous_one():
    # fragments must come in file order: the second one's head lies before the first one's region
    snippet = "# ...\ndef stock_report(inv: Inventory, today: date | None = None) -> str:\n" \
              '    """A plain-text table: SKU, name, on hand, reserved, available."""\n# ...\n' \
              "def group_by_tag(items: Iterable[Item]) -> dict[str, list[Item]]:\n" \
              "    groups: dict[str, list[Item]] = defaultdict(list)\n# ...\n"
    reason = refused(PY, snippet, "python")
    assert reason.startswith("fragment `def group_by_tag(") and "after the previous fragment" in reason


# --- a snippet written in another language: a clear refusal --------------------------------------

OTHER_LANGUAGE = [
    ("rust-into-python", "python", "pub fn group_by_tag(items: &[Item]) -> HashMap<String, Vec<Item>> {\n"
     "    HashMap::new()\n}\n"),
    ("python-into-go", "go", "# ... existing code ...\ndef Drain(q, fn):\n    return 0, 0\n"),
    ("go-into-rust", "rust", "// ...\nfunc eval(e *Expr) float64 {\n\treturn 0\n}\n"),
    ("python-into-javascript", "javascript", "def fingerprint(ledger):\n    return ''\n"),
    ("typescript-into-javascript", "javascript", "export function fingerprint(ledger: Ledger): string {\n"
     "  return createHash(\"sha256\").digest(\"hex\");\n}\n"),
    ("javascript-into-python", "python", "export function stock_report(inv) {\n  return '';\n}\n"),
]


@pytest.mark.parametrize("lang,snippet", [o[1:] for o in OTHER_LANGUAGE], ids=[o[0] for o in OTHER_LANGUAGE])
def test_snippet_in_another_language_is_refused(lang, snippet):
    reason = refused(SRC[lang], snippet, lang)
    first = next(l for l in snippet.split("\n") if l.strip() and not l.startswith(("#", "//")))
    assert f"fragment `{first.strip()[:40]}" in reason and "not in the file" in reason


# --- bad input through the CLI: refused, file untouched (bytes, mtime, no temp file) ------------

def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "redraft", "apply", *map(str, args)], cwd=ROOT,
                          capture_output=True, input=stdin, timeout=60)


BIG = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(300_000)).encode("utf-8")   # ~12 MB

BAD = [
    ("empty-snippet", SRC["python"].encode(), b"", "empty snippet"),
    ("markers-only", SRC["python"].encode(), b"# ... existing code ...\n# ...\n", "only marker lines"),
    ("nul-snippet", SRC["python"].encode(), b"def f():\n    return b'\x00'\n", "binary data (NUL bytes)"),
    ("nul-file", SRC["python"].encode().replace(b"CURRENCY", b"CUR\x00RENCY", 1), snippet_for("python").encode(),
     "binary data (NUL bytes)"),
    ("invalid-utf8-snippet", SRC["python"].encode(), b"def f():\n    return '\xff\xfe'\n", "not UTF-8 text"),
    ("invalid-utf8-file", SRC["python"].encode().replace(b'"EUR"', b'"\xa4"'), snippet_for("python").encode(),
     "not UTF-8 text"),
    ("png-as-snippet", SRC["python"].encode(), b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
     "not UTF-8 text"),
    ("10mb-file", BIG[:10 * 1024 * 1024 + 7].rsplit(b"\n", 1)[0] + b"\n", b"def f1(x):\n    return 0\n",
     "file is larger than 2 MB"),
    ("rust-snippet", SRC["python"].encode(), b"pub fn total(items: &[Item]) -> f64 {\n    0.0\n}\n",
     "fragment `pub fn total(items: &[Item]) -> f64 {`: its first line is not in the file"),
]


@pytest.mark.parametrize("in_place", [True, False], ids=["in-place", "stdout"])
@pytest.mark.parametrize("original,snippet,words", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_cli_bad_input_refused_and_file_untouched(tmp_path, original, snippet, words, in_place):
    f, s = tmp_path / "target.py", tmp_path / "snippet.txt"
    f.write_bytes(original)
    s.write_bytes(snippet)
    os.utime(f, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))
    before = f.stat()
    t0 = time.monotonic()
    p = _cli(f, s, *(["--in-place"] if in_place else []))
    elapsed = time.monotonic() - t0
    err = p.stderr.decode("utf-8")
    assert p.returncode == 1 and p.stdout == b"", err
    assert err.startswith("redraft apply: refused: ") and words in err and err.count("\n") == 1, err
    assert f.read_bytes() == original and f.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(x.name for x in tmp_path.iterdir()) == ["snippet.txt", "target.py"]
    if len(original) > MAX_BYTES:
        assert elapsed < 2.0, elapsed


DECODABLE = [b for b in BAD if b"\xff" not in b[2] and b"\x89" not in b[2] and b"\xa4" not in b[1]]


@pytest.mark.parametrize("original,snippet,words", [b[1:] for b in DECODABLE], ids=[b[0] for b in DECODABLE])
def test_merge_bad_input_gives_the_same_reason(original, snippet, words):
    t0 = time.monotonic()
    assert words in refused(original.decode("utf-8"), snippet.decode("utf-8"), "python")
    assert time.monotonic() - t0 < 2.0


@pytest.mark.parametrize("raw", [b"def f():\n    return '\xff\xfe'\n", b"\x89PNG\r\n\x1a\n\x00\x00IHDR"])
def test_merge_undecodable_bytes_via_surrogateescape_refused(raw):
    """What a caller that decodes with errors="surrogateescape" hands over: a clear refusal."""
    reason = refused(SRC["python"], raw.decode("utf-8", "surrogateescape"), "python")
    assert "binary data" in reason or "not valid Unicode" in reason


def test_cli_in_place_success_keeps_crlf_non_ascii_and_leaves_no_temp_file(tmp_path):
    text = with_unicode("go").replace("\n", "\r\n").rstrip("\r\n")
    f, s = tmp_path / "queue.go", tmp_path / "snippet.txt"
    f.write_bytes(text.encode("utf-8"))
    s.write_bytes(snippet_for("go").replace("\t", "    ").encode("utf-8"))
    p = _cli(f, s, "--in-place")
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b"", p.stderr
    assert f.read_bytes() == expected("go", text.replace("\r\n", "\n")).replace("\n", "\r\n").encode("utf-8")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["queue.go", "snippet.txt"]


def test_cli_ten_megabyte_snippet_refused(tmp_path):
    f, s = tmp_path / "inventory.py", tmp_path / "snippet.txt"
    f.write_bytes(SRC["python"].encode())
    s.write_bytes(BIG[:10 * 1024 * 1024])
    t0 = time.monotonic()
    p = _cli(f, s, "--in-place")
    assert time.monotonic() - t0 < 2.0
    assert p.returncode == 1 and b"snippet is larger than 2 MB" in p.stderr
    assert f.read_bytes() == SRC["python"].encode()


def test_ambiguous_fragment_that_ends_its_block_is_refused_not_guessed():
    """`q.mu.Lock()` opens nine methods of queue.go: a fragment starting there whose last line is new
    cannot tell which one it means, so the merge must refuse rather than pick one (and drop its lines)."""
    reason = refused(GO, "// ...\n\tq.mu.Lock()\n\tq.closed = true\n// ...\n", "go")
    assert "fragment `q.mu.Lock()`" in reason and "more than one place" in reason
