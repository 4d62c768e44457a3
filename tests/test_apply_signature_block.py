"""Issue 43: a fragment after a marker that follows a function's first line, when the signature runs
over several lines, stays in that function: the block the marker is in runs on past the signature's
closing line (`) -> Result<()> {`, `) -> None:`) to the end of the body.

The shape, from a real release (maturin's build_context.rs): `fn write_uniffi_wheel(` shown alone,
a marker, then the changed arguments of a call that other functions make alike, then a marker.  The
marker's block ended at the signature's `) -> Result<...> {` line (as little indented as the
function), so no place was inside it and the merge refused: "matches more than one place"."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# language: (marker, a function with NAME, whose body's call has the lines `a,`, `b,`, `out,`)
FUNCS = {
    "python": ("# ... existing code ...", "def NAME(\n    a: int,\n    b: int,\n) -> None:\n    write(\n        a,\n"
               "        b,\n        out,\n    )\n"),
    "rust": ("// ... existing code ...", "fn NAME(\n    a: i32,\n    b: i32,\n) -> Result<()> {\n    write(\n"
             "        a,\n        b,\n        out,\n    )?;\n    Ok(())\n}\n"),
    "go": ("// ... existing code ...", "func NAME(\n\ta int,\n\tb int,\n) error {\n\treturn write(\n\t\ta,\n\t\tb,\n"
           "\t\tout,\n\t)\n}\n"),
    "typescript": ("// ... existing code ...", "export function NAME(\n  a: number,\n  b: number,\n): void {\n"
                   "  write(\n    a,\n    b,\n    out,\n  )\n}\n"),
    "javascript": ("// ... existing code ...", "export function NAME(\n  a,\n  b,\n) {\n  write(\n    a,\n    b,\n"
                   "    out,\n  )\n}\n"),
}


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


@pytest.mark.parametrize("lang", sorted(FUNCS))
def test_a_fragment_after_a_split_signature_stays_in_its_function(lang):
    marker, func = FUNCS[lang]
    gap = "\n\n" if lang == "python" else "\n"
    text = gap.join(func.replace("NAME", name) for name in ("first", "second", "third"))
    lines = func.replace("NAME", "second").splitlines()
    call = [l for l in lines if l.strip() in ("a,", "b,", "out,")][-3:]   # (the call's, not the parameters)
    snippet = "\n".join([marker, lines[0], _indent(lines[1]) + marker, *call[:2], call[2].replace("out", "out2"),
                         _indent(lines[4]) + marker]) + "\n"
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    second = text.index(func.replace("NAME", "second"))
    assert res.text == text[:second] + text[second:].replace("out,", "out2,", 1)
