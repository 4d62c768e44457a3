"""Tokens per byte, by language, on a corpus's held-out split: the shipped tokenizer against one
trained on the corpus's training split (issue 27: retrain the tokenizer only if it pays).

    .venv/bin/python bench/tokenizer_languages.py --data data/corpus5 [--vocab 8192] [--sample-mb 8]

The candidate is trained like the shipped one (model/tokenizer.py: same pre-tokenizer, special
tokens, byte alphabet) on an equal sample of every language's training files (`--sample-mb` each).
Fewer tokens per byte means more code in the same context and fewer canvas positions per line.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.model.corpus import texts_by_language  # noqa: E402
from redraft.model.tokenizer import Tokenizer, train_tokenizer_languages  # noqa: E402


def rate(tok: Tokenizer, texts: list[str]) -> float:
    n_bytes = sum(len(t.encode()) for t in texts)
    return sum(len(ids) for ids in tok.encode_batch(texts)) / max(n_bytes, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="data/corpus5")
    ap.add_argument("--vocab", type=int, default=8192)
    ap.add_argument("--sample-mb", type=float, default=8.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--save", help="write the candidate tokenizer.json here")
    a = ap.parse_args()
    data = Path(a.data)
    held = texts_by_language(data, "heldout")
    shipped = Tokenizer.load(ROOT / "model" / "weights" / "tokenizer.json")
    train = texts_by_language(data, "train")
    t0 = time.perf_counter()
    cand = train_tokenizer_languages(train, a.vocab, a.sample_mb, a.seed)
    took = time.perf_counter() - t0
    if a.save:
        cand.save(a.save)
    rows = {lang: {"heldout_files": len(texts), "heldout_mb": round(sum(len(t.encode()) for t in texts) / 1e6, 2),
                   "shipped": round(rate(shipped, texts), 4), "candidate": round(rate(cand, texts), 4)}
            for lang, texts in sorted(held.items())}
    print("| language | held-out files | MB | shipped tokens/byte | candidate tokens/byte | change |")
    print("|---|---|---|---|---|---|")
    for lang, r in rows.items():
        print(f"| {lang} | {r['heldout_files']} | {r['heldout_mb']} | {r['shipped']} | {r['candidate']} | "
              f"{100 * (r['candidate'] / r['shipped'] - 1):+.1f}% |")
    print(json.dumps({"vocab": a.vocab, "sample_mb_per_language": a.sample_mb, "train_s": round(took, 1),
                      "rows": rows}))


if __name__ == "__main__":
    main()
