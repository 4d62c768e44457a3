"""Issue 43: a fragment whose first line after a marker is bare, a line with no word (`},`) or one
word the file has many times (`return;`), placed where it rewrites the lines between two of that
line's places while a nearer place adds the fragment's lines and keeps as much of the file (a real
release, fresh21: cashews's test_settings_url.py, `},` and `),`, then a new `(url, {...})` item, read as
rewriting the two items before it, 8 lost lines; fresh20: ioredis's cluster, `return;` then new lines,
read as deleting the `if (!redis) {...}` guard before them).  The bare line cannot tell a rewrite from
an addition: refused, naming both places (places.bare_head), unless a definition the file has once
lies between them (it is rewritten: tests/test_apply_regions.py), or the rewrite would delete a key
the snippet never shows (then it adds: the last test).  Shown with a line with words above
it, the fragment merges.  The same holds for the snippet's first fragment after a leading marker when
its first line closes a block (`})`: hifitime's efmt.rs, fresh21, a new test after the last one read
as rewriting that test's last `assert_eq!`, 3 lost lines)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# Per language: (comment, the list's first lines, its last lines, an item's key line)
FORMS = {
    "python": ("#", ["CASES = ("], [")"], '"{k}": {v},'),
    "javascript": ("//", ["export const CASES = ["], ["];"], "{k}: {v},"),
    "typescript": ("//", ["export const CASES: [string, Params][] = ["], ["];"], "{k}: {v},"),
    "rust": ("//", ["pub fn cases() -> Vec<(&'static str, &'static [(&'static str, &'static str)])> {", "    vec!["],
             ["    ]", "}"], '("{k}", {v}),'),
    "go": ("//", ["var cases = [][][]string{"], ["}"], '{{"{k}", {v}}},'),
}
OPEN = {"python": ("(", "{", "},", "),"), "javascript": ("[", "{", "},", "],"), "typescript": ("[", "{", "},", "],"),
        "rust": ("(", "&[", "],", "),"), "go": ("{", "{", "},", "},")}
URL = {"go": '{{"{url}"}},'}                 # (Go: a slice of string slices, the URL alone in the first)


def item(lang: str, url: str, pairs: list[tuple[str, str]], one_line: bool = False) -> list[str]:
    open_item, open_obj, close_obj, close_item = OPEN[lang]
    keys = [FORMS[lang][3].format(k=k, v=v) for k, v in pairs]
    url = URL.get(lang, '"{url}",').format(url=url)
    if one_line:
        return [f"    {open_item}", f"        {url}", f"        {open_obj}{' '.join(keys)}{close_obj}",
                f"    {close_item}"]
    return [f"    {open_item}", f"        {url}", f"        {open_obj}"] + [f"            {k}" for k in keys] + \
        [f"        {close_obj}", f"    {close_item}"]


def source(lang: str, items: list[list[str]]) -> str:
    return "\n".join(FORMS[lang][1] + [l for it in items for l in it] + FORMS[lang][2]) + "\n"


def items(lang: str) -> list[list[str]]:
    return [item(lang, "mem://?size=10", [("size", '"10"')]),
            item(lang, "redis://localhost:9000?", [("address", '"redis://localhost:9000"')], one_line=True),
            item(lang, "redis://localhost:9000/0?client_side=true",
                 [("address", '"redis://localhost:9000/0"'), ("client_side", '"true"')])]


# the new item has the last one's keys: a rewrite of it drops no key the snippet does not show
NEW = ("redis://0.0.0.0:9000?client_side=false", [("address", '"redis://0.0.0.0:9000"'), ("client_side", '"false"')])
# ... this one has `cluster` for `client_side`: a rewrite of the last item would drop `client_side`
CLUSTER = ("redis://0.0.0.0:9000?cluster=true", [("address", '"redis://0.0.0.0:9000"'), ("cluster", '"true"')])


def snippet(lang: str, above: list[str], new: tuple = NEW) -> str:
    """A marker, the list's first line, a marker, `above`, the last item's last two lines, the new item
    and the list's last lines, a marker."""
    marker = f"{FORMS[lang][0]} ... existing code ..."
    return "\n".join([marker, FORMS[lang][1][0], marker] + above + items(lang)[-1][-2:] + item(lang, *new) +
                     FORMS[lang][2] + [marker]) + "\n"


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_an_item_after_a_bare_line_is_refused_naming_both_places(lang):
    old = source(lang, items(lang))
    r = merge(old, snippet(lang, []), lang)
    assert not r.ok, r.text
    assert "its first line, without words, fits at line" in r.reason and "show a line with words above it" in r.reason


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_with_a_line_with_words_above_it_the_item_is_added(lang):
    old = source(lang, items(lang))
    shown = [items(lang)[-1][-3]]                 # the last item's last key, above its `},`
    r = merge(old, snippet(lang, shown), lang)
    assert r.ok, r.reason
    assert r.text == source(lang, items(lang) + [item(lang, *NEW)])


# After a leading marker (the fragment is the snippet's first): a new test appended after the last
# one, shown with the last one's closing lines (hifitime's efmt.rs, fresh21: `})`, `);`, `}` then a new
# test, read as rewriting the last test's second `assert_eq!` into the new one, 3 lost lines).
def rust_test(name: str, asserts: list[tuple[str, str, str]]) -> list[str]:
    out = ["#[test]", f"fn {name}() {{"]
    for arg, err, details in asserts:
        out += ["    assert_eq!(", f"        {arg},", "        Err(HifitimeError::Parse {",
                f"            source: ParsingError::{err},", f'            details: "{details}"', "        })",
                "    );"]
    return out + ["}"]


def ts_test(name: str, asserts: list[tuple[str, str, str]]) -> list[str]:
    out = [f'test("{name}", () => {{']
    for arg, err, details in asserts:
        out += [f"  expect({arg}).toEqual({{", f'    source: "{err}",', f'    details: "{details}",', "  });"]
    return out + ["});"]


@pytest.mark.parametrize("lang, make, comment", [("rust", rust_test, "//"), ("typescript", ts_test, "//")])
def test_a_new_test_after_a_leading_marker_and_bare_lines_is_refused(lang, make, comment):
    fmt = "Epoch::from_format_str" if lang == "rust" else "parse"
    old = make("fuzz_one", [(f'{fmt}("AAA")', "UnknownFormat", "when using format string")]) + [""] + \
        make("fuzz_two", [(f'{fmt}("BBB")', "UnknownFormat", "when using format string"),
                          (f'{fmt}("CCC")', "UnknownFormat", "when using format string")])
    new = make("weekday_out_of_range", [("err", "ValueError", "weekday out of range")])
    k = len(old)
    while not any(ch.isalnum() for ch in old[k - 1]):
        k -= 1
    closing = old[k:]                                 # the last test's closing lines, without words
    snippet = "\n".join([f"{comment} ... existing code ..."] + closing + [""] + new) + "\n"
    r = merge("\n".join(old) + "\n", snippet, lang)
    if r.ok:                                          # (placed after the last test, or refused: never rewriting)
        assert r.text == "\n".join(old + [""] + new) + "\n"
    else:
        assert "fits at line" in r.reason and "show a line with words above it" in r.reason or \
            "would delete `fuzz_two`" in r.reason     # (a test named by its title: lost._TITLED)


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_an_item_whose_rewrite_would_drop_a_key_never_shown_is_added(lang):
    """The new item has `cluster` where the last one has `client_side`, which the snippet never shows:
    rewriting the last item would delete that key unnamed, so the nearer place, which adds, is taken
    (places.weak_tie, lost.drops_unshown).  Rust's and Go's items are tuples and slices, whose lines
    name no key: still a tie."""
    old = source(lang, items(lang))
    r = merge(old, snippet(lang, [], CLUSTER), lang)
    if lang in ("rust", "go"):
        assert not r.ok and "(adding lines)" in r.reason
    else:
        assert r.ok, r.reason
        assert r.text == source(lang, items(lang) + [item(lang, *CLUSTER)])
