"""Issue 43: a fragment whose edge next to a marker is only lines without words (`}`, `)`, a blank)
fits the nearest place those lines occur and the next one (deleting the lines between).  The merge
takes the nearest, and refuses when the other reading is as likely (ambiguity.py, usage.py):

* the fragment changes nothing at the nearest place, and its weak edge crosses a blank line into
  the next definition (a fragment is shown to change something);
* the lines the other reading deletes hold definitions nested in a function, or declare names
  (parameters), that the edit left unused;
* they use a local name whose declaration the edit removed.

Each refusal has a twin that differs in the one fact the rule reads, and merges."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

LANGS = ["python", "javascript", "typescript", "go", "rust"]


def mark(lang: str, indent: str = "") -> str:
    return indent + ("# ... existing code ..." if lang == "python" else "// ... existing code ...")


def refused(original: str, snippet: str, lang: str, why: str) -> None:
    r = merge(original, snippet, lang)
    assert not r.ok, r.text
    assert why in r.reason and "\n" not in r.reason, r.reason


def merged(original: str, snippet: str, lang: str) -> str:
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    return r.text


# --- a fragment that changes nothing where it fits first ------------------------------------------

DOC = "/**\n * {n} calls f.\n */\n"
CALLS = {
    "javascript": DOC + "function {n}() {{\n    return f(\n        {v},\n    );\n}}\n\n",
    "typescript": DOC + "function {n}(): number {{\n    return f(\n        {v},\n    );\n}}\n\n",
    "go": DOC + "func {n}() int {{\n\treturn f(\n\t\t{v},\n\t)\n}}\n\n",
    "rust": DOC + "fn {n}() -> i32 {{\n    f(\n        {v},\n    )\n}}\n\n",
}


def _calls(lang: str) -> str:
    return "".join(CALLS[lang].format(n=n, v=v) for n, v in (("a", 1), ("b", 2), ("c", 3))).rstrip("\n") + "\n"


@pytest.mark.parametrize("lang", list(CALLS))
def test_fragment_that_changes_nothing_at_the_nearest_place_is_refused(lang):
    """The snippet edits `c`; its fragment of `a` ends with `)` / `}` / `` / `/**` and a marker:
    at the nearest `/**` it is the file's own lines, at the next one it deletes `b`.  It was
    shown for a reason, so the nearest is no more the reading than the other.  The same shape that
    edits `a` merges there; a snippet that changes nothing at all is refused as well (it was
    written to change something, and the other reading does); a fragment
    whose weak lines only close the block it shows the end of (no blank line) is not refused."""
    src = _calls(lang)
    ind = "\t" if lang == "go" else "    "
    a = CALLS[lang].format(n="a", v=1).split("\n")[4:10]      # `return f(` ... `}`, ``, `/**`
    a[-1] = "/**"
    c = CALLS[lang].format(n="c", v=30).rstrip("\n").split("\n")[3:7]    # header ... `)`
    snippet = "\n".join([mark(lang, ind)] + a + [mark(lang, " ")] + c + [mark(lang, ind)]) + "\n"
    refused(src, snippet, lang, "changes nothing where it fits first")
    out = merged(src, snippet.replace("1,", "10,"), lang)   # `a` edited too: the nearest place
    assert "10," in out and "2," in out and "30," in out and out.count("f(") == 3
    refused(src, snippet.replace("30,", "3,"), lang, "changes nothing where it fits first")
    assert merge(src, snippet.replace("30,", "3,"), lang, delete_unmarked=False).text == src
    closes = "\n".join([mark(lang, ind)] + a[:-2] + [mark(lang)] + c + [mark(lang, ind)]) + "\n"
    out = merged(src, closes, lang)
    assert "2," in out and "30," in out and out.count("f(") == 3


# --- definitions nested in a function that the edit leaves unused -------------------------------

NESTED = {
    "python": ("def outer(items):\n    def first(x):\n        return (\n            x\n        )\n\n"
               "    def helper(x):\n        return (\n            x + 1\n        )\n\n"
               "    def other(x):\n        return x * 2\n\n    return [other(helper(first(i))) for i in items]\n",
               "        )\n\n    def other(x):\n        return x * 2\n\n",
               "    return [other(helper(first(i))) for i in items]", "    return [other(first(i) + 1) for i in items]"),
    "javascript": ("function outer(items) {\n    function first(x) {\n        return x;\n    }\n\n"
                   "    function helper(x) {\n        return x + 1;\n    }\n\n"
                   "    function other(x) {\n        return x * 2;\n    }\n\n"
                   "    return items.map(first).map(helper).map(other);\n}\n",
                   "    }\n\n    function other(x) {\n        return x * 2;\n    }\n\n",
                   "    return items.map(first).map(helper).map(other);\n}",
                   "    return items.map(first).map(x => x + 1).map(other);\n}"),
    "typescript": ("function outer(items: number[]): number[] {\n    function first(x: number): number {\n        return x;\n    }\n\n"
                   "    function helper(x: number): number {\n        return x + 1;\n    }\n\n"
                   "    function other(x: number): number {\n        return x * 2;\n    }\n\n"
                   "    return items.map(first).map(helper).map(other);\n}\n",
                   "    }\n\n    function other(x: number): number {\n        return x * 2;\n    }\n\n",
                   "    return items.map(first).map(helper).map(other);\n}",
                   "    return items.map(first).map((x) => x + 1).map(other);\n}"),
    "rust": ("fn outer(items: &[i32]) -> Vec<i32> {\n    fn first(x: i32) -> i32 {\n        x\n    }\n\n"
             "    fn helper(x: i32) -> i32 {\n        x + 1\n    }\n\n"
             "    fn other(x: i32) -> i32 {\n        x * 2\n    }\n\n"
             "    items.iter().map(|&i| other(helper(first(i)))).collect()\n}\n",
             "    }\n\n    fn other(x: i32) -> i32 {\n        x * 2\n    }\n\n",
             "    items.iter().map(|&i| other(helper(first(i)))).collect()\n}",
             "    items.iter().map(|&i| other(first(i) + 1)).collect()\n}"),
}


@pytest.mark.parametrize("lang", list(NESTED))
def test_weak_head_before_a_nested_definition_the_edit_leaves_unused_is_refused(lang):
    """The fragment starts with `}` / `` after a marker: those lines end `first` as well as
    `helper`.  The edit removes `helper`'s only use, so deleting it is as likely as keeping it."""
    src, head, still, edited = NESTED[lang]
    refused(src, mark(lang) + "\n" + head + edited + "\n", lang, "which nothing uses after this edit")
    used = head.replace("x * 2", "x * 3") + still + "\n"           # an edit that keeps the use
    out = merged(src, mark(lang) + "\n" + used, lang)               # still used: the nearest place
    assert out == src.replace("x * 2", "x * 3")


# --- declared names (parameters) that the edit leaves unused ------------------------------------

PARAMS = {
    "python": ("def make(\n    name,\n    size=dict(\n        a=1,\n    ),\n    legacy=dict(\n        a=2,\n    ),\n"
               "    verbose=False,\n):\n    if legacy:\n        size = legacy\n    return name, size, verbose\n",
               "def make(\n", "    ),\n    verbose=False,\n):\n", "    return name, size, verbose\n"),
    "javascript": ("function make(\n    name,\n    size = f(\n        1,\n    ),\n    legacy = f(\n        2,\n    ),\n"
                   "    verbose = false,\n) {\n    if (legacy) {\n        size = legacy;\n    }\n"
                   "    return [name, size, verbose];\n}\n",
                   "function make(\n", "    ),\n    verbose = false,\n) {\n", "    return [name, size, verbose];\n}\n"),
    "typescript": ("function make(\n    name: string,\n    size: Array<\n        number\n    >,\n    legacy: Array<\n        number\n    >,\n"
                   "    verbose: boolean,\n): unknown[] {\n    if (legacy.length) {\n        size = legacy;\n    }\n"
                   "    return [name, size, verbose];\n}\n",
                   "function make(\n", "    >,\n    verbose: boolean,\n): unknown[] {\n",
                   "    return [name, size, verbose];\n}\n"),
    "rust": ("fn make(\n    name: &str,\n    size: Option<\n        i32,\n    >,\n    legacy: Option<\n        i32,\n    >,\n"
             "    verbose: bool,\n) -> i32 {\n    let size = legacy.or(size);\n    size.unwrap_or(0) + name.len() as i32 + verbose as i32\n}\n",
             "fn make(\n", "    >,\n    verbose: bool,\n) -> i32 {\n",
             "    size.unwrap_or(0) + name.len() as i32 + verbose as i32\n}\n"),
}


@pytest.mark.parametrize("lang", list(PARAMS))
def test_weak_head_before_a_parameter_the_edit_leaves_unused_is_refused(lang):
    """The fragment starts with the `)` / `>` that closes a parameter's default or type: it closes
    `size`'s as well as `legacy`'s.  The edit removes the body's use of `legacy`: deleting the
    parameter is as likely as keeping it.  While the body still uses it, the nearest place it is."""
    src, first, head, tail = PARAMS[lang]
    snippet = first + mark(lang, "    ") + "\n" + head + tail
    refused(src, snippet, lang, "declaring `legacy`, which nothing uses after this edit")
    body = src[src.index(head) + len(head):].replace("verbose", "not_verbose")     # still uses `legacy`
    out = merged(src, first + mark(lang, "    ") + "\n" + head + body, lang)
    assert out == src[:src.index(head) + len(head)] + body


# --- local names whose declaration the edit removed ---------------------------------------------

LOCALS = {
    "python": ("def run(ctx):\n    first = ctx.first\n    second = ctx.second\n    out = []\n"
               "    for x in first:\n        out.append(\n            x,\n        )\n"
               "    for y in second:\n        out.append(\n            y,\n        )\n    return out\n",
               "def run(ctx):\n    first = ctx.first\n    {decl} = ctx.second\n    out = []\n",
               "    for x in first:\n        out.append(\n            x, *{name},\n        )\n"),
    "javascript": ("function run(ctx) {\n    const first = ctx.first;\n    const second = ctx.second;\n    const out = [];\n"
                   "    for (const x of first) {\n        out.push(x);\n    }\n"
                   "    for (const y of second) {\n        out.push(y);\n    }\n    return out;\n}\n",
                   "function run(ctx) {\n    const first = ctx.first;\n    const {decl} = ctx.second;\n    const out = [];\n",
                   "    for (const x of first) {\n        out.push(x, ...{name});\n    }\n"),
    "typescript": ("function run(ctx: Ctx): number[] {\n    const first: number[] = ctx.first;\n"
                   "    const second: number[] = ctx.second;\n    const out: number[] = [];\n"
                   "    for (const x of first) {\n        out.push(x);\n    }\n"
                   "    for (const y of second) {\n        out.push(y);\n    }\n    return out;\n}\n",
                   "function run(ctx: Ctx): number[] {\n    const first: number[] = ctx.first;\n"
                   "    const {decl}: number[] = ctx.second;\n    const out: number[] = [];\n",
                   "    for (const x of first) {\n        out.push(x, ...{name});\n    }\n"),
    "go": ("func run(ctx Ctx) []int {\n\tfirst := ctx.First\n\tsecond := ctx.Second\n\tout := []int{}\n"
           "\tfor _, x := range first {\n\t\tout = append(out, x)\n\t}\n"
           "\tfor _, y := range second {\n\t\tout = append(out, y)\n\t}\n\treturn out\n}\n",
           "func run(ctx Ctx) []int {\n\tfirst := ctx.First\n\t{decl} := ctx.Second\n\tout := []int{}\n",
           "\tfor _, x := range first {\n\t\tout = append(append(out, x), {name}...)\n\t}\n"),
    "rust": ("fn run(ctx: &Ctx) -> Vec<i32> {\n    let first = &ctx.first;\n    let second = &ctx.second;\n"
             "    let mut out = Vec::new();\n    for x in first {\n        out.push(*x);\n    }\n"
             "    for y in second {\n        out.push(*y);\n    }\n    out\n}\n",
             "fn run(ctx: &Ctx) -> Vec<i32> {\n    let first = &ctx.first;\n    let {decl} = &ctx.second;\n"
             "    let mut out = Vec::new();\n",
             "    for x in first {\n        out.push(*x + {name}.len() as i32);\n    }\n"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_weak_tail_before_lines_using_a_removed_local_is_refused(lang):
    """The fragment ends with the `}` / `)` that closes a loop: it closes the next loop as well.
    The edit renames the local `second` that the next loop reads: keeping that loop leaves a name
    nothing declares, so deleting it is as likely.  With the declaration kept, the nearest place."""
    src, head, loop = LOCALS[lang]
    ind = "\t" if lang == "go" else "    "
    fill = lambda s, name: s.replace("{decl}", name).replace("{name}", name)  # noqa: E731
    rename = fill(head, "others") + fill(loop, "others") + mark(lang, ind) + "\n}\n"
    if lang == "python":
        rename = rename[:-len("}\n")]
    refused(src, rename, lang, "which use `second`, whose declaration this edit removes")
    keep = fill(head, "second") + fill(loop, "second") + mark(lang, ind) + "\n" + \
        ("" if lang == "python" else "}\n")
    out = merged(src, keep, lang)
    assert out.count("second") == src.count("second") + 1    # the next loop stays
