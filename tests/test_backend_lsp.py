"""The front doors with a remote backend of the other kinds (test HTTP servers from
backend_stub.Stub): the language server's inline and popup completions through Ollama and
llama.cpp, `redraft serve --backend*` flags as the default that the `backend` setting overrides,
the status notification across a failure and a recovery, `$/cancelRequest` and a newer request
closing a streamed answer's connection, and `redraft complete --backend*`."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig

from lsp_helpers import SERVE, TEST_OPTIONS, configure, inline, inline_params, model_ready, open_doc, popup, stats, until
from backend_stub import DOC, Reply, Stub, openai_chunks

ROOT = Path(__file__).resolve().parents[1]
POS = types.Position(line=5, character=11)          # after "    return " in DOC
CAPS = types.ClientCapabilities(
    window=types.WindowClientCapabilities(work_done_progress=True),
    text_document=types.TextDocumentClientCapabilities(
        completion=types.CompletionClientCapabilities(),
        inline_completion=types.InlineCompletionClientCapabilities()),
    experimental={"redraftStatus": True})
OLLAMA_LINES = [{"model": "m", "response": "width", "done": False}, {"model": "m", "response": " * height", "done": False},
                {"model": "m", "response": "", "done": True}]


async def start_server(options: dict[str, Any], *args: str):
    client = await ClientServerConfig(SERVE + list(args)).start()
    statuses: list[Any] = []
    client.feature("redraft/status")(lambda params: statuses.append(params))
    await client.initialize_session(types.InitializeParams(
        capabilities=CAPS, initialization_options={**TEST_OPTIONS, "workspaceIndex": False, **options}))
    await model_ready(client)
    open_doc(client, "file:///doc.py", DOC)
    return client, statuses


def state(statuses: list[Any]) -> tuple[str, str]:
    return getattr(statuses[-1], "state", None), getattr(statuses[-1], "message", "")


async def test_flags_are_the_default_and_the_setting_overrides_them():
    ollama = Stub(lambda seen: Reply(events=OLLAMA_LINES, fmt="ndjson"))
    llama = Stub(lambda seen: Reply(json={"content": "width + height", "stop": True}))
    client, statuses = await start_server({}, "--backend", "ollama", "--backend-url", ollama.url,
                                          "--backend-model", "m")
    try:
        assert [i.insert_text for i in (await inline(client, "file:///doc.py", POS)).items] == ["width * height"]
        items = (await popup(client, "file:///doc.py", POS)).items
        assert items and items[0].text_edit.new_text.endswith("width * height")
        assert ollama.seen[0].path == "/api/generate" and ollama.seen[0].body["model"] == "m"
        configure(client, {"redraft": {"backend": {"kind": "llama.cpp", "url": llama.url, "stream": False}}})
        await until(lambda: getattr(statuses[-1], "backend", None) and statuses[-1].backend.kind == "llama.cpp")
        assert [i.insert_text for i in (await inline(client, "file:///doc.py", POS)).items] == ["width + height"]
        assert len(llama.seen) == 1 and llama.seen[0].path == "/infill"
        configure(client, {"redraft": {"backend": None}})       # unset: the flags' backend again
        await until(lambda: statuses[-1].backend.kind == "ollama")
        assert [i.insert_text for i in (await inline(client, "file:///doc.py", POS)).items] == ["width * height"]
        st = await stats(client)
        assert st["settings"]["backend"] is None and st["model"]["backend"]["kind"] == "ollama"
    finally:
        await client.shutdown_session()
        ollama.close()
        llama.close()


async def test_status_through_a_failure_and_a_recovery():
    down = {"on": True}
    stub = Stub(lambda seen: Reply(status=503, json={"error": {"message": "model is loading"}}) if down["on"]
                else Reply(json={"choices": [{"text": "width * height"}]}))
    client, statuses = await start_server({"backend": {"kind": "openai-completions", "url": stub.url + "/v1",
                                                       "model": "m", "template": "starcoder", "stream": False}})
    try:
        assert state(statuses)[0] == "ready"
        assert not (await inline(client, "file:///doc.py", POS)).items
        await until(lambda: state(statuses)[0] == "failed")
        assert state(statuses)[1] == f"backend unreachable: HTTP 503: model is loading ({stub.url}/v1)"
        down["on"] = False
        assert [i.insert_text for i in (await inline(client, "file:///doc.py", POS)).items] == ["width * height"]
        await until(lambda: state(statuses)[0] == "ready")
        logs = [m.message for m in client.log_messages if "backend" in m.message]
        assert logs[-2].startswith("redraft: backend unreachable: completion failed: HTTP 503")
        assert "answers again" in logs[-1]
        st = await stats(client)
        assert st["requests"]["backend-error"] == 1 and st["requests"]["completed"] == 1
    finally:
        await client.shutdown_session()
        stub.close()


async def test_cancel_and_a_newer_request_close_the_stream():
    stub = Stub(lambda seen: Reply(events=openai_chunks(*["w"] * 200), delay_s=0.05))
    client, _ = await start_server({"backend": {"kind": "mercury", "url": stub.url + "/v1"}})
    try:
        fut = asyncio.wrap_future(client.protocol.send_request(
            types.TEXT_DOCUMENT_INLINE_COMPLETION, inline_params("file:///doc.py", POS), msg_id="slow"))
        await until(lambda: stub.seen, 5)
        await asyncio.sleep(0.2)
        t0 = time.monotonic()
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="slow"))
        with pytest.raises(JsonRpcException) as err:
            await asyncio.wait_for(fut, 5)
        assert err.value.code == types.LSPErrorCodes.RequestCancelled and time.monotonic() - t0 < 0.5
        assert stub.closed_early.wait(3) and stub.disconnects == 1
        # newest wins: the older request's connection closes when the newer one starts
        older = asyncio.ensure_future(inline(client, "file:///doc.py", POS))
        await until(lambda: len(stub.seen) == 2, 5)
        await asyncio.sleep(0.1)
        newer = asyncio.ensure_future(inline(client, "file:///doc.py", POS))
        assert not (await asyncio.wait_for(older, 5)).items
        await until(lambda: stub.disconnects == 2, 5)
        newer.cancel()
        st = await stats(client)
        assert st["requests"]["superseded"] == 1 and st["model"]["backendStats"]["failed"] == 0
    finally:
        await client.shutdown_session()
        stub.close()


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "redraft", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, **(env or {})})


def test_redraft_complete_with_a_backend(tmp_path: Path):
    src = tmp_path / "geometry.py"
    src.write_text(DOC)
    stub = Stub(lambda seen: Reply(json={"choices": [{"text": "width * height\n"}]}))
    try:
        r = run_cli("complete", str(src), "6", "12", "--backend", "openai-completions", "--backend-url",
                    stub.url + "/v1", "--backend-model", "m", "--backend-template", "deepseek", "--json",
                    "--backend-api-key-env", "CLI_KEY", env={"CLI_KEY": "cli-secret-123"})
        assert r.returncode == 0, r.stderr
        import json
        out = json.loads(r.stdout)
        assert out["text"] == "width * height" and out["backend"] == "openai-completions" and out["error"] is None
        assert stub.seen[0].headers["authorization"] == "Bearer cli-secret-123"
        assert stub.seen[0].body["prompt"].startswith("<\uff5cfim\u2581begin\uff5c>import math")
        assert "cli-secret-123" not in r.stdout + r.stderr
    finally:
        stub.close()
    r = run_cli("complete", str(src), "6", "12", "--backend", "llama.cpp", "--backend-url", stub.url)
    assert r.returncode == 1 and r.stdout == "\n"
    assert "backend unreachable: completion failed: connection refused" in r.stderr
    r = run_cli("complete", str(src), "6", "12", "--backend", "ollama")
    assert r.returncode == 2 and "needs a model" in r.stderr
    r = run_cli("complete", str(src), "6", "12", "--backend", "ollama", "--backend-model", "m",
                "--backend-url", "http://198.51.100.4:11434")
    assert r.returncode == 2 and "plain http to 198.51.100.4" in r.stderr


def test_redraft_serve_refuses_bad_backend_flags():
    r = run_cli("serve", "--backend", "openai-completions", "--backend-url", "http://127.0.0.1:1/v1",
                "--backend-model", "m")
    assert r.returncode == 2 and "needs a template" in r.stderr
    r = run_cli("serve", "--http", "127.0.0.1:8177", "--backend", "mercury", "--backend-url", "http://198.51.100.4/v1")
    assert r.returncode == 2 and "plain http to 198.51.100.4" in r.stderr     # the HTTP API alone checks them too


async def test_next_edits_in_the_editor_come_from_a_backend_with_a_next_edit_endpoint():
    """`redraft/nextEdit` through the language server asks Mercury's /v1/edit/completions where the
    analogy of the recent edits has no answer (before, the editor's next edits were analogy alone
    with a remote backend)."""
    from lsp_helpers import insert
    from redraft.http.formats import read_edit_prompt

    def answer(seen) -> Reply:
        p = read_edit_prompt(seen.body["messages"][0]["content"])
        region = "\n".join(p.text.split("\n")[p.region[0]:p.region[1]]).replace("return \n", "return width * height\n")
        return Reply(json={"id": "e", "object": "edit.completion", "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": f"```python\n{region}\n```"}}]})
    stub = Stub(answer)
    client, _ = await start_server({"backend": {"kind": "mercury", "url": stub.url + "/v1", "apiKeyEnv": "NO_SUCH_KEY"}})
    try:
        insert(client, "file:///doc.py", 2, types.Position(line=0, character=0), "# areas\n")   # some history
        line = ("# areas\n" + DOC).split("\n").index("    return ")
        got = await client.protocol.send_request_async("redraft/nextEdit", {
            "textDocument": {"uri": "file:///doc.py"}, "position": {"line": line, "character": 11}})
        assert [s.path for s in stub.seen] == ["/v1/edit/completions"]
        assert [e.text for e in got.edits] == ["width * height"]
    finally:
        await client.shutdown_session()
        stub.close()
