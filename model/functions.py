"""A fine-tuning mix of small self-contained functions (the code an editor user writes one function at a time).

The corpus (model/data.py) is library code: methods on large classes, module-private helpers,
calls into the package's own API. A function a user writes in an editor, or a HumanEval-style task,
is different: a short top-level function, often led by a docstring, that uses only its parameters,
its own locals, builtins and a few standard modules. This module picks such functions out of the
corpus's *training* split (the held-out split and the evaluation sets are never read) and writes a
directory that `redraft train --data DIR` trains on (load_texts reads a directory of sources):

    DIR/fn/mNNNNN.py      pseudo-modules: 3-7 of the functions, with the imports they need,
                          regrouped `repeats` times in different orders (each function is seen
                          beside different neighbours)
    DIR/corpus/cNNNNN.py  ordinary training files, so that the mix keeps `1 - share` of plain corpus
                          text (examples are drawn per file, so the share counts files)
    DIR/manifest.json     what was written

Design decision: the selection is syntactic (ast), not a quality model: a function qualifies when
every name it loads is bound inside it, a builtin, or one of STD_NAMES, and it is 4-30 lines,
public, undecorated, not a test, and no generator or coroutine.
"""
from __future__ import annotations

import ast
import builtins
import json
import random
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .data import read_split

MIN_LINES, MAX_LINES, MAX_CHARS = 4, 30, 1500
# names a self-contained function may load besides its own and the builtins -> the import they need
STD_NAMES = {
    "math": "import math", "re": "import re", "collections": "import collections",
    "itertools": "import itertools", "functools": "import functools", "string": "import string",
    "operator": "import operator", "heapq": "import heapq", "bisect": "import bisect",
    "random": "import random", "typing": "import typing",
    **{t: f"from typing import {t}" for t in ("List", "Tuple", "Dict", "Optional", "Any", "Set", "Iterable", "Sequence")},
    **{c: f"from collections import {c}" for c in ("Counter", "defaultdict", "deque")},
}
_BUILTINS = set(dir(builtins))


@dataclass(frozen=True)
class Function:
    source: str          # dedented source of the function
    std: tuple[str, ...]  # STD_NAMES it loads, sorted
    docstring: bool
    path: str            # the corpus file it came from


def _bound_names(fn: ast.FunctionDef) -> set[str]:
    """Every name the function binds: parameters (its own and nested ones), assignments, nested
    definitions, exception names, local imports."""
    names: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not fn:
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in n.names)
    return names


def self_contained(fn: ast.FunctionDef, lines: list[str], path: str = "") -> Function | None:
    """The function as a Function if it qualifies (the rules: the module docstring), else None."""
    if not MIN_LINES <= fn.end_lineno - fn.lineno + 1 <= MAX_LINES:
        return None
    if fn.name.startswith(("test", "_")) or fn.decorator_list:
        return None
    bound, std = _bound_names(fn), set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            return None
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound and n.id not in _BUILTINS:
            if n.id not in STD_NAMES:
                return None
            std.add(n.id)
    source = textwrap.dedent("\n".join(lines[fn.lineno - 1: fn.end_lineno]))
    if len(source) > MAX_CHARS:
        return None
    return Function(source, tuple(sorted(std)), ast.get_docstring(fn) is not None, path)


def extract(text: str, path: str = "") -> list[Function]:
    """The qualifying top-level functions of one source file (none if it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = text.split("\n")
    found = (self_contained(n, lines, path) for n in tree.body if isinstance(n, ast.FunctionDef))
    return [f for f in found if f is not None]


def pseudo_module(group: list[Function]) -> str:
    """Functions joined as one file, headed by the imports they need."""
    head = "\n".join(dict.fromkeys(STD_NAMES[u] for u in sorted({u for f in group for u in f.std})))
    body = "\n\n\n".join(f.source for f in group)
    return (head + "\n\n\n" if head else "") + body + "\n"


def build_mix(corpus_dir: Path, out_dir: Path, repeats: int = 8, share: float = 0.35, seed: int = 7) -> dict:
    """Write the fine-tuning mix (layout: the module docstring) from corpus_dir's training split into out_dir."""
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    rng = random.Random(seed)
    records = list(read_split(corpus_dir, "train"))
    functions = [f for r in records for f in extract(r["text"], r["path"])]
    if not functions:
        raise ValueError(f"no self-contained functions in the training split of {corpus_dir}")
    for sub in ("fn", "corpus"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
        for old in (out_dir / sub).glob("*.py"):
            old.unlink()  # a rebuild replaces the mix, it never adds to an older one
    n_mod = 0
    for _ in range(repeats):
        order = functions[:]
        rng.shuffle(order)
        i = 0
        while i < len(order):
            k = rng.randint(3, 7)
            (out_dir / "fn" / f"m{n_mod:05d}.py").write_text(pseudo_module(order[i:i + k]), encoding="utf-8")
            i, n_mod = i + k, n_mod + 1
    rng.shuffle(records)
    n_corpus = min(len(records), int(n_mod * (1 - share) / share))
    for j, r in enumerate(records[:n_corpus]):
        (out_dir / "corpus" / f"c{j:05d}.py").write_text(r["text"], encoding="utf-8")
    manifest = {"source": str(corpus_dir), "functions": len(functions),
                "with_docstring": sum(f.docstring for f in functions),
                "function_chars": sum(len(f.source) for f in functions), "repeats": repeats,
                "pseudo_modules": n_mod, "corpus_files": n_corpus, "share": share, "seed": seed}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest
