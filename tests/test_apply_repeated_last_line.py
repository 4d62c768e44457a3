"""Issue 43: a fragment whose last line, right before a marker, is one the file has more than three
times (a test table's `minimum: Some(5.5),`) cannot tell new entries written before the first copy
(adding lines) from the entries up to a later copy rewritten (llguidance's numeric.rs: six new `Case
{...}` entries read as the first old entries rewritten into them, 22 lost lines twice).  It is refused,
with both places, as a fragment whose last line has no word is; a last line the file has once still
places the fragment.  The same for a first line right after a marker (`ok: false,` in every entry)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge


def _entry(lang: str, minimum: str, maximum: str, exclusive: bool, ok: bool) -> str:
    step = minimum.endswith(".5")     # (the old entries' `multiple_of` line: like no new one)
    if lang == "rust":
        return (f"        Case {{\n            minimum: Some({minimum}),\n            maximum: Some({maximum}),\n"
                f"            exclusive: {str(exclusive).lower()},\n"
                f"            multiple_of: {'Decimal::try_from(0.5).ok()' if step else 'None'},\n"
                f"            ok: {str(ok).lower()},\n        }},\n")
    return (f"    Case(\n        minimum={minimum},\n        maximum={maximum},\n        exclusive={exclusive},\n"
            f"        multiple_of={'Decimal(0.5).normalize()' if step else 'None'},\n        ok={ok},\n    ),\n")


OLD = [("5.5", m, x, ok) for m in ("6.0", "7.0") for x in (False, True) for ok in (True, False)]   # (each line 4 times)
NEW = [("0.0", "1.0", True, False), ("0.0", "1.0", False, True)]


COMMENT = {"rust": "        // Integer bounds can be empty.\n", "python": "    # integer bounds can be empty\n"}


def _file(lang: str, entries, new=()) -> str:
    body = "".join(_entry(lang, *e) for e in new) + "".join(_entry(lang, *e) for e in entries)
    if new:
        body = COMMENT[lang] + body
    if lang == "rust":
        return ("#[test]\nfn test_bounds() {\n    let cases = vec![\n" + body + "    ];\n"
                "    for case in cases {\n        check(case);\n    }\n}\n")
    return "CASES = [\n" + body + "]\n\n\ndef test_bounds():\n    for case in CASES:\n        check(case)\n"


def _snippet(lang: str, last: str) -> str:
    new = "".join(_entry(lang, *e) for e in NEW)
    if lang == "rust":
        return ("// ... existing code ...\nfn test_bounds() {\n    let cases = vec![\n" + COMMENT[lang] + new +
                f"        Case {{\n            minimum: Some({last}),\n            // ... existing code ...\n"
                "    ];\n    // ... existing code ...\n}\n")
    return ("CASES = [\n" + COMMENT[lang] + new + f"    Case(\n        minimum={last},\n"
            "        # ... existing code ...\n]\n# ... existing code ...\n")


@pytest.mark.parametrize("lang", ["python", "rust"])
def test_new_entries_before_a_repeated_last_line_are_refused_not_rewritten(lang):
    original = _file(lang, OLD)
    r = merge(original, _snippet(lang, "5.5"), lang)
    assert not r.ok
    assert "found 8 times" in r.reason and "adding lines" in r.reason, r.reason


@pytest.mark.parametrize("lang", ["python", "rust"])
def test_new_entries_before_a_last_line_found_once_are_inserted(lang):
    entries = [("4.5", "6.0", False, True)] + OLD[1:]
    original = _file(lang, entries)
    r = merge(original, _snippet(lang, "4.5"), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, entries, NEW)


def _head_snippet(lang: str, first: str) -> str:
    """The list's first line, a marker, the last entry's last lines from `first` on, two new entries, the
    list's end."""
    new = "".join(_entry(lang, *e) for e in NEW)
    if lang == "rust":
        return ("// ... existing code ...\nfn test_bounds() {\n    let cases = vec![\n        // ... existing code ...\n"
                "            " + first + "\n        },\n" + new + "    ];\n    // ... existing code ...\n}\n")
    return "CASES = [\n    # ... existing code ...\n        " + first + "\n    ),\n" + new + "]\n# ... existing code ...\n"


@pytest.mark.parametrize("lang", ["python", "rust"])
def test_new_entries_after_a_repeated_first_line_are_refused_not_rewritten(lang):
    """The same at the fragment's first line: after a marker, a line the file has in every entry."""
    original = _file(lang, OLD)
    first = "ok: false," if lang == "rust" else "ok=False,"
    r = merge(original, _head_snippet(lang, first), lang)
    assert not r.ok
    assert "its first line" in r.reason and "found 4 times" in r.reason and "adding lines" in r.reason, r.reason
