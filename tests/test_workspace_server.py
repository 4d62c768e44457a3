"""The workspace as context through the real server (`python -m redraft serve` over stdio, the real
checkpoint): the folder from `initialize` is indexed in the background, a completion uses a line
that only another file of the workspace writes, file-watcher events reach the index, no request
waits for indexing, and the gate withholds what it judges unlikely (and counts it)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from redraft.engine import gate
from redraft.lsp.stdio_client import JsonRpcStdioClient

CAPS = {"general": {"positionEncodings": ["utf-16"]},
        "textDocument": {"inlineCompletion": {}, "synchronization": {}},
        "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}, "configuration": True}}
UTIL = "def frobnicate_widgets(widgets, factor):\n    return [w * factor for w in widgets]\n"
OTHER = ("from pkg.util import frobnicate_widgets\n\n\ndef scale(ws):\n"
         "    result = frobnicate_widgets(ws, factor=2.5)\n    return result\n\n\n"
         "def shrink(ws):\n    result = frobnicate_widgets(ws, factor=2.5)\n    return result\n")
CURRENT = "from pkg.util import frobnicate_widgets\n\n\ndef grow(ws):\n    result = frob\n    return result\n"


class Client(JsonRpcStdioClient):
    """The stdio client, remembering the server's own requests (client/registerCapability)."""

    def __init__(self, **kw):
        self.server_requests: list[dict] = []
        super().__init__(**kw)

    def _answer_server_request(self, msg):
        self.server_requests.append(msg)
        super()._answer_server_request(msg)


def start(root: Path, **settings) -> Client:
    c = Client(configuration={"redraft": {}})
    uri = root.as_uri()
    c.request("initialize", {"processId": None, "rootUri": uri, "capabilities": CAPS,
                             "workspaceFolders": [{"uri": uri, "name": root.name}],
                             "initializationOptions": {"threads": 1, **settings}})
    c.notify("initialized", {})
    return c


def stats(c: Client) -> dict:
    return c.request("workspace/executeCommand", {"command": "redraft.stats", "arguments": []})


def wait_for(pred, what: str, timeout: float = 60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text(UTIL)
    (tmp_path / "pkg" / "other.py").write_text(OTHER)
    (tmp_path / "pkg" / "cur.py").write_text(CURRENT)     # the file on disk holds the typed line
    return tmp_path


def complete(c: Client, path: Path, text: str, offset: int) -> str | None:
    items = c.inline_completion(path.as_uri(), text, offset)["items"]
    return items[0]["insertText"] if items else None


def test_a_completion_uses_a_line_only_another_file_writes(workspace):
    c = start(workspace, gate="always")
    try:
        wait_for(lambda: (stats(c)["workspace"] or {}).get("state") == "ready", "the index")
        path = workspace / "pkg" / "cur.py"
        c.open_document(path.as_uri(), CURRENT)
        got = complete(c, path, CURRENT, CURRENT.index("frob\n") + 4)
        assert got == "nicate_widgets(ws, factor=2.5)"
        ws = stats(c)["workspace"]
        assert ws["files"] == 4 and ws["roots"] == [str(workspace)]
        regs = [m for m in c.server_requests if m["method"] == "client/registerCapability"]
        assert regs and regs[0]["params"]["registrations"][0]["method"] == "workspace/didChangeWatchedFiles"
    finally:
        c.close()


def test_watched_files_reach_the_index(workspace):
    c = start(workspace, gate="always")
    try:
        wait_for(lambda: (stats(c)["workspace"] or {}).get("state") == "ready", "the index")
        new = workspace / "pkg" / "new.py"
        new.write_text("total = accumulate_gizmos(parts, limit=7)\n" * 2)
        c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": new.as_uri(), "type": 1}]})
        wait_for(lambda: stats(c)["workspace"]["files"] == 5, "the created file")
        text = "def f(parts):\n    total = accum\n    return total\n"
        path = workspace / "pkg" / "cur.py"
        c.open_document(path.as_uri(), text)
        assert complete(c, path, text, text.index("accum\n") + 5) == "ulate_gizmos(parts, limit=7)"
        new.unlink()
        c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": new.as_uri(), "type": 3}]})
        wait_for(lambda: stats(c)["workspace"]["files"] == 4, "the deletion")
        assert complete(c, path, text, text.index("accum\n") + 5) != "ulate_gizmos(parts, limit=7)"
    finally:
        c.close()


def test_no_request_waits_for_indexing(tmp_path):
    """The index's build made slow on purpose (the debugIndexDelayMs test hook: 1 s a file, 30 files):
    a completion is answered while the index is still being built, files still to come."""
    for i in range(30):
        (tmp_path / f"mod_{i:02d}.py").write_text(f"def helper_{i}(a, b):\n    return a + b * {i}\n")
    c = start(tmp_path, debugIndexDelayMs=1000)
    try:
        path = tmp_path / "cur.py"
        text = "def area(width, height):\n    return width * \n"
        path.write_text(text)
        c.open_document(path.as_uri(), text)
        c.inline_completion(path.as_uri(), text, len(text) - 1)   # answered (empty or not) ...
        ws = stats(c)["workspace"]
        assert ws["state"] == "indexing" and ws["files"] < 30      # ... while the index was still being built
    finally:
        c.close()


def test_the_gate_withholds_and_counts(workspace):
    c = start(workspace, gate=1.0)        # nothing is that sure: everything withheld
    try:
        path = workspace / "pkg" / "cur.py"
        c.open_document(path.as_uri(), CURRENT)
        assert complete(c, path, CURRENT, CURRENT.index("frob\n") + 4) is None
        assert stats(c)["requests"]["withheld"] == 1
        c.notify("workspace/didChangeConfiguration", {"settings": {"redraft": {"gate": "always"}}})
        assert complete(c, path, CURRENT, CURRENT.index("frob\n") + 4)
    finally:
        c.close()


def test_degenerate_drafts_score_zero():
    junk = gate.Option(text="widthwidthwidth", line="return widthwidthwidth", logp=-0.1, tail_logp=-1.0, tokens=3,
                       draft=True)
    sound = gate.Option(text="width * height", line="return width * height", logp=-9.0, tail_logp=-3.0, tokens=4,
                        project=1)
    assert gate.choose([junk])[1] == 0.0
    best, conf = gate.choose([junk, sound])
    assert best == 1 and conf > 0.0
    assert gate.degenerate('":":":",",') and gate.degenerate(".cur()()()") and not gate.degenerate("[0, 0, 0]")
