"""Issue 43: a lone header line that several blocks of the file have, a deeper marker, then lines
of that block with one rewritten.  The shape, from a real release (structlog's _output.py): three
logger classes each with `def __getstate__(self) -> str:`, the snippet shows that header, a
marker, and the end of one class's method with its `elif` made an `if`.

The merge put a lone line at its first place after the previous fragment, so the rewrite went
into the first class's method, whose line was only somewhat like it: silently wrong.  Now, of a
lone line's places, the one whose block holds the next fragment's lines most alike is taken;
when they are alike everywhere, a header is refused (session 51; it went to the first before)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

NAMES = ("Print", "Write", "Bytes")

# (one block, with {name} and {msg}; the snippet, with {msg}: the block's line rewritten)
LANGS = {
    "python": ('''class {name}Logger:
    def get_state(self) -> str:
        if self.file is STDOUT:
            return "stdout"

        raise PicklingError("{msg} loggers to stdout can be pickled")

''', '''# ... existing code ...
    def get_state(self) -> str:
        # ... existing code ...
            return "stdout"

        raise PicklingError("{msg} loggers to stdout can be pickled, no other")
# ... existing code ...
'''),
    "javascript": ('''class {name}Logger {{
  getState() {{
    if (this.file === STDOUT) {{
      return "stdout";
    }}
    throw new PicklingError("{msg} loggers to stdout can be pickled");
  }}
}}

''', '''// ... existing code ...
  getState() {{
    // ... existing code ...
      return "stdout";
    }}
    throw new PicklingError("{msg} loggers to stdout can be pickled, no other");
// ... existing code ...
'''),
    "typescript": ('''class {name}Logger {{
  getState(): string {{
    if (this.file === STDOUT) {{
      return "stdout";
    }}
    throw new PicklingError("{msg} loggers to stdout can be pickled");
  }}
}}

''', '''// ... existing code ...
  getState(): string {{
    // ... existing code ...
      return "stdout";
    }}
    throw new PicklingError("{msg} loggers to stdout can be pickled, no other");
// ... existing code ...
'''),
    "rust": ('''impl {name}Logger {{
    fn get_state(&self) -> &str {{
        if self.file == STDOUT {{
            return "stdout";
        }}
        panic!("{msg} loggers to stdout can be pickled")
    }}
}}

''', '''// ... existing code ...
    fn get_state(&self) -> &str {{
        // ... existing code ...
            return "stdout";
        }}
        panic!("{msg} loggers to stdout can be pickled, no other")
// ... existing code ...
'''),
    "go": ('''func init() {{
	if mode == STDOUT {{
		register("stdout")
	}}
	panic("{msg} loggers to stdout can be pickled")
}}

''', '''// ... existing code ...
func init() {{
	// ... existing code ...
		register("stdout")
	}}
	panic("{msg} loggers to stdout can be pickled, no other")
// ... existing code ...
'''),
}


def _file(lang: str) -> str:
    block = LANGS[lang][0]
    return "".join(block.format(name=n, msg=n.lower()) for n in NAMES)


@pytest.mark.parametrize("target", NAMES)
@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_block_whose_lines_are_likest_takes_the_rewrite(lang, target):
    original = _file(lang)
    msg = target.lower()
    old = f"{msg} loggers to stdout can be pickled\""
    new = f"{msg} loggers to stdout can be pickled, no other\""
    res = merge(original, LANGS[lang][1].format(msg=msg), lang)
    assert res.ok, res.reason
    assert res.text == original.replace(old, new), res.text


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_alike_everywhere_is_refused(lang):
    """Every block the same: no place is likelier, and the first was right about half the time on the
    benchmark's twin classes (sqlspec's OracleSyncConfig and OracleAsyncConfig, fresh21: `derive_pool`
    rewritten in the second, merged into the first): refused, not guessed."""
    block = LANGS[lang][0].format(name="Same", msg="all")
    original = block * 3
    res = merge(original, LANGS[lang][1].format(msg="all"), lang)
    assert not res.ok, res.text
    assert "matches more than one place in the file, each alike to the lines shown after it" in res.reason
