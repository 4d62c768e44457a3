"""Issue 43: a method shown without its class, in a file where several classes have a method of
that name with nearly the same body (real releases: werkzeug's routing rules, httpx's content
streams, typer's parameter models, flask's contexts).  The snippet's method is matched to the one
it is most like, token by token; a margin of 0.1 in likeness refused most of these, where the
likeness is high and the next one is only a little less alike.  A smaller margin (0.03) now
suffices when the next one differs from the snippet at least twice as much.  Twin: two methods
as alike to the snippet as each other are still refused."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# one class (impl) with a `render` method; {name}, {cmp} (the comparison), {log} (the log message) and
# {fmt} (the call's extra argument) vary
CLASS = {
    "python": """class {name}:
    def render(self, items):
        total = 0
        for item in items:
            total += item.size
        if total {cmp} self.limit:
            raise Overflow(total)
        self.log("{log}", total)
        return self.format(total{fmt})
""",
    "javascript": """class {name} {{
  render(items) {{
    let total = 0;
    for (const item of items) {{
      total += item.size;
    }}
    if (total {cmp} this.limit) {{
      throw new Overflow(total);
    }}
    this.log("{log}", total);
    return this.format(total{fmt});
  }}
}}
""",
    "rust": """impl {name} {{
    fn render(&self, items: &[Item]) -> String {{
        let mut total = 0;
        for item in items {{
            total += item.size;
        }}
        if total {cmp} self.limit {{
            panic!("overflow: {{}}", total);
        }}
        self.log("{log}", total);
        self.format(total{fmt})
    }}
}}
""",
}
CLASS["typescript"] = CLASS["javascript"].replace("render(items) {{", "render(items: Item[]): string {{")
LANGS = list(CLASS)


def _class(lang: str, name: str, cmp: str = ">", log: str = "rendered", fmt: str = "") -> str:
    return CLASS[lang].format(name=name, cmp=cmp, log=log, fmt=fmt)


def _file(lang: str, *classes: str) -> str:
    return ("\n\n" if lang == "python" else "\n").join(classes)


def _snippet(lang: str, **kw) -> str:
    """The method alone, as indented in its class."""
    lines = _class(lang, "X", **kw).split("\n")[1:]
    while lines and (not lines[-1].strip() or lines[-1].strip() == "}"):
        lines = lines[:-1]
    return "\n".join(lines + ([] if lang == "python" else [lines[0][:len(lines[0]) - len(lines[0].lstrip())] + "}"])) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_the_nearest_of_nearly_alike_methods_is_replaced(lang):
    a, b = _class(lang, "View0"), _class(lang, "View1", log="rendered twice", fmt=", twice, sep")
    r = merge(_file(lang, a, b), _snippet(lang, cmp=">="), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, _class(lang, "View0", cmp=">="), b)


@pytest.mark.parametrize("lang", LANGS)
def test_two_methods_as_alike_as_each_other_are_refused(lang):
    a, b = _class(lang, "View0", log="rendered once"), _class(lang, "View1", log="rendered twice")
    r = merge(_file(lang, a, b), _snippet(lang, cmp=">="), lang)
    assert not r.ok
    assert "render" in r.reason and "more than one place" in r.reason
