"""Issue 43: a fragment that is the file's lines but for an exported definition's name, with a
marker after it.  The shape, from a real release (effect's config.ts): a new `export const boolean`
with the body of the `export const bool` right after the shown context; the release kept `bool` (an
alias other files import), and the merge renamed it, losing its header line silently.

Other files may import the old name, which the file cannot show, so a rename and a copy beside it
are as likely: the merge refuses, naming both (places.renamed_export), for exported definitions
(`export`, Rust's `pub`, Go's capital).  With the old definition marked, the new one is added; with
the line after it shown, it is renamed.  A Python test renamed, which nothing imports, stays a
rename.  (On d06ea26 every language renamed the old definition.)"""
from __future__ import annotations

import re

import pytest

from redraft.engine.apply import merge

# (file, the old definition's header, its new name's header, a line before it) per language
LANGS = {
    "typescript": ('''import { primitive } from "./primitive"

/** @internal */
export const bool = (name?: string): Config<boolean> => {
  const config = primitive("a boolean property", parseBoolean)
  return name === undefined ? config : nested(name)(config)
}

/** @internal */
export const number = (name?: string): Config<number> => {
  const config = primitive("a number property", parseNumber)
  return name === undefined ? config : nested(name)(config)
}
''', "export const bool = ", "export const boolean = ", "// "),
    "javascript": ('''import { primitive } from "./primitive.js"

/** @internal */
export function bool(name) {
  const config = primitive("a boolean property", parseBoolean)
  return name === undefined ? config : nested(name)(config)
}

/** @internal */
export function number(name) {
  const config = primitive("a number property", parseNumber)
  return name === undefined ? config : nested(name)(config)
}
''', "export function bool(", "export function boolean(", "// "),
    "rust": ('''use crate::primitive::primitive;

/// A boolean property.
pub fn bool(name: Option<&str>) -> Config<bool> {
    let config = primitive("a boolean property", parse_bool);
    name.map_or(config.clone(), |n| nested(n, config))
}

/// A number property.
pub fn number(name: Option<&str>) -> Config<f64> {
    let config = primitive("a number property", parse_number);
    name.map_or(config.clone(), |n| nested(n, config))
}
''', "pub fn bool(", "pub fn boolean(", "// "),
    "go": ('''package config

// Bool is a boolean property.
func Bool(name string) Config {
	config := primitive("a boolean property", parseBool)
	return nested(name, config)
}

// Number is a number property.
func Number(name string) Config {
	config := primitive("a number property", parseNumber)
	return nested(name, config)
}
''', "func Bool(", "func Boolean(", "// "),
}


def _parts(lang: str) -> tuple[str, list[str], str, str, str]:
    original, old, new, comment = LANGS[lang]
    lines = original.splitlines()
    head = next(i for i, l in enumerate(lines) if l.startswith(old))
    end = next(i for i in range(head, len(lines)) if lines[i] in ("}", "}\n"))
    block = lines[head - 2:end + 1]               # the blank line and comment before it, then the definition
    block[2] = block[2].replace(old, new)
    return original, block, lines[head - 3], comment + "... existing code ...", lines[end + 1:end + 3]


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_an_exported_definition_under_a_new_name_is_refused(lang):
    original, block, before, marker, _ = _parts(lang)
    snippet = "\n".join([marker, before] + block + [marker]) + "\n"
    r = merge(original, snippet, lang)
    assert not r.ok, r.text
    old, new = (re.search(r"(\w+)\W*$", LANGS[lang][k]).group(1) for k in (1, 2))
    assert f"`{new}` is exported `{old}`" in r.reason and "existing code" in r.reason


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_line_after_it_shown_renames_it(lang):
    original, block, before, marker, after = _parts(lang)
    snippet = "\n".join([marker, before] + block + after + [marker]) + "\n"
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == original.replace(LANGS[lang][1], LANGS[lang][2], 1)


def test_a_python_test_renamed_stays_a_rename():
    original = '''import pytest


def test_options_default():
    schema = Schema()
    assert schema.opts.ordered is False


def test_options_ordered():
    schema = Schema(ordered=True)
    assert schema.opts.ordered is True
'''
    snippet = '''import pytest


def test_options_default_is_unordered():
    schema = Schema()
    assert schema.opts.ordered is False
# ... existing code ...
'''
    r = merge(original, snippet, "python")
    assert r.ok, r.reason
    assert r.text == original.replace("def test_options_default():", "def test_options_default_is_unordered():")
