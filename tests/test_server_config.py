"""Settings: initializationOptions and workspace/didChangeConfiguration (pushed and pulled), bad
values (a message and the default, the server keeps working), language gating, a bad model
directory (reported, completions empty, recoverable) and the local feedback file."""
from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import until, RETURN_POS, SAMPLE, SERVE, configure, inline, messages, model_ready, open_doc, start, stats

pytestmark = pytest.mark.asyncio(loop_scope="module")
BAD_OPTIONS = {"maxTokens": -5, "effort": "ludicrous", "device": "tpu", "enabledLanguages": 7,
               "contextTokens": "many", "precision": "fp64", "frobnicate": True,
               "backend": {"kind": "gpt-9", "url": "http://127.0.0.1:1"}}


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, BAD_OPTIONS)
    await model_ready(lsp_client)
    open_doc(lsp_client, "file:///conf.py", SAMPLE)
    open_doc(lsp_client, "file:///notes.txt", "Shopping list:\n- \n", language="plaintext")
    yield
    await lsp_client.shutdown_session()


async def disabled_count(client: LanguageClient) -> int:
    return (await stats(client))["requests"].get("language-disabled", 0)


async def test_bad_initialization_options_get_a_message_and_defaults(client: LanguageClient):
    shown = [m for m in client.messages if "initializationOptions" in m.message]
    assert len(shown) == 1 and shown[0].type == types.MessageType.Warning
    for key in ("maxTokens", "effort", "device", "enabledLanguages", "contextTokens", "precision"):
        assert key in shown[0].message
    assert "using the default 32" in shown[0].message           # maxTokens
    assert "precision='fp64' is invalid (expected one of auto, fp32, bf16, int8); using the default 'auto'" in shown[0].message
    assert "backend.kind='gpt-9' is invalid" in shown[0].message and "using the in-process model" in shown[0].message
    assert messages(client, "frobnicate")                         # unknown keys are logged, not fatal
    result = await inline(client, "file:///conf.py", RETURN_POS)  # defaults: python on, effort low
    assert len(result.items) == 1
    # low: at most 4 denoising steps, and one pass choosing between the draft and the document's
    # own line `return message` (pipeline.Engine._choose)
    assert result.items[0].command.arguments[0]["forward_passes"] <= 5


async def test_disabled_language_answers_empty(client: LanguageClient):
    before = await disabled_count(client)
    result = await inline(client, "file:///notes.txt", types.Position(line=1, character=2))
    assert len(result.items) == 0 and await disabled_count(client) == before + 1
    configure(client, {"enabledLanguages": ["python", "plaintext"]})      # a flat dict
    await inline(client, "file:///notes.txt", types.Position(line=1, character=2))
    assert await disabled_count(client) == before + 1                     # went to the model this time
    configure(client, {"redraft": {"enabled_languages": ["markdown"]}})  # nested, snake_case
    assert len((await inline(client, "file:///conf.py", RETURN_POS)).items) == 0
    assert await disabled_count(client) == before + 2


async def test_configuration_is_pulled_when_the_notification_has_none(client: LanguageClient):
    client.set_configuration({"enabledLanguages": ["*"], "maxTokens": 4}, section="redraft")
    configure(client, None)  # the server asks back with workspace/configuration
    for _ in range(200):
        if (await stats(client))["settings"]["max_tokens"] == 4:
            break
        await asyncio.sleep(0.05)
    result = await inline(client, "file:///conf.py", RETURN_POS)
    assert len(result.items) == 1 and result.items[0].command.arguments[0]["tokens"] <= 4


async def test_bad_value_in_a_configuration_change(client: LanguageClient):
    configure(client, {"redraft": {"maxTokens": "lots", "effort": "instant"}})
    await until(lambda: [m for m in client.messages if "maxTokens='lots'" in m.message])
    result = await inline(client, "file:///conf.py", RETURN_POS)   # still serving: default 32 tokens
    payload = result.items[0].command.arguments[0]
    assert payload["forward_passes"] <= 2 and payload["tokens"] <= 32  # the good value (instant) applied


async def test_a_backend_that_cannot_work_keeps_the_local_model(client: LanguageClient):
    """A remote backend without what it needs (here plain http to a host that is not loopback) is
    reported and dropped: the in-process model keeps answering, and nothing is sent anywhere."""
    configure(client, {"redraft": {"backend": {"kind": "ollama", "model": "m", "url": "http://198.51.100.7:11434"}}})
    await until(lambda: messages(client, "plain http to 198.51.100.7"))
    result = await inline(client, "file:///conf.py", RETURN_POS)
    assert len(result.items) == 1
    s = await stats(client)
    assert s["settings"]["backend"] is None and s["model"]["device"] != "remote"


async def test_feedback_goes_to_a_local_file_only_when_configured(client: LanguageClient, tmp_path: Path):
    item = (await inline(client, "file:///conf.py", RETURN_POS)).items[0]
    cmd = types.ExecuteCommandParams(command=item.command.command, arguments=item.command.arguments)
    await client.workspace_execute_command_async(cmd)           # no file configured: memory only
    target = tmp_path / "feedback.jsonl"
    configure(client, {"feedbackFile": str(target)})
    await client.workspace_execute_command_async(cmd)
    record = json.loads(target.read_text().splitlines()[-1])
    assert record["verdict"] == "accepted" and record["id"] == item.command.arguments[0]["id"]
    assert item.insert_text not in target.read_text()           # no document or completion text
    configure(client, {"feedbackFile": str(tmp_path / "no" / "such" / "dir" / "f.jsonl")})
    counters = await client.workspace_execute_command_async(cmd)  # an unwritable file: logged, still counted
    assert counters["accepted"] >= 3 and messages(client, "cannot append")
    configure(client, {"feedbackFile": None})


async def test_bad_model_dir_is_reported_and_recoverable(client: LanguageClient, tmp_path: Path):
    configure(client, {"modelDir": str(tmp_path / "missing-checkpoint")})
    await until(lambda: messages(client, "cannot load the redraft model"))
    assert any(m.type == types.MessageType.Error for m in client.messages if "cannot load" in m.message)
    assert len((await inline(client, "file:///conf.py", RETURN_POS)).items) == 0
    assert (await stats(client))["model"]["state"] == "failed"
    configure(client, {"modelDir": ""})                          # back to the shipped model
    result = await inline(client, "file:///conf.py", RETURN_POS)  # waits for the reload
    assert len(result.items) == 1 and (await stats(client))["model"]["state"] == "ready"


async def test_precision_names_match_the_model():
    """settings.PRECISIONS spells out redraft.model.precision.PRECISIONS (settings do not import torch)."""
    from redraft.engine.settings import PRECISIONS
    from redraft.model.precision import PRECISIONS as MODEL_PRECISIONS
    assert PRECISIONS == MODEL_PRECISIONS


async def test_effort_names_match_the_sampler():
    """settings.EFFORT_NAMES spells out redraft.model.sampler.EFFORTS (read without importing torch)."""
    from redraft.engine.settings import EFFORT_NAMES
    tree = ast.parse((Path(__file__).resolve().parents[1] / "model" / "sampler.py").read_text())
    efforts = next(n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                   and any(getattr(t, "id", None) == "EFFORTS" for t in n.targets))
    assert tuple(k.value for k in efforts.keys) == EFFORT_NAMES


async def test_context_refresh_default_matches_the_hub_sampler():
    """settings' contextRefresh default spells out redraft.model.hub_sampler.REFRESH (settings do not import torch)."""
    from redraft.engine.settings import Settings
    from redraft.model.hub_sampler import REFRESH
    assert Settings().context_refresh == REFRESH
