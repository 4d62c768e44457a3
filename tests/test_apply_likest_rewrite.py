"""Issue 43: twin blocks (a visitor's callbacks, each calling the host with its own name), a fragment
rewriting one of them whose shown lines every twin has, but for the one line it rewrites: that line is
likest the twin it was (`obj.call_method1("visit_link", ...)` from `match obj.call_method1("visit_link",
...) {`), and the fragment goes there (html-to-markdown's Python binding, fresh31: 14 cases refused as
matching more than one place; sqlmodel's generated `select` overloads, 8).  Refused still when the
rewritten line is as like two twins (the Python case's `try:  # visit_image: src` is `visit_link`'s
too), or when the twins' rewritten lines are definitions' headers (a definition rewritten by likeness
alone is a guess: tests/test_apply_file_end.py)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

NAMES = [("visit_text", "text"), ("visit_link", "href"), ("visit_image", "src")]


def _rust(call: str, name: str, arg: str) -> list[str]:
    return [f"    fn {name}(&self, ctx: &Ctx, {arg}: &str) -> Action {{",
            "        Python::with_gil(|py| {",
            "            let obj = self.obj.bind(py);",
            call.format(name=name, arg=arg),
            "                // Callbacks are infallible on the Rust side: log the",
            "                // host exception and fall back to the default action.",
            "                Err(e) => {",
            "                    log_exception(py, e);",
            "                    Action::Continue",
            "                }",
            "                Ok(v) => v.extract().unwrap_or(Action::Continue),",
            "            }",
            "        })",
            "    }"]


def _python(call: str, name: str, arg: str) -> list[str]:
    return [f"    def {name}(self, ctx, {arg}):",
            "        handler = self._handler",
            call.format(name=name, arg=arg),
            "            # callbacks never raise here: log the host exception",
            "            # and fall back to the default action",
            "            return handler.dispatch(ctx)",
            "        except HostError as e:",
            "            log_exception(e)",
            "            return Action.CONTINUE"]


FORMS = {
    "rust": (_rust, "            match obj.call_method1(\"{name}\", (ctx.py(), {arg})) {{",
             "            match with_scoped_context(ctx, || {{\n                obj.call_method1(\"{name}\", "
             "(ctx.py(), {arg}))\n            }}) {{", "impl Visitor for PyVisitor {", "}", "//", "                "),
    "python": (_python, "        try:  # {name}: {arg}", "        try:  # {name} with a scoped context: {arg}",
               "class PyVisitor(Visitor):", "", "#", "            "),
}


def _file(lang: str, rewritten: str | None = None) -> str:
    make, old, new, head, tail, _, _ = FORMS[lang]
    out = [head]
    for k, (n, a) in enumerate(NAMES):
        out += make(new if n == rewritten else old, n, a) + ([""] if k < len(NAMES) - 1 else [])
    return "\n".join(out + ([tail] if tail else [])) + "\n"


def _snippet(lang: str, name: str, arg: str) -> str:
    make, _, new, _, _, comment, inner = FORMS[lang]
    lines = make(new, name, arg)
    start = 2 if lang == "rust" else 1                  # (from the line every twin has before the call)
    end = next(i for i, l in enumerate(lines) if "Err(e)" in l or "return handler" in l)
    return "\n".join([f"{comment} ... existing code ..."] + lines[start:end + 1] +
                     [f"{inner}{comment} ... existing code ..."]) + "\n"


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_the_twin_whose_line_is_rewritten_likest_takes_the_fragment(lang):
    """(Rust: refused before; Python's fragment was placed before too, a guard.)"""
    r = merge(_file(lang), _snippet(lang, "visit_link", "href"), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, "visit_link")


@pytest.mark.parametrize("lang", sorted(FORMS))
def test_a_rewrite_as_like_two_twins_is_refused(lang):
    """Two twins call the host alike (a callback registered twice): neither is liker, refused."""
    twice = _file(lang).replace('"visit_image"', '"visit_link"').replace("visit_image(", "visit_link(")
    twice = twice.replace("src", "href")
    r = merge(twice, _snippet(lang, "visit_link", "href"), lang)
    assert not r.ok
    assert "more than one place" in r.reason
