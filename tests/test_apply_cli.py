"""`redraft apply FILE SNIPPET` as a user runs it (a subprocess): the merged file on stdout, a
refusal on stderr with exit 1 and nothing on stdout, --in-place only on success and atomically,
--diff, --language, the snippet from stdin, and exit 2 for bad arguments or unreadable files."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from redraft.engine.apply import merge

ROOT = Path(__file__).resolve().parents[1]
TEXTWRAP = Path(textwrap.__file__).read_text(encoding="utf-8")


def ok(original, snippet, language="python"):
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "redraft", "apply", *map(str, args)], cwd=ROOT,
                          capture_output=True, input=stdin, timeout=120)


@pytest.fixture
def files(tmp_path):
    f = tmp_path / "tw.py"
    f.write_bytes(TEXTWRAP.encode("utf-8"))
    good = tmp_path / "good.txt"
    good.write_text("def indent(text, prefix, predicate=None):\n    return prefix + text\n", encoding="utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("def nowhere():\n    pass\n", encoding="utf-8")
    return f, good, bad


def test_cli_stdout(files):
    f, good, _ = files
    p = _cli(f, good)
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode("utf-8") == ok(TEXTWRAP, good.read_text()) and p.stderr == b""
    assert f.read_text(encoding="utf-8") == TEXTWRAP


def test_cli_refusal(files):
    f, _, bad = files
    p = _cli(f, bad)
    assert p.returncode == 1 and p.stdout == b""
    assert p.stderr.decode().startswith("redraft apply: refused: cannot place new definition `nowhere`")


def test_cli_in_place(files):
    f, good, bad = files
    p = _cli(f, bad, "--in-place")
    assert p.returncode == 1 and f.read_bytes() == TEXTWRAP.encode("utf-8")
    p = _cli(f, good, "--in-place")
    assert p.returncode == 0 and p.stdout == b""
    assert f.read_text(encoding="utf-8") == ok(TEXTWRAP, good.read_text())
    assert [x.name for x in f.parent.iterdir() if x.name.startswith(".redraft")] == []


def test_cli_diff(files):
    f, good, _ = files
    p = _cli(f, good, "--diff")
    assert p.returncode == 0
    out = p.stdout.decode()
    assert out.startswith(f"--- {f}\n+++ {f}\n@@") and "+    return prefix + text\n" in out


def test_cli_language_flag_and_bad_arguments(files, tmp_path):
    f, good, _ = files
    txt = tmp_path / "tw.txt"
    txt.write_text(TEXTWRAP, encoding="utf-8")
    assert _cli(txt, good).returncode == 2                      # unknown extension
    assert _cli(txt, good, "--language", "python").returncode == 0
    assert _cli(tmp_path / "missing.py", good).returncode == 2
    assert _cli(f).returncode == 2                               # missing argument
    latin = tmp_path / "latin.py"
    latin.write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    p = _cli(latin, good)
    assert p.returncode == 1 and b"not UTF-8" in p.stderr


def test_cli_snippet_from_stdin(files):
    f, good, _ = files
    p = _cli(f, "-", stdin=good.read_bytes())
    assert p.returncode == 0 and b"return prefix + text" in p.stdout
