"""Fragments whose lines occur at more than one place in the file (apply's merge, anchors.py): the
same lines in two classes, impls or functions.  Each rule is checked in every language, with a twin
that differs only in what the rule reads and still merges."""
import pytest

from redraft.engine.apply import merge
from redraft.engine.apply.anchors import anchor

# Two definitions that share their lines; the second has one more line, `{mark}`, where the first
# has none.  The snippet shows the shared lines with one new line written where `{mark}` is.
REWRITE = {
    "python": ("""class A:
    def get(self, key):
        value = self.lookup(key)
        return value


class B:
    def get(self, key):
        value = self.lookup(key)
        {mark}
        return value
""", "# ... existing code ...", "        "),
    "javascript": ("""class A {
    get(key) {
        const value = this.lookup(key);
        return value;
    }
}

class B {
    get(key) {
        const value = this.lookup(key);
        {mark}
        return value;
    }
}
""", "// ... existing code ...", "        "),
    "typescript": ("""export class A {
    get(key: string): number {
        const value = this.lookup(key);
        return value;
    }
}

export class B {
    get(key: string): number {
        const value = this.lookup(key);
        {mark}
        return value;
    }
}
""", "// ... existing code ...", "        "),
    "go": ("""package store

func (a *A) Get(key string) int {
\tvalue := a.lookup(key)
\treturn value
}

func (b *B) Get(key string) int {
\tvalue := a.lookup(key)
\t{mark}
\treturn value
}
""", "// ... existing code ...", "\t"),
    "rust": ("""impl A {
    fn get(&self, key: &str) -> i64 {
        let value = self.lookup(key);
        value
    }
}

impl B {
    fn get(&self, key: &str) -> i64 {
        let value = self.lookup(key);
        {mark}
        value
    }
}
""", "// ... existing code ...", "        "),
}
CHECK = {"python": ("check(value, strict=False)", "check(value, strict=True)", "audit.record(key)"),
         "javascript": ("check(value, { strict: false });", "check(value, { strict: true });", "audit.record(key);"),
         "typescript": ("check(value, { strict: false });", "check(value, { strict: true });", "audit.record(key);"),
         "go": ("check(value, false)", "check(value, true)", "audit.Record(key)"),
         "rust": ("check(value, false);", "check(value, true);", "audit.record(key);")}
VALUE = {"python": "return value", "javascript": "return value;", "typescript": "return value;", "go": "return value",
         "rust": "value"}
LOOKUP = {"python": "value = self.lookup(key)", "javascript": "const value = this.lookup(key);",
          "typescript": "const value = this.lookup(key);", "go": "value := a.lookup(key)",
          "rust": "let value = self.lookup(key);"}


def _case(language: str, old: str):
    text, marker, ind = REWRITE[language]
    original = text.replace("{mark}", old)
    new = CHECK[language][1]
    snippet = "\n".join([marker, ind + LOOKUP[language], ind + new, ind + VALUE[language], marker]) + "\n"
    return original, snippet, new


def _merged(original: str, snippet: str, language: str) -> str:
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


@pytest.mark.parametrize("language", sorted(REWRITE))
def test_a_new_line_like_one_at_the_other_place_rewrites_it_there(language):
    # `check(value, strict=True)` is an insertion in A and a rewrite of `check(value, strict=False)`
    # in B: the rewrite is the edit (a rewritten line counts for more than a new one)
    old, new = CHECK[language][0], CHECK[language][1]
    original, snippet, _ = _case(language, old)
    assert _merged(original, snippet, language) == original.replace(old, new)


@pytest.mark.parametrize("language", sorted(REWRITE))
def test_twin_a_new_line_unlike_the_other_place_s_is_inserted_at_the_first(language):
    # the twin: B's extra line is nothing like the new one, so B would drop it; A takes the new line
    old, new = CHECK[language][2], CHECK[language][1]
    original, snippet, _ = _case(language, old)
    out = _merged(original, snippet, language)
    ind = REWRITE[language][2]
    first = original.index(ind + LOOKUP[language]) + len(ind + LOOKUP[language]) + 1
    assert out == original[:first] + ind + new + "\n" + original[first:]


def _at(text: str, line: str) -> list[int]:
    return [i for i, l in enumerate(text.split("\n")) if l == line]


@pytest.mark.parametrize("language", sorted(REWRITE))
def test_a_one_line_fragment_found_twice_goes_to_the_first_place_after_the_previous_fragment(language):
    # one line between two markers (a lazy snippet's header or context line) fits both definitions
    # equally: it goes to the first place after the previous fragment
    original, _, _ = _case(language, CHECK[language][2])
    line = REWRITE[language][2] + LOOKUP[language]
    first, second = _at(original, line)
    assert anchor(original.split("\n"), [line], pos=0, marker_before=None, marker_after=8, name="f") == (first, first)


@pytest.mark.parametrize("language", sorted(REWRITE))
def test_twin_a_one_line_fragment_after_the_first_place_goes_to_the_second(language):
    # the twin: the previous fragment ends past the first place
    original, _, _ = _case(language, CHECK[language][2])
    line = REWRITE[language][2] + LOOKUP[language]
    first, second = _at(original, line)
    lines = original.split("\n")
    assert anchor(lines, [line], pos=first + 1, marker_before=0, marker_after=8, name="f") == (second, second)


# A function's local declared after a call that ends with a line without words (`)`, `);`): the
# snippet shows the call, a marker, and the function's last statement no longer using the local.
# The marker may keep the local's declaration, or the call's closing line may be the declaration's,
# deleting it: the edit removed the local's last use in its function, so that reading is as likely.
# Another function declares and uses a local of the same name, which says nothing about this one.
LOCAL = {
    "python": ("""def other(items):
    total = count(items)
    return total


def run(items):
    config = load(
        items
    )

    total = compute(
        items
    )

    return report(
        {args}
    )
""", "# ... existing code ...", "def run(items):", "    config = load(", "        items, strict=True", "    )",
        "    return report(", "items, total", "items", "items, total, strict=True", "    )", None),
    "javascript": ("""function other(items) {
    const total = count(items);
    return total;
}

function run(items) {
    const config = load(
        items
    );

    const total = compute(
        items
    );

    return report(
        {args}
    );
}
""", "// ... existing code ...", "function run(items) {", "    const config = load(", "        items, true", "    );",
        "    return report(", "items, total", "items", "items, total, true", "    );", "}"),
    "typescript": ("""function other(items: number[]): number {
    const total: number = count(items);
    return total;
}

function run(items: number[]): number {
    const config = load(
        items
    );

    const total: number = compute(
        items
    );

    return report(
        {args}
    );
}
""", "// ... existing code ...", "function run(items: number[]): number {", "    const config = load(",
        "        items, true", "    );", "    return report(", "items, total", "items", "items, total, true", "    );", "}"),
    "go": ("""package run

func other(items []int) int {
\ttotal := count(items)
\treturn total
}

func run(items []int) int {
\tconfig := load(
\t\titems,
\t)

\ttotal := compute(
\t\titems,
\t)

\treturn report(
\t\t{args}
\t)
}
""", "// ... existing code ...", "func run(items []int) int {", "\tconfig := load(", "\t\titems, true,", "\t)",
        "\treturn report(", "config, total,", "config,", "config, total, true,", "\t)", "}"),
    "rust": ("""fn other(items: &[i64]) -> i64 {
    let total = count(items);
    total
}

fn run(items: &[i64]) -> i64 {
    let config = load(
        items,
    );

    let total = compute(
        items,
    );

    report(
        {args}
    )
}
""", "// ... existing code ...", "fn run(items: &[i64]) -> i64 {", "    let config = load(", "        items, true,",
        "    );", "    report(", "config, total,", "config,", "config, total, true,", "    )", "}"),
}


def _local_case(language: str, args: str):
    text, marker, header, call, changed, close, ret, old, _, _, end, last = LOCAL[language]
    original = text.replace("{args}", old)
    ind = close[:len(close) - len(close.lstrip())] * 2
    tail = [ret, ind + args, end] + ([last] if last else [])
    snippet = "\n".join([marker, header, call, changed, close, marker.rjust(len(marker) + len(ind) // 2)] + tail) + "\n"
    return original, snippet


@pytest.mark.parametrize("language", sorted(LOCAL))
def test_a_local_whose_last_use_in_its_function_the_edit_removes_is_refused(language):
    original, snippet = _local_case(language, LOCAL[language][8])
    r = merge(original, snippet, language)
    assert not r.ok and "which nothing uses after this edit" in r.reason and "`total`" in r.reason, r.reason


@pytest.mark.parametrize("language", sorted(LOCAL))
def test_twin_a_local_its_function_still_uses_merges(language):
    # the twin: the last statement still uses the local (one argument more): the marker keeps it
    original, snippet = _local_case(language, LOCAL[language][9])
    out = _merged(original, snippet, language)
    assert out.count("total") == original.count("total") and "compute(" in out
