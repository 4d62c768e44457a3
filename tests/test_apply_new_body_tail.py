"""Issue 43: new lines at the end of a function's body, right before a top-level marker.  The shape,
from a real release (pydash's tests/test_predicates.py, ten cases): `@parametrize(` and a deeper
marker (the decorator's arguments), then `def test_gt(case, expected):`, its one line and a new
`assert`, then `# ... existing code ...` at the top level.  The fragment's last line is new and the
marker after it is no less indented than the fragment, so no rule placed its end: refused ("its
last line is not in the file").  A fragment that opens at a header as deep as the marker after it
and ends with new lines inside that header's body ends where the body does.  Python only: in the
languages with braces the snippet shows the body's closing `}`, a line of the file."""
from __future__ import annotations

from redraft.engine.apply import merge

ORIGINAL = '''import pytest


@parametrize(
    "case,expected",
    [((1, 2), False), ((2, 1), True)],
)
def test_gt(case, expected):
    assert _.gt(*case) == expected


@parametrize(
    "case,expected",
    [((1, 2), True)],
)
def test_lt(case, expected):
    assert _.lt(*case) == expected
'''
NEW = "    assert _.gt_cmp(case[1])(case[0]) == expected\n"


def _snippet(body: list[str]) -> str:
    return "\n".join(["# ... existing code ...", "@parametrize(", "    # ... existing code ...",
                      "def test_gt(case, expected):", *body, NEW.rstrip("\n"), "# ... existing code ..."]) + "\n"


def test_new_last_lines_of_a_body_before_a_top_level_marker():
    r = merge(ORIGINAL, _snippet(["    assert _.gt(*case) == expected"]), "python")
    assert r.ok, r.reason
    assert r.text == ORIGINAL.replace("    assert _.gt(*case) == expected\n",
                                      "    assert _.gt(*case) == expected\n" + NEW)


def test_a_body_line_left_out_before_them_is_replaced():
    """The header, then only the new line: the body's old line, neither shown nor marked, is gone."""
    r = merge(ORIGINAL, _snippet([]), "python")
    assert r.ok, r.reason
    assert r.text == ORIGINAL.replace("    assert _.gt(*case) == expected\n", NEW)


# The header inside the fragment (limits's redis bridge.py): `def __init__(` and a deeper marker, then
# the signature's last parameters, a new one, `) -> None:`, the body rewritten to new last lines, then
# a marker as deep as the method.  The fragment starts below the header line it holds, so its block is
# that line's body.
BRIDGE = '''class RedisBridge:
    def __init__(
        self,
        uri: str,
        dependency: ModuleType,
        key_prefix: str,
    ) -> None:
        self.uri = uri
        self.parsed_uri = urlparse(self.uri)
        self.key_prefix = key_prefix
        if self.parsed_uri.username:
            self.auth["username"] = self.parsed_uri.username

    def prefixed_key(self, key: str) -> str:
        return f"{self.key_prefix}:{key}"
'''
BRIDGE_NEW = BRIDGE.replace('''        key_prefix: str,
    ) -> None:''', '''        key_prefix: str,
        **options: str,
    ) -> None:''').replace('''        self.parsed_uri = urlparse(self.uri)
        self.key_prefix = key_prefix
        if self.parsed_uri.username:
            self.auth["username"] = self.parsed_uri.username
''', '''        self.from_uri = parse_uri(self.uri)
        self.key_prefix = key_prefix
        if username := options.get("username", self.from_uri.username):
            self.auth["username"] = username
''')


def test_a_fragment_holding_the_header_of_the_body_it_ends_in_ends_with_that_body():
    body = BRIDGE_NEW.splitlines()
    snippet = ["    # ... existing code ...", "    def __init__(", "        # ... existing code ...", *body[4:13],
               "    # ... existing code ..."]
    r = merge(BRIDGE, "\n".join(snippet) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == BRIDGE_NEW
