"""Issue 43: a snippet whose fragment ends with a test's first decorator, then a marker, then the
next fragment shows that test's `def` without its decorators.  The shape, from a real release
(robyn's test_authentication.py): each test is `@pytest.mark.benchmark`, `@pytest.mark.parametrize
(...)`, `def test_...`; the snippet rewrote each test's last assert, showing `@pytest.mark.benchmark`
at the end of one fragment and the next test's `def` after a marker.  A function shown without its
decorators keeps them, and the merge wrote that as an edit putting the same decorator lines back,
which overlapped the fragment before: "two parts of the snippet edit the same lines" (refused, on
406942d).  Decorators kept as they are need no edit."""
from __future__ import annotations

from redraft.engine.apply import merge


def _test(name: str, check: str) -> list[str]:
    return ["@pytest.mark.benchmark", "@pytest.mark.parametrize(\"kind\", [\"sync\", \"async\"])",
            f"def {name}(session, kind: str):", "    r = get(f\"/{kind}/auth\", check=False)",
            "    assert r.status_code == 401", f"    assert {check} == \"BearerGetter\"", "", ""]


OLD, NEW = "r.headers[\"WWW-Authenticate\"]", "r.headers.get(\"WWW-Authenticate\")"
FILE = ["import pytest", "", ""] + _test("test_invalid_token", OLD) + _test("test_no_token", OLD)


def test_a_def_shown_after_a_fragment_ending_in_its_decorator_is_merged():
    snippet = ["# ... existing code ...", "    assert r.status_code == 401", f"    assert {NEW} == \"BearerGetter\"",
               "", "", "@pytest.mark.benchmark", "# ... existing code ...", "def test_no_token(session, kind: str):",
               "    r = get(f\"/{kind}/auth\", check=False)", "    assert r.status_code == 401",
               f"    assert {NEW} == \"BearerGetter\""]
    r = merge("\n".join(FILE[:-1]) + "\n", "\n".join(snippet) + "\n", "python")
    assert r.ok, r.reason
    want = ["import pytest", "", ""] + _test("test_invalid_token", NEW) + _test("test_no_token", NEW)
    assert r.text == "\n".join(want[:-1]) + "\n"
    assert not r.deletions
