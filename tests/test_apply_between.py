"""Issue 43: a fragment of whole definitions that also shows lines of the file outside them (an
import, a `mod` line) deletes what the file has between two of its shown parts with no marker
there, as a fragment anchored by its lines does: the snippet is authoritative wherever it has no
marker.  In each of the five languages: the imports shown, then an edited `load`, no marker between
them, delete the `Store` definitions between (reported, by name); a marker between keeps them;
`delete_unmarked=False` keeps them; with no marker before the snippet its first shown line stays
and the file's lines before it go."""
from __future__ import annotations

import pytest

from test_apply_omission import LANGS, SRC, lines, mark, text

from redraft.engine.apply import merge

LOAD = {"python": "def load(path):", "javascript": "function load(file) {", "typescript": "export function load(",
        "go": "func Load(", "rust": "pub fn load("}
KIND = {"python": "class", "javascript": "class", "typescript": "class", "go": "type", "rust": "struct"}


def _parts(lang: str) -> tuple[list[str], int, int, list[str]]:
    """(the file's lines, the first import, the line after the last import, `load` edited)."""
    ls = lines(lang)
    start = next(i for i, l in enumerate(ls) if l.startswith(("import", "use ", "const fs")))
    end = next(i for i in range(start, len(ls)) if not ls[i].strip())
    at = next(i for i, l in enumerate(ls) if l.startswith(LOAD[lang]))
    stop = next(i for i in range(at, len(ls)) if ls[i] in ("}", "") and i > at + 1)
    load = ls[at:stop + (ls[stop] == "}")]
    return ls, start, end, [load[0], load[1] + ("  # edited" if lang == "python" else " // edited")] + load[2:]


def _ok(src: str, snippet: str, lang: str, **kw):
    r = merge(src, snippet, lang, **kw)
    assert r.ok, r.reason
    return r


@pytest.mark.parametrize("lang", LANGS)
def test_definition_left_out_between_shown_imports_and_a_shown_definition_is_deleted(lang):
    ls, start, end, load = _parts(lang)
    snippet = text([mark(lang)] + ls[start:end] + [""] * (2 if lang == "python" else 1) + load + [mark(lang)])
    r = _ok(SRC[lang], snippet, lang)
    at = next(i for i, l in enumerate(ls) if l.startswith(LOAD[lang]))
    stop = at + len(load)
    sep = [""] * (2 if lang == "python" else 1)
    assert r.text == text(ls[:end] + sep + load + ls[stop:])
    assert len(r.deletions) == 1
    summary = r.deletions[0].summary()
    assert "not shown between two lines of the snippet" in summary and "`Store`" in summary, summary
    assert summary.startswith("deleted ") and f"{KIND[lang]} `Store` (lines " in summary, summary


@pytest.mark.parametrize("lang", LANGS)
def test_a_marker_between_keeps_them(lang):
    ls, start, end, load = _parts(lang)
    snippet = text([mark(lang)] + ls[start:end] + [mark(lang)] + load + [mark(lang)])
    r = _ok(SRC[lang], snippet, lang)
    assert r.deletions == [] and "Store" in r.text and r.text.count("edited") == 1
    assert len(r.text.split("\n")) == len(SRC[lang].split("\n"))


@pytest.mark.parametrize("lang", LANGS)
def test_keep_unmarked_keeps_them(lang):
    ls, start, end, load = _parts(lang)
    snippet = text([mark(lang)] + ls[start:end] + [""] + load + [mark(lang)])
    r = _ok(SRC[lang], snippet, lang, delete_unmarked=False)
    assert r.deletions == [] and "Store" in r.text and r.text.count("edited") == 1


@pytest.mark.parametrize("lang", LANGS)
def test_first_shown_line_stays_when_the_snippet_starts_the_file(lang):
    """No marker before the snippet: the file's lines before its first shown import go (the
    snippet starts the file), that import and the next stay, `Store` between them and `load` goes."""
    ls, start, end, load = _parts(lang)
    first = start + 1 if lang != "go" else start        # Go's `import (` block: shown whole
    sep = [""] * (2 if lang == "python" else 1)
    snippet = text(ls[first:end] + sep + load + [mark(lang)])
    r = _ok(SRC[lang], snippet, lang)
    at = next(i for i, l in enumerate(ls) if l.startswith(LOAD[lang]))
    assert r.text == text(ls[first:end] + sep + load + ls[at + len(load):])
    assert [d.why for d in r.deletions][-1] == "not shown between two lines of the snippet"
    assert any("`Store`" in d.summary() for d in r.deletions)
