"""Issue 43: a fragment whose first line has no words (`}`) in a file where that line is
everywhere.  The shape, from a real release (luxon's bundled build/es6/luxon.js, 8,000 lines): a
snippet starts with `  }`, a blank line and `  formatDurationFromString(dur, fmt) {`, which the file
has once.  Past 400 places for its first line (anchors.MAX_HEADS) the merge refused ("matches more
than one place"); the places kept are those where the fragment's next lines follow too, up to its
first line with words.  In the five languages (Python's wordless line: a list's closing `]`)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

N = 450                               # more definitions than anchors.MAX_HEADS


def _defs(lang: str, changed: int | None = None) -> list[list[str]]:
    out = []
    for k in range(N):
        v = f"{k} + 1" if k == changed else str(k)
        out.append({
            "python": [f"def value_{k}():", "    return [", f"        {v},", "    ]"],
            "javascript": [f"  value{k}() {{", f"    return [{v}];", "  }"],
            "typescript": [f"  value{k}(): number[] {{", f"    return [{v}];", "  }"],
            "rust": [f"    fn value_{k}(&self) -> Vec<i32> {{", f"        vec![{v}]", "    }"],
            "go": [f"func value{k}() []int {{", f"\treturn []int{{{v}}}", "}"],
        }[lang])
    return out


def _file(lang: str, changed: int | None = None) -> str:
    gap = ["", ""] if lang == "python" else [""]
    body: list[str] = []
    for k, d in enumerate(_defs(lang, changed)):
        body += (gap if k else []) + d
    wrap = {"javascript": (["class Values {"], ["}"]), "typescript": (["class Values {"], ["}"]),
            "rust": (["impl Values {"], ["}"]), "go": (["package values", ""], [])}.get(lang, ([], []))
    return "\n".join(wrap[0] + body + wrap[1]) + "\n"


@pytest.mark.parametrize("lang", ["python", "javascript", "typescript", "rust", "go"])
def test_a_wordless_first_line_everywhere_is_placed_by_the_lines_after_it(lang):
    k = 300
    defs = _defs(lang, k)
    gap = ["", ""] if lang == "python" else [""]
    marker = "# ... existing code ..." if lang == "python" else "// ... existing code ..."
    snippet = [marker, defs[k - 1][-1]] + gap + defs[k] + [marker]
    r = merge(_file(lang), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, k)
