"""Every snippet shape of `redraft.engine.apply.merge` in each of its five languages, on full-size files
(tests/apply_fixtures, plus the VS Code extension and stdlib modules): lazy fragments between markers,
a complete new version of one definition, a new definition placed by a marker, deletion inside a
fragment versus omission between fragments, and property tests over random function-level edits.
Each expected file is built from the fixture by explicit replacements that must occur exactly once."""
from __future__ import annotations

import ast
import random
import shlex
from pathlib import Path

import pytest

from redraft.engine.apply import merge
from redraft.engine.syntax.languages import language_for

ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).resolve().parent / "apply_fixtures"
FILES = {"python": "inventory.py", "javascript": "ledger.js", "typescript": "router.ts", "rust": "parser.rs",
         "go": "queue.go"}
SRC = {lang: (FIX / name).read_text(encoding="utf-8") for lang, name in FILES.items()}
LANGS = list(FILES)
MARK = {"python": "# ... existing code ...", "javascript": "// ... existing code ...",
        "typescript": "// ... existing code ...", "rust": "// ... existing code ...", "go": "// ... existing code ..."}


def ok(original: str, snippet: str, language: str) -> str:
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


def edited(lang: str, *pairs: tuple[str, str]) -> str:
    text = SRC[lang]
    for old, new in pairs:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    return text


def _sections(text: str) -> dict[str, str]:
    out, name = {}, None
    for line in text.split("\n"):
        if line.startswith("=== ") and line.endswith(" ==="):
            name = line[4:-4]
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return {k: "\n".join(v).rstrip("\n") + "\n" for k, v in out.items()}


SNIPPETS = _sections((FIX / "snippets.txt").read_text(encoding="utf-8"))


def test_fixtures_parse_cleanly_and_are_full_size():
    from redraft.engine.apply.definitions import _error_count
    for lang, text in SRC.items():
        assert _error_count(language_for(lang), text) == 0, lang
        assert 150 <= len(text.splitlines()) <= 400, lang
    assert "\t" in SRC["go"] and "\n    " not in SRC["go"]


# --- shape 1: several fragments between markers (leading, trailing, indented inside bodies) ------

LAZY = {  # the edits each `lazy LANG` snippet makes
    "python": [
        ("        self.reservations = [r for r in self.reservations if r.order_id != order_id]\n",
         "        self.reservations = [r for r in self.reservations if r.order_id != order_id]\n"
         '        log.info("released %s", order_id)\n'),
        ("        self.release(order_id)\n        return shipped\n",
         '        self.release(order_id)\n        log.info("shipped %s", order_id)\n        return shipped\n'),
        ('lines.append("  ".join(',
         'lines.append(" | ".join('),
    ],
    "javascript": [
        ("date < this.closedBefore",
         "date <= this.closedBefore"),
        ("lines: parsed };\n",
         "lines: parsed };\n    entry.postedAt = Date.now();\n"),
        ('"period close"',
         "`period close ${date}`"),
    ],
    "typescript": [
        ("  body?: unknown;\n}",
         "  body?: unknown;\n  remoteAddress?: string;\n}"),
        ('return text(500, "internal error");',
         "return text(500, `internal error: ${String(err)}`);"),
    ],
    "rust": [
        ("            Op::Div => a / b,\n",
         "            Op::Div if b == 0.0 => f64::NAN,\n            Op::Div => a / b,\n"),
        ("        }\n        self.primary()\n",
         "        }\n        if let Some(Token::Plus) = self.peek() {\n            self.bump();\n"
         "            return self.unary();\n        }\n        self.primary()\n"),
    ],
    "go": [
        ("\t\tmsg = cause.Error()",
         '\t\tmsg = "nack: " + cause.Error()'),
        ("if errors.Is(err, ErrEmpty) {",
         "if err != nil {"),
    ],
}


@pytest.mark.parametrize("lang", LANGS)
def test_lazy_fragments_between_markers(lang):
    assert ok(SRC[lang], SNIPPETS[f"lazy {lang}"], lang) == edited(lang, *LAZY[lang])


def test_lazy_fragments_in_the_vscode_extension():
    """A real file (edited by others: the functions are found, not hard-coded)."""
    src = (ROOT / "editors/vscode/src/extension.ts").read_text(encoding="utf-8")
    lines = src.split("\n")
    heads = [i for i, l in enumerate(lines) if l.startswith(("function ", "async function ")) and l.endswith("{")
             and lines[i + 1].startswith("  ") and not lines[i + 1].startswith("   ")
             and src.count(l + "\n" + lines[i + 1] + "\n") == 1]
    assert len(heads) >= 3
    for i in heads[:3]:
        snippet = f"// ... existing code ...\n{lines[i]}\n  // ... existing code ...\n}}\n// ... existing code ...\n"
        assert ok(src, snippet, "typescript") == src                    # anchors only: nothing changes
        snippet = f"// ...\n{lines[i]}\n  console.error('edited');\n{lines[i + 1]}\n  // ... existing code ...\n"
        new = lines[:i + 1] + ["  console.error('edited');"] + lines[i + 1:]
        assert ok(src, snippet, "typescript") == "\n".join(new)


# --- shape 2: a complete new version of one definition, no markers ---------------------------

FULL = {  # (lang, kind): where the replaced definition starts in the fixture, and what follows it
    ("python", "function"): ("def group_by_tag(", "\n\n\ndef stock_report("),
    ("python", "method"): ("    def free_space(", "\n\n    def put("),
    ("python", "class"): ("@dataclass\nclass Reservation:", "\n\n\n@dataclass\nclass Location:"),
    ("javascript", "function"): ("export function fingerprint(", "\n\n/**\n * Close a period"),
    ("javascript", "arrow"): ("export const formatCents = ", "\n\nconst sumCents"),
    ("javascript", "method"): ("  balance(code) {", "\n\n  /** Rows of"),
    ("javascript", "class"): ("export class LedgerError", "\n\n/**\n * A ledger:"),
    ("typescript", "function"): ("export function parseQuery(", None),
    ("typescript", "generic"): ("export function timing<", "\n\nexport function parseQuery("),
    ("typescript", "method"): ("  describe(): string[] {", "\n}\n\n/** Middleware that rejects"),
    ("typescript", "enum"): ("export enum LogLevel {", "\n\nconst NOT_FOUND"),
    ("rust", "function"): ("/// Evaluate an expression with", "\n\n#[cfg(test)]"),
    ("rust", "method"): ("    fn peek(&self)", "\n\n    fn offset(&self)"),
    ("rust", "trait impl"): ("impl fmt::Display for ParseError {", "\n\nimpl std::error::Error"),
    ("rust", "struct"): ("/// Where parsing failed", "\n\nimpl ParseError {"),
    ("go", "function"): ("func Drain(", None),
    ("go", "method"): ("func (q *Queue) Ack(", "\n\n// Nack gives"),
    ("go", "struct"): ("// Stats counts jobs", "\n\ntype jobHeap"),
}


@pytest.mark.parametrize("lang,kind", list(FULL), ids=[f"{l}-{k}" for l, k in FULL])
def test_complete_new_version_replaces_only_that_definition(lang, kind):
    start, stop = FULL[(lang, kind)]
    new = SNIPPETS[f"full {lang} {kind}"]
    text = SRC[lang]
    assert text.count(start) == 1 and (stop is None or text.count(stop) == 1)
    i = text.index(start)
    j = text.index(stop, i) if stop else len(text.rstrip("\n"))
    assert ok(text, new, lang) == text[:i] + new.rstrip("\n") + text[j:]


# --- shape 3: a new definition whose place a marker (and its neighbour) shows ---------------

NEW = {  # (lang, kind): the edits each `new LANG KIND` snippet makes
    ("python", "after function"): [
        ("    return dict(groups)\n",
         "    return dict(groups)\n\n\ndef all_tags(items: Iterable[Item]) -> set[str]:\n"
         "    return {tag for item in items for tag in item.tags}\n"),
    ],
    ("python", "method in class"): [
        ("            self.stock[sku] = have - quantity\n",
         "            self.stock[sku] = have - quantity\n\n    def is_empty(self) -> bool:\n"
         "        return not self.stock\n"),
    ],
    ("python", "end of file"): [
        ("    _demo()\n",
         "    _demo()\n\n\ndef main() -> None:\n    _demo()\n"),
    ],
    ("javascript", "before function"): [
        ("/**\n * A stable fingerprint",
         "export const isBalanced = (ledger) => ledger.trialBalance().debit === ledger.trialBalance().credit;\n\n"
         "/**\n * A stable fingerprint"),
    ],
    ("javascript", "method in class"): [
        ("    return this.accounts.has(code);\n  }\n",
         "    return this.accounts.has(code);\n  }\n\n  accountCount() {\n    return this.accounts.size;\n  }\n"),
    ],
    ("typescript", "method in class"): [
        ('    return this.add("DELETE", pattern, handler);\n  }\n',
         '    return this.add("DELETE", pattern, handler);\n  }\n\n'
         '  put(pattern: string, handler: Handler<C>): this {\n    return this.add("PUT", pattern, handler);\n  }\n'),
    ],
    ("typescript", "type after interface"): [
        ("export type Params = Record<string, string>;\n",
         "export type Params = Record<string, string>;\n\nexport type Query = Record<string, string | string[]>;\n"),
    ],
    ("rust", "method in impl"): [
        ("        self.pos += 1;\n        t\n    }\n",
         "        self.pos += 1;\n        t\n    }\n\n    fn at_end(&self) -> bool {\n"
         "        self.pos >= self.tokens.len()\n    }\n"),
    ],
    ("rust", "function after function"): [
        ("    Ok(out)\n}\n",
         "    Ok(out)\n}\n\n/// Parse and evaluate in one go.\n"
         "pub fn calc(src: &str, vars: &HashMap<String, f64>) -> Result<f64, String> {\n"
         "    let e = Parser::new(src).and_then(|mut p| p.parse()).map_err(|e| e.to_string())?;\n"
         "    eval(&e, vars)\n}\n"),
    ],
    ("go", "method after method"): [
        ("\tdelete(q.leases, token)\n\treturn nil\n}\n",
         "\tdelete(q.leases, token)\n\treturn nil\n}\n\n// Len is the number of ready jobs.\n"
         "func (q *Queue) Len() int {\n\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n\treturn q.ready.Len()\n}\n"),
    ],
    ("go", "end of file"): [
        ("\t\tdone++\n\t}\n}\n",
         "\t\tdone++\n\t}\n}\n\n// Size is the number of jobs in all states.\nfunc (s Stats) Size() int {\n"
         "\treturn s.Ready + s.Delayed + s.Leased + s.Dead\n}\n"),
    ],
}


@pytest.mark.parametrize("lang,kind", list(NEW), ids=[f"{l}-{k}" for l, k in NEW])
def test_new_definition_goes_where_the_snippet_shows(lang, kind):
    assert ok(SRC[lang], SNIPPETS[f"new {lang} {kind}"], lang) == edited(lang, *NEW[(lang, kind)])


# --- shape 4: deletion is explicit (anchors with nothing between); omission between fragments keeps --

DELETE = [
    ("python", '        """Hold units for an order; the reservation lapses after `days` days."""\n',
     "        if days > MAX_RESERVATION_DAYS:\n"
     '            raise InventoryError(f"reservations last at most {MAX_RESERVATION_DAYS} days")\n',
     "        free = self.available(sku)\n"),
    ("python", "            total += item.unit_price * self.on_hand(sku)\n        return total\n",
     "\n    def purge_expired(self, today: date | None = None) -> int:\n"
     "        keep = [r for r in self.reservations if not r.expired(today)]\n"
     "        dropped = len(self.reservations) - len(keep)\n        self.reservations = keep\n        return dropped\n",
     "\n    @staticmethod\n"),
    ("javascript", "    this.journal.push(entry);\n    this.nextId += 1;\n", '    this.emit("posted", entry);\n',
     "    return id;\n  }\n"),
    ("typescript", '    return this.add("POST", pattern, handler);\n  }\n',
     '\n  delete(pattern: string, handler: Handler<C>): this {\n'
     '    return this.add("DELETE", pattern, handler);\n  }\n',
     "\n  /** Mount another router's routes under `base`. */\n"),
    ("rust", "            Op::Pow => 3,\n        }\n    }\n",
     "\n    pub fn right_assoc(self) -> bool {\n        matches!(self, Op::Pow)\n    }\n",
     "\n    fn apply(self, a: f64, b: f64) -> f64 {\n"),
    ("go", "\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n\tif n < 1 {\n", "\t\tn = 1\n", "\t}\n\tq.maxAttempts = n\n"),
    ("go", "\tq.retry(lease.Job, msg)\n\treturn nil\n}\n",
     "\n// Extend moves a lease's deadline forward.\n"
     "func (q *Queue) Extend(token string, d time.Duration) (time.Time, error) {\n"
     "\tq.mu.Lock()\n\tdefer q.mu.Unlock()\n\tlease, ok := q.leases[token]\n\tif !ok {\n"
     "\t\treturn time.Time{}, ErrUnknownLease\n\t}\n\tlease.Deadline = lease.Deadline.Add(d)\n"
     "\treturn lease.Deadline, nil\n}\n",
     "\n// Stats reports how many jobs are in each state.\n"),
]


@pytest.mark.parametrize("lang,head,gone,tail", DELETE, ids=[f"{d[0]}-{i}" for i, d in enumerate(DELETE)])
def test_deletion_inside_a_fragment_and_omission_between_fragments(lang, head, gone, tail):
    text, m = SRC[lang], MARK[lang]
    assert text.count(head + gone + tail) == 1
    assert ok(text, f"{m}\n{head}{tail}{m}\n", lang) == text.replace(head + gone + tail, head + tail)
    pad = next(l for l in gone.split("\n") if l.strip())
    pad = pad[:len(pad) - len(pad.lstrip())]
    assert ok(text, f"{m}\n{head}{pad}{m}\n{tail}{m}\n", lang) == text    # a marker: the lines are kept


# --- property tests: random function-level edits of real files --------------------------------

FUNC_NODES = {"python": {"function_definition"}, "javascript": {"function_declaration", "method_definition"},
              "typescript": {"function_declaration", "method_definition"}, "rust": {"function_item"},
              "go": {"function_declaration", "method_declaration"}}
MARKERS = {lang: [MARK[lang], "// ...", "/* ... */", "// ... rest of the file ..."] for lang in LANGS}
MARKERS["python"] = [MARK["python"], "# ...", "# ... rest of the file ...", "# ... unchanged ..."]
STATEMENT = {"python": "edited = 1", "javascript": 'console.debug("edited");', "typescript": 'console.debug("edited");',
             "rust": "let _edited = 1;", "go": '_ = "edited"'}


def _functions(lang: str, text: str) -> list[tuple[int, int]]:
    """(first, last) line of every function and method (decorators included), found by tree-sitter."""
    tree = language_for(lang).parser().parse(text.encode("utf-8"))
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in FUNC_NODES[lang]:
            top = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
            if node.end_point[0] - top.start_point[0] >= 2:
                out.append((top.start_point[0], node.end_point[0]))
        stack.extend(node.children)
    return sorted(out)


def _parses(lang: str, text: str) -> bool:
    if lang == "python":
        try:
            ast.parse(text)
        except SyntaxError:
            return False
    return not language_for(lang).parser().parse(text.encode("utf-8")).root_node.has_error


def _random_edit(rng: random.Random, lang: str, body: list[str]) -> list[str] | None:
    """`body` (a function's lines) with one line's literal changed, a statement inserted or a line deleted;
    None when that kind of edit does not apply."""
    inner = [i for i in range(1, len(body) - 1) if body[i].strip()]
    kind = rng.choice(["literal", "insert", "delete"])
    new = list(body)
    if kind == "literal":
        lits = [i for i in inner if any(c.isdigit() for c in body[i])]
        if not lits:
            return None
        i = rng.choice(lits)
        new[i] = (body[i].replace('"', '"~', 1) if body[i].count('"') >= 2 and rng.random() < .5 else
                  next(body[i][:k] + "7" + body[i][k:] for k, c in enumerate(body[i]) if c.isdigit()))
    elif kind == "insert":
        i = rng.randrange(1, len(body))
        ref = body[i] if body[i].strip() and i < len(body) - 1 else body[i - 1]
        new.insert(i, ref[:len(ref) - len(ref.lstrip())] + STATEMENT[lang])
    else:
        if not inner:
            return None
        del new[rng.choice(inner)]
    return None if new == body else new


def _is_subsequence(kept: list[str], out: list[str]) -> bool:
    it = iter(out)
    return all(any(k == o for o in it) for k in kept)


PROPERTY_SOURCES = [pytest.param(lang, SRC[lang], id=lang) for lang in ("python", "javascript", "typescript", "go")] + [
    pytest.param("rust", SRC["rust"], id="rust"),
    pytest.param("rust", SRC["rust"][:SRC["rust"].index("#[cfg(test)]")].rstrip("\n") + "\n", id="rust-without-mod"),
    pytest.param("typescript", (ROOT / "editors/vscode/src/extension.ts").read_text(encoding="utf-8"),
                 id="extension.ts"),
    pytest.param("python", Path(shlex.__file__).read_text(encoding="utf-8"), id="shlex.py"),
]


@pytest.mark.parametrize("lang,src", PROPERTY_SOURCES)
def test_property_random_function_edits(lang, src):
    """A function changed at random (1-3 edits), shown between markers (of several spellings, at column
    0 or at its indentation) or alone: the merge gives the edited file exactly, or a one-line refusal;
    never a lost line outside the function."""
    rng = random.Random(f"redraft-{lang}-{len(src)}")
    lines = src.split("\n")
    funcs = _functions(lang, src)
    tried = applied = 0
    for _ in range(600):
        if tried == 80:
            break
        a, b = rng.choice(funcs)
        body = lines[a:b + 1]
        for _ in range(rng.choice([1, 1, 2, 3])):
            body = _random_edit(rng, lang, body) or body
        if body == lines[a:b + 1]:
            continue
        new_lines = lines[:a] + body + lines[b + 1:]
        if not _parses(lang, "\n".join(new_lines)):
            continue
        tried += 1
        pad = rng.choice(["", body[0][:len(body[0]) - len(body[0].lstrip())]])
        marks = [pad + rng.choice(MARKERS[lang]) for _ in "ab"] if rng.random() < .8 else None
        snippet = "\n".join(marks[:1] + body + marks[1:] if marks else body) + "\n"
        r = merge(src, snippet, lang)
        if r.ok:
            applied += 1
            assert r.text == "\n".join(new_lines), (a, b, snippet)
            assert _is_subsequence(lines[:a] + lines[b + 1:], r.text.split("\n"))
        else:
            assert r.reason and "\n" not in r.reason
    assert tried == 80 and applied >= 72, (tried, applied)


# --- shapes that found merge bugs (all fixed) -----------------------------------------------------

def test_rust_fn_in_test_module_is_the_one_replaced():
    old = "    fn precedence() {\n        let vars = HashMap::new();\n"
    new = "    fn precedence() {\n        let vars: HashMap<String, f64> = HashMap::new();\n"
    snippet = ("    // ... existing code ...\n" + new +
               '        assert_eq!(eval(&parse("1 + 2 * 3"), &vars), Ok(7.0));\n'
               '        assert_eq!(eval(&parse("2 ^ 3 ^ 2"), &vars), Ok(512.0));\n'
               "    }\n    // ... existing code ...\n")
    r = merge(SRC["rust"], snippet, "rust")
    assert "pub fn precedence(self) -> u8 {" in r.text or not r.ok        # the impl Op method is not replaced
    assert r.ok, r.reason
    assert r.text == edited("rust", (old, new))


def test_rust_changed_doc_comment_replaces_the_old_one():
    snippet = SNIPPETS["full rust function"].replace(
        "/// Evaluate an expression with the given variables.", "/// Evaluate an expression; unknown names are errors.")
    text = SRC["rust"]
    i, j = text.index("/// Evaluate an expression with"), text.index("\n\n#[cfg(test)]")
    assert ok(text, snippet, "rust") == text[:i] + snippet.rstrip("\n") + text[j:]


def test_python_nested_function_is_not_confused_with_a_method():
    original = ("class A:\n    def inner(self):\n        return 1\n\n\n"
                "def outer():\n    def inner():\n        return 2\n    return inner()\n")
    r = merge(original, "# ...\n    def inner():\n        return 3\n# ...\n", "python")
    assert not r.ok or r.text == original.replace("return 2", "return 3")


CLASSES = {  # lang: (the class/impl header, its closing line, a new member, the line right after the class)
    "python": ("class Location:", None, "    def is_empty(self) -> bool:\n        return not self.stock",
               "class Inventory:"),
    "javascript": ("export class Ledger extends EventEmitter {", "}",
                   "  accountCount() {\n    return this.accounts.size;\n  }", "/**"),
    "typescript": ("export class Router<C extends object = {}> {", "}",
                   "  size(): number {\n    return this.routes.length;\n  }",
                   "/** Middleware that rejects requests without the given header. */"),
    "rust": ("impl Parser {", "}", "    fn at_end(&self) -> bool {\n        self.pos >= self.tokens.len()\n    }",
             "/// Evaluate an expression with the given variables."),
}


def _member_added(lang: str, where: str) -> list[str]:
    """The fixture's non-blank lines with CLASSES' new member first or last in the class."""
    header, _, new, after = CLASSES[lang]
    lines = [l for l in SRC[lang].split("\n") if l.strip()]
    h = lines.index(header)
    if where == "first":          # Python: after the class's docstring and fields, before its first method
        at = next(i for i in range(h + 1, len(lines)) if lines[i].lstrip().startswith("def ")) \
            if lang == "python" else h + 1
    else:
        at = lines.index(after, h) - (lang != "python")
    return lines[:at] + [l for l in new.split("\n") if l.strip()] + lines[at:]


@pytest.mark.parametrize("lang", list(CLASSES))
def test_new_first_member_then_marker(lang):
    header, close, new, _ = CLASSES[lang]
    marker = "    " + MARK[lang] if lang in ("python", "rust") else "  " + MARK[lang]
    snippet = "\n".join([header, new, "", marker] + ([close] if close else [])) + "\n"
    r = merge(SRC[lang], snippet, lang)
    assert r.ok, r.reason
    assert [l for l in r.text.split("\n") if l.strip()] == _member_added(lang, "first")


@pytest.mark.parametrize("lang", list(CLASSES))
def test_marker_then_new_last_member(lang):
    header, close, new, _ = CLASSES[lang]
    marker = "    " + MARK[lang] if lang in ("python", "rust") else "  " + MARK[lang]
    snippet = "\n".join([header, marker, "", new] + ([close] if close else [])) + "\n"
    r = merge(SRC[lang], snippet, lang)
    assert r.ok, r.reason
    assert [l for l in r.text.split("\n") if l.strip()] == _member_added(lang, "last")
