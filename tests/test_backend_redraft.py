"""The language server with `backend: redraft` against a real `redraft serve --http` process started
by the test (the shipped model, on a loopback port, with an API key): its completions equal the
local model's for the same settings; `$/cancelRequest` and a newer keystroke close the HTTP request
(the remote server counts the client that left and stops denoising); a server killed mid-request, a
server slower than `timeoutMs` and a wrong key give an empty answer, one log line and a
"backend unreachable" status, never a hung request."""
from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import SERVE, TEST_OPTIONS, inline, inline_params, insert, model_ready, open_doc, stats
from test_http_api import free_port

pytestmark = pytest.mark.asyncio(loop_scope="module")
ROOT = Path(__file__).resolve().parents[1]
KEY = "rk-5b0e7f1c2d9a"
KEY_ENV = "REDRAFT_TEST_BACKEND_KEY"
# the settings both sides share: syntax on (the HTTP API plans with it), no workspace index (the HTTP
# API has none), every draft shown (a remote answer has no confidence to gate on)
SAME = {**TEST_OPTIONS, "syntax": True, "workspaceIndex": False, "gate": "always"}
DOC = '''import os


def area(width: float, height: float) -> float:
    """Area of a rectangle."""
    return 


def read(path):
    with open(path) as f:
        return f.


def greet(name: str) -> str:
    message = "Hello, " + name
    print()
    
    return message
'''
POSITIONS = [types.Position(line=5, character=11),     # end of a typed line
             types.Position(line=10, character=17),    # after a dot
             types.Position(line=15, character=10),    # inside print(): text follows the cursor
             types.Position(line=16, character=4)]     # a fresh line in a function body
CAPS = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    workspace=types.WorkspaceClientCapabilities(configuration=True),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(),
        completion=types.CompletionClientCapabilities(),
        inline_completion=types.InlineCompletionClientCapabilities()),
    experimental={"redraftStatus": True})


def start_http(*extra: str) -> tuple[subprocess.Popen, str, Path]:
    port = free_port()
    log = Path(f"/tmp/redraft-backend-http-{port}.log")
    proc = subprocess.Popen([sys.executable, "-m", "redraft", "serve", "--http", f"127.0.0.1:{port}",
                             "--api-key", KEY, "--log-requests", *extra], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=log.open("w"))
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"redraft serve --http exited {proc.returncode}: {log.read_text()}")
        try:
            remote_stats(base)
            return proc, base, log
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("redraft serve --http did not start")


def remote_stats(base: str) -> dict[str, Any]:
    req = urllib.request.Request(f"{base}/v1/redraft/stats", headers={"Authorization": f"Bearer {KEY}"})
    with urllib.request.urlopen(req, timeout=2) as r:
        return json.loads(r.read())


async def remote_working(base: str, before: int) -> None:
    """Until the remote server has taken a request after the `before`th and is answering it: a fixed
    wait raced the denoising, which takes under half a second on a CPU with AVX-512."""
    deadline = time.monotonic() + 10
    while True:
        await asyncio.sleep(0.01)
        st = remote_stats(base)
        if st["requests"] > before and st["pending"] >= 1:
            return
        assert time.monotonic() < deadline, "the request never reached the remote server"


def stop_http(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def remote():
    proc, base, log = start_http()
    yield base
    stop_http(proc)
    text = log.read_text()
    assert KEY not in text                 # the serving side never logs the key either
    log.unlink()


class Session:
    """One language server over stdio, with the redraft/status notifications it sent."""

    def __init__(self, client: LanguageClient, statuses: list[dict]) -> None:
        self.client, self.statuses = client, statuses

    def logs(self, needle: str = "") -> list[str]:
        return [m.message for m in [*self.client.log_messages, *self.client.messages] if needle in m.message]

    async def close(self) -> None:
        await self.client.shutdown_session()


async def session(options: dict[str, Any], key: str | None = KEY) -> Session:
    env = {**os.environ}
    if key is not None:
        env[KEY_ENV] = key
    client = await ClientServerConfig(SERVE + ["--log-level", "INFO"], server_env=env).start()
    statuses: list[dict] = []

    @client.feature("redraft/status")
    def _status(params: Any) -> None:
        statuses.append(params)         # a namedtuple (pygls' object for untyped params)

    await client.initialize_session(types.InitializeParams(capabilities=CAPS, initialization_options=options))
    await model_ready(client)
    return Session(client, statuses)


def backend(base: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "redraft", "url": f"{base}/v1", "apiKeyEnv": KEY_ENV, **extra}


def field(status: Any, name: str) -> Any:
    return status.get(name) if isinstance(status, dict) else getattr(status, name, None)


async def test_completions_equal_the_local_answer(remote: str):
    local = await session(SAME)
    far = await session({**SAME, "backend": backend(remote, timeoutMs=60_000)})   # a busy 2-core test machine
    try:
        for s in (local, far):
            open_doc(s.client, "file:///same.py", DOC)
        answers = []
        for pos in POSITIONS:
            a = await inline(local.client, "file:///same.py", pos)
            b = await inline(far.client, "file:///same.py", pos)
            answers.append(([i.insert_text for i in a.items], [i.insert_text for i in b.items]))
        assert all(la == ra for la, ra in answers), answers
        assert sum(1 for la, _ in answers if la) >= 3, answers      # real answers, not empty ones
        st = await stats(far.client)
        assert st["model"]["device"] == "remote" and st["model"]["backend"]["kind"] == "redraft"
        assert st["model"]["backendStats"]["answered"] == len(POSITIONS)
        assert field(far.statuses[-1], "state") == "ready"
        assert field(field(far.statuses[-1], "backend"), "url") == f"{remote}/v1"
    finally:
        await local.close()
        await far.close()


async def test_cancel_and_a_newer_keystroke_close_the_connection(remote: str):
    s = await session({**SAME, "backend": backend(remote), "effort": "max"})   # ~2 s of denoising remotely
    try:
        open_doc(s.client, "file:///cancel.py", DOC)
        before, sent = remote_stats(remote)["cancelled"], remote_stats(remote)["requests"]
        fut = asyncio.wrap_future(s.client.protocol.send_request(
            types.TEXT_DOCUMENT_INLINE_COMPLETION, inline_params("file:///cancel.py", POSITIONS[0]), msg_id="c1"))
        await remote_working(remote, sent)
        t0 = time.monotonic()
        s.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="c1"))
        with pytest.raises(JsonRpcException) as err:
            await asyncio.wait_for(fut, 5)
        assert err.value.code == types.LSPErrorCodes.RequestCancelled and time.monotonic() - t0 < 1.0
        deadline = time.monotonic() + 5       # the remote server saw the client go (and stopped denoising)
        while remote_stats(remote)["cancelled"] < before + 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert remote_stats(remote)["cancelled"] == before + 1
        # a keystroke while a request runs: the request answers empty, its connection closed
        sent = remote_stats(remote)["requests"]
        fut = asyncio.ensure_future(inline(s.client, "file:///cancel.py", POSITIONS[0]))
        await remote_working(remote, sent)
        insert(s.client, "file:///cancel.py", 2, POSITIONS[0], "w")
        result = await asyncio.wait_for(fut, 5)
        assert not result.items
        deadline = time.monotonic() + 5
        while remote_stats(remote)["cancelled"] < before + 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert remote_stats(remote)["cancelled"] == before + 2
        st = await stats(s.client)
        assert st["requests"].get("cancelled") == 1 and st["requests"].get("stale") == 1
        assert st["model"]["backendStats"]["failed"] == 0 and not s.logs("unreachable")
    finally:
        await s.close()


async def test_a_server_slower_than_timeout(remote: str):
    s = await session({**SAME, "backend": backend(remote, timeoutMs=100), "effort": "max"})   # it takes 0.3 s+
    try:
        open_doc(s.client, "file:///slow.py", DOC)
        t0 = time.monotonic()
        result = await inline(s.client, "file:///slow.py", POSITIONS[0])
        assert not result.items and time.monotonic() - t0 < 1.5
        (line,) = s.logs("backend unreachable")
        assert "no answer within 100 ms" in line
        bad = [x for x in s.statuses if field(x, "state") == "failed"]
        assert bad and "backend unreachable: no answer within 100 ms" in field(bad[-1], "message")
        assert (await stats(s.client))["requests"]["backend-error"] == 1
    finally:
        await s.close()


async def test_a_wrong_api_key(remote: str, capfd):
    wrong = "rk-wrong-77aa01"
    s = await session({**SAME, "backend": backend(remote)}, key=wrong)
    try:
        open_doc(s.client, "file:///key.py", DOC)
        assert not (await inline(s.client, "file:///key.py", POSITIONS[0])).items
        (line,) = s.logs("backend unreachable")
        assert "the backend refused the API key (HTTP 401" in line
        assert "refused the API key" in field(s.statuses[-1], "message")
        everything = json.dumps(await stats(s.client)) + "\n".join(s.logs()) + json.dumps(
            [field(x, "message") for x in s.statuses])
    finally:
        await s.close()
    out, err = capfd.readouterr()           # the server's stderr (pytest-lsp passes it on), at INFO
    assert "redraft/status" in out + err
    assert wrong not in everything + out + err and KEY not in everything + out + err


async def test_the_server_killed_mid_request():
    proc, base, log = start_http()
    s = await session({**SAME, "backend": backend(base), "effort": "max"})
    try:
        open_doc(s.client, "file:///killed.py", DOC)
        sent = remote_stats(base)["requests"]
        fut = asyncio.ensure_future(inline(s.client, "file:///killed.py", POSITIONS[0]))
        await remote_working(base, sent)
        proc.send_signal(signal.SIGKILL)
        t0 = time.monotonic()
        result = await asyncio.wait_for(fut, 5)
        assert not result.items and time.monotonic() - t0 < 1.0
        (line,) = s.logs("backend unreachable")
        assert "the backend closed the connection" in line or "broke off" in line, line
        result = await inline(s.client, "file:///killed.py", POSITIONS[0])       # nobody listens now
        assert not result.items and "connection refused" in s.logs("backend unreachable")[-1]
        assert "backend unreachable" in field(s.statuses[-1], "message")
        assert field(s.statuses[-1], "state") == "failed"
    finally:
        await s.close()
        stop_http(proc)
        log.unlink(missing_ok=True)


async def test_the_http_api_alone_in_front_of_a_remote_backend():
    """`redraft serve --http --backend ollama ...`: a team's API in front of a GPU server; the
    answer is the backend's, trimmed by the same plan; no model loaded here."""
    from backend_stub import Reply, Stub
    stub = Stub(lambda seen: Reply(json={"model": "m", "response": "width * height\nmore", "done": True}))
    proc, base, log = start_http("--backend", "ollama", "--backend-url", stub.url, "--backend-model", "m")
    try:
        body = json.dumps({"model": "redraft", "prompt": "def area(width, height):\n    return ",
                           "suffix": "\n"}).encode()
        req = urllib.request.Request(f"{base}/v1/completions", data=body, headers={
            "Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            answer = json.loads(r.read())
        assert answer["choices"][0]["text"] == "width * height"
        assert [s.path for s in stub.seen] == ["/api/generate"] and stub.seen[0].body["model"] == "m"
        assert "answering through backend ollama" in log.read_text()
    finally:
        stop_http(proc)
        stub.close()
