"""Snippets from other files of the same project in the model's context (issue 42).

One layout, shared by training and inference: the best-matching window of another file, then the
file separator, then the ordinary fill-in-the-middle context (model/data.py `fim_context`):

    <|file_sep|> snippet tokens <|file_sep|> <|fim_suffix|> ... <|fim_prefix|> ... <|fim_middle|> canvas

The snippet is chosen the way editors' assistants choose neighbouring-tab snippets (Copilot,
Cody: Jaccard similarity over windows of other files): the identifiers of the lines before the
cursor's line, split into their words (`parse_header_line` -> parse, header, line), against every
WINDOW-line window of the candidate files; the window with the highest Jaccard similarity wins.
The query leaves out the line being typed, so the snippet stays put while a line is typed and the
context cache re-encodes only the last tokens.

Training (`crossfile_stream`): the corpus's files grouped by package (the first two parts of a
corpus path under its site-packages:
`site-packages/numpy`, `python3.11/json`); a row takes its snippet from a few other
files of its own package. Files of the evaluation packages (bench/repo_packages.txt) and vendored
copies (`_vendor/`: setuptools vendors more_itertools, pip vendors tenacity) are left out.
"""
from __future__ import annotations

import random
import re
from typing import Iterable, Iterator, Sequence

from redraft.model.data import excluded_names, held_back
from redraft.model.tokenizer import Tokenizer

WINDOW = 12            # lines per window of another file
STRIDE = 6             # windows overlap by half
QUERY_LINES = 12       # lines before the cursor's line that make the query
SNIPPET_TOKENS = 96    # the snippet's share of the context at inference
MAX_WINDOWS = 400      # windows scored per request (the nearest files' first ones)

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STOP = frozenset("self cls def class return import from if else elif for while in is not and or none "
                  "true false the try except finally with as pass raise lambda yield let const var "
                  "function fn pub mut struct impl func package type this new".split())


def words(text: str) -> frozenset[str]:
    """The identifiers' words, lower-cased (snake_case and camelCase split), keywords and
    one-letter words left out."""
    out = set()
    for ident in IDENT.findall(text):
        for w in _WORDS.findall(ident):
            w = w.lower()
            if len(w) > 1 and w not in _STOP:
                out.add(w)
    return frozenset(out)


def query_text(text: str, offset: int | None = None, lines: int = QUERY_LINES) -> str:
    """The `lines` lines before the cursor's line (the cursor at `offset`, default the end of
    `text`); read backwards from the cursor, whatever the document's length."""
    end = text.rfind("\n", 0, len(text) if offset is None else offset) + 1
    start = end
    for _ in range(lines):
        if start <= 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return text[start:end]


def windows(text: str, size: int = WINDOW, stride: int = STRIDE) -> Iterator[str]:
    lines = text.splitlines(keepends=True)
    for i in range(0, max(1, len(lines) - size + stride), stride):
        chunk = "".join(lines[i:i + size])
        if chunk.strip():
            yield chunk


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    inter = len(a & b)
    return inter / len(a | b) if inter else 0.0


def worded_windows(text: str) -> list[tuple[str, frozenset[str]]]:
    """A text's windows with their words (what the scoring reads; the engine caches it per file)."""
    return [(w, words(w)) for w in windows(text)]


def best_window(query: frozenset[str], texts: Iterable[str], max_windows: int = MAX_WINDOWS) -> tuple[str, float] | None:
    """The window of `texts` with the highest Jaccard similarity to `query` (ties: the first),
    and its score; None when no window shares a word with the query."""
    if not query:
        return None
    best, best_score, n = None, 0.0, 0
    for text in texts:
        for w in windows(text):
            score = jaccard(query, words(w))
            if score > best_score:
                best, best_score = w, score
            n += 1
            if n >= max_windows:
                return (best, best_score) if best is not None else None
    return (best, best_score) if best is not None else None


def head_ids(tok: Tokenizer, snippet: str | None, max_tokens: int = SNIPPET_TOKENS) -> list[int]:
    """The context's head for a snippet: [file_sep, its first whole lines within max_tokens,
    file_sep]; [] for none."""
    if not snippet or max_tokens < 8:
        return []
    ids: list[int] = []
    for line in snippet.splitlines(keepends=True):
        got = tok.encode(line)
        if len(ids) + len(got) > max_tokens - 2:
            break
        ids += got
    if not ids:
        return []
    return [tok.file_sep_id, *ids, tok.file_sep_id]


# ----------------------------------------------------------------------------- training rows

def _package(path: str) -> str:
    """A corpus path's package: the directory under the last site-packages (the standard library's
    walk passes through the interpreter's own), else the first two parts (`python3.11/json`)."""
    parts = path.split("/")
    marks = [i for i, p in enumerate(parts[:-1]) if p in ("site-packages", "dist-packages")]
    if marks:
        return "/".join(parts[: marks[-1] + 2])
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def packages(records: Iterable[dict], names: frozenset[str] | None = None) -> list[list[str]]:
    """Corpus records ({"path", "text"}) grouped by package, the benchmark packages and vendored
    copies left out; a group of one file is kept (its rows simply have no snippet)."""
    names = excluded_names() if names is None else names
    groups: dict[str, list[str]] = {}
    for r in records:
        path = r["path"]
        if held_back(path, names):
            continue
        groups.setdefault(_package(path), []).append(r["text"])
    return list(groups.values())


def snippet_for(before: str, others: Sequence[str], rng: random.Random, files: int = 3) -> str | None:
    """A training row's snippet: the best window of up to `files` other files of its package,
    each read from a random line on (a file's first MAX_WINDOWS // files windows)."""
    if not others:
        return None
    picked = rng.sample(list(others), min(files, len(others)))
    texts = []
    for t in picked:
        lines = t.splitlines(keepends=True)
        span = (MAX_WINDOWS // files) * STRIDE
        start = rng.randrange(max(1, len(lines) - span)) if len(lines) > span else 0
        texts.append("".join(lines[start:start + span]))
    got = best_window(words(query_text(before)), texts)
    return got[0] if got else None


def crossfile_stream(groups: list[list[str]], tok: Tokenizer, seq_len: int, seed: int,
                     share: float = 0.5) -> Iterator:
    """FIM rows (model/data.py make_example) of which `share` carry a snippet of another file of
    their package, 32 to 128 tokens of it (the model sees snippets of any length up to the
    inference share)."""
    from redraft.model.data import make_example
    rng = random.Random(seed)
    files = [(g, i) for g in groups for i in range(len(g))]   # every file equally likely
    while True:
        g, i = files[rng.randrange(len(files))]
        head_for = None
        if len(g) > 1 and rng.random() < share:
            others = g[:i] + g[i + 1:]
            budget = rng.choice((32, 64, 96, 96, 128))

            def head_for(before: str, others=others, budget=budget) -> list[int]:
                return head_ids(tok, snippet_for(before, others, rng), budget)
        ex = make_example(g[i], tok, rng, seq_len, head_for=head_for)
        if ex is not None:
            yield ex
