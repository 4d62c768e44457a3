"""The higher efforts' rerank in the pipeline (Engine.complete, lsp_server/engine/pipeline.py), with the real
checkpoint, and the dev-lines evaluation that chose it."""
import gzip
import json

import pytest
import torch

from redraft.evals import devlines
from redraft.engine.infill import plan_infill, postprocess, resolve_tree
from redraft.engine.lint import flaws
from redraft.engine.pipeline import SAMPLE_TEMPERATURE, Engine, Request
from redraft.model import causal
from redraft.model.sampler import EFFORTS

TEXT = "def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    \n\n\nprint(mean([1, 2, 3]))\n"
OFFSET = TEXT.index("    \n\n\n") + 4


@pytest.fixture(scope="module")
def engine():
    return Engine(threads=1)


def test_efforts_spend_more_as_they_go_up():
    order = list(EFFORTS)
    assert [EFFORTS[e].samples for e in order] == sorted(EFFORTS[e].samples for e in order)
    assert EFFORTS["low"].samples == 0 and EFFORTS["high"].samples > 0


def test_high_effort_answers_with_the_best_scored_candidate(engine):
    req = Request(text=TEXT, offset=OFFSET, uri="mean.py", effort="high")
    comp = engine.complete(req)
    again = engine.complete(req)
    assert comp is not None and comp.text and comp.text == again.text  # seeded: deterministic
    low = engine.complete(Request(text=TEXT, offset=OFFSET, uri="mean.py", effort="low"))
    assert comp.forward_passes > low.forward_passes
    # the candidates again, by hand: the canvas's answer at high's schedule and the causal draws
    cache = engine._caches["mean.py"]
    tree = resolve_tree(TEXT, None, "mean.py")
    plan = plan_infill(TEXT, OFFSET, req.max_tokens, syntax_tree=tree)
    seqs, _ = causal.draw(engine.model, engine.tok, cache.ids, cache.kv, EFFORTS["high"].samples, plan.canvas_len,
                          SAMPLE_TEMPERATURE, torch.Generator().manual_seed(req.seed), engine._newlines)
    cands = {postprocess(engine.tok.decode(s), plan, TEXT, OFFSET, tree, True) for s in seqs} - {""}
    assert comp.text in cands or comp.text == engine.complete(
        Request(text=TEXT, offset=OFFSET, uri="other.py", effort="medium")).text
    tail = "\n\n\nprint(mean([1, 2, 3]))\n".split("\n", 2)
    tail = "\n" + tail[1] + "\n"  # up to the end of the next line
    cands.add(comp.text)
    cands = sorted(cands)
    sums, _ = causal.score(engine.model, engine.tok, cache.ids, cache.kv, cands, tail)
    found = flaws(tree, TEXT, OFFSET, cands)
    assert comp.text == cands[max(range(len(cands)), key=lambda i: (-found[i], sums[i]))]
    # what the lint order changes: nothing chosen leaves more undefined/unused names than a candidate
    # that was passed over
    assert found[cands.index(comp.text)] == min(found)
    assert comp.confidences and all(0.0 < c <= 1.0 for c in comp.confidences)
    assert "\n" not in comp.text


def test_multi_line_scopes_are_not_reranked(engine):
    text = "def f(xs):\n    for x in xs:\n        \n"
    at = text.index("        \n") + 8
    hi = engine.complete(Request(text=text, offset=at, uri="f.py", effort="high", syntax=False))
    med = engine.complete(Request(text=text, offset=at, uri="g.py", effort="medium", syntax=False))
    assert hi.plan.stop_at_newline  # the line rules: a line, reranked
    block = "def f(xs):\n    for x in xs:\n"
    b_hi = engine.complete(Request(text=block + "        ", offset=len(block) + 8, uri="h.py", effort="high"))
    b_med = engine.complete(Request(text=block + "        ", offset=len(block) + 8, uri="i.py", effort="medium"))
    if not b_hi.plan.stop_at_newline:  # the syntax planner chose a block: the canvas alone answers
        assert b_hi.text == b_med.text and b_hi.forward_passes == b_med.forward_passes
    assert hi.forward_passes > med.forward_passes


def test_dev_lines_tasks_and_run(tmp_path, engine):
    src = ('"""A module."""\nimport os\n\n\ndef join_all(parts):\n    """Join the parts."""\n'
           '    out = []\n    for p in parts:\n        # keep it\n        out.append(os.fspath(p))\n\n'
           '    return os.sep.join(out)\n\n\ndef nodoc(x):\n    y = x + 1\n    return y * 2\n')
    (tmp_path / "heldout.jsonl.gz").write_bytes(gzip.compress(json.dumps({"path": "m.py", "text": src}).encode() + b"\n"))
    tasks = devlines.dev_tasks(tmp_path)
    assert [t.truth for t in tasks] == ["out = []", "for p in parts:", "out.append(os.fspath(p))",
                                        "return os.sep.join(out)"]  # no docstring, comment or blank line
    for t in tasks:
        assert t.text.startswith("import os\n\n\ndef join_all(parts):")
        assert t.prefix.endswith(" ") and t.prefix + t.truth + t.suffix == t.text[:t.offset] + t.truth + t.suffix
    r = devlines.run(engine, tasks, "low")
    assert r["tasks"] == 4 and r["exact"] == sum(x["exact"] for x in r["records"])
    assert all(x["exact"] == (x["completion"].strip() == x["truth"]) for x in r["records"])
    with pytest.raises(SystemExit, match="no heldout split"):
        devlines.main(["--data", str(tmp_path / "nothing")])
    with pytest.raises(SystemExit, match="unknown effort"):
        devlines.main(["--data", str(tmp_path), "--effort", "turbo"])
