"""Issue 43: a fragment that rewrites two methods of one class, when another class of the file has
methods of the same names.  The shape, from a real release (primp's response.rs): `impl Response`
and `impl StreamResponse` both have `get_headers` and `get_cookies`; after a fragment ending in
`Response`'s `get_encoding`, the snippet shows `#[getter]`, `get_headers` and `get_cookies`
rewritten, and the next `#[getter]` before a marker.  The region ending at the `#[getter]` above
the old `get_cookies` fits the fragment's lines best, and it kept the old `get_cookies` beside the
new one: a method defined twice.  The check for a name the fragment defines again
(regions.redefined) counted `get_cookies` over the whole file, found it twice and stood aside; it
counts in the block the region is in (the class, the impl).  In the languages with methods inside a
class's block (Go's methods are top-level: their receivers tell them apart, not a block)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: (class header {name}, class end, frame above a method, method header {kind},
# method end, marker, indentation unit)
LANGS = {
    "rust": ("impl {name} {{", "}", "#[getter]", "fn get_{kind}(&mut self) -> Result<{Kind}> {{", "}", "//", "    "),
    "python": ("class {name}:", None, "@property", "def get_{kind}(self):", None, "#", "    "),
    "javascript": ("class {name} {{", "}", "/** A getter. */", "get_{kind}() {{", "}", "//", "  "),
    "typescript": ("class {name} {{", "}", "/** A getter. */", "get_{kind}(): {Kind} {{", "}", "//", "  "),
}


def _body(lang: str, kind: str, tag: int, new: bool) -> list[str]:
    if lang == "python":
        lines = ([f"out = self.raw.to_{kind}() if self.raw else None", "if out is None:",
                  '    raise Gone("consumed")', "return out"] if new else
                 [f"out = {kind.title()}()", "if self.raw:", f"    for k, v in self.raw.{kind}():",
                  "        out[k] = v",
                  "else:", '    raise Gone("consumed")', f"out.tag({tag})", "return out"])
    elif lang == "rust":
        lines = (["let out = match self.raw.as_ref() {", f"    Some(r) => r.to_{kind}(),", "    None => {",
                  '        return Err(Gone::new("consumed"));', "    }", "};", "Ok(out)"] if new else
                 [f"let mut out = {kind.title()}::new();", "match self.raw.as_ref() {", "    Some(r) => {",
                  f"        for (k, v) in r.{kind}() {{", "            out.insert(k, v);", "        }", "    }",
                  "    None => {", '        return Err(Gone::new("consumed"));', "    }", "}", f"out.tag({tag});",
                  "Ok(out)"])
    else:
        lines = ([f"const out = this.raw ? this.raw.to_{kind}() : undefined;", "if (out === undefined) {",
                  '  throw new Gone("consumed");', "}", "return out;"] if new else
                 [f"const out = new {kind.title()}();", "if (this.raw) {",
                  f"  for (const [k, v] of this.raw.{kind}()) {{",
                  "    out.set(k, v);", "  }", "} else {", '  throw new Gone("consumed");', "}", f"out.tag({tag});",
                  "return out;"])
    unit = LANGS[lang][6]
    return [f"{unit * 2}{l}" if l else l for l in lines]


def _method(lang: str, kind: str, tag: int, new: bool = False) -> list[str]:
    _, _, frame, header, end, _, unit = LANGS[lang]
    return [unit + frame, unit + header.format(kind=kind, Kind=kind.title())] + _body(lang, kind, tag, new) + \
        ([unit + end] if end else [])


def _plain(lang: str, name: str, text: str) -> list[str]:
    _, _, frame, header, end, _, unit = LANGS[lang]
    h = header.replace("get_{kind}", name).replace("{Kind}", "String").replace("(&mut self)", "(&self)")
    ret = {"python": text, "rust": text}.get(lang, f"return {text};")
    return [unit + frame, unit + h.format(), unit * 2 + ret] + ([unit + end] if end else [])


def _class(lang: str, name: str, tag: int, first: str, new: bool = False) -> list[str]:
    head, close, *_ = LANGS[lang]
    gap = [""]
    return [head.format(name=name)] + _plain(lang, first, "self.url") + gap + _method(lang, "headers", tag, new) + \
        gap + _method(lang, "cookies", tag, new) + gap + _plain(lang, "get_text", f"self.text({tag})") + \
        ([close] if close else [])


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_rewritten_methods_replace_their_own_in_the_class_the_region_is_in(lang):
    _, _, frame, _, end, c, unit = LANGS[lang]
    original = _class(lang, "Response", 1, "get_url") + [""] + _class(lang, "StreamResponse", 2, "get_link")
    first = _plain(lang, "get_url", "self.url")
    snippet = [f"{c} ... existing code ...", *first[:2], f"{unit * 2}{c} ... existing code ..."] + \
        _method(lang, "headers", 1, True) + [""] + _method(lang, "cookies", 1, True) + \
        ["", unit + frame, f"{unit}{c} ... existing code ..."]
    r = merge(_text(original), _text(snippet), lang)
    assert r.ok, r.reason
    assert r.text == _text(_class(lang, "Response", 1, "get_url", new=True) + [""] +
                           _class(lang, "StreamResponse", 2, "get_link"))


def _test_block(name: str, check: str, payload: str) -> list[str]:
    return [f"test('{name}', (t) => {{", "  t.plan(2)", "", "  const dispatch = function (req, res) {",
            "    res.writeHead(200, { 'Content-Type': 'text/plain' })", f"    res.end('{payload}')", "  }", "",
            "  inject(dispatch, { method: 'GET', path: 'http://example.com:8080/hello' }, (err, res) => {",
            "    t.error(err)", f"    {check}", "  })", "})"]


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_the_block_a_call_opens_is_not_a_class(lang):
    """Twin, from light-my-request's tests: every `test(..., (t) => {` block defines `dispatch`; a
    snippet showing the last lines of one test, then a new test with its own `dispatch`.  The block
    a call opens is not a class: `dispatch`, found once in the region's block, is not the new
    test's to replace (counted in that block, the region grew back over two tests, 14 lines)."""
    a = _test_block("Response.json() parses", "t.same(res.json(), {})", "{}")
    b = _test_block("Response.json() throws on bad JSON", "t.throws(res.json, Error)", "notAJSON")
    c = _test_block("Response.stream() gives a stream", "t.ok(res.stream())", "lines")
    snippet = ["// ... existing code ...", *b[-5:], ""] + c
    r = merge(_text(a + [""] + b), _text(snippet), lang)
    assert r.ok, r.reason
    assert r.text == _text(a + [""] + b + [""] + c)
