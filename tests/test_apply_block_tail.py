"""Issue 43: new lines that end a block, before a marker less indented than they are, replace the
block's old last lines even when those are unlike the new ones.  The shape, from real releases
(click's termui.clear: `if WIN: os.system("cls") else: ...` rewritten as one `echo(...)`;
werkzeug's test_wsgi, old asserts rewritten as new ones): a marker, a function's header, a marker
in its body, its shown lines, then new lines and a marker at the function's level.  The new lines
end the function, so what the function had after the shown lines is gone.  It was refused ("its
last line is not in the file") unless every dropped line had a like new one.  A lazy model that
forgot a marker between the shown and the new lines looks the same, so the dropped lines are
reported as a deletion; `--keep-unmarked` (delete_unmarked=False) refuses the fragment as before.
Twin, still refused: the dropped lines define a function the snippet does not show."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

LANGS = ["python", "javascript", "typescript", "go", "rust"]


def _i(lang: str) -> str:
    return "\t" if lang == "go" else "    " if lang in ("python", "rust") else "  "


def _mark(lang: str, indent: str = "") -> str:
    return indent + ("# ... existing code ..." if lang == "python" else "// ... existing code ...")


def _clear(lang: str, tail: list[str]) -> list[str]:
    """`clear`: a guard that returns early, then `tail` (the body's last lines)."""
    i = _i(lang)
    if lang == "python":
        return ["def clear(out):", f"{i}if not isatty(out):", f"{i}{i}return", *tail]
    head = {"javascript": "function clear(out) {", "typescript": "function clear(out: Stream): void {",
            "go": "func clear(out *Stream) {", "rust": "fn clear(out: &mut Stream) {"}[lang]
    guard = {"go": "if !isatty(out) {", "rust": "if !isatty(out) {"}.get(lang, "if (!isatty(out)) {")
    ret = "return" if lang == "go" else "return;"
    return [head, f"{i}{guard}", f"{i}{i}{ret}", f"{i}}}", *tail, "}"]


def _old_tail(lang: str, nested: bool = False) -> list[str]:
    """The platform switch the new version drops, four lines (with a nested `helper` function: `nested`)."""
    i = _i(lang)
    if lang == "python":
        inner = [f"{i}def helper():", f'{i}{i}return "cls"'] if nested else []
        return [*inner, f"{i}if WIN:", f'{i}{i}os.system("cls")', f"{i}else:", f'{i}{i}out.write("clear")']
    inner = {"go": [f"{i}helper := func() string {{", f'{i}{i}return "cls"', f"{i}}}"],
             "rust": [f"{i}fn helper() -> &'static str {{", f'{i}{i}"cls"', f"{i}}}"]}.get(
        lang, [f"{i}function helper() {{", f'{i}{i}return "cls";', f"{i}}}"]) if nested else []
    cond = {"go": "if WIN {", "rust": "if WIN {"}.get(lang, "if (WIN) {")
    end = "" if lang == "go" else ";"
    return [*inner, f"{i}{cond}", f'{i}{i}system("cls"){end}', f"{i}}}", f"{i}out.flush(){end}"]


def _new_tail(lang: str) -> list[str]:
    i = _i(lang)
    end = "" if lang in ("python", "go") else ";"
    note = "#" if lang == "python" else "//"
    return ["", f"{i}{note} ANSI escape: clear the screen, cursor home", f'{i}echo(out, "\\033[2J\\033[1;1H"){end}']


def _file(lang: str, tail: list[str]) -> str:
    gap = [""] * (2 if lang == "python" else 1)
    after = ["def other():", f"{_i(lang)}return 1"] if lang == "python" else \
        {"go": ["func other() int {", "\treturn 1", "}"], "rust": ["fn other() -> i32 {", "    1", "}"]}.get(
            lang, ["function other() {", "  return 1;", "}"])
    return "\n".join(_clear(lang, tail) + gap + after) + "\n"


def _snippet(lang: str) -> str:
    shown = _clear(lang, [])
    body = shown[1:] if lang == "python" else shown[1:-1]
    return "\n".join([_mark(lang), shown[0], _mark(lang, _i(lang)), *body, *_new_tail(lang), _mark(lang)]) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_new_lines_ending_the_block_replace_its_old_last_lines_reported(lang):
    old = _file(lang, _old_tail(lang))
    r = merge(old, _snippet(lang), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, _new_tail(lang))
    first = len(_clear(lang, [])) - (0 if lang == "python" else 1) + 1     # the old tail's first line (1-based)
    assert [(d.start, d.end) for d in r.deletions] == [(first, first + len(_old_tail(lang)) - 1)]
    assert "ends it with new ones before a less indented marker" in r.deletions[0].why


@pytest.mark.parametrize("lang", LANGS)
def test_keep_unmarked_refuses_the_fragment(lang):
    r = merge(_file(lang, _old_tail(lang)), _snippet(lang), lang, delete_unmarked=False)
    assert not r.ok
    assert "its last line is not in the file" in r.reason


@pytest.mark.parametrize("lang", LANGS)
def test_old_last_lines_defining_a_function_the_snippet_does_not_show_are_refused(lang):
    old = _file(lang, _old_tail(lang, nested=True))
    r = merge(old, _snippet(lang), lang)
    assert not r.ok
    assert "would delete" in r.reason


@pytest.mark.parametrize("lang", ["javascript", "typescript", "go", "rust"])
def test_a_line_changed_before_the_kept_lines_is_not_reported_as_the_old_tail(lang):
    """Only the old lines after the last line with text the fragment keeps are the block's replaced
    tail: a line the snippet changes above it (the guard's `return`, above its kept `}`) is an edit,
    not a deletion.  (In Python that `return` is the last kept line: nothing kept follows it.)"""
    ret = "return" if lang == "go" else "return;"
    edit = lambda text: text.replace(ret + "\n", ret + " // not a terminal\n")   # noqa: E731
    r = merge(_file(lang, _old_tail(lang)), edit(_snippet(lang)), lang)
    assert r.ok, r.reason
    assert r.text == edit(_file(lang, _new_tail(lang)))
    first = len(_clear(lang, [])) - 1 + 1
    assert [(d.start, d.end) for d in r.deletions] == [(first, first + len(_old_tail(lang)) - 1)]
