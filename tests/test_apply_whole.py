"""Issue 43: a Python function written out whole, without any marker, that is shorter than the
original.  The shape, from real releases (werkzeug's test_internal.py, test_wrappers.py,
test_wsgi.py; httpx's _urls.py): the release deleted a function's last statements, and the snippet
is the new function.  Python parses the start of a function as a function, so such a snippet
looked "cut short" and was anchored by its lines, keeping the old tail (silently wrong) or refused.
A snippet that is one definition and has no marker at all now replaces the definition: what it
leaves out is deleted and reported, as the snippet is authoritative where it has no marker (a
model that forgot a marker shows up in the report).  Twins: with a marker after the function,
or with --keep-unmarked, the old tail stays."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from redraft.engine.apply import merge
from redraft.engine.apply.by_name import WHOLE_WHY

ROOT = Path(__file__).resolve().parents[1]

SRC = '''import warnings


def test_wrapper_internals():
    resp = Response(b"Hello World!")
    assert resp.data == b"Hello World!"
    assert "Content-Length" in resp.headers

    # check for internal warnings
    warnings.filterwarnings("error", category=Warning)
    resp.response = "What the...?"
    pytest.raises(Warning, lambda: list(resp.iter_encoded()))
    warnings.resetwarnings()


def test_next():
    assert True
'''
SNIPPET = '''def test_wrapper_internals():
    resp = Response(["Hällo Wörld".encode()])
    assert resp.data == "Hällo Wörld".encode()
    assert "Content-Length" in resp.headers
'''
TAIL = '''
    # check for internal warnings
    warnings.filterwarnings("error", category=Warning)
    resp.response = "What the...?"
    pytest.raises(Warning, lambda: list(resp.iter_encoded()))
    warnings.resetwarnings()
'''
HEAD = SRC[:SRC.index("def test_wrapper_internals")]
NEXT = SRC[SRC.index("\n\ndef test_next"):]


def test_a_shorter_function_written_out_whole_replaces_the_old_one():
    r = merge(SRC, SNIPPET, "python")
    assert r.ok, r.reason
    assert r.text == HEAD + SNIPPET + NEXT
    assert [(d.start, d.end, d.why) for d in r.deletions] == [(9, 13, WHOLE_WHY)]


def test_with_a_marker_after_it_the_tail_stays():
    r = merge(SRC, SNIPPET + "    # ... existing code ...\n", "python")
    assert r.ok, r.reason
    assert r.text == HEAD + SNIPPET + TAIL + NEXT
    assert r.deletions == []


def test_keep_unmarked_keeps_the_tail():
    r = merge(SRC, SNIPPET, "python", delete_unmarked=False)
    assert r.ok, r.reason
    assert r.text == HEAD + SNIPPET + TAIL + NEXT
    assert r.deletions == []


def test_the_cli_reports_it(tmp_path):
    f, s = tmp_path / "test_w.py", tmp_path / "snippet.txt"
    f.write_text(SRC, encoding="utf-8")
    s.write_text(SNIPPET, encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "redraft", "apply", str(f), str(s)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert f"deleted 5 lines at 9-13 ({WHOLE_WHY})" in p.stderr
    assert p.stdout == HEAD + SNIPPET + NEXT
