"""Issue 43: a docstring's example rewritten, a `def main():` line in it left out (a real release:
rnet's blocking.py, each method's docstring an example under ```` ```python ````; the new `head`
example drops `def main():` and imports `rnet.blocking`).  The guard against deleting a definition
the snippet never shows took `def main():` for one and refused the region, and the fragment went in
beside the old lines instead, doubling the example.  A line inside a triple-quoted string defines
nothing (lost._in_string)."""
from __future__ import annotations

from redraft.engine.apply import merge


def _method(name: str, example: list[str]) -> list[str]:
    return [f"    def {name}(self, url: str) -> Response:",
            '        r"""',
            "        Sends a request with the given URL.",
            "",
            "        ```python",
            *[("        " + l) if l else "" for l in example],
            "        ```",
            '        """',
            "        ...",
            ""]


def _example(name: str, new: bool) -> list[str]:
    head = ["import rnet", "import rnet.blocking", "from rnet import Method", ""] if new else \
        ["import rnet", "from rnet import Method", "", "def main():"]
    return head + ["client = rnet.blocking.Client()", f'response = client.{name}("https://httpbin.io/anything")',
                   "print(response.text())"]


def _file(new_head: bool) -> str:
    lines = ["class Client:"]
    for name in ("options", "head", "delete"):
        lines += _method(name, _example(name, new_head and name == "head"))
    return "\n".join(lines) + "\n"


def test_a_docstring_example_loses_its_def_line():
    snippet = ["    # ... existing code ...", "    def head(self, url: str) -> Response:",
               "        # ... existing code ...", "        ```python", *[("        " + l) if l else "" for l in _example("head", True)[:6]],
               "        # ... existing code ...", "    # ... existing code ..."]
    r = merge(_file(False), "\n".join(snippet) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == _file(True)
