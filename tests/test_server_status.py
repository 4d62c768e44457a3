"""`redraft/status` (the model's state, effort and on/off, for editors' status bars; sent only to
clients that announce `experimental.redraftStatus`) and the `enabled` setting that switches
completions off without stopping the server."""
from __future__ import annotations

from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import until, CAPABILITIES, RETURN_POS, SAMPLE, SERVE, configure, inline, model_ready, open_doc, start, stats

pytestmark = pytest.mark.asyncio(loop_scope="module")
STATUS: list[dict[str, Any]] = []


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    @lsp_client.feature("redraft/status")
    def on_status(params: Any) -> None:
        STATUS.append(params if isinstance(params, dict) else params._asdict())  # pygls: a namedtuple

    caps = types.ClientCapabilities(window=CAPABILITIES.window, workspace=CAPABILITIES.workspace,
                                    text_document=CAPABILITIES.text_document,
                                    experimental={"redraftStatus": True})
    await start(lsp_client, {"effort": "medium"}, capabilities=caps)
    await model_ready(lsp_client)
    open_doc(lsp_client, "file:///status.py", SAMPLE)
    yield
    await lsp_client.shutdown_session()


async def test_status_follows_the_model_load(client: LanguageClient):
    await until(lambda: any(s["state"] == "ready" for s in STATUS))
    states = [s["state"] for s in STATUS]
    assert states.index("loading") < states.index("ready")
    ready = next(s for s in STATUS if s["state"] == "ready")
    assert "model loaded" in ready["message"] and ready["effort"] == "medium" and ready["enabled"] is True
    assert ready["device"] == "cpu"


async def test_disabled_answers_empty_until_enabled_again(client: LanguageClient):
    seen = len(STATUS)
    configure(client, {"redraft": {"enabled": False}})
    off = await until(lambda: next((s for s in STATUS[seen:] if s["enabled"] is False), None))
    assert off["state"] == "ready" and off["effort"] == "medium"  # merged: the effort is kept
    result = await inline(client, "file:///status.py", RETURN_POS)
    assert not result.items and (await stats(client))["requests"]["disabled"] == 1

    seen = len(STATUS)
    configure(client, {"redraft": {"enabled": True, "effort": "low"}})
    on = await until(lambda: next((s for s in STATUS[seen:] if s["enabled"] is True), None))
    assert on["effort"] == "low"
    result = await inline(client, "file:///status.py", RETURN_POS)
    assert len(result.items) == 1


async def test_a_failed_load_is_a_status_too(client: LanguageClient):
    seen = len(STATUS)
    configure(client, {"redraft": {"modelDir": "/nonexistent/redraft-model"}})
    failed = await until(lambda: next((s for s in STATUS[seen:] if s["state"] == "failed"), None))
    assert "/nonexistent/redraft-model" in failed["message"]
    configure(client, {"redraft": {"modelDir": None}})
    await until(lambda: next((s for s in STATUS[seen:] if s["state"] == "ready"), None), timeout=90)
