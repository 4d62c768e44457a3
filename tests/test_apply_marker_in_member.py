"""Issue 43: a class shown with one method whose body has markers in it.  The shape, from a real
release (arrow's tests/test_locales.py): `class TestArabicLocale:` and its `test_timeframes`, each
group of asserts gaining a line, the comment line that opens each group left to a marker indented
as the method's body.

The merge matched the class member by member, the markers dropped: the method was replaced by its
shown lines alone, so the comment lines the markers stood for were deleted (silently wrong, lines
lost).  A member with a marker inside is not shown whole, so the class is not matched by name; its
lines anchor the fragments, and the markers keep what they cover."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, snippet, [(old, new)]: the lines the snippet adds, each before the line `old`)
LANGS = {
    "python": ('''import pytest


class TestArabicLocale:
    def test_timeframes(self):
        # single
        assert fmt("minute", 1) == "one minute"
        assert fmt("hour", 1) == "one hour"

        # double
        assert fmt("minutes", 2) == "two minutes"
        assert fmt("hours", 2) == "two hours"


class TestOtherLocale:
    def test_timeframes(self):
        assert fmt("minute", 1) == "a minute"
''', '''# ... existing code ...
class TestArabicLocale:
    def test_timeframes(self):
        # single
        assert fmt("minute", 1) == "one minute"
        assert fmt("week", 1) == "one week"
        assert fmt("hour", 1) == "one hour"

        # ... existing code ...
        assert fmt("minutes", 2) == "two minutes"
        assert fmt("weeks", 2) == "two weeks"
        assert fmt("hours", 2) == "two hours"
# ... existing code ...
''', [('        assert fmt("hour", 1) == "one hour"\n', '        assert fmt("week", 1) == "one week"\n'),
      ('        assert fmt("hours", 2) == "two hours"\n', '        assert fmt("weeks", 2) == "two weeks"\n')]),
    "javascript": ('''import { fmt } from "./fmt";

class ArabicLocaleTest {
  timeframes() {
    // single
    check(fmt("minute", 1), "one minute");
    check(fmt("hour", 1), "one hour");

    // double
    check(fmt("minutes", 2), "two minutes");
    check(fmt("hours", 2), "two hours");
  }
}

class OtherLocaleTest {
  timeframes() {
    check(fmt("minute", 1), "a minute");
  }
}
''', '''// ... existing code ...
class ArabicLocaleTest {
  timeframes() {
    // single
    check(fmt("minute", 1), "one minute");
    check(fmt("week", 1), "one week");
    check(fmt("hour", 1), "one hour");

    // ... existing code ...
    check(fmt("minutes", 2), "two minutes");
    check(fmt("weeks", 2), "two weeks");
    check(fmt("hours", 2), "two hours");
  }
}
// ... existing code ...
''', [('    check(fmt("hour", 1), "one hour");\n', '    check(fmt("week", 1), "one week");\n'),
      ('    check(fmt("hours", 2), "two hours");\n', '    check(fmt("weeks", 2), "two weeks");\n')]),
    "rust": ('''use crate::fmt;

impl ArabicLocaleTest {
    fn timeframes(&self) {
        // single
        check(fmt("minute", 1), "one minute");
        check(fmt("hour", 1), "one hour");

        // double
        check(fmt("minutes", 2), "two minutes");
        check(fmt("hours", 2), "two hours");
    }
}

impl OtherLocaleTest {
    fn timeframes(&self) {
        check(fmt("minute", 1), "a minute");
    }
}
''', '''// ... existing code ...
impl ArabicLocaleTest {
    fn timeframes(&self) {
        // single
        check(fmt("minute", 1), "one minute");
        check(fmt("week", 1), "one week");
        check(fmt("hour", 1), "one hour");

        // ... existing code ...
        check(fmt("minutes", 2), "two minutes");
        check(fmt("weeks", 2), "two weeks");
        check(fmt("hours", 2), "two hours");
    }
}
// ... existing code ...
''', [('        check(fmt("hour", 1), "one hour");\n', '        check(fmt("week", 1), "one week");\n'),
      ('        check(fmt("hours", 2), "two hours");\n', '        check(fmt("weeks", 2), "two weeks");\n')]),
}
LANGS["typescript"] = (LANGS["javascript"][0].replace("timeframes() {", "timeframes(): void {"),
                       LANGS["javascript"][1].replace("timeframes() {", "timeframes(): void {"),
                       LANGS["javascript"][2])


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_markers_inside_a_shown_method_keep_what_they_cover(lang):
    original, snippet, added = LANGS[lang]
    truth = original
    for old, new in added:
        assert truth.count(old) == 1
        truth = truth.replace(old, new + old)
    res = merge(original, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth, res.text
    assert not res.deletions


def test_go_has_no_classes_its_function_with_markers_inside_anchors_by_lines():
    """Go's methods are not members of a type's block, so nothing is matched by name here; the same
    snippet, a function with a marker inside, merges by its lines."""
    original = """package locales

func TestArabicTimeframes(t *testing.T) {
	// single
	check(t, fmt("minute", 1), "one minute")
	check(t, fmt("hour", 1), "one hour")

	// double
	check(t, fmt("minutes", 2), "two minutes")
	check(t, fmt("hours", 2), "two hours")
}
"""
    snippet = """// ... existing code ...
func TestArabicTimeframes(t *testing.T) {
	// single
	check(t, fmt("minute", 1), "one minute")
	check(t, fmt("week", 1), "one week")
	check(t, fmt("hour", 1), "one hour")

	// ... existing code ...
	check(t, fmt("minutes", 2), "two minutes")
	check(t, fmt("weeks", 2), "two weeks")
	check(t, fmt("hours", 2), "two hours")
}
"""
    res = merge(original, snippet, "go")
    assert res.ok, res.reason
    truth = original.replace('\tcheck(t, fmt("hour"', '\tcheck(t, fmt("week", 1), "one week")\n\tcheck(t, fmt("hour"') \
        .replace('\tcheck(t, fmt("hours"', '\tcheck(t, fmt("weeks", 2), "two weeks")\n\tcheck(t, fmt("hours"')
    assert res.text == truth, res.text
