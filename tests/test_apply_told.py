"""Issue 43: a method shown without its class, in a file where two classes have it, each a little
different.  The shape, from real releases (attrs' test_filters.py: `test_drop_class` in both
`TestInclude` and `TestExclude`, the snippet's rewrite calling `exclude`; httpx's sync and async
clients; Python Markdown's pattern classes): token by token both places are about as like the
snippet, and it was refused as matching more than one place.  The lines one place has and the
other lacks tell them apart: when the snippet shows such lines of one place only, that place is
rewritten.  And a method whose signature names its class, as that class's method does (werkzeug's
`__iter__(self) -> "_RangeWrapper"` in four classes, rewritten without the quotes), goes to that
class.  Twins, still refused: the two places alike line for line; and one telling line that
is a small edit of the other place's line (pydantic-core's `strict_datetime`: a type renamed in
one impl of a trait made it read as the other impl).  In four languages: Go's methods are named
with their receiver, so two of them never share a name."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ...", "rust": "// ... existing code ..."}
LANGS = ["python", "javascript", "typescript", "rust"]


def _method(lang: str, doc: str, call: str, extra: str | None = None) -> list[str]:
    """A method `drop` whose body calls `call`, with a one-line comment `doc` (and an `extra` check)."""
    if lang == "python":
        return ["    def test_drop(self, value):", f'        """{doc}"""', f"        f = {call}",
                *([f"        assert {extra}"] if extra else []), "        assert f(value) is False"]
    if lang == "rust":
        return ["    fn drop(&self, value: i32) -> bool {", f"        // {doc}", f"        let f = {call};",
                *([f"        assert!({extra});"] if extra else []), "        !f(value)", "    }"]
    typed = "value: number): boolean" if lang == "typescript" else "value)"
    return [f"  drop({typed} {{", f"    // {doc}", f"    const f = {call};",
            *([f"    console.assert({extra});"] if extra else []), "    return f(value) === false;", "  }"]


def _class(lang: str, name: str, body: list[str]) -> list[str]:
    if lang == "python":
        return [f"class Test{name}:", *body]
    if lang == "rust":
        return [f"impl Filter for {name} {{", *body, "}"]
    return [f"class {name} {{", *body, "}"]


def _file(lang: str, a: list[str], b: list[str]) -> str:
    gap = [""] * (2 if lang == "python" else 1)
    return "\n".join(_class(lang, "Include", a) + gap + _class(lang, "Exclude", b)) + "\n"


CALLS = {"python": ("include(int)", "exclude(int)"), "rust": ("include(value)", "exclude(value)")}
EXTRA = {"python": "f(None) is None", "rust": "!f(0)"}


def _calls(lang: str) -> tuple[str, str]:
    return CALLS.get(lang, ("include(Number)", "exclude(Number)"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_place_whose_own_lines_the_snippet_shows_is_rewritten(lang):
    inc, exc = _calls(lang)
    a, b = _method(lang, "Drop what is not included.", inc), _method(lang, "Drop what is excluded.", exc)
    new = _method(lang, "Drop what is excluded.", exc, extra=EXTRA.get(lang, "f(null) === null"))
    r = merge(_file(lang, a, b), "\n".join(new) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, a, new)


@pytest.mark.parametrize("lang", LANGS)
def test_two_places_alike_line_for_line_are_refused(lang):
    inc, _ = _calls(lang)
    a = _method(lang, "Drop what is not included.", inc)
    new = _method(lang, "Drop what is not included.", inc, extra=EXTRA.get(lang, "f(null) === null"))
    r = merge(_file(lang, a, a), "\n".join(new) + "\n", lang)
    assert not r.ok
    assert "matches more than one place" in r.reason


@pytest.mark.parametrize("lang", LANGS)
def test_one_telling_line_that_is_an_edit_of_the_other_place_is_refused(lang):
    """The places differ in one line (`strict=True` / `strict=False`); the snippet rewrites the
    first one's and so shows the second one's line, and it rewords the comment both have: as likely
    an edit here as a rewrite there (pydantic-core's `strict_datetime`), two and three lines away."""
    inc, _ = _calls(lang)
    strict, loose = (inc.replace(")", f", {flag}, DEFAULT_OPTIONS)") for flag in ("true", "false"))
    a, b = _method(lang, "Drop what is not included.", strict), _method(lang, "Drop what is not included.", loose)
    new = _method(lang, "Drop what is not included, now.", loose, extra=EXTRA.get(lang, "f(null) === null"))
    r = merge(_file(lang, a, b), "\n".join(new) + "\n", lang)
    assert not r.ok
    assert "matches more than one place" in r.reason



@pytest.mark.parametrize("lang", LANGS)
def test_the_place_the_snippet_is_half_as_far_from_is_rewritten(lang):
    """orjson's numpy.rs: thirty `serialize` methods alike but for one call; the snippet rewords one's
    comment (an attribute there) and shows its call, a small edit of every other one's call.  That
    place is one line away, every other one two: it is rewritten."""
    calls = [f"serializer.serialize_{t}(value, DEFAULT_OPTIONS)" for t in ("u16", "u32", "u64")]
    names = ["Short", "Word", "Long"]
    gap = [""] * (2 if lang == "python" else 1)

    def text(new: list[str] | None = None) -> str:
        return "\n".join(sum(((gap if i else []) + _class(lang, n, new if new and i == 1 else
                                                            _method(lang, "Serialize the value.", c))
                               for i, (n, c) in enumerate(zip(names, calls))), [])) + "\n"
    new = _method(lang, "Serialize the value, seldom called.", calls[1])
    r = merge(text(), "\n".join(new) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == text(new)


ITER = {   # (class, rewritten) -> lines: the method names its class; the rewrite edits that line
    "python": lambda cls, w: [f"class {cls}:", f"    def __iter__(self) -> {'' if w else chr(34)}{cls}{'' if w else chr(34)}:",
                              "        return self"],
    "typescript": lambda cls, w: [f"class {cls} {{", f"  iter(): {'Iterable<' + cls + '>' if w else cls} {{",
                                  "    return this;", "  }", "}"],
    "javascript": lambda cls, w: [f"class {cls} {{", "  iter() {", f"    return {cls}.check(this{', true' if w else ''});",
                                  "  }", "}"],
    "rust": lambda cls, w: [f"impl Wrap for {cls} {{", f"    fn iter({'mut ' if w else ''}self) -> {cls} {{", "        self",
                            "    }", "}"],
}


@pytest.mark.parametrize("lang", list(ITER))
def test_a_method_naming_its_class_goes_to_that_class(lang):
    gap = [""] * (2 if lang == "python" else 1)
    names = ["LimitedStream", "RangeWrapper", "FileWrapper"]

    def text(new: list[str] | None = None) -> str:
        return "\n".join(sum(((gap if i else []) + (new if new and n == names[1] else ITER[lang](n, False))
                               for i, n in enumerate(names)), [])) + "\n"
    full = ITER[lang]("RangeWrapper", True)
    method = full[1:] if lang == "python" else full[1:-1]
    note = {"python": "        # an iterator of its own ranges"}.get(lang, "    // an iterator of its own ranges")
    new = method[:1] + [note] + method[1:]
    r = merge(text(), "\n".join(new) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == text(full[:1] + new + ([] if lang == "python" else ["}"]))


ERROR = {   # class -> the lines of its `error` method (huey's api.py: Task, group, chord)
    "python": {
        "Task": ["    def error(self, task, *args, **kwargs):", "        if self.on_error:",
                 "            self.on_error.error(task, *args, **kwargs)", "        else:",
                 "            self.on_error = task.s(*args, **kwargs)", "        return self"],
        "Group": ["    def error(self, *args, **kwargs):", "        # Apply the handler to every task.",
                  "        for task in self.tasks:", "            task.error(*args, **kwargs)", "        return self"],
        "Chord": ["    def error(self, task, *args, **kwargs):", "        self.callback.error(task, *args, **kwargs)",
                  "        return self"],
    },
    "rust": {
        "Task": ["    fn error(&mut self, task: Task, args: Args) -> &mut Self {",
                 "        if let Some(h) = &mut self.on_error {",
                 "            h.error(task, args);", "        } else {",
                 "            self.on_error = Some(task.s(args));", "        }", "        self", "    }"],
        "Group": ["    fn error(&mut self, args: Args) -> &mut Self {", "        // Apply the handler to every task.",
                  "        for task in self.tasks.iter_mut() {", "            task.error(args.clone());", "        }",
                  "        self", "    }"],
        "Chord": ["    fn error(&mut self, task: Task, args: Args) -> &mut Self {",
                  "        self.callback.error(task, args);",
                  "        self", "    }"],
    },
}


@pytest.mark.parametrize("lang", list(ERROR))
def test_the_one_place_holding_the_whole_snippet_and_nearest_is_rewritten(lang):
    """huey's group.error, shown without its class and without the comment the release dropped: of
    three `error` methods only group's has every token of the snippet, and it is one line away where
    the others are three or more; token by token, chord's short one is about as like.  That place is
    rewritten (it was refused as matching more than one place)."""
    gap = [""] * (2 if lang == "python" else 1)

    def text(group: list[str]) -> str:
        return "\n".join(sum(((gap if i else []) + _class(lang, name, group if name == "Group" else body)
                               for i, (name, body) in enumerate(ERROR[lang].items())), [])) + "\n"
    new = [l for l in ERROR[lang]["Group"] if "Apply the handler" not in l]
    r = merge(text(ERROR[lang]["Group"]), "\n".join(new) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == text(new)
