"""Issue 43: a fragment's last three lines found all over the file are no frame.  The shape, from
a real release (qs's test/stringify.js): every test ends with a blank line, `st.end();` and `});`;
the snippet rewrites one test that ended without the blank line and adds one there, then a marker.
Its last lines then frame a region running to the end of a later test, as a unified diff's hunk
would, and the merge deleted the tests between (exit 0, 148 lines lost).  Such frames, found more
than three times in the file, are chance: the region is chosen on its lines, and one that drops
lines the snippet does not show is refused with its reason, never merged silently."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ..."}
BLOCKS = {   # (open, body, closing lines) of test k, as each language writes a test
    "javascript": (lambda k: f"it('case {k}', function () {{", "    assert.equal(f({k}), {k});",
                   ["    done();", "});"]),
    "typescript": (lambda k: f"it('case {k}', (): void => {{", "    expect(f({k})).toBe({k});", ["    done();", "});"]),
    "rust": (lambda k: f"fn case_{k}() {{", "    assert_eq!(f({k}), {k});", ["    done();", "}"]),
    "go": (lambda k: f"func TestCase{k}(t *testing.T) {{", "\tcheck(t, f({k}), {k})", ["\tdone(t)", "}"]),
    "python": (lambda k: f"def test_case_{k}():", "    assert f({k}) == {k}", ["    done()", "    return None"]),
}


def _block(lang: str, k: int, padded: bool, extra: str | None = None) -> list[str]:
    """Test k: four checks (of f, g, h and i), then its closing lines."""
    head, body, close = BLOCKS[lang]
    checks = [body.format(k=k).replace("f(", f"{fn}(") for fn in "fghi"]
    return [head(k), *checks, *([extra] if extra else []), *([""] if padded else []), *close]


def _file(lang: str, blocks: list[list[str]]) -> str:
    lines = ["package main", ""] if lang == "go" else []
    for b in blocks:
        lines += b + [""]
    return "\n".join(lines)


@pytest.mark.parametrize("lang", list(BLOCKS))
def test_a_tail_found_all_over_the_file_frames_nothing(lang):
    extra = {"python": "    print(RESULTS)", "go": "\tt.Log(results)"}.get(lang, "    console.log(results);")
    old = [_block(lang, k, padded=k >= 3) for k in range(7)]      # tests 3-6 end with a blank line
    new = [*old[:1], _block(lang, 1, padded=True, extra=extra), *old[2:]]
    mark = MARK.get(lang, "// ... existing code ...")
    fragment = old[0][-1:] + [""] + new[1]
    snippet = "\n".join([mark, *fragment, "", mark]) + "\n"
    r = merge(_file(lang, old), snippet, lang)
    if r.ok:
        assert r.text == _file(lang, new)
    else:
        assert "would delete" in r.reason
