"""Issue 43: a Python test function rewritten whole, shown without its decorators.  Decorators the
snippet leaves out stay (test_apply.test_decorators_the_snippet_leaves_out_are_kept), except a
pytest `parametrize` whose argument names the new signature no longer takes: pytest would refuse
to collect the test ("function uses no argument"), so the snippet dropped it.  The shape, from real
releases (attrs' test_slots.py, packaging's test_version.py): `@pytest.mark.parametrize("cls", [A])`
removed along with the `cls` parameter.  The decorator's removal is reported like any deletion, and
`--keep-unmarked` keeps it."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from redraft.engine.apply import merge

ROOT = Path(__file__).resolve().parents[1]

SRC = '''import pytest


@pytest.mark.parametrize(
    ("version", "klass"), [("1.0", Version), ("1-1-1", LegacyVersion)]
)
@pytest.mark.slow
def test_parse(version, klass):
    assert isinstance(parse(version), klass)


def test_other():
    assert True
'''


def test_a_parametrize_for_arguments_the_function_dropped_goes_and_is_reported():
    r = merge(SRC, 'def test_parse():\n    assert isinstance(parse("1.0"), Version)\n', "python")
    assert r.ok, r.reason
    assert r.text == SRC.replace('''@pytest.mark.parametrize(
    ("version", "klass"), [("1.0", Version), ("1-1-1", LegacyVersion)]
)
''', "").replace("def test_parse(version, klass):\n    assert isinstance(parse(version), klass)",
                 'def test_parse():\n    assert isinstance(parse("1.0"), Version)')
    assert [(d.start, d.end) for d in r.deletions] == [(4, 6)]
    assert "parametrize" in r.deletions[0].why


def test_one_argument_left_out_is_enough():
    r = merge(SRC, "def test_parse(version):\n    assert parse(version)\n", "python")
    assert r.ok, r.reason
    assert "@pytest.mark.parametrize(" not in r.text and "@pytest.mark.slow\ndef test_parse(version):" in r.text


def test_a_parametrize_the_signature_still_takes_stays():
    for snippet in ("def test_parse(version, klass):\n    assert parse(version) is not None\n",
                    "def test_parse(\n    klass,\n    version,\n):\n    assert parse(version) is not None\n"):
        r = merge(SRC, snippet, "python")
        assert r.ok, r.reason
        assert r.text.startswith(SRC[:SRC.index("def test_parse")]) and r.deletions == []


def test_names_in_one_string_and_other_decorators():
    src = ('@pytest.mark.parametrize("a, b", [(1, 2)])\n@pytest.mark.parametrize("c", [3])\n'
           "@other\ndef test_x(a, b, c):\n    assert a < b < c\n")
    r = merge(src, "def test_x(a, b):\n    assert a < b\n", "python")
    assert r.ok, r.reason
    assert r.text == '@pytest.mark.parametrize("a, b", [(1, 2)])\n@other\ndef test_x(a, b):\n    assert a < b\n'
    assert [(d.start, d.end) for d in r.deletions] == [(2, 2)]


def test_keep_unmarked_keeps_the_decorator():
    r = merge(SRC, 'def test_parse():\n    assert isinstance(parse("1.0"), Version)\n', "python",
              delete_unmarked=False)
    assert r.ok, r.reason
    assert r.text.startswith(SRC[:SRC.index("def test_parse")]) and "def test_parse():" in r.text
    assert r.deletions == []


def test_the_cli_summary_names_it(tmp_path):
    f, s = tmp_path / "test_v.py", tmp_path / "snippet.txt"
    f.write_text(SRC, encoding="utf-8")
    s.write_text('def test_parse():\n    assert isinstance(parse("1.0"), Version)\n', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "redraft", "apply", str(f), str(s)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "deleted 3 lines at 4-6 (a `parametrize` for arguments the new signature lacks)" in p.stderr
    assert "@pytest.mark.slow\ndef test_parse():" in p.stdout
