"""Issue 43: a lazy snippet that changes nothing where it fits best, while one of its fragments
also fits another place (at a line with words) where it would change lines, is refused: it was
written to change something (a deletion the snippet shows only by leaving lines out), so the
reading that changes nothing is no more likely.  In each of the five languages: two lists share
their first lines, the second has one item more; a snippet showing the first list's lines as they
are is refused, naming both places.  Twins: the same snippet that also edits the list merges at
the first; an unchanged fragment that fits one place only (applied twice) merges to the file
itself; `delete_unmarked=False` keeps the old reading (the file itself)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ..."}
ITEMS = ['"alpha",', '"beta",', '"gamma",']
FILES = {   # (head of the first list, head of the second, closing line, indentation, a line after)
    "python": ("FIRST = [", "SECOND = [", "]", "    ", "print(FIRST, SECOND)"),
    "javascript": ("const first = [", "const second = [", "];", "  ", "console.log(first, second);"),
    "typescript": ("export const first: string[] = [", "export const second: string[] = [", "];", "  ",
                   "console.log(first, second);"),
    "go": ("var first = []string{", "var second = []string{", "}", "\t", "var both = append(first, second...)"),
    "rust": ("pub const FIRST: [&str; 3] = [", "pub const SECOND: [&str; 4] = [", "];", "    ",
             "pub const BOTH: usize = FIRST.len() + SECOND.len();"),
}
LANGS = list(FILES)


def _src(lang: str) -> str:
    first, second, close, ind, after = FILES[lang]
    body = [first] + [ind + i for i in ITEMS] + [close, "", second] + [ind + i for i in ITEMS[:2]] + \
        [ind + '"delta",', ind + ITEMS[2], close, "", after]
    head = ["package lists", ""] if lang == "go" else []
    return "\n".join(head + body) + "\n"


def _snippet(lang: str, items: list[str]) -> str:
    m = MARK.get(lang, "// ... existing code ...")
    ind, close = FILES[lang][3], FILES[lang][2]
    return "\n".join([m] + [ind + i for i in items] + [close, m]) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_snippet_that_changes_nothing_but_fits_where_it_would_is_refused(lang):
    src = _src(lang)
    r = merge(src, _snippet(lang, ITEMS), lang)
    assert not r.ok and "changes nothing" in r.reason, r.reason
    first = src.split("\n").index(FILES[lang][3] + ITEMS[0]) + 1
    second = src.split("\n").index(FILES[lang][3] + ITEMS[0], first) + 1
    assert f"lines {first}-" in r.reason and f"fits lines {second}-" in r.reason, r.reason
    kept = merge(src, _snippet(lang, ITEMS), lang, delete_unmarked=False)
    assert kept.ok and kept.text == src


@pytest.mark.parametrize("lang", LANGS)
def test_the_same_snippet_with_an_edit_merges_at_the_first_place(lang):
    src = _src(lang)
    r = merge(src, _snippet(lang, ITEMS + ['"omega",']), lang)
    assert r.ok, r.reason
    ind = FILES[lang][3]
    assert r.text == src.replace(f"{ind}{ITEMS[2]}\n{FILES[lang][2]}\n", f"{ind}{ITEMS[2]}\n{ind}\"omega\",\n"
                                 f"{FILES[lang][2]}\n", 1)


@pytest.mark.parametrize("lang", LANGS)
def test_an_unchanged_fragment_that_fits_one_place_merges_to_the_file_itself(lang):
    """A snippet already applied, from the second list's header on: no other place has its lines,
    so applying it again changes nothing.  Without the header, its first line also starts the first
    list, where it would leave lines out: refused, saying it changes nothing."""
    src = _src(lang)
    m = MARK.get(lang, "// ... existing code ...")
    second = src.split("\n").index(FILES[lang][1])
    shown = src.split("\n")[second:second + 6]
    r = merge(src, "\n".join([m] + shown + [m]) + "\n", lang)
    assert r.ok and r.text == src, r.reason
    r = merge(src, "\n".join([m] + shown[1:] + [m]) + "\n", lang)
    assert not r.ok and "changes nothing: it is lines" in r.reason, r.reason


LAST = {"python": "LAST = 1", "javascript": "const last = 1;", "typescript": "const last = 1;",
        "go": "var last = 1", "rust": "pub const LAST: i32 = 1;"}


@pytest.mark.parametrize("lang", LANGS)
def test_an_unchanged_fragment_that_fits_elsewhere_by_leaving_lines_out_is_refused_beside_an_edit(lang):
    """The first list's lines as they are, then an edit further on: the edit changes the file, but
    the list fragment was shown for a reason (packaging's specifiers: `"===lolwat",` left out of
    another list that ends the same way).  Twin: shown from the first list's own header, it fits
    that list only, and the edit merges."""
    src = _src(lang) + LAST[lang] + "\n"
    m = MARK.get(lang, "// ... existing code ...")
    ind, close, after = FILES[lang][3], FILES[lang][2], FILES[lang][4]
    items = [ind + i for i in ITEMS] + [close]
    edit = [after, LAST[lang].replace("1", "2")]
    r = merge(src, "\n".join([m] + items + [m] + edit) + "\n", lang)
    assert not r.ok and "changes nothing: it is lines" in r.reason, r.reason
    r = merge(src, "\n".join([m, FILES[lang][0]] + items + [m] + edit) + "\n", lang)
    assert r.ok and r.text == src.replace(LAST[lang], edit[1]), r.reason
