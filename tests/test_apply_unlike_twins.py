"""Issue 43: a method shown without its class, in a file where two classes have a method of that
name and the snippet's new body is like neither's (a real release: rnet's ws.rs, two `impl Display`
each with a `fn fmt` writing its own `write!(...)`, the snippet's `fmt` now `self.0.fmt(f)`).  The
shorter of the two was taken: token by token it was a little likelier, line by line fewer edits
away, only for being short; the longer one was meant.  Nothing in the snippet tells them apart, so
the merge refuses (candidates._nearest: lines of its own; _lines_like, when the shorter one is likelier
by the margin, not twice as near), and still takes the one whose lines the snippet keeps."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: a class (impl) with one method `render` whose body is {body}; the new body; comment
CLASS = {
    "rust": ("impl Display for {name} {{\n    fn render(&self, f: &mut Formatter) -> Result {{\n{body}    }}\n}}\n",
             "        self.0.render(f)\n", "//"),
    "python": ("class {name}:\n    def render(self, out):\n{body}", "        return self.inner.render(out)\n", "#"),
    "javascript": ("class {name} {{\n  render(out) {{\n{body}  }}\n}}\n", "    return this.inner.render(out);\n", "//"),
    "typescript": ("class {name} {{\n  render(out: Out): string {{\n{body}  }}\n}}\n",
                   "    return this.inner.render(out);\n", "//"),
}
SHORT = {"rust": "        write!(f, \"<{} [{}]>\", stringify!({name}), self.status)\n",
         "python": "        return out.write(f\"<{name} [{{self.status}}]>\")\n",
         "javascript": "    return out.write(`<{name} [${{this.status}}]>`);\n",
         "typescript": "    return out.write(`<{name} [${{this.status}}]>`);\n"}
LONG = {"rust": "        write!(\n            f,\n            \"<{} [{}]>\",\n            stringify!({name}),\n"
                "            self.0.status,\n        )\n",
        "python": "        return out.write(\n            \"<{name} [%s]>\"\n            % (\n"
                  "                self.inner.status,\n            )\n        )\n",
        "javascript": "    return out.write(\n      `<{name} [${{\n        this.inner.status\n      }}]>`,\n    );\n",
        "typescript": "    return out.write(\n      `<{name} [${{\n        this.inner.status\n      }}]>`,\n    );\n"}


# lines before the long twin's `write`: the short twin is then likelier token by token by a margin
EXTRA = {"rust": "        let started = Instant::now();\n"
                 "        log::debug!(\"rendering {} after {:?}\", self.0.id, started.elapsed());\n",
         "python": "        started = time.monotonic()\n"
                   "        log.debug(\"rendering %s after %s\", self.inner.id, time.monotonic() - started)\n",
         "javascript": "    const started = performance.now();\n"
                       "    log.debug(`rendering ${this.inner.id} after ${performance.now() - started}`);\n"}
EXTRA["typescript"] = EXTRA["javascript"]


def _class(lang: str, name: str, body: str) -> str:
    return CLASS[lang][0].format(name=name, body=body.replace("{name}", name))


def _file(lang: str, extra: str = "") -> str:
    sep = "\n\n" if lang == "python" else "\n"
    return _class(lang, "Socket", SHORT[lang]) + sep + _class(lang, "BlockingSocket", extra + LONG[lang])


def _method(lang: str, body: str) -> str:
    """The method alone, as indented in its class."""
    lines = _class(lang, "X", body).split("\n")[1:]
    while lines and lines[-1].strip() in ("", "}"):
        lines.pop()
    if lang != "python":
        lines.append(lines[0][:len(lines[0]) - len(lines[0].lstrip())] + "}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", sorted(CLASS))
def test_a_new_body_like_neither_twin_is_refused(lang):
    r = merge(_file(lang), _method(lang, CLASS[lang][1]), lang)
    assert not r.ok
    assert "render" in r.reason and "more than one place" in r.reason


@pytest.mark.parametrize("lang", sorted(CLASS))
def test_a_new_body_like_neither_twin_is_refused_though_likelier_the_short_one(lang):
    r = merge(_file(lang, EXTRA[lang]), _method(lang, CLASS[lang][1]), lang)
    assert not r.ok
    assert "render" in r.reason and "more than one place" in r.reason


@pytest.mark.parametrize("lang", sorted(CLASS))
def test_a_body_that_keeps_one_twins_lines_goes_there(lang):
    long_body = LONG[lang].replace("{name}", "BlockingSocket")
    body = long_body.replace("status", "state")             # one line changed, the others kept
    r = merge(_file(lang), _method(lang, body), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang).replace(long_body, body)


@pytest.mark.parametrize("lang", sorted(CLASS))
def test_the_refusal_names_each_class_and_line(lang):
    """What to show is the class line: the refusal says which classes have the method, and where."""
    r = merge(_file(lang), _method(lang, CLASS[lang][1]), lang)
    assert not r.ok
    headers = [i + 1 for i, l in enumerate(_file(lang).splitlines()) if "render(" in l and "return" not in l
               and "self.0" not in l and "write" not in l]
    assert len(headers) == 2, headers
    assert f"`Socket.render` at line {headers[0]}" in r.reason, r.reason
    assert f"`BlockingSocket.render` at line {headers[1]}" in r.reason, r.reason
    assert "show the line that opens its class" in r.reason
