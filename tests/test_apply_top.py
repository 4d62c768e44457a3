"""Issue 43: a snippet that starts at the file's new first line (no marker before it, a marker
later, its first line new) replaces the file's head up to its first shown line of the file,
whatever that head held: the old imports (or header comment) are gone and new ones stand in their
place, even when they are fewer than the lines they replace and not alike (pluggy's docs/conf.py:
`import sys` / `if sys.version_info ...` gave way to two imports and an `if TYPE_CHECKING:`; tRPC's
`interface AbortControllerEsque { ... }` became a one-line type).  In each of the five languages.
Twin: `delete_unmarked=False` keeps every line of the file (the new lines go before the shown ones,
or, in Go, where the new package clause has no place, the merge refuses)."""
from __future__ import annotations

import pytest

from test_apply_omission import LANGS, SRC, lines, mark, text

from redraft.engine.apply import merge

NEW = {"python": ["from pathlib import Path"], "javascript": ["import path from 'node:path';"],
       "typescript": ['import { join } from "node:path";'],
       "go": ["// Package store keeps values.", "package store", "", 'import "os"'],
       "rust": ["use std::path::Path;"]}


def _head(lang: str) -> int:
    """Where the kept part starts: the blank line after the file's imports."""
    ls = lines(lang)
    if lang == "go":
        return ls.index(")") + 1
    return next(i for i, l in enumerate(ls) if not l.strip())


@pytest.mark.parametrize("lang", LANGS)
def test_new_first_lines_replace_the_head_they_do_not_resemble(lang):
    ls, k = lines(lang), _head(lang)
    shown = ls[k:k + 4]
    r = merge(SRC[lang], text(NEW[lang] + shown + [mark(lang)]), lang)
    assert r.ok, r.reason
    assert r.text == text(NEW[lang] + ls[k:])
    kept = merge(SRC[lang], text(NEW[lang] + shown + [mark(lang)]), lang, delete_unmarked=False)
    assert kept.ok or lang == "go" and "first line is not in the file" in kept.reason, kept.reason
    if kept.ok:
        out = iter(kept.text.split("\n"))
        assert all(any(l == o for o in out) for l in ls) and NEW[lang][-1] in kept.text
