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
