"""`redraft.engine.apply.merge` over whole real files: a lazy snippet for every function of three
standard-library modules, and snippets cut at random places from an edited file in each language
(exactly the edited file, or a refusal, never anything else; but a window without markers that is
the start of one definition replaces it whole, its other lines deleted and reported)."""
import argparse
import ast
from pathlib import Path

import pytest

from redraft.engine.apply import merge
from redraft.engine.apply.by_name import WHOLE_WHY
from test_apply import DIFFLIB, GO, JS, M, RUST, TEXTWRAP

ARGPARSE = Path(argparse.__file__).read_text(encoding="utf-8")


# --- property tests over real stdlib modules -------------------------------------------------

def _functions(src):
    """(first line, last line, indentation, class or None, node) of top-level functions and methods."""
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node, None))
        elif isinstance(node, ast.ClassDef):
            out += [(n, node) for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _edit(src, fn):
    lines = src.split("\n")
    at = fn.body[0].lineno - 1
    pad = " " * fn.body[0].col_offset
    lines.insert(at, pad + "edited_here = 1  # inserted")
    first = (fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno) - 1
    new = "\n".join(lines)
    func_text = "\n".join(lines[first:fn.end_lineno + 1])
    return new, func_text


@pytest.mark.parametrize("src", [TEXTWRAP, DIFFLIB, ARGPARSE], ids=["textwrap", "difflib", "argparse"])
def test_property_lazy_snippet_per_function(src):
    names = [f.name for f, _ in _functions(src)]
    done = 0
    for fn, cls in _functions(src):
        new, text = _edit(src, fn)
        if cls is None:
            snippet = f"{M}\n{text}\n{M}\n"
        else:
            snippet = f"class {cls.name}{src.split(chr(10))[cls.lineno - 1].split(cls.name, 1)[1]}\n" \
                      f"    {M}\n{text}\n    {M}\n"
        r = merge(src, snippet, "python")
        assert r.ok, (fn.name, r.reason)
        assert r.text == new, fn.name
        done += 1
        if names.count(fn.name) == 1:            # full replacement, no markers
            r = merge(src, text + "\n", "python")
            assert r.ok and r.text == new, (fn.name, r.reason)
    assert done >= 12


# --- randomized: snippets cut from an edited file at random places ----------------------------

@pytest.mark.parametrize("src,language,marker", [
    (TEXTWRAP, "python", M), (DIFFLIB, "python", "# ...existing code..."), (GO, "go", "// ... existing code ..."),
    (JS, "javascript", "// ..."), (RUST, "rust", "/* ... rest of the code ... */")],
    ids=["textwrap", "difflib", "go", "javascript", "rust"])
def test_random_lazy_snippets_apply_exactly_or_refuse(src, language, marker):
    """A comment line inserted at a random place; the snippet shows a random window around it (at
    least one line of context after it) between optional markers: the result is the edited file
    exactly, or a refusal -- never anything else."""
    import random
    rng = random.Random(1234)
    lines = src.rstrip("\n").split("\n")
    comment = "# edited" if language == "python" else "// edited"
    applied = 0
    for _ in range(150):
        k = rng.randrange(1, len(lines))
        pad = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
        new = lines[:k] + [pad + comment] + lines[k:]
        i, j = rng.randrange(max(0, k - 40), k), rng.randrange(k + 1, min(len(new), k + 40))
        pre, post = rng.random() < .8, rng.random() < .8
        snippet = ([marker] if pre else []) + new[i:j + 1] + ([marker] if post else [])
        # the snippet is authoritative where it has no marker (issue 43): a marker at one end only
        # deletes the file's lines beyond its other end; --keep-unmarked keeps them
        want = new
        if pre != post:
            a, b = i, j
            while not new[a].strip():
                a += 1
            while not new[b].strip():
                b -= 1
            want = new[:b + 1] if pre else new[a:]
        r = merge(src, "\n".join(snippet) + "\n", language)
        if r.ok and not pre and not post and r.deletions and all(d.why == WHOLE_WHY for d in r.deletions):
            # a window without markers that is one whole definition (its start) replaces it by
            # name: what it leaves out of it is deleted and reported (the convention)
            got = r.text.rstrip("\n").split("\n")
            rest = iter(new)
            assert all(any(g == x for x in rest) for g in got) and pad + comment in got, (i, j, k)
            assert len(new) - len(got) >= sum(d.lines for d in r.deletions), (i, j, k)
        elif r.ok:
            assert r.text == "\n".join(want) + "\n", (i, j, k)
            applied += 1
        r = merge(src, "\n".join(snippet) + "\n", language, delete_unmarked=False)
        if r.ok:
            assert r.text == "\n".join(new) + "\n", (i, j, k)
    assert applied >= 100
