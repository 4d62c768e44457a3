"""Where a next-edit checkpoint's answers go wrong, token by token (issue 24).

    .venv/bin/python bench/next_edit_tokens.py --model runs/X [--rows 300] [--seed 11] [--data data/corpus]

Held-out next-edit rows (model/edits.py edit_stream over the corpus's held-out split, a fixed seed)
are read teacher-forced on the model's causal path, and the argmax at each answer position is
compared with the row's token:

* first: the answer's first token (an edit, `<|edit_before|>`, or silence, `<eom>`);
* block: the tokens of a hunk's block (the region's lines it names) and its `<|edit_after|>`;
* copied: the new text's tokens that copy the block's;
* changed: the new text's tokens where it leaves the copy (model/hunks.py changed_tokens, the
  tokens `redraft train --changed-weight` weighs up); change_starts: the first of each run of them.

A hunk whose new text copies its block unchanged is silence, so `change_starts` bounds how often a
named edit is actually made.
"""
from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redraft.model import checkpoint  # noqa: E402
from redraft.model.data import load_texts  # noqa: E402
from redraft.model.edit_data import edit_stream  # noqa: E402
from redraft.model.hunks import ANSWER_AFTER, _hunk_spans, changed_tokens  # noqa: E402


def split_accuracy(model, tok, rows) -> dict[str, list[int]]:
    """{part: [right, total]} over the rows' answers (the parts: the module docstring)."""
    out = {k: [0, 0] for k in ("first", "block", "copied", "changed", "change_starts")}
    end = tok.special[ANSWER_AFTER]
    for r in rows:
        seq = r.tokens[:r.n_ctx]
        if end not in seq:
            continue
        n = len(seq)
        with torch.inference_mode():
            h, _ = model(torch.tensor([seq]), torch.arange(n)[None],
                         mask=torch.ones(n, n, dtype=torch.bool).tril()[None, None])
            pred = model.logits(h[0]).float().argmax(-1).tolist()

        def count(part: str, j: int) -> None:
            out[part][0] += pred[j - 1] == seq[j]
            out[part][1] += 1
        start = seq.index(end) + 1
        count("first", start)
        changed = set(changed_tokens(tok, seq))
        for block, new in _hunk_spans(tok, seq, start):
            for j in [*block, block.stop]:
                count("block", j)
            for j in new:
                count("changed" if j in changed else "copied", j)
                if j in changed and j - 1 not in changed:
                    count("change_starts", j)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--rows", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--data", default="data/corpus")
    ap.add_argument("--json", default=None)
    a = ap.parse_args(argv)
    ck = checkpoint.load(a.model)
    texts = load_texts(Path(a.data), "heldout")
    rows = list(itertools.islice(edit_stream(texts, ck.tokenizer, ck.config.max_seq_len, seed=a.seed), a.rows))
    acc = split_accuracy(ck.model.float(), ck.tokenizer, rows)
    for k, (right, total) in acc.items():
        print(f"{k:<14} {right:>5}/{total:<5} {right / max(total, 1):6.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps({"model": a.model, "rows": a.rows, "seed": a.seed, "accuracy": acc}, indent=2))


if __name__ == "__main__":
    main()
