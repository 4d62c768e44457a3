"""Next-edit prediction's format and data (model/edits.py, model/edit_data.py) and the benchmark's
case building (bench/next_edit.py): fast, no corpus needed (stdlib modules and the repo's files)."""
from __future__ import annotations

import importlib.util
import random
import re
import shlex
import textwrap
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings, strategies as st

from redraft.model.data import build_corpus
from redraft.model.edit_data import KINDS, NOISE, PROPAGATIONS, edit_stream, sample_case, to_fill
from redraft.model.edits import (EDIT_ANSWER, REGION_LINES, case_from_steps, context_budget, edit_context, edit_example,
                         history_pair, line_hunk, region_lines, task_for)
from redraft.model.hunks import (ANSWER_AFTER, answer_ids, answer_markers, apply_hunks, block_guide, changed_tokens,
                         changed_weights, edit_hunks, parse_answer)
from redraft.model.tokenizer import Tokenizer

ROOT = Path(__file__).resolve().parents[1]
PY_FILES = [Path(textwrap.__file__), Path(shlex.__file__), ROOT / "model" / "data.py", ROOT / "lsp_server" / "engine" / "pipeline.py"]
EDIT_CATEGORIES = {"below", "above", "cursor", "jump"}


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(ROOT / "model" / "weights")


@pytest.fixture(scope="module")
def texts():
    return [p.read_text() for p in PY_FILES]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_next_edit", ROOT / "bench" / "next_edit.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_region_lines_clips_at_the_file_ends():
    assert region_lines(100, 50) == (47, 57)            # 3 above, the cursor line, 6 below
    assert region_lines(100, 1) == (0, REGION_LINES)
    assert region_lines(100, 99) == (90, 100)
    assert region_lines(4, 2) == (0, 4)
    assert region_lines(100, 50, size=20) == (44, 64)


def test_task_for_cuts_the_file_at_whole_lines():
    text = "\n".join(f"line {i}" for i in range(30)) + "\n"
    t = task_for(text, 12, 3, [("a", "b")])
    assert t.prefix + t.region + t.suffix == text == t.text
    assert t.region.split("\n") == [f"line {i}" for i in range(9, 19)]
    assert t.position() == (12, 3) and t.region[t.cursor:].startswith("e 12")
    assert task_for(text, 12, 99, []).position() == (12, 7)   # the column is clipped to the line
    last = task_for(text, 30, 0, [])                          # the empty last line
    assert last.suffix == "" and last.text == text


def _check_steps(steps):
    for (b0, a0, c0), (b1, _, _) in zip(steps, steps[1:]):
        assert a0 == b1                                      # each step starts where the last ended
    for before, after, cur in steps:
        assert 0 <= cur <= len(after)
        if before == after:
            continue
        hb, ha = history_pair(before, after)
        bl, al = before.split("\n"), after.split("\n")
        i0 = line_hunk(before, after)[0]
        starts = [i for i in range(max(0, i0 - 1), i0 + 1) if bl[i:i + len(hb.split("\n"))] == hb.split("\n")
                  and al[i:i + len(ha.split("\n"))] == ha.split("\n")]
        assert starts, (hb, ha)                              # whole lines of the texts, at one place
        assert hb != ha


@pytest.mark.parametrize("kind", list(PROPAGATIONS) + list(NOISE))
def test_generators_give_consistent_steps(kind, texts):
    gen = {**PROPAGATIONS, **NOISE}[kind]
    made = 0
    for seed in range(12):
        rng = random.Random(seed)
        steps = gen(texts[seed % len(texts)], rng)
        if steps:
            _check_steps(steps)
            made += 1
    assert made >= 3, kind


@pytest.mark.parametrize("kind", list(KINDS))
def test_cases_of_every_kind_are_valid(kind, texts):
    cats = set()
    for seed in range(40):
        case = sample_case(texts[seed % len(texts)], random.Random(seed), kind, file_id="f")
        if case is None:
            continue
        cats.add(case.category)
        t = case.task
        assert 0 <= t.cursor <= len(t.region) and len(t.region.split("\n")) <= REGION_LINES
        assert t.prefix == "" or t.prefix.endswith("\n")
        if case.category == "noise":
            assert case.target_region == t.region and case.target_line is None
        else:
            assert case.target_region != t.region or case.category == "jump"
            assert case.target_line is not None
        if case.category == "jump":
            a, b = t.start_line(), t.start_line() + t.region.count("\n") + 1
            assert not a <= case.target_line < b
            assert case.target_region.split("\n") != t.text.split("\n")[slice(*region_lines(t.text.count("\n") + 1, case.target_line))]
        if case.category in ("below", "above", "cursor"):
            line = t.position()[0]
            assert {"below": case.target_line > line, "above": case.target_line < line,
                    "cursor": case.target_line <= line}[case.category]
        for before, after in t.history:
            assert before != after
    assert cats, kind
    if kind.startswith("noise"):
        assert cats == {"noise"}
    elif kind == "fill":
        assert cats == {"cursor"}
    else:
        assert cats <= EDIT_CATEGORIES and cats & {"below", "above"}


CODE = """def total(values, scale):
    acc = 0
    for v in values:
        acc += v * scale
    if acc > 100:
        acc = 100
    return acc


def run(items):
    acc = total(items, 2)
    print(acc)
    return acc
"""


def test_rename_target_renames_the_next_occurrences():
    from redraft.model.edit_data import gen_rename
    seen = 0
    for seed in range(60):
        steps = gen_rename(CODE, random.Random(seed))
        for k in range(1, len(steps)):
            case = case_from_steps(steps, k)
            if case is None or case.category not in ("below", "above"):
                continue
            before, after = case.task.history[0]
            old, new = [(x, y) for x, y in zip(re.findall(r"\w+", before), re.findall(r"\w+", after)) if x != y][0]
            # every occurrence of the old name left in the region is renamed, nothing else changes
            assert re.search(rf"\b{old}\b", case.task.region)
            assert case.target_region == re.sub(rf"\b{old}\b", new, case.task.region)
            seen += 1
    assert seen > 20


def test_fill_in_completes_the_partial_line():
    from redraft.model.edit_data import gen_rename
    done = 0
    for seed in range(30):
        rng = random.Random(seed)
        steps = gen_rename(CODE, rng)
        filled = to_fill(steps, rng) if steps else None
        if not filled:
            continue
        steps2, k = filled
        case = case_from_steps(steps2, k)
        line = case.task.position()[0]
        partial = case.task.text.split("\n")[line]
        assert case.category == "cursor" and partial in case.task.history[-1][1].split("\n")
        done_line = case.target_region.split("\n")[line - case.task.start_line()]
        assert done_line == steps[k - 1][1].split("\n")[line] and done_line != partial
        done += 1
    assert done > 10


def test_edit_context_keeps_the_region_and_fits_the_budget(tok):
    sp = tok.special
    text = PY_FILES[2].read_text()
    history = [(f"x = {i}", f"y = {i}") for i in range(12)]
    for line in (0, 40, 200, text.count("\n")):
        task = task_for(text, line, 4, history)
        region_ids = tok.encode(task.region[:task.cursor]) + [sp["<|cursor|>"]] + tok.encode(task.region[task.cursor:])
        for budget in (len(region_ids) + 5, 150, 256, 320):
            ctx = edit_context(tok, task, budget)
            if budget < len(region_ids) + 5:
                assert ctx is None
                continue
            assert len(ctx) <= budget and ctx[0] == sp["<|edit_history|>"]
            assert ctx.count(sp["<|cursor|>"]) == 1
            s, e = ctx.index(sp["<|edit_region|>"]), ctx.index(sp["<|edit_region_end|>"])
            assert ctx[s + 1:e] == region_ids and e == len(ctx) - 1   # the region intact, last
            assert ctx.index(tok.suffix_id) < ctx.index(tok.prefix_id) < s
            kept = ctx.count(sp["<|edit_before|>"])
            assert kept <= 5 and ctx.count(sp["<|edit_after|>"]) == kept
            if kept:  # the newest edits are the ones kept
                assert tok.decode(ctx[1:ctx.index(tok.suffix_id)]).endswith("y = 11")
            pre = tok.decode(ctx[ctx.index(tok.prefix_id) + 1:s])
            assert task.prefix.endswith(pre) and (pre == "" or pre.endswith("\n"))
            assert pre == "" or task.prefix == pre or task.prefix[-len(pre) - 1] == "\n"   # whole lines
            suf = tok.decode(ctx[ctx.index(tok.suffix_id) + 1:ctx.index(tok.prefix_id)])
            assert task.suffix.startswith(suf)
            assert suf == "" or suf == task.suffix or task.suffix[len(suf)] == "\n"
    assert edit_context(tok, task_for("x = 1\n" * 300, 5, 0, []), 20) is None


def test_literal_special_token_text_stays_text(tok):
    text = 'MARK = "<|cursor|>"\nEND = "<|edit_region_end|>"\nx = 1\n'
    task = task_for(text, 2, 0, [('a = "<|edit_after|>"', 'b = "<|edit_before|>"')])
    ctx = edit_context(tok, task, 300)
    sp = tok.special
    assert ctx.count(sp["<|cursor|>"]) == 1 and ctx.count(sp["<|edit_region_end|>"]) == 1
    assert ctx.count(sp["<|edit_after|>"]) == 1 and ctx.count(sp["<|edit_before|>"]) == 1
    s, e = ctx.index(sp["<|edit_region|>"]), ctx.index(sp["<|edit_region_end|>"])
    assert tok.decode(ctx[s + 1:e]) == task.region


def test_edit_example_is_the_context_then_the_hunks_then_eom(tok, texts):
    """A next-edit row: the context (ending in <|edit_region_end|>), the answer (per hunk
    <|edit_before|> lines <|edit_after|> lines, then <eom>) inside the context part, and a
    one-<eom> canvas."""
    rng = random.Random(0)
    made = 0
    sp = tok.special
    for seed in range(40):
        case = sample_case(texts[seed % len(texts)], random.Random(seed), "rename")
        if case is None or case.category == "jump":
            continue
        ex = edit_example(tok, case.task, case.target_region, rng, 384)
        hunks = edit_hunks(case.task.region, case.target_region)
        ctx = edit_context(tok, case.task, context_budget(384))
        if ex is None:
            assert len(answer_ids(tok, hunks)) > EDIT_ANSWER or ctx is None
            continue
        answer = []
        for before, after in hunks:
            answer += [sp["<|edit_before|>"], *tok.encode("\n".join(before)),
                       sp["<|edit_after|>"], *tok.encode("\n".join(after))]
        assert ex.tokens == ctx + answer + [tok.eom_id, tok.eom_id] and ex.n_ctx == len(ctx) + len(answer) + 1
        assert ctx[-1] == sp[ANSWER_AFTER] and len(ex.tokens) <= 384
        assert apply_hunks(case.task.region, parse_answer(tok, ex.tokens[len(ctx):])) == case.target_region
        made += 1
    assert made > 10
    assert edit_example(tok, task_for("x = 1\n", 0, 0, []), "y = 2\n" * 200, rng, 384) is None


REGION = "class A:\n    @property\n    def size(self):\n        return old(self.n)\n\n    def grow(self, k):\n        return old(k)"


@pytest.mark.parametrize("new_region, hunks", [
    (REGION, []),                                                     # no edit: <eom> alone
    (REGION.replace("old(k)", "new(k)"), [(["        return old(k)"], ["        return new(k)"])]),
    (REGION.replace("old(", "new("), [(["        return old(self.n)"], ["        return new(self.n)"]),
                                      (["        return old(k)"], ["        return new(k)"])]),   # two hunks
    (REGION.replace("    def grow", "    @property\n    def grow"),   # an added line brings the line after it
     [(["    def grow(self, k):"], ["    @property", "    def grow(self, k):"])]),
    (REGION + "\n    grow = staticmethod(grow)",                      # ... or, at the end, the one before it
     [(["        return old(k)"], ["        return old(k)", "    grow = staticmethod(grow)"])]),
    (REGION.replace("    @property\n", ""),                           # a removed line can be said
     [(["    @property", "    def size(self):"], ["    def size(self):"])]),
    (REGION.replace("\n\n", "\n"),                                  # a blank line is not unique: widened
     [(["", "    def grow(self, k):"], ["    def grow(self, k):"])]),
])
def test_hunks_say_the_edit_and_apply_hunks_makes_it(tok, new_region, hunks):
    assert edit_hunks(REGION, new_region) == hunks
    assert parse_answer(tok, answer_ids(tok, hunks)) == hunks
    for cursor_line in (0, 3, 6):
        assert apply_hunks(REGION, hunks, cursor_line) == new_region


LINES = st.lists(st.sampled_from(["a = 1", "b = 2", "", "    return a", "c = 3"]), min_size=1, max_size=9)


@settings(max_examples=300, deadline=None)
@given(LINES, st.lists(st.tuples(st.integers(0, 2), st.integers(0, 20), st.sampled_from(["a = 1", "", "d = 4"])),
                       max_size=4))
def test_any_change_of_the_region_is_said_by_unique_hunks_and_made_again(old, changes):
    new = list(old)
    for op, i, line in changes:
        if op == 0 and new:
            new[i % len(new)] = line
        elif op == 1:
            new.insert(i % (len(new) + 1), line)
        elif len(new) > 1:
            del new[i % len(new)]
    region, new_region = "\n".join(old), "\n".join(new)
    hunks = edit_hunks(region, new_region)
    assert (hunks == []) == (region == new_region)
    for before, after in hunks:   # neither side empty; each block of lines found once in the region
        assert before and after and sum(old[i:i + len(before)] == before for i in range(len(old))) == 1
    for cursor_line in range(len(old)):
        assert apply_hunks(region, hunks, cursor_line) == new_region


def test_an_answer_cut_short_or_out_of_layout_says_only_its_whole_hunks(tok):
    full = answer_ids(tok, [(["x = 1"], ["x = 2"]), (["y = 1"], ["y = 2"])])
    assert parse_answer(tok, full[:-1]) == [(["x = 1"], ["x = 2"])]          # the last hunk not ended
    assert parse_answer(tok, full[:3] + [tok.eom_id]) == []                   # no <|edit_after|>
    assert parse_answer(tok, [tok.eom_id] + full) == []                       # <eom> first: no edit
    assert parse_answer(tok, tok.encode("x = 2") + full) == parse_answer(tok, full)   # text before the first hunk


def test_changed_tokens_are_where_the_new_text_leaves_the_copy(tok):
    """The tokens training weighs up (changed_tokens, changed_weights): each hunk's new tokens that
    replace or add to its block's, and for a removal the token written in the removed ones' place;
    nothing of the context, the block or a copied token, nothing for silence."""
    ctx = tok.encode("count = len(rows)\n") + [tok.special[ANSWER_AFTER]]
    def marked(hunks):
        row = ctx + answer_ids(tok, hunks)
        return row, [row[i] for i in changed_tokens(tok, row)]
    row, got = marked([(["    log(count)"], ["    log(total)"])])
    assert [tok.decode([t]) for t in got] == ["total"]           # not the block's count, not the copied log(
    assert min(changed_tokens(tok, row)) > len(ctx) + len(tok.encode("    log(count)"))
    assert [tok.decode([t]) for t in marked([(["f(a, b)"], ["f(a)"])])[1]] == [")"]   # a removal: what takes its place
    assert marked([])[1] == []                                    # silence: <eom> alone
    assert changed_tokens(tok, tok.encode("x = 1")) == []          # no answer in the row
    row, got = marked([(["a = 1"], ["a = 2"]), (["b = x"], ["b = y"])])
    assert [tok.decode([t]) for t in got] == [" 2", " y"]
    w = changed_weights(tok, torch.tensor([row, row]), 4.0)
    at = [i - 1 for i in changed_tokens(tok, row)]               # the positions that predict them
    assert w.shape == (2, len(row)) and (w[:, at] == 4.0).all() and int((w != 1).sum()) == 2 * len(at)


def test_apply_hunks_leaves_out_a_hunk_whose_lines_are_not_there_and_picks_the_nearest_copy():
    region = "a = 1\nb = 2\na = 1\nc = 3"
    assert apply_hunks(region, [(["z = 0"], ["z = 1"]), (["c = 3"], ["c = 4"])]) == "a = 1\nb = 2\na = 1\nc = 4"
    assert apply_hunks(region, [(["a = 1"], ["a = 9"])], cursor_line=3) == "a = 1\nb = 2\na = 9\nc = 3"
    assert apply_hunks(region, [(["a = 1"], ["a = 9"])], cursor_line=0) == "a = 9\nb = 2\na = 1\nc = 3"
    # hunks apply in order, each below the one before
    assert apply_hunks(region, [(["b = 2"], ["b = 3"]), (["a = 1"], ["a = 0"])], 0) == "a = 1\nb = 3\na = 0\nc = 3"


def test_edit_stream_is_deterministic_and_mixes_silence(tok, texts):
    import itertools
    a = list(itertools.islice(edit_stream(texts, tok, 384, seed=3), 60))
    b = list(itertools.islice(edit_stream(texts, tok, 384, seed=3), 60))
    assert [e.tokens for e in a] == [e.tokens for e in b]
    region_end = tok.special["<|edit_region_end|>"]
    silent = 0
    for e in a:
        answer = e.tokens[e.tokens.index(region_end) + 1:e.n_ctx]
        assert answer[-1] == tok.eom_id and e.tokens[e.n_ctx:] == [tok.eom_id] and len(e.tokens) <= 384
        silent += answer == [tok.eom_id]
    assert 0.2 < silent / len(a) < 0.7


def test_other_languages_by_tree_sitter():
    ts = (ROOT / "editors" / "vscode" / "src" / "extension.ts").read_text()
    go = "package main\n\nfunc add(total int, step int) int {\n\ttotal = total + step\n\tstep = step * 2\n\treturn total + step\n}\n"
    for text, lang in ((ts, "typescript"), (go, "go")):
        got = [sample_case(text, random.Random(s), "rename", lang=lang) for s in range(20)]
        got = [c for c in got if c is not None]
        assert got and all(c.target_region != c.task.region for c in got if c.category != "jump")


def test_bench_reads_only_the_heldout_split(tmp_path, tok, monkeypatch):
    root = tmp_path / "src"
    root.mkdir()
    for p in PY_FILES:
        for i in range(3):
            (root / f"{p.stem}_{i}.py").write_text(p.read_text() + f"\n# copy {i}\n")
    man = build_corpus(tmp_path / "corpus", roots=[root], heldout_percent=50)
    assert man["splits"]["heldout"]["files"] and man["splits"]["train"]["files"]
    bench = _bench()
    asked = []
    real = bench.read_split
    monkeypatch.setattr(bench, "read_split", lambda d, split: (asked.append(split), real(d, split))[1])
    records = bench.heldout_records(tmp_path / "corpus")
    held = {r["path"] for r in records}
    train = {r["path"] for r in real(tmp_path / "corpus", "train")}
    cases = bench.build_cases(records, tok, n=4, seed=0)
    assert asked == ["heldout"] and cases
    assert {c.file_id.rsplit("@", 1)[0] for c in cases} <= held and not held & train
    again = bench.build_cases(records, tok, n=4, seed=0)
    assert [(c.file_id, c.task.cursor, c.target_region) for c in cases] == \
        [(c.file_id, c.task.cursor, c.target_region) for c in again]
    rows = bench.score(cases, lambda task: task.region)
    s = bench.summarize(rows)
    assert s["all"]["silent"] == 1.0 and s.get("noise", {"exact": 1.0})["exact"] == 1.0
    assert s["edits_exact"] == 0.0


def test_bench_jump_scoring_through_predict_anywhere(tok, texts):
    bench = _bench()
    cases = [c for s in range(80) if (c := sample_case(texts[s % 4], random.Random(s), "rename")) and c.category == "jump"]
    assert cases

    def oracle(text, line, col, history):  # knows the answer: the target region at target_line
        case = next(c for c in cases if c.task.text == text and c.task.position() == (line, col))
        a, b = region_lines(text.count("\n") + 1, case.target_line)
        return a, b, case.target_region

    rows = bench.score(cases, lambda task: task.region, oracle)
    assert all(r["exact"] for r in rows)
    rows = bench.score(cases, lambda task: task.region)      # no predict_anywhere: silence, not exact
    assert not any(r["exact"] for r in rows) and all(r["silent"] for r in rows)


def test_history_merges_touching_edits_as_the_server_does():
    from redraft.model.edits import history_of
    t0 = "a = 1\nb = 2\nc = 3\n\n\nd = 4"
    t1 = t0.replace("a = 1", "a = 10")
    t2 = t1.replace("b = 2", "b = 20")          # the next line: one hunk with the first
    t3 = t2.replace("d = 4", "d = 40")          # far away: a new hunk
    t4 = t3.replace("d = 40", "d = 4")          # undone: that hunk goes
    steps = [(t0, t1, 0), (t1, t1, 3), (t1, t2, 0), (t2, t3, 0)]
    assert history_of(steps) == [("a = 1\nb = 2", "a = 10\nb = 20"), ("d = 4", "d = 40")]
    assert history_of(steps + [(t3, t4, 0)]) == [("a = 1\nb = 2", "a = 10\nb = 20")]
    ins = t0.replace("a = 1\n", "a = 1\nx = 0\n")       # an inserted line carries the line after it
    assert history_of([(t0, ins, 0)]) == [("b = 2", "x = 0\nb = 2")]
    end = t0 + "\ne = 5"                                 # at the end: the line before it
    assert history_of([(t0, end, 0)]) == [("d = 4", "d = 4\ne = 5")]


def test_a_parse_error_s_missing_name_is_no_rename_site():
    """tree-sitter fills `for in y:` with a zero-length identifier; scanning skips it (renaming it
    crashed a training run's data stream: runs/nc2) and the generators still work on the file."""
    from redraft.model.edit_sites import scan
    text = "for in y:\n    pass\nfor in y:\n    y = 1\nfor in y:\n    pass\n"
    assert scan(text).names and all(name for name, _ in scan(text).names)
    for seed in range(20):
        sample_case(text, random.Random(seed), "rename")


def test_block_guide_holds_a_hunks_block_to_runs_of_the_regions_lines(tok):
    """block_guide: after <|edit_before|>, only tokens that go on to a run of whole region lines
    (as answer_ids encodes it), <|edit_after|> once one is complete; no constraint outside a block."""
    region = "a = 1\nb = 2\nc = 3"
    guide = block_guide(tok, region)
    b_id, a_id = answer_markers(tok)
    assert guide([]) is None and guide([tok.eom_id]) is None
    for block in (["b = 2"], ["a = 1", "b = 2"], ["a = 1", "b = 2", "c = 3"]):
        ids = tok.encode("\n".join(block))
        for k in range(len(ids)):
            assert ids[k] in guide([b_id, *ids[:k]])
        assert a_id in guide([b_id, *ids])
    assert a_id not in guide([b_id]) and a_id not in guide([b_id, *tok.encode("a =")])
    firsts = guide([b_id])
    assert firsts == {tok.encode(line)[0] for line in region.split("\n")}
    assert guide([b_id, *tok.encode("z = 9")]) == set()                     # off the region: no set
    assert guide([b_id, *tok.encode("a = 1"), a_id, *tok.encode("a")]) is None   # the new side is free
    after_one = [b_id, *tok.encode("a = 1"), a_id, *tok.encode("a = 2"), b_id]
    assert guide(after_one) == firsts                                        # the next hunk's block


def test_token_bench_counts_each_part_of_an_answer(tok):
    """bench/next_edit_tokens.py: the first token, each hunk's block (and its <|edit_after|>), the
    new text's copied and changed tokens (changed_tokens) are counted once each."""
    from redraft.model import checkpoint
    from redraft.model.data import Example
    spec = importlib.util.spec_from_file_location("bench_tokens", ROOT / "bench" / "next_edit_tokens.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    ctx = tok.encode("def f(count):\n    return count\n") + [tok.special[ANSWER_AFTER]]
    hunks = [(["    log(count)"], ["    log(total)"]), (["    return count"], ["    return total + 1"])]
    row = ctx + answer_ids(tok, hunks)
    silent = ctx + [tok.eom_id]
    got = mod.split_accuracy(checkpoint.load().model.float(), tok, [Example(row, len(row)), Example(silent, len(silent))])
    blocks = sum(len(tok.encode(b[0])) + 1 for b, _ in hunks)
    news = sum(len(tok.encode(a[0])) for _, a in hunks)
    n_changed = len(changed_tokens(tok, row))
    assert [n for _, n in got.values()] == [2, blocks, news - n_changed, n_changed, 2]
    assert all(0 <= right <= n for right, n in got.values())
