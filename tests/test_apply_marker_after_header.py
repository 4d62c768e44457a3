"""Issue 43: a marker right after a definition's header, deeper than it, is that definition's body:
the fragment after it stays in that definition even when its new lines are, word for word, lines
the next definition has once.  The shape, from a real release (pint's numpy_func.py): a snippet
shows `def implement_mul_func(func):`, a marker, `if np is None:` / `return`, then the lookup that
`implement_consistent_units_by_argument` (the next function) already has, then the shared
`@implements(func_str, "function")` and a marker.  The lookup's lines, found once in the file, were
taken to place the fragment in the next function (anchors._in_marker_block, a rule for a marker
inside a docstring): the first function was left as it was and the second lost a blank line.
In the five languages: the first function gets the lookup, the second is left as it is."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

def _case(header1: str, header2: str, guard: list[str], old: str, lookup: list[str], absent: list[str],
          register: str, body1: list[str], body2: list[str], ind: str, python: bool = False) -> tuple[str, ...]:
    c, closing, gap = ("#", [], ["", ""]) if python else ("//", [f"{ind}}});", "}"], [""])

    def fn(header, middle, body):
        return [header, f"{ind}{c} stop early without numpy"] + guard + [""] + middle + ["", register] + body + closing
    first = fn(header1, [old], body1)
    second = fn(header2, lookup + [""] + absent, body2)
    original = "\n".join(first + gap + second) + "\n"
    snippet = "\n".join([f"{c} ... existing code ...", header1, f"{ind}{c} ... existing code ..."] + guard + lookup +
                        [""] + absent + ["", register, f"{ind}{c} ... existing code ...", f"{c} ... existing code ..."])
    old_lines, new_lines = "\n".join(guard + ["", old]) + "\n", "\n".join(guard + lookup + [""] + absent) + "\n"
    return original, snippet + "\n", old_lines, new_lines


PYTHON = _case("def first_func(name):", "def second_func(name, wrap):", ["    if np is None:", "        return"],
               "    func = getattr(np, name)",
               ['    if "." not in name:', "        func = getattr(np, name, None)", "    else:",
                "        func = lookup(np, name)"], ["    if func is None:", "        return"], "    @implements(name)",
               ["    def implementation(a, b):", "        return func(a, b)"],
               ["    def implementation(*args):", "        return wrap(func(*args))"], "    ", python=True)


def _braces(header1: str, header2: str, guard: list[str], old: str, lookup: list[str], absent: list[str],
            register: str, body1: str, body2: str, ind: str) -> tuple[str, ...]:
    return _case(header1, header2, guard, old, lookup, absent, register, [body1], [body2], ind)


JS_GUARD = ["  if (np === null) {", "    return;", "  }"]
JS_LOOKUP = ['  let func = np[name];', '  if (name.includes(".")) {', "    func = lookup(np, name);", "  }"]
JS_ABSENT = ["  if (func === undefined) {", "    return;", "  }"]
CASES = {
    "python": PYTHON,
    "javascript": _braces("function firstFunc(name) {", "function secondFunc(name, wrap) {", JS_GUARD,
                          "  const func = np[name];", JS_LOOKUP, JS_ABSENT, "  register(name, (args) => {",
                          "    return func(args[0], args[1]);", "    return wrap(func(...args));", "  "),
    "typescript": _braces("function firstFunc(name: string): void {",
                          "function secondFunc(name: string, wrap: Wrap): void {", JS_GUARD,
                          "  const func = np[name];", JS_LOOKUP, JS_ABSENT, "  register(name, (args: number[]) => {",
                          "    return func(args[0], args[1]);", "    return wrap(func(...args));", "  "),
    "rust": _braces("fn first_func(name: &str) {", "fn second_func(name: &str, wrap: Wrap) {",
                    ["    if np.is_none() {", "        return;", "    }"], "    let func = np.get(name);",
                    ["    let mut func = np.get(name);", "    if name.contains('.') {",
                     "        func = lookup(np, name);", "    }"],
                    ["    if func.is_none() {", "        return;", "    }"], "    register(name, |args| {",
                    "        func(args[0], args[1])", "        wrap(func(args))", "    "),
    "go": _braces("func firstFunc(name string) {", "func secondFunc(name string, wrap Wrap) {",
                  ["\tif np == nil {", "\t\treturn", "\t}"], "\tfunc := np.Get(name)",
                  ["\tfn := np.Get(name)", '\tif strings.Contains(name, ".") {', "\t\tfn = lookup(np, name)", "\t}"],
                  ["\tif fn == nil {", "\t\treturn", "\t}"], "\tregister(name, func(args []float64) {",
                  "\t\tfunc(args[0], args[1])", "\t\twrap(fn(args))", "\t"),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_the_fragment_stays_in_the_definition_whose_header_it_follows(lang):
    original, snippet, old, new = CASES[lang]
    assert original.count(old) == 1 and new not in original
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == original.replace(old, new, 1)
