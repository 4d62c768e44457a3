"""`redraft complete FILE LINE COL`: one completion through the same pipeline, for scripts."""
import json
import subprocess
import sys

CMD = [sys.executable, "-m", "redraft", "complete"]


def run(*args):
    return subprocess.run(CMD + [str(a) for a in args], capture_output=True, text=True, timeout=120)


def test_prints_a_completion_record(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("def area(w, h):\n    return \n")
    r = run(src, 2, 12, "--json", "--effort", "instant")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert set(rec) == {"text", "scope", "forward_passes", "latency_ms", "confidence", "source", "withheld"}
    assert rec["forward_passes"] <= 2 and "\n" not in rec["text"]


def test_bad_position_and_missing_file_are_clear_errors(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")
    r = run(src, 9, 1)
    assert r.returncode == 2 and "outside" in r.stderr
    r = run(tmp_path / "nope.py", 1, 1)
    assert r.returncode == 2 and "cannot read" in r.stderr


def test_workspace_lines_and_the_gate(tmp_path):
    """--workspace: a line only another file of the project writes is offered, as in the editor
    (every answer shown with --gate always); --gate 1.0 withholds it (an empty answer, withheld in the record); a bad --gate is exit 2."""
    (tmp_path / "util.py").write_text("def frobnicate_widgets(ws, factor):\n    return ws\n")
    (tmp_path / "other.py").write_text("result = frobnicate_widgets(ws, factor=2.5)\n" * 2)
    src = tmp_path / "m.py"
    src.write_text("def grow(ws):\n    result = frob\n    return result\n")
    r = run(src, 2, 18, "--json", "--workspace", tmp_path, "--gate", "always")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["text"] == "nicate_widgets(ws, factor=2.5)" and rec["source"] == "project"
    r = run(src, 2, 18, "--json", "--workspace", tmp_path, "--gate", "1.0")
    rec = json.loads(r.stdout)
    assert rec["text"] == "" and rec["withheld"] is True
    r = run(src, 2, 18, "--gate", "2")
    assert r.returncode == 2 and "--gate" in r.stderr
    r = run(src, 2, 18, "--workspace", tmp_path / "nope")
    assert r.returncode == 2 and "not a directory" in r.stderr
