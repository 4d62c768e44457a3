"""The API key of a remote backend: sent where it belongs (the backend's Authorization header, over
https or to loopback) and nowhere else. The real language server runs with a key in its
environment against a test server that answers 401 with the key echoed in its error body (as some
servers do) and then answers; the key is then grepped for in everything redraft wrote or said: the
client's log and messages, `redraft/status`, `redraft.stats`, the feedback file, every file under
the test's directories, and the server's stderr at DEBUG level (every JSON-RPC message). Plain http to a host that is not
loopback is refused before any connection without the opt-in."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig

from lsp_helpers import SERVE, TEST_OPTIONS, inline, model_ready, open_doc, stats
from backend_stub import DOC, Reply, Seen, Stub

from redraft.engine.backends.client import BackendError, HttpClient
from redraft.engine.backends.config import parse_backend
from redraft.engine.backends.remote import RemoteEngine, Request

SECRET = "sk-live-9ZQvX2b7LmN4pR8tK1wE"
CAPS = types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True),
                                text_document=types.TextDocumentClientCapabilities(
                                    inline_completion=types.InlineCompletionClientCapabilities()),
                                experimental={"redraftStatus": True})


def test_the_key_is_never_in_an_error_even_when_the_server_echoes_it():
    stub = Stub(lambda seen: Reply(status=401, json={"error": {"message": f"invalid key {seen.headers['authorization']}"}}))
    try:
        cfg, _ = parse_backend({"kind": "mercury", "url": stub.url + "/v1", "stream": False})
        lines: list[Any] = []
        eng = RemoteEngine(cfg, on_event=lambda *a: lines.append(a), environ={"INCEPTION_API_KEY": SECRET})
        comp = eng.complete(Request(DOC, DOC.index("return \n") + 7, uri="file:///a.py", language_id="python"))
        assert stub.seen[0].headers["authorization"] == f"Bearer {SECRET}"       # it was sent, to the backend
        assert "refused the API key" in comp.error and "invalid key Bearer ***" in comp.error
        assert SECRET not in comp.error + repr(lines) + repr(eng) + repr(eng.client) + json.dumps(eng.cfg.describe())
        assert SECRET not in (eng.unreachable or "")
    finally:
        stub.close()


def test_plain_http_to_a_remote_host_is_refused_before_connecting():
    with pytest.raises(BackendError) as err:
        HttpClient("http://203.0.113.9:8000/v1", SECRET)
    assert err.value.reason == "insecure" and SECRET not in err.value.message
    HttpClient("http://203.0.113.9:8000/v1", SECRET, allow_insecure=True)     # the opt-in
    HttpClient("https://203.0.113.9:8000/v1", SECRET)
    HttpClient("http://127.0.0.1:8000/v1", SECRET)


def test_settings_never_hold_or_echo_a_key():
    for raw in ({"kind": "mercury", "apiKeyEnv": SECRET},                 # the key pasted where its name goes
                {"kind": "mercury", "apiKey": SECRET},
                {"kind": "mercury", "api_key": SECRET},
                {"kind": "ollama", "model": "m", "url": f"https://user:{SECRET}@h.example/x"}):
        cfg, problems = parse_backend(raw)
        assert problems and SECRET not in " ".join(problems), problems
        assert cfg is None or SECRET not in json.dumps(cfg.describe())


async def test_the_key_appears_nowhere_redraft_writes(tmp_path: Path, capfd):
    calls = {"n": 0}

    def answer(seen: Seen) -> Reply:
        calls["n"] += 1
        if calls["n"] == 1:      # a server that echoes the header it refused
            return Reply(status=401, json={"error": {"message": f"bad {seen.headers.get('authorization')}"}})
        return Reply(json={"choices": [{"index": 0, "text": "width * height", "finish_reason": "stop"}]})
    stub = Stub(answer)
    feedback = tmp_path / "feedback.jsonl"
    env = {**os.environ, "REDRAFT_SECRET_TEST": SECRET, "HOME": str(tmp_path)}
    client = await ClientServerConfig(SERVE + ["--log-level", "DEBUG"], server_env=env).start()
    statuses: list[Any] = []
    client.feature("redraft/status")(lambda params: statuses.append(params))
    try:
        await client.initialize_session(types.InitializeParams(capabilities=CAPS, initialization_options={
            **TEST_OPTIONS, "feedbackFile": str(feedback), "workspaceIndex": False,
            "backend": {"kind": "mercury", "url": stub.url + "/v1", "apiKeyEnv": "REDRAFT_SECRET_TEST",
                        "stream": False}}))
        await model_ready(client)
        open_doc(client, "file:///sec.py", DOC)
        pos = types.Position(line=5, character=11)
        assert not (await inline(client, "file:///sec.py", pos)).items            # 401
        items = (await inline(client, "file:///sec.py", pos)).items
        assert [i.insert_text for i in items] == ["width * height"]
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="redraft.accept", arguments=[items[0].command.arguments[0]]))
        said = json.dumps(await stats(client), default=str)
    finally:
        await client.shutdown_session()
        stub.close()
    out, err = capfd.readouterr()          # pytest-lsp passes the server's stderr on to the test's
    stderr = out + err
    assert all(s.headers["authorization"] == f"Bearer {SECRET}" for s in stub.seen)   # sent to the backend only
    logs = "\n".join(m.message for m in [*client.log_messages, *client.messages])
    assert "refused the API key" in logs and "bad Bearer ***" in logs
    status_text = repr(statuses)
    assert feedback.exists() and feedback.read_text().strip()
    written = "".join(p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file())
    assert "REDRAFT_SECRET_TEST" in said                    # the variable's name is shown, its value never
    for where, text in (("logs", logs), ("status", status_text), ("stats", said), ("files", written),
                        ("stderr", stderr)):
        assert SECRET not in text, where
    assert len(stderr) > 1000                               # DEBUG logging did run
