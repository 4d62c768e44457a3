"""Issue 43: a new function written before an existing one, and alike to the function before that
(effect's config.ts: `number` written as a copy of `float`, before `integer`, each opening with
`/** @internal */`), is inserted, not
read as a rewrite of its look-alike: a region may not drop a definition the snippet never names,
and a function written as a value (`export const f = (x) => {`) is a definition too.  In each of
the five languages (JavaScript and TypeScript with arrow functions).  And a new definition written
after the lines that end a shown one, opening as the next definition does (`/**`, a decorator, an
attribute, a directive), goes between them: the next one keeps its opener."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ..."}


DOC = {"python": "# internal", "javascript": "/** @internal */", "typescript": "/** @internal */",
       "go": "// internal", "rust": "/// internal"}


def _fn(lang: str, name: str, word: str) -> list[str]:
    return [DOC[lang]] + _body(lang, name, word)


def _body(lang: str, name: str, word: str) -> list[str]:
    if lang == "python":
        return [f"def {name}(text):", "    value = float(text)", "    if value != value:",
                f'        raise ValueError("expected a {word} value")', "    return value"]
    if lang == "go":
        return [f"func {name}(text string) float64 {{", "\tvalue, err := strconv.ParseFloat(text, 64)",
                "\tif err != nil {", f'\t\tpanic("expected a {word} value")', "\t}", "\treturn value", "}"]
    if lang == "rust":
        return [f"pub fn {name}(text: &str) -> f64 {{", "    let value: f64 = text.parse().unwrap_or(f64::NAN);",
                "    if value.is_nan() {", f'        panic!("expected a {word} value");', "    }", "    value", "}"]
    typed = "text: string): number" if lang == "typescript" else "text)"
    return [f"export const {name} = ({typed} => {{", "  const value = Number.parseFloat(text)",
            "  if (Number.isNaN(value)) {", f'    throw new Error("expected a {word} value")', "  }",
            "  return value", "}"]


@pytest.mark.parametrize("lang", ["python", "javascript", "typescript", "go", "rust"])
def test_new_function_like_the_one_before_is_inserted_not_a_rewrite(lang):
    gap = ["", ""] if lang == "python" else [""]
    head = ["package conv", "", 'import "strconv"', ""] if lang == "go" else []
    flt, integer, new = _fn(lang, "float_of", "float"), _fn(lang, "integer_of", "integer"), _fn(lang, "number_of",
                                                                                                  "number")
    original = head + flt + gap + integer
    m = MARK.get(lang, "// ... existing code ...")
    r = merge("\n".join(original) + "\n", "\n".join([m] + new + gap + integer[:3] + [m]) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(head + flt + gap + new + gap + integer) + "\n"


# --- a new definition after the lines that end a shown one, opening as the next definition does (tRPC's
# types.ts: `/**` both; a decorator, an attribute, a directive): the run of the snippet's first lines
# found in the file reaches past the blank line into that opener, which stays the next definition's
OPENER = {"python": ["@functools.cache"], "javascript": ["/**", " * {doc}", " */"],
          "typescript": ["/**", " * {doc}", " */"], "go": ["//go:noinline"], "rust": ["#[inline]"]}


def _def(lang: str, name: str, k: int) -> list[str]:
    opener = [l.format(doc=f"{name} multiplies by {k}.") for l in OPENER[lang]]
    body = {"python": [f"def {name}(x):", f"    y = x * {k}", "    return y"],
            "javascript": [f"function {name}(x) {{", f"  const y = x * {k};", "  return y;", "}"],
            "typescript": [f"function {name}(x: number): number {{", f"  const y = x * {k};", "  return y;", "}"],
            "go": [f"func {name}(x int) int {{", f"\ty := x * {k}", "\treturn y", "}"],
            "rust": [f"fn {name}(x: i32) -> i32 {{", f"    let y = x * {k};", "    y", "}"]}[lang]
    return opener + body


@pytest.mark.parametrize("lang", ["python", "javascript", "typescript", "go", "rust"])
def test_new_definition_after_a_shown_end_opening_as_the_next_one(lang):
    gap = ["", ""] if lang == "python" else [""]
    head = ["import functools", "", ""] if lang == "python" else ["package calc", ""] if lang == "go" else []
    a, b, c = _def(lang, "first", 2), _def(lang, "second", 3), _def(lang, "added", 4)
    original = head + a + gap + b
    m = MARK.get(lang, "// ... existing code ...")
    end = a[-2:] if lang == "python" else a[-3:]
    r = merge("\n".join(original) + "\n", "\n".join([m] + end + gap + c + [m]) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(head + a + gap + c + gap + b) + "\n"
