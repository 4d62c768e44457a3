"""Issue 43: a call whose arguments were on lines of their own, written on one line by the snippet
(a formatter joins them once they are shorter).  The shape, from real releases (orjson's dict.rs:
`PyObjectSerializer::new(` with five argument lines and `);` became one line with two arguments;
a pydantic-core test likewise): the five argument lines had nothing like them among the snippet's
lines, so the merge refused as if they were deleted without a marker.  A run of dropped lines
between a bracket that a new line opens the same way and the line that closes it is that new
line's rewrite, not a deletion.  A run deleted outright is still refused (the last test)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ...", "go": "// ... existing code ..."}

# (open, argument lines, close, joined one-line call) in each language
CALLS = {
    "python": ("    value = PyObjectSerializer(", ["        item,", "        self.opts,", "        self.default_calls,",
               "        self.recursion,", "        self.default,"], "    )",
               "    value = PyObjectSerializer(item, self.state, self.default)"),
    "rust": ("    let value = PyObjectSerializer::new(", ["        *item,", "        self.opts,",
             "        self.default_calls,", "        self.recursion,", "        self.default,"], "    );",
             "    let value = PyObjectSerializer::new(*item, self.state, self.default);"),
    "go": ("\tvalue := NewPyObjectSerializer(", ["\t\titem,", "\t\ts.opts,", "\t\ts.defaultCalls,", "\t\ts.recursion,",
           "\t\ts.fallback,"], "\t)", "\tvalue := NewPyObjectSerializer(item, s.state, s.fallback)"),
    "javascript": ("  const value = new PyObjectSerializer(", ["    item,", "    this.opts,", "    this.defaultCalls,",
                   "    this.recursion,", "    this.fallback,"], "  );",
                   "  const value = new PyObjectSerializer(item, this.state, this.fallback);"),
}
CALLS["typescript"] = CALLS["javascript"]


def _body(lang: str, call: list[str], name: str = "serialize") -> list[str]:
    """A function: three statements, the call, two statements after it."""
    if lang == "python":
        head, st, end = f"def {name}(self, item, out):", lambda s: f"    {s}", []
    elif lang == "rust":
        head, st, end = f"fn {name}(&self, item: &Item, out: &mut Out) {{", lambda s: f"    {s};", ["}"]
    elif lang == "go":
        head, st, end = f"func (s *S) {name.title()}(item Item, out *Out) {{", lambda s: f"\t{s}", ["}"]
    else:
        head, st, end = f"function {name}(item, out) {{", lambda s: f"  {s};", ["}"]
    pre = [st("out.begin()"), st("out.reserve(4)"), st("out.mark(item)")]
    post = [st("out.push(value)"), st("out.finish()")]
    return [head, *pre, *call, *post, *end]


def _lines(lang: str, joined: bool) -> list[str]:
    opening, args, close, one = CALLS[lang]
    return _body(lang, [one] if joined else [opening, *args, close])


def _marker(lang: str, indent: str = "") -> str:
    return indent + MARK.get(lang, "// ... existing code ...")


def _file(lang: str, joined: bool) -> str:
    """The function, then another one with the same statements around another call (the fragment's
    first and last lines are found twice in the file: the merge checks what its region drops)."""
    one = CALLS[lang][3]
    other = one.split("=")[0] + "= " + ("KeySerializer(item)" if lang == "python" else "new KeySerializer(item);" if
                                          lang in ("javascript", "typescript") else "KeySerializer::new(*item);"
                                          if lang == "rust" else "NewKeySerializer(item)")
    if lang == "go":
        other = one.split(":=")[0] + ":= NewKeySerializer(item)"
    gap = ["", ""] if lang == "python" else [""]
    return "\n".join(_lines(lang, joined) + gap + _body(lang, [other], "serialize_keys")) + "\n"


@pytest.mark.parametrize("lang", sorted(CALLS))
def test_a_call_joined_on_one_line_rewrites_its_argument_lines(lang):
    new = _lines(lang, joined=True)
    ind = new[1][:len(new[1]) - len(new[1].lstrip())]
    snippet = "\n".join([new[0], _marker(lang, ind), *new[1:7], _marker(lang, ind), _marker(lang)]) + "\n"
    r = merge(_file(lang, joined=False), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, joined=True)


@pytest.mark.parametrize("lang", sorted(CALLS))
def test_argument_lines_deleted_with_nothing_like_them_are_still_refused(lang):
    """The snippet drops the whole call (the line before it, then the line after): not a rewrite."""
    old = _lines(lang, joined=False)
    ind = old[1][:len(old[1]) - len(old[1].lstrip())]
    snippet = "\n".join([old[0], _marker(lang, ind), *old[1:4], *old[11:13], _marker(lang, ind),
                         _marker(lang)]) + "\n"
    r = merge(_file(lang, joined=False), snippet, lang)
    assert not r.ok
    assert "would delete lines" in r.reason


@pytest.mark.parametrize("lang", sorted(CALLS))
def test_a_bracket_opened_again_by_a_like_line_rewrites_its_lines(lang):
    """orjson's numpy.rs: `pub struct NumpySerializer {` and its five fields became
    `pub struct NumpySerializer<'a> {` with one field: the old fields are rewritten, not deleted."""
    opening, args, close, _ = CALLS[lang]
    reopened = opening.replace("PyObjectSerializer", "PyObjectSerializers")
    ind = args[0][:len(args[0]) - len(args[0].lstrip())]
    new_args = [f"{ind}previous{',' if lang != 'go' else ','}", f"{ind}limit,"]
    old = _lines(lang, joined=False)
    built = close.rstrip(";") + ".build()" + (";" if close.endswith(";") else "")   # (not kept: the region's
    new = old[:4] + [reopened, *new_args, built] + old[11:]                      # edges are found twice)
    snippet = "\n".join([new[0], _marker(lang, ind[:len(ind) // 2]), *new[1:10], _marker(lang, ind[:len(ind) // 2]),
                         _marker(lang)]) + "\n"
    r = merge(_file(lang, joined=False), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, joined=False).replace("\n".join(old), "\n".join(new))
