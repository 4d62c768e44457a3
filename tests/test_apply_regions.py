"""Rules on a fragment's chosen region (apply's merge, regions.py), each checked in every language,
with a twin that differs only in what the rule reads and still merges."""
import pytest

from redraft.engine.apply import merge

FIELDS = ["a", "b", "c", "d", "e", "f", "g", "h"]

# (header, footer, comment, indent unit, field template, make line, call line (@ its argument), call
# end, the file's make line)
LANGS = {
    "python": ("def build():", None, "#", "    ", "'@': 1,", "v = make(None)", "check(@, [", "])", "v = make(["),
    "javascript": ("function build() {", "}", "//", "    ", "@: 1,", "const v = make(null);", "check(@, [",
                   "]);", "const v = make(["),
    "typescript": ("export function build(): void {", "}", "//", "    ", "@: 1,", "const v = make(null);",
                   "check(@, [", "]);", "const v = make(["),
    "go": ("func build() {", "}", "//", "\t", "@: 1,", "v := make(nil)", "check(@, []T{", "})", "v := make([]T{"),
    "rust": ("fn build() {", "}", "//", "    ", "@: 1,", "let v = make(None);", "check(@, vec![", "]);",
             "let v = make(vec!["),
}


def _record(lang: str, fields: list[str]) -> list[str]:
    _, _, _, u, field, *_ = LANGS[lang]
    return [u * 2 + "{"] + [u * 3 + field.replace("@", f.upper() if lang == "go" else f) for f in fields] + [u * 2 + "},"]


def _file(lang: str, v: str) -> str:
    head, foot, _, u, _, _, call, end, make_open = LANGS[lang]
    lines = [head, u + make_open] + _record(lang, FIELDS) + [u + end, u + call.replace("@", v)] + \
        _record(lang, ["a"]) + [u + end] + ([foot] if foot else [])
    return "\n".join(lines) + "\n"


def _snippet(lang: str) -> str:
    head, _, comment, u, _, make, call, _, _ = LANGS[lang]
    return "\n".join([head, u + make, u + call.replace("@", "v"), u * 2 + "{", u * 3 + comment + " ... existing code ..."]) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_weak_tail_takes_in_the_line_shown_once(lang):
    """The fragment's `{` tail, after a line found once in the file: the region ends at the `{` after
    that line (the fragment replaces it), not at the first `{` after the head, which would keep the
    line and bring it again."""
    head, foot, _, u, _, make, call, end, _ = LANGS[lang]
    r = merge(_file(lang, "v"), _snippet(lang), lang)
    assert r.ok, r.reason
    want = [head, u + make, u + call.replace("@", "v")] + _record(lang, ["a"]) + [u + end] + ([foot] if foot else [])
    assert r.text == "\n".join(want) + "\n"
    assert r.text.count(call.replace("@", "v")) == 1


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_weak_tail_twin_line_not_in_file(lang):
    """Twin: the line above the `{` tail is new (the file has another one there): nothing is doubled,
    the nearest `{` ends the region."""
    head, foot, _, u, _, make, call, end, _ = LANGS[lang]
    original = _file(lang, "w")
    r = merge(original, _snippet(lang), lang)
    assert r.ok, r.reason
    rest = original.split("\n")[3:]                  # after the first `{` of the file
    assert r.text == "\n".join([head, u + make, u + call.replace("@", "v"), u * 2 + "{"] + rest)


# Methods (Go: functions) `first` and `second`, rewritten by a fragment that starts with the end of
# the definition before them (its closing brace) and shows the next one (`add`) nearly as it is.
# (Python has no such weak first line: its fragment anchors on the definitions' own lines.)
DEFS = {
    "javascript": ("//", "    ", "class A {", "}", "{n}({p}) {", "}", None),
    "typescript": ("//", "    ", "export class A {", "}", "{n}({p}): number {", "}", None),
    "rust": ("//", "    ", "impl A {", "}", "fn {n}(&self, {p}) -> i32 {", "}", None),
    "go": ("//", "", "", None, "func {n}({p}) int {", "}", None),
}


def _def(lang: str, name: str, params: str, body: list[str]) -> list[str]:
    _, u, _, _, header, close, last = DEFS[lang]
    b = "\t" if lang == "go" else u + "    "
    return [u + header.replace("{n}", name).replace("{p}", params)] + [b + l for l in body] + \
        ([b + last] if last else []) + ([u + close] if close else [])


def _defs(lang: str, parts: list[list[str]]) -> str:
    _, _, opener, closer, *_ = DEFS[lang]
    lines = [opener] if opener else []
    for k, p in enumerate(parts):
        lines += ([""] if k else []) + p
    return "\n".join(lines + ([closer] if closer else [])) + "\n"


def _case(lang: str, names: tuple[str, str]):
    comment = DEFS[lang][0]
    semi = "" if lang in ("python", "go") else ";"
    old = [_def(lang, "head", "x", [f"check(x){semi}"]),
           _def(lang, "first", "begin, end", [f"make(begin, end, 1){semi}"]),
           _def(lang, "second", "begin, end", [f"make(begin, end, 2){semi}"]),
           _def(lang, "add", "segments", [f"check(segments.length >= count){semi}", "",
                                          f"push(merge(segments)){semi}"]),
           _def(lang, "clear", "x", [f"reset(x){semi}"])]
    new = [_def(lang, names[0], "start, stop", [f"create(start, stop, 1){semi}"]),
           _def(lang, names[1], "start, stop", [f"create(start, stop, 2){semi}"]),
           _def(lang, "add", "segments", [f"check(segments.length >= count){semi}", f"push(merge(segments)){semi}"])]
    edge = old[0][-1]
    snippet = "\n".join([comment + " ... existing code ...", edge, ""] + [l for p in new for l in p + [""]] +
                        [comment + " ... existing code ..."]) + "\n"
    return _defs(lang, old), snippet, old, new


@pytest.mark.parametrize("lang", sorted(DEFS))
def test_fragment_takes_in_the_definitions_it_rewrites(lang):
    """A fragment that defines `first` and `second` again (each defined once in the file, at the same
    depth) replaces them: not a region after them that leaves both defined twice."""
    original, snippet, old, new = _case(lang, ("first", "second"))
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == _defs(lang, [old[0]] + new + [old[4]])


@pytest.mark.parametrize("lang", sorted(DEFS))
def test_fragment_twin_new_name_keeps_the_old_definition(lang):
    """Twin: the fragment's definitions have new names: nothing is defined twice, and the region
    that agrees best with the fragment (after `second`) keeps `first` and `second`."""
    original, snippet, old, new = _case(lang, ("other", "another"))
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert "make(begin, end, 1)" in r.text and "create(start, stop, 1)" in r.text


# (comment, header template, closing line, statement end, indent)
FUNCS = {
    "python": ("#", "def {n}():", None, "", "    "),
    "javascript": ("//", "function {n}() {", "}", ";", "    "),
    "typescript": ("//", "function {n}(): void {", "}", ";", "    "),
    "go": ("//", "func {n}() {", "}", "", "\t"),
    "rust": ("//", "fn {n}() {", "}", ";", "    "),
}


def _funcs(lang: str, second_line: str) -> tuple[str, str]:
    comment, header, close, end, u = FUNCS[lang]

    def fn(name: str, body: list[str]) -> list[str]:
        return [header.replace("{n}", name)] + [u + b + end for b in body] + ([close] if close else [])
    original = fn("one", ['log("start")', second_line]) + [""] + \
        fn("two", ['log("start")', 'log("other")', "finish(1)", "finish(2)", "finish(3)", "reset()", "finish(3)"])
    snippet = [comment + " ... existing code ..."] + \
        [u + b + end for b in ['log("start")', 'log("done")', "finish(1)", "finish(2)", "finish(3)"]] + \
        [comment + " ... existing code ..."]
    return "\n".join(original) + "\n", "\n".join(snippet) + "\n"


@pytest.mark.parametrize("lang", sorted(FUNCS))
def test_first_two_lines_found_once_elsewhere_refuse(lang):
    """The fragment's first two lines are together, once, in `one`, where its last line cannot be
    reached; its region in `two` would keep them in `one` and bring them again: refused."""
    r = merge(*_funcs(lang, 'log("done")'), lang)
    assert not r.ok
    assert "twice" in r.reason


@pytest.mark.parametrize("lang", sorted(FUNCS))
def test_first_two_lines_twin_not_in_file_merges(lang):
    """Twin: `one` shows another second line: the fragment's first two lines are not in the file
    together, and the fragment rewrites `two`."""
    r = merge(*_funcs(lang, 'log("end")'), lang)
    assert r.ok, r.reason
    assert r.text.count('log("done")') == 1 and 'log("other")' not in r.text
