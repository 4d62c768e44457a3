"""Issue 43: a fragment that stops inside a block, before a less indented marker, and the block's
old lines after it.

The shapes, from real releases (cattrs' converters and preconf modules, development cases since
session 36): a method rewritten to end in `return make_dict_unstructure_fn(...)`, the old method
having gone on with `return h`; a function whose old last call the snippet moved up, above the
lines it ends with.  The merge kept the old lines after the fragment's region: unreachable code
after the new `return`, or the moved call twice.  They are now the block's old last lines, replaced
(at most four lines, no definition among them): the unreachable ones reported as a deletion, the
moved ones not (a line moved is not deleted); `--keep-unmarked` keeps them, as it keeps every line
the snippet omits."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge
from redraft.engine.apply.regions import UNREACHABLE_WHY

# (marker, file, snippet, truth) per language: the unreachable tail
UNREACHABLE = {
    "python": ("# ... existing code ...", """class Conv:
    def gen(self, cl):
        attribs = fields(cl)
        h = make_fn(
            cl, self
        )
        # cache it
        return h

    def other(self):
        return 1
""", """    def gen(self, cl):
        attribs = fields(cl)
        return make_fn(
            cl, self
        )
    {m}
"""),
    "javascript": ("// ... existing code ...", """class Conv {
  gen(cl) {
    const attribs = fields(cl);
    const h = makeFn(
      cl, this
    );
    // cache it
    return h;
  }

  other() {
    return 1;
  }
}
""", """  gen(cl) {
    const attribs = fields(cl);
    return makeFn(
      cl, this
    );
  {m}
"""),
    "rust": ("// ... existing code ...", """impl Conv {
    fn gen(&self, cl: u8) -> u8 {
        let attribs = fields(cl);
        let h = make_fn(
            cl, self,
        );
        // cache it
        return h;
    }

    fn other(&self) -> u8 {
        1
    }
}
""", """    fn gen(&self, cl: u8) -> u8 {
        let attribs = fields(cl);
        return make_fn(
            cl, self,
        );
    {m}
"""),
    "go": ("// ... existing code ...", """func (c *Conv) Gen(cl int) int {
\tattribs := fields(cl)
\th := makeFn(
\t\tcl, c,
\t)
\t// cache it
\treturn h
}

func (c *Conv) Other() int {
\treturn 1
}
""", """func (c *Conv) Gen(cl int) int {
\tattribs := fields(cl)
\treturn makeFn(
\t\tcl, c,
\t)
{m}
"""),
}
UNREACHABLE["typescript"] = tuple(t.replace("gen(cl)", "gen(cl: number)") for t in UNREACHABLE["javascript"])

MOVED = {
    "python": ("# ... existing code ...", """def configure(conv):
    conv.register(str, to_str)
    conv.passthrough(
        Union[str, int], conv
    )
    conv.register(datetime, validate)


def other():
    return 1
""", """def configure(conv):
    conv.register(str, to_str)
    conv.register(datetime, validate)
    conv.passthrough(
        Union[str, int], conv
    )
{m}
"""),
    "javascript": ("// ... existing code ...", """function configure(conv) {
  conv.register(String, toStr);
  conv.passthrough(
    [String, Number], conv
  );
  conv.register(Date, validate);
}

function other() {
  return 1;
}
""", """function configure(conv) {
  conv.register(String, toStr);
  conv.register(Date, validate);
  conv.passthrough(
    [String, Number], conv
  );
{m}
"""),
    "rust": ("// ... existing code ...", """fn configure(conv: &mut Conv) {
    conv.register(Kind::Str, to_str);
    conv.passthrough(
        &[Kind::Str, Kind::Int],
    );
    conv.register(Kind::Date, validate);
}

fn other() -> u8 {
    1
}
""", """fn configure(conv: &mut Conv) {
    conv.register(Kind::Str, to_str);
    conv.register(Kind::Date, validate);
    conv.passthrough(
        &[Kind::Str, Kind::Int],
    );
{m}
"""),
    "go": ("// ... existing code ...", """func configure(conv *Conv) {
\tconv.Register(KindStr, toStr)
\tconv.Passthrough(
\t\tKindStr, KindInt,
\t)
\tconv.Register(KindDate, validate)
}

func other() int {
\treturn 1
}
""", """func configure(conv *Conv) {
\tconv.Register(KindStr, toStr)
\tconv.Register(KindDate, validate)
\tconv.Passthrough(
\t\tKindStr, KindInt,
\t)
{m}
"""),
}
MOVED["typescript"] = tuple(t.replace("configure(conv)", "configure(conv: Conv): void") for t in MOVED["javascript"])


def _case(table: dict, lang: str) -> tuple[str, str, str]:
    """(file, snippet, truth): the file with the snippet's function in place of its old lines up to
    the end of its block, the rest as it was."""
    marker, text, shown = table[lang]
    snippet = f"{marker}\n" + shown.replace("{m}", marker)
    new = shown.split("\n")[:-2]                          # the function's shown lines, its marker left out
    lines = text.split("\n")
    a = lines.index(new[0])
    def indent(line: str) -> int:
        return len(line) - len(line.lstrip())
    end = next(j for j in range(a + 1, len(lines)) if lines[j].strip() and indent(lines[j]) < indent(new[-1]))
    b = max(j for j in range(a, end) if lines[j].strip()) + 1    # the blank lines before the block's end stay
    return text, snippet, "\n".join(lines[:a] + new + lines[b:])


@pytest.mark.parametrize("lang", list(UNREACHABLE))
def test_lines_after_a_new_return_are_the_blocks_old_tail(lang):
    text, snippet, truth = _case(UNREACHABLE, lang)
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth and "cache it" not in res.text
    assert [d.why for d in res.deletions] == [UNREACHABLE_WHY]
    kept = merge(text, snippet, lang, delete_unmarked=False)        # --keep-unmarked: the old lines stay
    assert not kept.ok or "cache it" in kept.text


@pytest.mark.parametrize("lang", list(MOVED))
def test_a_line_moved_up_is_not_kept_twice(lang):
    text, snippet, truth = _case(MOVED, lang)
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth
    assert not res.deletions            # a line moved is not reported as deleted (edges.deletions)
