"""`redraft next-edit FILE --line L --col C [--history DIFF_FILE]`: the JSON it prints, the history
diffs it reads, code-point columns, and the inputs it refuses (exit 2). The shipped model is not
trained for next edits yet, so the printed edit is compared with the predictor run in this process
on the same text and history (`predict_at` with an Engine), never judged. The command loads no
model (nor torch) unless analogy has nothing and the model's config says it was trained for next
edits (issue 44): the console script's imports are read with PYTHONPROFILEIMPORTTIME."""
from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from redraft.lsp.convert import LineIndex, to_next_edit
from redraft.cli.next_edit import main
from redraft.engine.next_edit.history import parse_history

ROOT = Path(__file__).resolve().parents[1]
UNICODE = 'def grüße(name):\n    """Sagt 🙂 hallo."""\n    text = "héllo 🙂 " + nme\n    return text\n'


@pytest.fixture(scope="module")
def engine():
    from redraft.engine.pipeline import Engine
    return Engine(None, threads=1)


@pytest.fixture
def cli(capsys):
    """main() in this process (the subprocess tests run the console script)."""
    def run(*args: str) -> tuple[int, str, str]:
        rc = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return rc, out, err
    return run


def expected(engine, text: str, line: int, col: int, history, file: Path) -> dict:
    from redraft.engine.next_edit.window import predict_at
    offset = sum(len(l) + 1 for l in text.split("\n")[:line]) + col
    edit, _ = predict_at(engine, text, offset, history, str(file), "low")
    return {"edits": [] if edit is None else [to_next_edit(edit, LineIndex(text, "utf-32"))]}


def apply_code_points(text: str, edit: dict) -> str:
    lines = text.split("\n")
    def off(p):
        return sum(len(l) + 1 for l in lines[:p["line"]]) + p["character"]
    return text[:off(edit["range"]["start"])] + edit["text"] + text[off(edit["range"]["end"]):]


def test_the_command_prints_one_json_object(tmp_path: Path):
    src = tmp_path / "shlex_copy.py"
    shutil.copy(Path(shlex_path()), src)
    proc = subprocess.run([sys.executable, "-m", "redraft", "next-edit", str(src), "--line", "40", "--col", "4"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})  # a busy test machine
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) == {"edits"} and len(out["edits"]) <= 1
    for e in out["edits"]:
        assert set(e) == {"range", "text"} and isinstance(e["text"], str)
        for end in ("start", "end"):
            assert set(e["range"][end]) == {"line", "character"}
            assert all(isinstance(v, int) and v >= 0 for v in e["range"][end].values())


def shlex_path() -> str:
    import shlex
    return shlex.__file__


def test_history_diffs_are_read_oldest_first(cli, engine, tmp_path: Path):
    v2 = Path(shlex_path()).read_text(encoding="utf-8")
    v1 = v2.replace("self.whitespace_split", "self.split_ws", 1)
    v0 = v1.replace("punctuation_chars", "punct_chars", 1)
    diff = "".join(difflib.unified_diff(v0.splitlines(True), v1.splitlines(True), "a/shlex.py", "b/shlex.py"))
    diff += "".join(difflib.unified_diff(v1.splitlines(True), v2.splitlines(True), "a/shlex.py", "b/shlex.py"))
    (tmp_path / "edits.diff").write_text(diff, encoding="utf-8")
    history = parse_history(diff)
    assert len(history) == 2
    (b0, a0), (b1, a1) = history
    assert "punct_chars" in b0 and "punctuation_chars" in a0 and "punct_chars" not in a0
    assert "self.split_ws" in b1 and "self.whitespace_split" in a1
    assert len(b1.split("\n")) == len(a1.split("\n")) == 7  # 3 context lines either side
    src = tmp_path / "shlex.py"
    src.write_text(v2, encoding="utf-8")
    line = v2.split("\n").index(next(l for l in v2.split("\n") if "self.whitespace_split" in l))
    rc, out, err = cli(src, "--line", line, "--col", 8, "--history", tmp_path / "edits.diff")
    assert rc == 0, err
    assert json.loads(out) == expected(engine, v2, line, 8, history, src)


def test_columns_count_code_points(cli, engine, tmp_path: Path):
    src = tmp_path / "grüße.py"
    src.write_text(UNICODE, encoding="utf-8")
    from redraft.engine.next_edit.window import predict_at
    for line, col in ((2, 4), (2, len(UNICODE.split("\n")[2]))):
        rc, out, err = cli(src, "--line", line, "--col", col)
        assert rc == 0, err
        got = json.loads(out)
        assert got == expected(engine, UNICODE, line, col, [], src)
        edit, _ = predict_at(engine, UNICODE, sum(len(l) + 1 for l in UNICODE.split("\n")[:line]) + col, [],
                             str(src), "low")
        for e in got["edits"]:  # applied by code points, it is the predictor's edit
            assert apply_code_points(UNICODE, e) == UNICODE[:edit.start] + edit.text + UNICODE[edit.end:]


def test_columns_are_code_points_after_astral_characters(cli, engine, tmp_path: Path):
    """The parameter renamed where it is bound (`nme` -> `name`): analogy finishes `nme` on line 2,
    after "é" and "🙂", with no model."""
    src = tmp_path / "u.py"
    src.write_text(UNICODE, encoding="utf-8")
    old = UNICODE.replace("grüße(name)", "grüße(nme)")
    diff = tmp_path / "rename.diff"
    diff.write_text("".join(difflib.unified_diff(old.splitlines(True), UNICODE.splitlines(True), "a/u.py", "b/u.py")),
                    encoding="utf-8")
    rc, out, _ = cli(src, "--line", 2, "--col", 4, "--history", diff)
    col = UNICODE.split("\n")[2].index("nme") + 1  # code points; UTF-16 would say col + 1, UTF-8 col + 5
    assert rc == 0 and json.loads(out) == {"edits": [{"range": {"start": {"line": 2, "character": col},
                                                                "end": {"line": 2, "character": col}},
                                                      "text": "a"}]}
    assert json.loads(out) == expected(engine, UNICODE, 2, 4, parse_history(diff.read_text(encoding="utf-8")), src)


def test_no_edit_prints_an_empty_list(cli, engine, tmp_path: Path):
    src = tmp_path / "a.py"
    src.write_text("x = 1\n", encoding="utf-8")
    assert cli(src, "--line", 0, "--col", 0)[:2] == (0, '{"edits": []}\n')
    assert expected(engine, "x = 1\n", 0, 0, [], src) == {"edits": []}


def console(*args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    """The real console script `redraft next-edit ...`: (the process, the top-level packages it imported)."""
    exe = shutil.which("redraft", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert exe, "redraft is not on PATH next to this interpreter"
    p = subprocess.run([exe, "next-edit", *args], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPROFILEIMPORTTIME": "1"})
    imported = {l.split("|")[-1].strip().split(".")[0] for l in p.stderr.splitlines() if l.startswith("import time:")}
    return p, imported


def rename_case(tmp_path: Path) -> tuple[Path, Path, str, int, int]:
    """shlex.py with `self.whitespace_split` renamed at its first use (bench/next_edit_cli.py's case):
    (the file, the history diff, the text, the cursor's line and column on the renamed line)."""
    before = Path(shlex_path()).read_text(encoding="utf-8")
    after = before.replace("self.whitespace_split", "self.split_ws", 1)
    src, diff = tmp_path / "shlex.py", tmp_path / "edits.diff"
    src.write_text(after, encoding="utf-8")
    diff.write_text("".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True), "a/s.py", "b/s.py")),
                    encoding="utf-8")
    line = next(i for i, l in enumerate(after.split("\n")) if "self.split_ws" in l)
    return src, diff, after, line, after.split("\n")[line].index("split_ws")


def test_analogy_answers_without_torch_and_as_the_engine_does(engine, tmp_path: Path):
    src, diff, text, line, col = rename_case(tmp_path)
    p, imported = console(str(src), "--line", str(line), "--col", str(col), "--history", str(diff))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "redraft" in imported and "torch" not in imported and "safetensors" not in imported
    got = json.loads(p.stdout)
    assert got["edits"] and got["edits"][0]["text"] == "split_ws"          # the rename carried on
    assert got == expected(engine, text, line, col, parse_history(diff.read_text(encoding="utf-8")), src)
    p, imported = console(str(src), "--line", "0", "--col", "0")            # nothing by analogy, no trained model
    assert p.returncode == 0 and json.loads(p.stdout) == {"edits": []} and "torch" not in imported


def test_a_model_trained_for_next_edits_is_loaded_only_where_analogy_has_nothing(tmp_path: Path):
    """A copy of the shipped weights whose config says `next_edit` (predict.FORMAT): the command
    loads it where analogy is silent and prints what `predict_at` with that model's Engine does."""
    from redraft.engine.next_edit.predict import FORMAT
    from redraft.engine.next_edit.window import predict_at
    from redraft.engine.pipeline import Engine
    from redraft.model.checkpoint import DEFAULT_DIR
    model = tmp_path / "model"
    shutil.copytree(DEFAULT_DIR, model)
    cfg = json.loads((model / "config.json").read_text())
    (model / "config.json").write_text(json.dumps({**cfg, "next_edit": FORMAT}))
    src, diff, text, line, col = rename_case(tmp_path)
    p, imported = console(str(src), "--line", str(line), "--col", str(col), "--history", str(diff), "--model", str(model))
    assert p.returncode == 0 and "torch" not in imported                  # analogy answered
    assert json.loads(p.stdout)["edits"][0]["text"] == "split_ws"
    p, imported = console(str(src), "--line", "3", "--col", "0", "--model", str(model))
    assert p.returncode == 0, p.stderr[-2000:]
    assert "torch" in imported                                            # the model was asked
    edit, passes = predict_at(Engine(str(model), threads=1), text, sum(len(l) + 1 for l in text.split("\n")[:3]),
                              [], str(src), "low")
    assert passes > 0
    want = [] if edit is None else [to_next_edit(edit, LineIndex(text, "utf-32"))]
    assert json.loads(p.stdout) == {"edits": want}


def test_parse_history_details():
    diff = textwrap.dedent("""\
        diff --git a/x.py b/x.py
        index 123..456 100644
        --- a/x.py
        +++ b/x.py
        @@ -1,3 +1,3 @@
         a = 1
        --- removed comment line
        +-- added
         c = 3
        @@ -10 +10,2 @@
        -last
        \\ No newline at end of file
        +last
        +more
        \\ No newline at end of file
        """)
    assert parse_history(diff) == [("a = 1\n-- removed comment line\nc = 3", "a = 1\n-- added\nc = 3"),
                                   ("last", "last\nmore")]
    assert parse_history("") == []
    with pytest.raises(ValueError):
        parse_history("@@ -1,3 +1,3 @@\n a\n")


@pytest.mark.parametrize("args, needle", [
    (["missing.py", "--line", "0", "--col", "0"], "cannot read"),
    (["f.py", "--line", "0", "--col", "0", "--history", "missing.diff"], "cannot read"),
    (["f.py", "--line", "0", "--col", "0", "--history", "bad.diff"], "bad history diff"),
    (["f.py", "--line", "2", "--col", "0"], "outside"),
    (["f.py", "--line", "-1", "--col", "0"], "outside"),
    (["f.py", "--line", "0", "--col", "6"], "outside"),
    (["binary.py", "--line", "0", "--col", "0"], "cannot read"),
    (["f.py", "--line", "x", "--col", "0"], "invalid int"),
    (["f.py", "--col", "0"], "required"),
    (["f.py", "--line", "0", "--col", "0", "--model", "no-such-model"], "cannot load the model"),
])
def test_bad_inputs_exit_2_with_one_line(tmp_path: Path, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text("x = 1", encoding="utf-8")  # one line, 5 characters
    (tmp_path / "bad.diff").write_text("@@ -1,2 +1,2 @@\n x\n", encoding="utf-8")
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00x")
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2 and needle in err
    if not needle.startswith(("invalid", "required")):  # argparse prints its usage first
        assert err.count("\n") == 1 and err.startswith("redraft next-edit: ")
