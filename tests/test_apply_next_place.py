"""Issue 43: a fragment that fits several places alike, followed by one that fits one place only
(maturin's build_context.rs: the same `WheelWriter::new(` call in five functions, a field renamed in
the first one's, then a marker and the next lines, which every such function has, then that
function's own comment and next line).  Fragments keep the file's order, so the first one goes to
the one of its places before the next one's: it was refused as matching more than one place.  Still
refused: when the next fragment fits several places too.  Of several places before the next one's, the
nearest is taken (session 53), unless it deletes a line with words that the fragment does not rewrite."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ...", "javascript": "// ... existing code ...",
        "rust": "// ... existing code ..."}


def _function(lang: str, name: str, field: str, note: str, pick: str) -> list[str]:
    """A function that builds a writer (`field` its third argument) and then picks an interpreter."""
    if lang == "python":
        return [f"def {name}(self):", "    tag = self.tag", "    writer = WheelWriter(", "        tag,",
                "        self.out,", f"        self.{field},", "    )", "    wheels = []", f"    # {note}",
                f"    interp = {pick}", "    return writer.finish(interp)"]
    if lang == "rust":
        return [f"fn {name}(&self) -> Wheel {{", "    let tag = self.tag();", "    let writer = WheelWriter::new(",
                "        &tag,", "        &self.out,", f"        &self.{field},", "    );",
                "    let mut wheels = Vec::new();", f"    // {note}",
                f"    let interp = {pick};", "    writer.finish(interp)", "}"]
    return [f"function {name}(self) {{", "  const tag = self.tag;", "  const writer = new WheelWriter(",
            "    tag,", "    self.out,", f"    self.{field},", "  );", "  const wheels = [];", f"  // {note}",
            f"  const interp = {pick};", "  return writer.finish(interp);", "}"]


def _file(lang: str, first: tuple[str, str], notes=("On windows, pick one for python.lib", "Any will do")) -> str:
    gap = [""] * (2 if lang == "python" else 1)
    one = _function(lang, "build_wheels", first[0], notes[0], first[1])
    two = _function(lang, "build_bin_wheels", "meta21", notes[1], "interpreters.get(0)")
    three = _function(lang, "build_pure_wheels", "meta21", notes[1], "None")
    return "\n".join(one + gap + two + gap + three) + "\n"


def _snippet(lang: str, note: str = "On windows, pick one for python.lib") -> str:
    new = _function(lang, "build_wheels", "meta23", note, "interpreters.first()")
    inner = (" " * (4 if lang != "javascript" else 2)) + MARK[lang]
    return "\n".join([MARK[lang]] + new[2:7] + [inner] + new[7:11] + [MARK[lang]]) + "\n"


@pytest.mark.parametrize("lang", sorted(MARK))
def test_a_fragment_of_several_places_goes_before_the_only_place_of_the_next_one(lang):
    r = merge(_file(lang, ("meta21", "interpreters.get(0)")), _snippet(lang), lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, ("meta23", "interpreters.first()"))


@pytest.mark.parametrize("lang", sorted(MARK))
def test_still_refused_when_the_next_fragment_fits_several_places(lang):
    notes = ("Any will do", "Any will do")
    r = merge(_file(lang, ("meta21", "interpreters.get(0)"), notes), _snippet(lang, "Any will do"), lang)
    assert not r.ok
    assert "matches more than one place in the file" in r.reason


def _looping(name: str, field: str, check: str, note: str, pick: str) -> list[str]:
    """Python: a function that builds a writer (`field` its third argument), checks its wheels in a
    loop (`check`), then picks an interpreter."""
    return [f"def {name}(self):", "    tag = self.tag", "    writer = WheelWriter(", "        tag,",
            "        self.out,",
            f"        self.{field},", "    )", "    wheels = []", "    for wheel in writer.wheels():",
            f"        wheel.check({check})", "        wheels.append(wheel)", "    total = len(wheels)", f"    # {note}",
            f"    interp = {pick}", "    return writer.finish(interp, total)"]


def test_a_chain_of_fragments_of_several_places_each_goes_before_the_next_ones():
    """The fragment after it fits several places too, the one after that one only: each goes before
    the next one's place."""
    def text(first: list[str]) -> str:
        rest = [_looping("build_bin_wheels", "meta21", "", "Any will do", "interpreters.get(0)"),
                _looping("build_pure_wheels", "meta21", "", "Any will do", "None")]
        return "\n\n\n".join("\n".join(f) for f in [first] + rest) + "\n"
    old = _looping("build_wheels", "meta21", "", "On windows, pick one for python.lib", "interpreters.get(0)")
    new = _looping("build_wheels", "meta23", "strict=True", "On windows, pick one for python.lib",
                   "interpreters.first()")
    snippet = [MARK["python"]] + new[2:7] + ["    " + MARK["python"]] + new[8:11] + ["    " + MARK["python"]] + \
        new[12:15] + [MARK["python"]]
    r = merge(text(old), "\n".join(snippet) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == text(new)


def _init(kind: str, params: list[str]) -> list[str]:
    """Python: a class whose `__init__` takes `params` (a shared run of them, then its own)."""
    return [f"class {kind}Info:", "    def __init__(", "        self,", "        default: Any = None,",
            '        help: str = "",', "        # TyperArgument", "        show_default: bool = True,",
            "        hidden: bool = False,", *params, "    ):", "        self.default = default",
            "        self.help = help"]


def test_a_lone_header_of_several_places_goes_before_the_next_fragments():
    """typer's models.py: `def __init__(` shown alone, a deeper marker, new parameters among lines
    every `__init__` has (each place alike to them), then the lines of one class's own: the header of
    that class (the first), before them."""
    own = ['        metavar: str = "",', "        expose_value: bool = True,"]
    other = ["        is_flag: bool = False,", "        count: bool = False,"]
    new = own[:1] + ["        parser: Any = None,"] + own[1:]
    text = lambda params: "\n".join(_init("Argument", params) + ["", ""] + _init("Option", other)) + "\n"
    inner = "        # ... existing code ..."
    snippet = ["    # ... existing code ...", "    def __init__(", inner, '        help: str = "",',
               "        # TyperArgument", "        show_default: bool = True,", inner] + new + \
        ["    ):", "    # ... existing code ..."]
    r = merge(text(own), "\n".join(snippet) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == text(new)


def _nearest_case(lang: str, drop: str | None = None) -> tuple[str, str, str]:
    """Three functions alike, each with the same writer call; the snippet changes a writer call's field
    (dropping the line `drop` from it too), then, after a marker, shows the third function's own
    note and pick: (file, snippet, the file with the third function's call changed)."""
    gap = [""] * (2 if lang == "python" else 1)
    names = [("build_wheels", "On windows, pick one for python.lib", "interpreters.get(0)"),
             ("build_bin_wheels", "Any will do", "interpreters.get(0)"),
             ("build_pure_wheels", "Any will do", "None")]

    def text(last_field: str) -> str:
        fns = [_function(lang, n, "meta21" if k < 2 else last_field, note, pick)
               for k, (n, note, pick) in enumerate(names)]
        return "\n".join(fns[0] + gap + fns[1] + gap + fns[2]) + "\n"
    new = _function(lang, "build_pure_wheels", "meta23", "Any will do", "None")
    call = [l for l in new[2:7] if l.strip() != drop]
    inner = (" " * (4 if lang != "javascript" else 2)) + MARK[lang]
    snippet = "\n".join([MARK[lang]] + call + [inner] + new[8:10] + [MARK[lang]]) + "\n"
    return text("meta21"), snippet, text("meta23")


@pytest.mark.parametrize("lang", sorted(MARK))
def test_of_several_places_before_the_next_fragments_the_nearest_is_taken(lang):
    """The changed call fits the three functions alike, each before the next fragment's only place (the
    third function's note and pick): the nearest one, the third function's own, is meant (dishka's
    twin wrappers, fresh25: a call changed in one, a parameter added in the next one's signature)."""
    old, snippet, truth = _nearest_case(lang)
    r = merge(old, snippet, lang)
    assert r.ok, r.reason
    assert r.text == truth


@pytest.mark.parametrize("lang", sorted(MARK))
def test_the_nearest_is_not_taken_when_it_deletes_a_line(lang):
    """The snippet's call without its `tag` argument: the nearest place would delete that line, which
    no line of the fragment rewrites; a guess that deletes is refused."""
    old, snippet, _ = _nearest_case(lang, drop="tag," if lang != "rust" else "&tag,")
    r = merge(old, snippet, lang)
    assert not r.ok
    assert "matches more than one place in the file" in r.reason
