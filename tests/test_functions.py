"""The self-contained-function fine-tuning mix (model/functions.py, `redraft train --build-mix`)."""
import ast
import gzip
import json
import subprocess
import sys

import pytest

from redraft.model import checkpoint
from redraft.model.data import build_corpus, read_split
from redraft.model.functions import RULES, build_mix, extract, pseudo_module

SOURCE = '''
import os

LIMIT = 10


def clamp(x, lo, hi):
    """Clamp x into [lo, hi]."""
    if x < lo:
        return lo
    return min(x, hi)


def digits(n):
    total = 0
    for ch in str(abs(n)):
        total += int(ch)
    return math.floor(total)


def uses_global(x):
    if x > LIMIT:
        return LIMIT
    return x


def uses_module(path):
    if not path:
        return None
    return os.path.basename(path)


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert clamp(-1, 0, 3) == 0
    assert clamp(2, 0, 3) == 2


def _private(x):
    y = x + 1
    z = y * 2
    return z


@staticmethod
def decorated(x):
    y = x + 1
    z = y * 2
    return z


def counting(n):
    i = 0
    while i < n:
        yield i
        i += 1


def short(x):
    return x


class Box:
    def area(self, w, h):
        a = w * h
        b = a + 0
        return b
'''


def _by_name(functions):
    """name -> Function (the name read from the `def name(` line)."""
    return {f.source.split("(")[0][4:]: f for f in functions}


def test_only_self_contained_top_level_functions_qualify():
    found = _by_name(extract(SOURCE, "pkg/mod.py"))
    # a global (LIMIT), another module (os), a test, a private name, a decorator, a generator, under
    # 4 lines, a method: all out
    assert sorted(found) == ["clamp", "digits"]
    assert found["clamp"].docstring and not found["digits"].docstring
    assert found["clamp"].std == () and found["digits"].std == ("math",)
    assert found["digits"].path == "pkg/mod.py"
    assert extract("def broken(:\n    pass\n") == []


def test_a_pseudo_module_runs_with_the_imports_it_needs():
    text = pseudo_module(extract(SOURCE))
    assert text.startswith("import math\n")
    ns: dict = {}
    exec(compile(text, "pseudo.py", "exec"), ns)  # noqa: S102 - our own test source
    assert ns["clamp"](7, 0, 5) == 5 and ns["digits"](-1939) == 22


BROAD_EXTRA = '''
from os.path import join as pjoin
import json


def fact(n):
    if n < 2:
        return 1
    return n * fact(n - 1)


def tiny(x):
    y = x * 2
    return y


def dumps_sorted(obj, *parts):
    text = json.dumps(obj, sort_keys=True)
    return pjoin(*parts, text)


def uses_torch(x):
    y = torch.tensor(x)
    return y.sum()


async def later(x):
    y = await x
    return y
'''


def test_broad_rules_add_private_recursive_generator_and_stdlib_import_functions():
    strict = _by_name(extract(SOURCE + BROAD_EXTRA))
    broad = _by_name(extract(SOURCE + BROAD_EXTRA, rules=RULES["broad"]))
    assert set(strict) == {"clamp", "digits"}
    # broad: the private helper, the generator, the 3-line function, recursion, the file's stdlib
    # imports (os, json, os.path.join as pjoin); still out: a global, a test, a decorator, a method,
    # a non-stdlib name (torch), a coroutine, a one-liner
    assert sorted(broad) == ["_private", "clamp", "counting", "digits", "dumps_sorted", "fact", "tiny", "uses_module"]
    assert broad["uses_module"].imports == ("import os",)
    assert broad["dumps_sorted"].imports == ("from os.path import join as pjoin", "import json")
    text = pseudo_module([broad[k] for k in ("fact", "dumps_sorted", "uses_module", "digits")])
    assert text.startswith("import math\nfrom os.path import join as pjoin\nimport json\nimport os\n")
    ns: dict = {}
    exec(compile(text, "pseudo.py", "exec"), ns)  # noqa: S102 - our own test source
    assert ns["fact"](5) == 120 and ns["dumps_sorted"]({"b": 1, "a": 2}, "d") == 'd/{"a": 2, "b": 1}'
    assert ns["uses_module"]("/x/y.py") == "y.py"


def test_build_mix_rejects_unknown_rules_and_shares(tmp_path):
    with pytest.raises(ValueError, match="unknown function rules"):
        build_mix(tmp_path, tmp_path / "mix", rules="loose")
    with pytest.raises(ValueError, match="share"):
        build_mix(tmp_path, tmp_path / "mix", share=1.0)
    assert not (tmp_path / "mix").exists()


def _scale(i):
    return (f'def scale_{i}(values, k):\n    """Scale every value by k."""\n    out = []\n'
            f"    for v in values:\n        out.append(v * k + {i})\n    return out\n")


def _corpus(tmp_path, source=_scale, n=80):
    """A corpus built by build_corpus from n files, file i holding source(i)."""
    root = tmp_path / "src"
    root.mkdir()
    for i in range(n):
        (root / f"m{i}.py").write_text(source(i))
    build_corpus(tmp_path / "corpus", roots=[root], heldout_percent=10)
    return tmp_path / "corpus"


def test_the_mix_comes_from_the_training_split_only_and_is_reproducible(tmp_path):
    corpus = _corpus(tmp_path)
    train = list(read_split(corpus, "train"))
    assert train and list(read_split(corpus, "heldout"))
    man = build_mix(corpus, tmp_path / "mix", repeats=3, share=0.5)
    assert man["functions"] == len(train) == man["with_docstring"]
    modules = sorted((tmp_path / "mix" / "fn").glob("*.py"))
    corpus_files = sorted((tmp_path / "mix" / "corpus").glob("*.py"))
    assert len(modules) == man["pseudo_modules"] and len(corpus_files) == man["corpus_files"] == min(len(train), len(modules))
    names = []
    for m in modules:
        tree = ast.parse(m.read_text())
        names += [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    # every training function, `repeats` times; no held-out function at all
    assert sorted(names) == sorted(n for r in train for n in [r["text"].split("(")[0][4:]] * 3)
    held_names = {r["text"].split("(")[0][4:] for r in read_split(corpus, "heldout")}
    assert not held_names & set(names)
    assert json.loads((tmp_path / "mix" / "manifest.json").read_text()) == man
    # the same inputs give the same files; a rebuild with fewer repeats leaves no stale module behind
    build_mix(corpus, tmp_path / "again", repeats=3, share=0.5)
    assert [m.read_text() for m in modules] == [m.read_text() for m in sorted((tmp_path / "again" / "fn").glob("*.py"))]
    small = build_mix(corpus, tmp_path / "mix", repeats=1, share=0.5)
    assert len(list((tmp_path / "mix" / "fn").glob("*.py"))) == small["pseudo_modules"] < man["pseudo_modules"]


def test_a_five_language_mix_keeps_python_functions_and_draws_the_other_languages(tmp_path):
    corpus = tmp_path / "corpus5"
    corpus.mkdir()
    rows = [{"path": f"py/m{i}.py", "lang": "python", "text": _scale(i)} for i in range(12)]
    rows += [{"path": f"crate/src/f{i}.rs", "lang": "rust", "text": f"fn f{i}() -> u32 {{ {i} }}\n"} for i in range(9)]
    rows += [{"path": f"pkg/t{i}.d.ts", "lang": "typescript", "text": f"export declare const t{i}: number;\n"}
             for i in range(3)]
    with gzip.open(corpus / "train.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    man = build_mix(corpus, tmp_path / "mix", repeats=2, share=0.5, languages={"rust": 5, "typescript": 10})
    assert man["functions"] == 12  # the Rust and TypeScript records are never read as Python
    assert man["languages"]["rust"]["files"] == 5 and man["languages"]["typescript"]["files"] == 3
    rust = sorted((tmp_path / "mix" / "rust").iterdir())
    assert len(rust) == 5 and all(p.suffix == ".rs" and p.read_text().startswith("fn f") for p in rust)
    assert all(p.name.endswith(".d.ts") for p in (tmp_path / "mix" / "typescript").iterdir())
    assert not any(p.read_text().startswith("fn ") for p in (tmp_path / "mix" / "corpus").iterdir())
    # a rebuild with fewer files leaves none of the old ones behind
    build_mix(corpus, tmp_path / "mix", repeats=2, share=0.5, languages={"rust": 2})
    assert len(list((tmp_path / "mix" / "rust").iterdir())) == 2
    assert not list((tmp_path / "mix" / "typescript").iterdir())
    with pytest.raises(ValueError, match=r"no training files of \['go'\]"):
        build_mix(corpus, tmp_path / "mix", languages={"go": 3})


def test_a_mix_without_functions_is_a_clear_error(tmp_path):
    corpus = _corpus(tmp_path, lambda i: f"X{i} = {i}\n", n=40)
    with pytest.raises(ValueError, match="no self-contained functions"):
        build_mix(corpus, tmp_path / "mix")


def test_train_cli_builds_the_mix_then_stops_at_zero_steps(tmp_path):
    corpus = _corpus(tmp_path)
    run = [sys.executable, "-m", "redraft", "train", "--build-mix", "--mix-from", str(corpus),
           "--data", str(tmp_path / "mix"), "--out", str(tmp_path / "run"), "--steps", "0", "--threads", "1",
           "--init", str(checkpoint.DEFAULT_DIR)]
    r = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"pseudo_modules"' in r.stdout and list((tmp_path / "mix" / "fn").glob("*.py"))
    assert json.loads((tmp_path / "mix" / "manifest.json").read_text())["rules"] == "strict"
    broad = subprocess.run(run + ["--mix-rules", "broad", "--mix-share", "0.25"], capture_output=True, text=True, timeout=300)
    assert broad.returncode == 0, broad.stderr[-2000:]
    man = json.loads((tmp_path / "mix" / "manifest.json").read_text())
    assert man["rules"] == "broad" and man["share"] == 0.25
    missing = subprocess.run(run[:6] + [str(tmp_path / "nowhere")] + run[7:], capture_output=True, text=True, timeout=300)
    assert missing.returncode != 0 and "no train split" in missing.stderr
