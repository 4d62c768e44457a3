"""Issue 43: a new function written before an existing one, and alike to the function before that
(effect's config.ts: `number` written as a copy of `float`, before `integer`, each opening with
`/** @internal */`), is inserted, not
read as a rewrite of its look-alike: a region may not drop a definition the snippet never names,
and a function written as a value (`export const f = (x) => {`) is a definition too.  In each of
the five languages (JavaScript and TypeScript with arrow functions)."""
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
