"""Issue 43: a lone header line that several blocks of the file have, a deeper marker, then lines
of one block, the last of them new, and a marker less indented.  The shape, from a real release
(arrow's locales.py): every locale class has `def _ordinal_number(self, n: int) -> str:`; the
snippet shows that header, a marker, and the Bengali locale's `if n == 6:` / its return line, then
a new `return ""` that ends the method.

Two rules were missing, and the new line went into the Odia locale, rewriting its return line
with the Bengali one (silently wrong, a line lost):
* of the lone header's places, the one whose block has the next fragment's lines in a row wins a
  tie on how many it has (the Odia block has the `return ""` line too, but not in a row);
* the next fragment then stays in that block: its last line is new there, so it runs to the end
  of the block, although its first and last lines are both in a later block.

The second shape (deepdiff's model.py): two classes with the same method, whose blocks have the
fragment's lines alike as often and as much in a row; the rewritten line goes where the old line
in its place needs the fewest characters changed (`if include_values:` gaining `or ...`, not the
other class's `if self.verbose_level and include_values:`)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (one block, with {name}, {six} and {tail}; the tail line; the snippet, with {six})
LANGS = {
    "python": ('''class {name}Locale:
    def ordinal(self, n: int) -> str:
        if n == 1:
            return f"{{n}}st"
        if n == 6:
            return f"{{n}}{six}"
{tail}
''', '''        return ""
''', '''# ... existing code ...
    def ordinal(self, n: int) -> str:
        # ... existing code ...
        if n == 6:
            return f"{{n}}{six}"
        return ""
    # ... existing code ...
'''),
    "javascript": ('''class {name}Locale {{
  ordinal(n) {{
    if (n === 1) {{
      return `${{n}}st`;
    }}
    if (n === 6) {{
      return `${{n}}{six}`;
    }}
{tail}  }}
}}

''', '''    return "";
''', '''// ... existing code ...
  ordinal(n) {{
    // ... existing code ...
    if (n === 6) {{
      return `${{n}}{six}`;
    }}
    return "";
  // ... existing code ...
'''),
    "typescript": ('''class {name}Locale {{
  ordinal(n: number): string {{
    if (n === 1) {{
      return `${{n}}st`;
    }}
    if (n === 6) {{
      return `${{n}}{six}`;
    }}
{tail}  }}
}}

''', '''    return "";
''', '''// ... existing code ...
  ordinal(n: number): string {{
    // ... existing code ...
    if (n === 6) {{
      return `${{n}}{six}`;
    }}
    return "";
  // ... existing code ...
'''),
    "rust": ('''impl {name}Locale {{
    fn ordinal(&self, n: u32) -> String {{
        if n == 1 {{
            return format!("{{}}st", n);
        }}
        if n == 6 {{
            return format!("{{}}{six}", n);
        }}
{tail}    }}
}}

''', '''        String::new()
''', '''// ... existing code ...
    fn ordinal(&self, n: u32) -> String {{
        // ... existing code ...
        if n == 6 {{
            return format!("{{}}{six}", n);
        }}
        String::new()
    // ... existing code ...
'''),
    "go": ('''// {name}
func init() {{
	if n == 1 {{
		register("1st")
	}}
	if n == 6 {{
		register("6{six}")
	}}
{tail}}}

''', '''	register("")
''', '''// ... existing code ...
func init() {{
	// ... existing code ...
	if n == 6 {{
		register("6{six}")
	}}
	register("")
// ... existing code ...
'''),
}

# the target has no tail and its own sixth; the other locale has the tail and a like sixth
LOCALES = (("Bengali", "ষ্ঠ", False), ("Odia", "ଷ୍ଠ", True))


def _file(lang: str, locales) -> str:
    block, tail, _ = LANGS[lang]
    return "".join(block.format(name=n, six=s, tail=tail if t else "") for n, s, t in locales)


@pytest.mark.parametrize("order", ["target first", "target last"])
@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_last_line_goes_to_the_block_with_the_lines_in_a_row(lang, order):
    locales = LOCALES if order == "target first" else LOCALES[::-1]
    original = _file(lang, locales)
    target = _file(lang, [LOCALES[0]])
    res = merge(original, LANGS[lang][2].format(six=LOCALES[0][1]), lang)
    assert res.ok, res.reason
    fixed = _file(lang, [(LOCALES[0][0], LOCALES[0][1], True)])
    assert res.text == original.replace(target, fixed), res.text


# deepdiff's shape: (file, snippet, the old line, its new text)
ALIGNED = {
    "python": ('''class TextResult:
    def type_changes(self, tree):
        for change in tree:
            include_values = False
            remap = {"old": change.t1}
            self.changes[change.path()] = remap
            if self.verbose_level and include_values:
                remap.update(old_value=change.t1)

class DeltaResult:
    def type_changes(self, tree):
        for change in tree:
            include_values = False
            remap = {"old": change.t1}
            self.changes[change.path()] = remap
            if include_values:
                remap.update(old_value=change.t1)
''', '''# ... existing code ...
    def type_changes(self, tree):
        # ... existing code ...
            self.changes[change.path()] = remap
            if include_values or self.always_include:
                remap.update(old_value=change.t1)
# ... existing code ...
''', "            if include_values:\n", "            if include_values or self.always_include:\n"),
    "typescript": ('''class TextResult {
  typeChanges(tree: Tree): void {
    for (const change of tree) {
      let includeValues = this.alwaysInclude;
      const remap = { old: change.t1 };
      this.changes[change.path()] = remap;
      if (this.verboseLevel && includeValues) {
        remap.oldValue = change.t1;
      }
    }
  }
}

class DeltaResult {
  typeChanges(tree: Tree): void {
    for (const change of tree) {
      let includeValues = this.alwaysInclude;
      const remap = { old: change.t1 };
      this.changes[change.path()] = remap;
      if (includeValues) {
        remap.oldValue = change.t1;
      }
    }
  }
}
''', '''// ... existing code ...
  typeChanges(tree: Tree): void {
    // ... existing code ...
      this.changes[change.path()] = remap;
      if (includeValues || this.alwaysInclude) {
        remap.oldValue = change.t1;
// ... existing code ...
''', "      if (includeValues) {\n", "      if (includeValues || this.alwaysInclude) {\n"),
}


@pytest.mark.parametrize("lang", sorted(ALIGNED))
def test_a_rewritten_line_goes_where_its_old_line_changes_least(lang):
    original, snippet, old, new = ALIGNED[lang]
    res = merge(original, snippet, lang)
    assert res.ok, res.reason
    assert original.count(old) == 1
    assert res.text == original.replace(old, new), res.text
