"""Per-language held-out line completion (issue 27): the rest of a line, cut mid-line, in held-out
files of Python, JavaScript, TypeScript, Rust and Go, through the engine every front door uses
(`Engine.complete`, syntax-aware planning and truncation on).

    .venv/bin/python bench/lang_lines.py --data DIR [--model DIR] [--effort low] [--per-lang 100]
                                         [--langs python,javascript,typescript,rust,go] [--seed 0]
                                         [--cut rest|lines|span] [--threads 0] [--precision auto]
                                         [--json OUT]

DIR holds heldout.jsonl.gz: `{"path", "text", "lang"}` per line (model/corpus.py's records; one
without "lang" is Python, or the language of its suffix). Cases are picked deterministically from
`--seed`: files over 200 KB are skipped, at most 2 cases per file (a few large files must not
dominate), up to `--per-lang` per language. A case is a line with at least 12 non-blank characters
that does not start inside a comment or a multi-line string (docstrings, block comments), cut after
its indentation and at least 4 characters into the code, after a space, `(`, `[`, `{`, `.`, `,`,
`=` or `:` (not inside an operator such as `::` or `==`, nor in or just before a comment), with
at least one letter or digit left in the rest. The document is the file with the rest of that line
deleted (its newline and the lines after it kept), the cursor at the cut; the expected answer is
the rest. `--cut lines` removes whole lines instead (from such a line's first character of code
through the end of it and of 1-4 more lines, the last newline kept: the cursor on a fresh indented
line), `--cut span` a random span of 1-120 characters from the cut point, across lines too. TypeScript's .d.ts files count as TypeScript; where a language's cases mix them with code
files, a second row gives the code files alone.
Reports per language:
  exact         completion.strip() == expected.strip()  (exact raw: the texts themselves)
  edit sim      mean difflib ratio of the stripped completion and expected rest
  empty         no answer: the planner declined, or the completion is blank
  parse         the file with the completion in place of the rest has no more parse errors than
                the original file (tree-sitter ERROR and MISSING nodes, redraft.engine.syntax's trees;
                for Python one more where CPython does not compile it); over every case (an empty
                answer inserts nothing), and over the non-empty answers
  p50 ms        wall time of `Engine.complete` (declined requests, which call no model, left out)
Caveats: one run per case (the request's seed 0); the held-out split is the corpus's path hash,
which keeps a file out of training but not near copies of it (vendored or rebuilt modules, other
versions of a package); the first completion (warm-up) is not timed; each case is another
document (the context cache reuses at most a prefix shared by the two cases of one file); on a
shared machine the latencies are only as good as its load.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import difflib
import json
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.latency import pct  # noqa: E402
from redraft.engine.syntax import SyntaxTree, encode, language_for  # noqa: E402
from redraft.engine.syntax.languages import COMMENT_TYPES, STRING_TYPES  # noqa: E402
from redraft.engine.syntax.plan import in_comment  # noqa: E402
from redraft.model.data import read_split  # noqa: E402

LANGS = ("python", "javascript", "typescript", "rust", "go")
SUFFIX_LANG = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
               ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".rs": "rust", ".go": "go"}
MAX_FILE_BYTES = 200_000
PER_FILE = 2
MIN_NONBLANK = 12
MIN_INTO_CODE = 4
BOUNDARY = " ([{.,=:"
CONTINUES_OPERATOR = "=:.>&|<"   # a cut before one of these would split `==`, `::`, `..`, `=>` ...
COMMENT_STARTS = {"python": ("#",)}  # the others: // and /* (the tree decides the rest of a block comment)


@dataclass
class Case:
    lang: str            # python | javascript | typescript | rust | go
    language_id: str     # the LSP languageId sent (typescriptreact for .tsx)
    path: str
    line: int            # 1-based
    doc: str             # the file with the rest of the line deleted
    cursor: int          # code point offset of the cut
    expected: str        # the deleted rest of the line

    @property
    def uri(self) -> str:
        return "file:///x" + Path(self.path).suffix


def lang_of(rec: dict) -> str | None:
    lang = rec.get("lang")
    if lang is None:
        return SUFFIX_LANG.get(Path(rec["path"]).suffix, "python")
    return lang if lang in LANGS else None


def language_id(lang: str, path: str) -> str:
    return "typescriptreact" if path.endswith(".tsx") else lang


def load_files(data: Path, langs: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """(path, text) per language, files over MAX_FILE_BYTES left out, sorted by path."""
    out: dict[str, list[tuple[str, str]]] = {lang: [] for lang in langs}
    for rec in read_split(data, "heldout"):
        lang = lang_of(rec)
        if lang in out and len(encode(rec["text"])) <= MAX_FILE_BYTES:
            out[lang].append((rec["path"], rec["text"]))
    return {lang: sorted(files) for lang, files in out.items()}


def _text_node(st: SyntaxTree, byte: int, row: int) -> bool:
    """Is the byte inside a comment, or inside a string that spans more than this row?"""
    node = st.root.descendant_for_byte_range(byte, byte + 1)
    while node is not None:
        if node.type in COMMENT_TYPES or node.type.endswith("comment"):
            return True
        if node.type in STRING_TYPES and (node.start_point[0] < row or node.end_point[0] > row):
            return True
        node = node.parent
    return False


def cut_points(line: str) -> list[int]:
    """Cuts in a line (code point offsets) that follow the rules in the module docstring."""
    indent = len(line) - len(line.lstrip(" \t"))
    out = []
    for i in range(indent + MIN_INTO_CODE, len(line)):
        prev, nxt = line[i - 1], line[i]
        if prev not in BOUNDARY or nxt.isspace() or nxt in CONTINUES_OPERATOR:
            continue
        if prev == "." and (line[i - 2].isdigit() or nxt.isdigit()):
            continue  # 1.5
        if any(c.isalnum() for c in line[i:]):
            out.append(i)
    return out


def file_cuts(path: str, text: str, lang: str) -> list[tuple[int, int, list[int]]]:
    """(line index, line start offset, cut points) of every eligible line of a file."""
    st = SyntaxTree.parse(language_for(language_id(lang, path)), text)
    out, start, byte = [], 0, 0
    for row, raw in enumerate(text.split("\n")):
        line = raw[:-1] if raw.endswith("\r") else raw
        code = line.strip()
        comment = code.startswith(COMMENT_STARTS.get(lang, ("//", "/*")))
        if sum(not c.isspace() for c in code) >= MIN_NONBLANK and not comment:
            indent = len(line) - len(line.lstrip(" \t"))
            if not _text_node(st, byte + len(encode(line[:indent])), row):
                at = [(c, byte + len(encode(line[:c]))) for c in cut_points(line)]
                cuts = [c for c, b in at if not in_comment(st, b) and not _text_node(st, b, row)]
                if cuts:
                    out.append((row, start, cuts))
        start += len(raw) + 1
        byte += len(encode(raw)) + 1
    return out


def hole(text: str, row_start: int, cut: int, kind: str, rng: random.Random) -> tuple[int, int]:
    """(start, end) offsets of the text a case removes, from a cut in an eligible line (row_start:
    its first offset): the rest of the line ("rest"); whole lines from the first line's code on
    ("lines": that line and 1-4 more, the last one's newline kept); a random span of 1-120
    characters ("span", possibly across lines)."""
    def line_end(at: int) -> int:
        e = text.find("\n", at)
        e = len(text) if e < 0 else e
        return e - text[at:e].endswith("\r")
    if kind == "rest":
        return cut, line_end(cut)
    if kind == "lines":
        line = text[row_start:line_end(row_start)]
        start, end = row_start + len(line) - len(line.lstrip(" \t")), line_end(row_start)
        for _ in range(rng.randint(1, 4)):
            if end >= len(text):
                break
            end = line_end(end + 1)
        return start, end
    if kind == "span":
        return cut, min(len(text), cut + rng.randint(1, 120))
    raise ValueError(f"unknown cut {kind!r}; choose from {', '.join(CUTS)}")


CUTS = ("rest", "lines", "span")


def pick_cases(files: dict[str, list[tuple[str, str]]], per_lang: int, seed: int = 0,
               cut_kind: str = "rest") -> list[Case]:
    """Up to per_lang cases per language, at most PER_FILE per file, the same for the same seed;
    `cut_kind` says what is removed (hole())."""
    cases = []
    for lang, pairs in files.items():
        rng = random.Random(f"{seed}/{lang}")
        order = list(range(len(pairs)))
        rng.shuffle(order)
        picked = []
        for k in order:
            if len(picked) >= per_lang:
                break
            path, text = pairs[k]
            lines = file_cuts(path, text, lang)
            for row, start, cuts in sorted(rng.sample(lines, min(PER_FILE, len(lines), per_lang - len(picked)))):
                cut, end = hole(text, start, start + rng.choice(cuts), cut_kind, rng)
                picked.append(Case(lang, language_id(lang, path), path, row + 1, text[:cut] + text[end:], cut,
                                   text[cut:end]))
        cases += picked
    return cases


def parse_errors(language_id: str, text: str) -> int:
    """Tree-sitter ERROR and MISSING nodes in the whole text, plus one where Python does not compile
    (the grammar accepts what CPython rejects; the pipeline's truncation checks both the same way)."""
    n = SyntaxTree.parse(language_for(language_id), text).error_count()
    if language_id == "python":
        try:
            compile(text, "<case>", "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
        except (SyntaxError, ValueError):
            n += 1
    return n


def parse_pass(case: Case, got: str) -> bool:
    """Does the document with `got` inserted have no more parse errors than the original file? (The
    whole file: the pipeline's check window is cut from the broken document, and the expected rest
    does not always parse in it.)"""
    at = case.cursor
    return (parse_errors(case.language_id, case.doc[:at] + got + case.doc[at:])
            <= parse_errors(case.language_id, case.doc[:at] + case.expected + case.doc[at:]))


def score(case: Case, got: str) -> dict:
    return {"exact": got.strip() == case.expected.strip(), "exact_raw": got == case.expected,
            "sim": difflib.SequenceMatcher(None, got.strip(), case.expected.strip()).ratio(),
            "empty": not got.strip(), "parse": parse_pass(case, got)}


def summarise(rows: list[dict]) -> dict:
    """Figures of one language's rows (score() + "ms", "declined", "path")."""
    n = len(rows)
    mean = lambda key, rs=rows: sum(r[key] for r in rs) / max(len(rs), 1)  # noqa: E731
    answered = [r for r in rows if not r["empty"]]
    ms = [r["ms"] for r in rows if not r["declined"]]
    return {"n": n, "exact": mean("exact"), "exact_raw": mean("exact_raw"), "edit_sim": mean("sim"),
            "empty": mean("empty"), "declined": sum(r["declined"] for r in rows), "parse": mean("parse"),
            "parse_answered": mean("parse", answered), "p50_ms": pct(ms, 0.5) if ms else None,
            "dts": sum(r["path"].endswith(".d.ts") for r in rows)}


def summarise_all(rows: list[dict], langs: tuple[str, ...]) -> dict[str, dict]:
    """Figures per language, and for one whose cases mix .d.ts and code files, the code files alone."""
    out = {}
    for lang in langs:
        mine = [r for r in rows if r["lang"] == lang]
        code = [r for r in mine if not r["path"].endswith(".d.ts")]
        if mine:
            out[lang] = summarise(mine)
        if 0 < len(code) < len(mine):
            out[f"{lang} (no .d.ts)"] = summarise(code)
    return out


def table(summary: dict[str, dict]) -> str:
    out = ["| language | n | exact | exact raw | edit sim | empty | parse | parse (answered) | p50 ms |",
           "|---|---|---|---|---|---|---|---|---|"]
    for lang, s in summary.items():
        note = f" ({s['dts']} .d.ts)" if s["dts"] else ""
        p50 = f"{s['p50_ms']:.0f}" if s["p50_ms"] is not None else "-"
        out.append(f"| {lang} | {s['n']}{note} | {s['exact']:.1%} | {s['exact_raw']:.1%} | {s['edit_sim']:.3f} | "
                   f"{s['empty']:.1%} | {s['parse']:.1%} | {s['parse_answered']:.1%} | {p50} |")
    return "\n".join(out)


def run(engine, cases: list[Case], effort: str) -> list[dict]:
    from redraft.engine.pipeline import Request
    rows = []
    for c in cases:
        req = Request(text=c.doc, offset=c.cursor, uri=c.uri, effort=effort, language_id=c.language_id)
        t = time.perf_counter()
        comp = engine.complete(req)
        ms = (time.perf_counter() - t) * 1000
        got = comp.text if comp is not None else ""
        case = {k: v for k, v in asdict(c).items() if k != "doc"}
        rows.append({**case, "got": got, "ms": ms, "declined": comp is None, **score(c, got)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--model")
    ap.add_argument("--effort", default="low")
    ap.add_argument("--per-lang", type=int, default=100)
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cut", default="rest", choices=CUTS,
                    help="what a case removes: the rest of the line (default), whole lines, or a random span")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--precision", default="auto")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    from redraft.engine.pipeline import Engine, Request
    from redraft.model.checkpoint import DEFAULT_DIR
    from redraft.model.precision import cpu_info

    langs = tuple(x.strip() for x in a.langs.split(",") if x.strip())
    if set(langs) - set(LANGS):
        ap.error(f"unknown language(s) {sorted(set(langs) - set(LANGS))}; choose from {','.join(LANGS)}")
    files = load_files(a.data, langs)
    cases = pick_cases(files, a.per_lang, a.seed, a.cut)
    engine = Engine(a.model, threads=a.threads or 2, precision=a.precision)
    if cases:  # warm-up, not timed (the first call faults the weights in)
        engine.complete(Request(text=cases[0].doc, offset=cases[0].cursor, uri="file:///warm", effort=a.effort,
                                language_id=cases[0].language_id))
    rows = run(engine, cases, a.effort)
    summary = summarise_all(rows, langs)
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    commit = git.stdout.strip()
    meta = {"command": " ".join(sys.argv), "cpu": cpu_info().summary(), "commit": commit,
            "date": datetime.date.today().isoformat(), "model": str(Path(a.model) if a.model else DEFAULT_DIR),
            "data": str(a.data), "effort": a.effort, "precision": engine.precision, "threads": a.threads or 2,
            "seed": a.seed, "cut": a.cut, "per_lang": a.per_lang, "files": {lang: len(f) for lang, f in files.items()}}
    print(table(summary))
    print(json.dumps({k: meta[k] for k in ("cpu", "commit", "date", "model", "precision", "threads", "cut", "files")}))
    if a.json:
        a.json.write_text(json.dumps({**meta, "languages": summary, "cases": rows}, indent=1))


if __name__ == "__main__":
    main()
