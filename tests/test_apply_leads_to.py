"""Issue 43: a fragment that fits several places, followed by a fragment that tells which.  Two
shapes from real releases, each refused as matching more than one place:
- click's core.py: `def __init__(` and its parameters, shown with a new one, fit every class's
  constructor; a marker indented as the body follows, then lines only `Group.__init__` has.  The
  marker stands for lines of that body, so the first fragment is the constructor whose body leads
  to the next fragment's first line with no line less indented than the marker between.
- flask's globals.py: the same `warnings.warn(` call twice in one function, the snippet showing
  each with its own new message.  Only the first place has another such call after it, for the
  second fragment: the first fragment goes there.
Twin, still refused: the next fragment's first line follows under both places."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

LANGS = ["python", "javascript", "typescript", "go", "rust"]
MARK = {"python": "# ... existing code ..."}


def _i(lang: str) -> str:
    return "\t" if lang == "go" else "    " if lang in ("python", "rust") else "  "


def _end(lang: str) -> str:
    return "" if lang in ("python", "go") else ";"


def _mark(lang: str, indent: str) -> str:
    return indent + MARK.get(lang, "// ... existing code ...")


def _guarded(lang: str, name: str, tail: list[str], extra: str | None = None) -> list[str]:
    """A function opening with a guard (with an `extra` line in it), then `tail`, its body's lines."""
    i = _i(lang)
    if lang == "python":
        return [f"def {name}(x):", f"{i}if x is None:", *([f"{i}{i}{extra}"] if extra else []),
                f'{i}{i}raise ValueError("missing value")', *tail]
    head = {"javascript": f"function {name}(x) {{", "typescript": f"function {name}(x: Item): number {{",
            "go": f"func {name}(x *Item) int {{", "rust": f"fn {name}(x: Option<Item>) -> i32 {{"}[lang]
    guard = {"go": "if x == nil {", "rust": "if x.is_none() {"}.get(lang, "if (x === null) {")
    fail = {"go": 'panic("missing value")', "rust": 'panic!("missing value");'}.get(lang, 'throw new Error("missing value");')
    return [head, f"{i}{guard}", *([f"{i}{i}{extra}"] if extra else []), f"{i}{i}{fail}", f"{i}}}", *tail, "}"]


def _lines(lang: str, *stmts: str) -> list[str]:
    i, end = _i(lang), _end(lang)
    return [f"{i}{s}{end}" for s in stmts]


def _log(lang: str, what: str) -> str:
    return f'log("{what}"){_end(lang)}'


def _guard(lang: str) -> list[str]:
    """The guard of `second`, with a new line in it: the snippet's first fragment."""
    lines = _guarded(lang, "second", [], extra=_log(lang, "no value"))
    return lines[1:] if lang == "python" else lines[1:-1]


def _let(lang: str) -> str:
    return {"python": "y = ", "go": "y := ", "rust": "let y = "}.get(lang, "const y = ")


def _join(lang: str, *fns: list[str]) -> str:
    gap = [""] * (2 if lang == "python" else 1)
    out: list[str] = []
    for f in fns:
        out += (gap if out else []) + f
    return "\n".join(out) + "\n"


def _two(lang: str, second_tail: list[str], extra: str | None = None) -> str:
    return _join(lang, _guarded(lang, "first", _lines(lang, "return x.first")),
                 _guarded(lang, "second", second_tail, extra))


@pytest.mark.parametrize("lang", LANGS)
def test_a_guard_in_two_functions_goes_where_the_next_fragment_is_in_its_body(lang):
    tail = _lines(lang, f"{_let(lang)}x.second", "return y")
    new_tail = _lines(lang, f"{_let(lang)}x.second", "return y + 1")
    i = _i(lang)
    snippet = [_mark(lang, ""), *_guard(lang), _mark(lang, i), *new_tail, _mark(lang, "")]
    r = merge(_two(lang, tail), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _two(lang, new_tail, extra=_log(lang, "no value"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_fragment_under_both_places_is_refused(lang):
    tail = _lines(lang, f"{_let(lang)}x.second", "return y")
    i = _i(lang)
    both = _join(lang, _guarded(lang, "first", tail), _guarded(lang, "second", tail))
    snippet = [_mark(lang, ""), *_guard(lang), _mark(lang, i), *_lines(lang, f"{_let(lang)}x.second", "return y + 1"),
               _mark(lang, "")]
    r = merge(both, "\n".join(snippet) + "\n", lang)
    assert not r.ok
    assert "matches more than one place" in r.reason


def _warned(lang: str, first: str, second: str) -> str:
    """One function warning twice, each call over three lines with its own message."""
    i, end = _i(lang), _end(lang)

    def call(msg: str) -> list[str]:
        return [f"{i}warn(", f'{i}{i}"{msg}",', f"{i}{i}Deprecation,", f"{i}{i}2,", f"{i}){end}"]
    head = {"python": "def lookup(name):", "javascript": "function lookup(name) {",
            "typescript": "function lookup(name: string): void {", "go": "func lookup(name string) {",
            "rust": "fn lookup(name: &str) {"}[lang]
    return "\n".join([head, *call(first), *_lines(lang, "flush(name)"), *call(second)] +
                     ([] if lang == "python" else ["}"])) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_the_same_call_twice_each_with_its_new_line_goes_in_order(lang):
    i = _i(lang)
    old = _warned(lang, "app_stack is deprecated and goes in 2.3", "request_stack is deprecated and goes in 2.3")
    want = _warned(lang, "app_stack is deprecated and goes in 2.4", "request_stack is deprecated and goes in 2.4")
    frag = lambda msg: [f"{i}warn(", f'{i}{i}"{msg}",', f"{i}{i}Deprecation,", f"{i}{i}2,"]   # noqa: E731
    snippet = [_mark(lang, i), *frag("app_stack is deprecated and goes in 2.4"), _mark(lang, i),
               *frag("request_stack is deprecated and goes in 2.4"), _mark(lang, i)]
    r = merge(old, "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == want
