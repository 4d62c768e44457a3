"""Issue 43: a method shown without its class, in a file where two classes have it, picked token by token
by a narrow margin (NEAR_MARGIN, the next one twice as far) must also be nearer it line by line, unless
the other one has none of the snippet's lines that it lacks (candidates._nearer).  cedarpy's
`correlation_id` (fresh28): the snippet had one class's signature and the other's body, a line apart
from each; the one nearer by tokens (`, None` against `Optional[str]`) was taken, the other was meant.
Refused, asking for the class line; a snippet a line from one and two from the other merges into the
first."""
from __future__ import annotations

from redraft.engine.apply import merge


def _file(first: list[str], second: list[str]) -> str:
    return "\n".join(["class AuthzResult:", "    def __init__(self, resp):", "        self._authz_resp = resp", ""]
                     + first + ["", "", "class PartialAuthzResult:", "    def __init__(self, resp):",
                                "        self._authz_resp = resp", ""] + second) + "\n"


FIRST = ["    @property", "    def correlation_id(self) -> Decision:",
         "        return self._authz_resp.get('correlation_id', None)"]
SECOND = ["    @property", "    def correlation_id(self) -> Optional[str]:",
          "        return self._authz_resp.get('correlation_id')"]


def test_a_line_from_each_is_refused():
    snippet = "\n".join([FIRST[0], SECOND[1], FIRST[2]]) + "\n"
    r = merge(_file(FIRST, SECOND), snippet, "python")
    assert not r.ok, "merged into one of two methods a line apart from it each"
    assert "matches more than one place" in r.reason and "show the line that opens its class" in r.reason


def test_nearer_by_lines_merges():
    new = [SECOND[0], SECOND[1], "        return self._authz_resp.get('correlation_id') or None"]
    r = merge(_file(FIRST, SECOND), "\n".join(new) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == _file(FIRST, new)
