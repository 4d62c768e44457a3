"""Issue 43: a short comment ending in "..." reads as a marker (`# and so on...`), unless the file
being merged has that comment itself: then the snippet shows the file's line, recased or not
(markdown's postprocessors.py: `# Comment, php etc...` shown as `# Comment, PHP etc...` in a
rewritten `isblocklevel` split the method in two and it was refused; arq's `# and many more...`,
httpx's `# Wildcard matching...`, pyinstrument's `# your code here...`).  So does one opening with
dots (textual's `# ...and replace the old load with a new one.`), unless it says what markers say
(`# ... existing code ...` in a file stays a marker in a snippet)."""
from __future__ import annotations

from redraft.engine.apply import is_marker, merge

FILE = """class Block:
    def render(self, text):
        return text.strip()

    def is_block(self, html):
        m = BLOCK.match(html)
        if m:
            if m.group(1)[0] in ('!', '?', '@', '%'):
                # comment, php etc...
                return True
            return self.md.is_block_level(m.group(1))
        return False

    def close(self):
        pass
"""

METHOD = FILE[FILE.index("    def is_block"):FILE.index("\n    def close")]
# the method rewritten: a signature with types, a docstring, the comment recased
DOCSTRING = '        """Whether a piece of HTML is block-level."""'
SNIPPET = METHOD.replace("(self, html):", "(self, html: str) -> bool:\n" + DOCSTRING) \
    .replace("comment, php", "Comment, PHP")


def test_the_files_own_comment_is_shown_not_elided():
    result = merge(FILE, SNIPPET, "python")
    assert result.ok, result.reason
    assert result.text == FILE.replace(METHOD, SNIPPET)


def test_a_comment_the_file_lacks_stays_a_marker():
    snippet = """# ... existing code ...
    def is_block(self, html):
        m = BLOCK.fullmatch(html)
        if m:
            # and so on...
        return False

    def close(self):
# ... existing code ...
"""
    result = merge(FILE, snippet, "python")
    assert result.ok, result.reason
    assert result.text == FILE.replace("BLOCK.match(", "BLOCK.fullmatch(")
    assert is_marker("        # comment, php etc...")    # outside a merge: prose ending in "..."


LOADER = """class Tree:
    def reload(self) -> None:
        \"\"\"Reload the tree.\"\"\"
        self.reset(self.path)
        # Drop the old queue...
        self.queue = Queue()
        # ...and start a new loader for it.
        self.loader()
        self.add_to_queue(self.root)

    def clear(self) -> None:
        self.root = None
"""

LOADER_SNIPPET = """    def reload(self) -> Awaitable:
        \"\"\"Reload the tree.\"\"\"
        self.reset(self.path)
        # Drop the old queue...
        self.queue = Queue()
        # ...and start a new loader for it.
        self.loader()
        done = self.add_to_queue(self.root)
        return done
"""


def test_a_comment_opening_with_dots_that_the_file_has_is_its_line():
    result = merge(LOADER, LOADER_SNIPPET, "python")
    assert result.ok, result.reason
    assert result.text == LOADER.replace(LOADER[LOADER.index("    def reload"):LOADER.index("\n    def clear")],
                                         LOADER_SNIPPET)


def test_a_marker_the_file_happens_to_have_stays_a_marker():
    file = "def a():\n    # ... existing code ...\n    return 1\n\n\ndef b():\n    return 2\n"
    result = merge(file, "# ... existing code ...\ndef b():\n    return 3\n", "python")
    assert result.ok, result.reason
    assert result.text == file.replace("return 2", "return 3")
