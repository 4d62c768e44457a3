"""The context window's line-by-line token ids (lsp_server/engine/window.py, issue 46) are exactly
the ids of encoding each candidate text whole (`window_plain`), with the shipped tokenizer, on
varied texts: real source files at many cursors and budgets, a typist's successive keystrokes
(the segment cache warm), and hostile text (CRLF, tabs, lone CRs, unicode, control tokens, blank
lines, whitespace-only lines, digits, a cursor at either end)."""
from __future__ import annotations

import json
import random
import textwrap
from pathlib import Path

from redraft.engine import window as W

SOURCES = [Path(m.__file__).read_text() for m in (textwrap, json, random)]
ODD = ("def f(x):\r\n\tif x:\r\n\t\treturn 1\r\n\n\n   \n\t \t\n  123456789 abc\u00e9\u4e2d\u6587 <|mask|><|eom|>"
       "\n\u2028x = 'it''s' \r y\n\n" + "#" * 300 + "\n\x00\x01 \u00a0\u3000 z\n    \n" * 3 + "  ")


def check(tok, text: str, offset: int, ctx: int, share: float) -> None:
    assert W.window(tok, text, offset, ctx, share) == W.window_plain(tok, text, offset, ctx, share), \
        (offset, ctx, share)


def test_the_shipped_tokenizer_takes_the_line_path(shipped):
    assert W._segments_for(shipped.tokenizer) is not None


def test_real_files_at_many_cursors_and_budgets(shipped):
    tok, rng = shipped.tokenizer, random.Random(7)
    for src in SOURCES:
        for _ in range(25):
            check(tok, src, rng.randrange(len(src) + 1), rng.choice([16, 64, 200, 448, 960]),
                  rng.choice([0.0, 0.3, 0.5]))
    check(tok, SOURCES[0], 0, 448, 0.3)
    check(tok, SOURCES[0], len(SOURCES[0]), 448, 0.3)


def test_a_typists_keystrokes(shipped):
    tok = shipped.tokenizer
    lines = SOURCES[0].split("\n")
    for i in (40, 131, 200):
        line = lines[i]
        for c in range(len(line) + 1):
            text = "\n".join(lines[:i] + [line[:c]] + lines[i + 1:])
            check(tok, text, len("\n".join(lines[:i])) + 1 + c, 448, 0.3)


def test_hostile_text(shipped):
    tok = shipped.tokenizer
    for text in (ODD, ODD * 7, "\n" * 50, "x", "", "\r\n" * 40 + "a", " \n \n\t\n" * 30):
        for offset in sorted({0, 1, len(text) // 3, len(text) // 2, len(text) - 1, len(text)}):
            if 0 <= offset <= len(text):
                for ctx in (8, 100, 448):
                    check(tok, text, offset, ctx, 0.3)


def test_an_unknown_tokenizer_takes_the_plain_path(shipped):
    class Words:
        def encode(self, s: str) -> list[int]:
            return [len(w) for w in s.split(" ")]
    tok = Words()
    assert W._segments_for(tok) is None
    assert W.window(tok, "a bb\nccc dd\n" * 20, 50, 30, 0.3) == W.window_plain(tok, "a bb\nccc dd\n" * 20, 50, 30, 0.3)
