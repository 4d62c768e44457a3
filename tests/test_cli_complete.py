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
    assert set(rec) == {"text", "scope", "forward_passes", "latency_ms"}
    assert rec["forward_passes"] <= 2 and "\n" not in rec["text"]


def test_bad_position_and_missing_file_are_clear_errors(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("x = 1\n")
    r = run(src, 9, 1)
    assert r.returncode == 2 and "outside" in r.stderr
    r = run(tmp_path / "nope.py", 1, 1)
    assert r.returncode == 2 and "cannot read" in r.stderr
