"""The workspace and the gate on the HTTP API (issue 42): `redraft serve --http --workspace DIR
--gate P` indexes DIR in the background as the language server indexes its workspace folder, and
answers a completion as the language server does (tests/test_workspace_server.py: the same
workspace, the same answer); a request may set its own `gate`, and a withheld completion is an
empty one. A real server over real HTTP, the real checkpoint."""
from __future__ import annotations

import time

import httpx
import pytest

from test_http_api import start, stop
from test_workspace_server import CURRENT, OTHER, UTIL

CUT = CURRENT.index("frob\n") + 4


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "util.py").write_text(UTIL)
    (root / "pkg" / "other.py").write_text(OTHER)
    (root / "pkg" / "cur.py").write_text(CURRENT)
    proc, base = start("--workspace", str(root), "--gate", "always", "--threads", "1")
    deadline = time.monotonic() + 60
    while (httpx.get(f"{base}/v1/redraft/stats", timeout=10).json().get("workspace") or {}).get("state") != "ready":
        assert time.monotonic() < deadline, "the index was not built"
        time.sleep(0.1)
    yield base
    stop(proc)


def fim(base: str, **extra) -> str:
    r = httpx.post(f"{base}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": CURRENT[:CUT], "suffix": CURRENT[CUT:], "max_tokens": 32,
                         "language": "python", **extra})
    assert r.status_code == 200, r.text
    return r.json()["choices"][0]["text"]


def test_a_completion_uses_a_line_only_another_file_writes(server):
    assert fim(server) == "nicate_widgets(ws, factor=2.5)"      # the language server's answer, same workspace
    stats = httpx.get(f"{server}/v1/redraft/stats", timeout=10).json()["workspace"]
    assert stats["files"] == 4


def test_a_request_sets_its_own_gate(server):
    assert fim(server, gate=1.0) == ""                          # nothing is that sure: withheld, an empty answer
    assert fim(server, gate="always") == "nicate_widgets(ws, factor=2.5)"
    r = httpx.post(f"{server}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": "x = ", "suffix": "", "gate": "sometimes"})
    assert r.status_code == 400 and "gate" in r.json()["error"]["message"]
