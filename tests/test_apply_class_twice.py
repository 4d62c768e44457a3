"""Issue 43: a snippet whose markers skip past the end of a class.  The shape, from a real release
(Python Markdown's inlinepatterns.py, a multi-hunk edit): the snippet shows a class, the start of
its method, a marker indented as the method's body, then lines of the NEXT class (a class attribute
and that class's method of the same name).  Read as one class shown member by member, it had the
same method twice; the merge replaced the first class's method with the second one and lost the
first one's body.  A class shown with a member name twice is not matched member by member: its
fragments anchor by their lines (each method where its lines are).  Twin: a class shown with
distinct members is still matched member by member."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: the file, the snippet, and the edits that make the truth (old -> new)
CASES = {
    "python": ('''class Image(Base):
    """An image."""

    def handle(self, m, data):
        text, index, handled = self.get_text(data, m.end(0))
        if not handled:
            return None, None, None

        src, title = self.get_link(data, index)
        el = make("img")
        el.set("src", src)
        return el, m.start(0), index


class Reference(Base):
    """A reference."""

    PATTERN = compile(r"\\s?\\[([^\\]]*)\\]")

    def handle(self, m, data):
        text, index, handled = self.get_text(data, m.end(0))
        if not handled:
            return None, None, None

        ref, end, handled = self.eval_id(data, index, text)
        return self.make_tag(ref, text), m.start(0), end
''', '''class Image(Base):
    """An `img`."""

    def handle(self, m: Match, data: str) -> Result:
        text, index, handled = self.get_text(data, m.end(0))
        if not handled:
            return None, None, None
        # ... existing code ...

    PATTERN = compile(r"\\s?\\[([^\\]]*)\\]")

    def handle(self, m: Match, data: str) -> Result:
        """A reference's element."""
        text, index, handled = self.get_text(data, m.end(0))
        # ... existing code ...
''', [('"""An image."""', '"""An `img`."""'),
      ("def handle(self, m, data):", "def handle(self, m: Match, data: str) -> Result:"),
      ("Result:\n        text, index, handled = self.get_text(data, m.end(0))\n        if not handled:\n"
       "            return None, None, None\n\n        ref",
       "Result:\n        \"\"\"A reference's element.\"\"\"\n        text, index, handled = self.get_text(data, m.end(0))\n"
       "        if not handled:\n            return None, None, None\n\n        ref")]),
    "typescript": ('''class Image extends Base {
  /** An image. */
  handle(m: Match, data: string): Result {
    const [text, index, handled] = this.getText(data, m.end(0));
    if (!handled) {
      return [null, null, null];
    }
    const [src, title] = this.getLink(data, index);
    const el = make("img");
    el.set("src", src);
    return [el, m.start(0), index];
  }
}

class Reference extends Base {
  /** A reference. */
  static PATTERN = /\\s?\\[([^\\]]*)\\]/;

  handle(m: Match, data: string): Result {
    const [text, index, handled] = this.getText(data, m.end(0));
    if (!handled) {
      return [null, null, null];
    }
    const [ref, end] = this.evalId(data, index, text);
    return [this.makeTag(ref, text), m.start(0), end];
  }
}
''', '''class Image extends Base {
  /** An `img`. */
  handle(m: Match, data: string): Result {
    const [text, index, handled] = this.getText(data, m.end(0));
    // ... existing code ...
  }
  // ... existing code ...
  static PATTERN = /\\s?\\[([^\\]]*)\\]/;

  handle(m: Match, data: string): Result | null {
    const [text, index, handled] = this.getText(data, m.end(0));
    // ... existing code ...
  }
}
''', [("/** An image. */", "/** An `img`. */"),
      ("/;\n\n  handle(m: Match, data: string): Result {", "/;\n\n  handle(m: Match, data: string): Result | null {")]),
}
CASES["javascript"] = (CASES["typescript"][0].replace("m: Match, data: string): Result", "m, data)"),
                       CASES["typescript"][1].replace("m: Match, data: string): Result | null", "m, data, opts)")
                       .replace("m: Match, data: string): Result", "m, data)"),
                       [("/** An image. */", "/** An `img`. */"), ("/;\n\n  handle(m, data) {", "/;\n\n  handle(m, data, opts) {")])
CASES["rust"] = ('''impl Image {
    /// An image.
    fn handle(&self, m: &Match, data: &str) -> Result {
        let (text, index, handled) = self.get_text(data, m.end());
        if !handled {
            return None;
        }
        let (src, title) = self.get_link(data, index);
        let el = make("img", src);
        Some((el, m.start(), index))
    }
}

impl Reference {
    /// A reference.
    const PATTERN: &'static str = r"\\s?\\[([^\\]]*)\\]";

    fn handle(&self, m: &Match, data: &str) -> Result {
        let (text, index, handled) = self.get_text(data, m.end());
        if !handled {
            return None;
        }
        let (id, end) = self.eval_id(data, index, text);
        Some((self.make_tag(id, text), m.start(), end))
    }
}
''', '''impl Image {
    /// An `img`.
    fn handle(&self, m: &Match, data: &str) -> Result {
        let (text, index, handled) = self.get_text(data, m.end());
        // ... existing code ...
    }
    // ... existing code ...
    const PATTERN: &'static str = r"\\s?\\[([^\\]]*)\\]";

    fn handle(&self, m: &Match, data: &str) -> Option<Found> {
        let (text, index, handled) = self.get_text(data, m.end());
        // ... existing code ...
    }
}
''', [("/// An image.", "/// An `img`."),
      ("]*)\\]\";\n\n    fn handle(&self, m: &Match, data: &str) -> Result {",
       "]*)\\]\";\n\n    fn handle(&self, m: &Match, data: &str) -> Option<Found> {")])
LANGS = ["python", "javascript", "typescript", "rust"]       # Go has no classes


def _truth(lang: str) -> str:
    text = CASES[lang][0]
    for old, new in CASES[lang][2]:
        assert old in text, old
        text = text.replace(old, new)       # (Python's two headers change alike)
    return text


@pytest.mark.parametrize("lang", LANGS)
def test_markers_past_a_class_end_do_not_merge_two_classes(lang):
    src, snippet, _ = CASES[lang]
    r = merge(src, snippet, lang)
    assert r.ok, r.reason
    assert r.text == _truth(lang)


def test_a_class_with_distinct_members_is_still_matched_member_by_member():
    src, _, _ = CASES["python"]
    snippet = ('class Reference(Base):\n    # ... existing code ...\n    def handle(self, m, data):\n'
               '        return None\n\n    def extra(self):\n        return 1\n')
    r = merge(src, snippet, "python")
    assert r.ok, r.reason
    assert r.text.startswith(src[:src.index("class Reference")])
    assert r.text.endswith("    def handle(self, m, data):\n        return None\n\n    def extra(self):\n        return 1\n")
