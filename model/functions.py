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
    DIR/<lang>/xNNNNN.rs  with `languages` (a count per language): that many training files of each
                          other language, drawn at random, under their own suffix (.rs, .go, .js,
                          .ts, .d.ts), so that one run keeps Python's functions and learns the rest
    DIR/manifest.json     what was written

Design decision: the selection is syntactic (ast), not a quality model. Two rule sets (RULES):
"strict" (the default; default-v6's mix): a function qualifies when every name it loads is bound
inside it, a builtin, or one of STD_NAMES, and it is 4-30 lines, public, undecorated, not a test,
and no generator or coroutine. "broad" (about three times as many functions): 3-50 lines, private
helpers, recursion (its own name counts as bound) and generators too, and it may also load what
its file imports from the standard library at top level (the pseudo-module repeats that import).
"""
from __future__ import annotations

import ast
import builtins
import json
import random
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from redraft.model.data import read_split

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
_STDLIB = set(sys.stdlib_module_names)


@dataclass(frozen=True)
class Rules:
    min_lines: int = 4             # lines of the whole definition, docstring included
    max_lines: int = 30
    max_chars: int = 1500          # of the dedented source
    private: bool = False          # _helpers qualify too
    recursion: bool = False        # the function's own name counts as bound
    generators: bool = False       # yield allowed (await, global, nonlocal never are)
    module_imports: bool = False   # may load names its file imports from the standard library at top level


RULES = {
    "strict": Rules(),
    "broad": Rules(min_lines=3, max_lines=50, max_chars=2500, private=True, recursion=True, generators=True,
                   module_imports=True),
}


@dataclass(frozen=True)
class Function:
    source: str          # dedented source of the function
    std: tuple[str, ...]  # STD_NAMES it loads, sorted
    docstring: bool
    path: str            # the corpus file it came from
    imports: tuple[str, ...] = ()  # its file's top-level standard-library imports it needs (broad rules)


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


def stdlib_imports(tree: ast.Module) -> dict[str, str]:
    """Name -> the top-level import statement that binds it, for the file's standard-library imports."""
    out: dict[str, str] = {}
    for n in tree.body:
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name.split(".")[0] in _STDLIB:
                    out[(a.asname or a.name).split(".")[0]] = "import " + a.name + (f" as {a.asname}" if a.asname else "")
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module and n.module.split(".")[0] in _STDLIB:
            for a in n.names:
                if a.name != "*":
                    out[a.asname or a.name] = f"from {n.module} import {a.name}" + (f" as {a.asname}" if a.asname else "")
    return out


def self_contained(fn: ast.FunctionDef, lines: list[str], path: str = "", rules: Rules = RULES["strict"],
                   file_imports: dict[str, str] | None = None) -> Function | None:
    """The function as a Function if it qualifies under `rules` (see the module docstring), else None.
    file_imports: names it may load besides STD_NAMES -> their import (`extract` passes its file's
    stdlib_imports when rules.module_imports)."""
    if not rules.min_lines <= fn.end_lineno - fn.lineno + 1 <= rules.max_lines:
        return None
    if fn.name.startswith("test") or (fn.name.startswith("_") and not rules.private) or fn.decorator_list:
        return None
    bound, std, imports = _bound_names(fn), set(), set()
    if rules.recursion:
        bound.add(fn.name)
    extra = file_imports or {}
    banned = (ast.Global, ast.Nonlocal, ast.Await) + (() if rules.generators else (ast.Yield, ast.YieldFrom))
    for n in ast.walk(fn):
        if isinstance(n, banned):
            return None
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound and n.id not in _BUILTINS:
            if n.id in STD_NAMES:
                std.add(n.id)
            elif n.id in extra:
                imports.add(extra[n.id])
            else:
                return None
    source = textwrap.dedent("\n".join(lines[fn.lineno - 1: fn.end_lineno]))
    if len(source) > rules.max_chars:
        return None
    return Function(source, tuple(sorted(std)), ast.get_docstring(fn) is not None, path, tuple(sorted(imports)))


def extract(text: str, path: str = "", rules: Rules = RULES["strict"]) -> list[Function]:
    """The qualifying top-level functions of one source file (none if it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    lines = text.split("\n")
    file_imports = stdlib_imports(tree) if rules.module_imports else None
    found = (self_contained(n, lines, path, rules, file_imports) for n in tree.body if isinstance(n, ast.FunctionDef))
    return [f for f in found if f is not None]


def pseudo_module(group: list[Function]) -> str:
    """Functions joined as one file, headed by the imports they need."""
    std = [STD_NAMES[u] for u in sorted({u for f in group for u in f.std})]
    head = "\n".join(dict.fromkeys(std + sorted({i for f in group for i in f.imports})))
    body = "\n\n\n".join(f.source for f in group)
    return (head + "\n\n\n" if head else "") + body + "\n"


def build_mix(corpus_dir: Path, out_dir: Path, repeats: int = 8, share: float = 0.35, seed: int = 7,
              rules: str = "strict", languages: dict[str, int] | None = None) -> dict:
    """Write the fine-tuning mix (layout: the module docstring) from corpus_dir's training split into
    out_dir, selecting functions with RULES[rules]. Records with a "lang" other than python (a
    model/corpus.py corpus) are never read as Python; `languages` draws that many of them per language."""
    if rules not in RULES:
        raise ValueError(f"unknown function rules {rules!r}; choose from {sorted(RULES)}")
    if not 0 < share < 1:
        raise ValueError(f"share must be between 0 and 1 (exclusive), got {share}")
    corpus_dir, out_dir = Path(corpus_dir), Path(out_dir)
    rng = random.Random(seed)
    everything = list(read_split(corpus_dir, "train"))
    records = [r for r in everything if r.get("lang", "python") == "python"]
    functions = [f for r in records for f in extract(r["text"], r["path"], RULES[rules])]
    if not functions:
        raise ValueError(f"no self-contained functions in the training split of {corpus_dir}")
    languages = dict(languages or {})
    known = {r.get("lang") for r in everything} - {None, "python"}
    if set(languages) - known:
        raise ValueError(f"no training files of {sorted(set(languages) - known)} in {corpus_dir} "
                         f"(it has {sorted(known) or 'Python only'})")
    for sub in ("fn", "corpus", *known):
        if (out_dir / sub).is_dir():
            for old in (out_dir / sub).iterdir():
                old.unlink()  # a rebuild replaces the mix, it never adds to an older one
    for sub in ("fn", "corpus"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
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
    written = {"python": {"files": n_mod + n_corpus}}
    for lang, n in sorted(languages.items()):
        pool = [r for r in everything if r.get("lang") == lang]
        rng.shuffle(pool)
        (out_dir / lang).mkdir(parents=True, exist_ok=True)
        for j, r in enumerate(pool[:n]):
            suffix = ".d.ts" if r["path"].endswith(".d.ts") else Path(r["path"]).suffix
            (out_dir / lang / f"x{j:05d}{suffix}").write_text(r["text"], encoding="utf-8")
        written[lang] = {"files": min(n, len(pool)), "bytes": sum(len(r["text"].encode()) for r in pool[:n])}
    manifest = {"source": str(corpus_dir), "functions": len(functions),
                "with_docstring": sum(f.docstring for f in functions),
                "function_chars": sum(len(f.source) for f in functions), "repeats": repeats,
                "pseudo_modules": n_mod, "corpus_files": n_corpus, "share": share, "seed": seed, "rules": rules,
                "languages": written}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest
