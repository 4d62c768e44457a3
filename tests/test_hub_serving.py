"""Serving an open-weight model (issue 26): a hub directory of each family, written here with tiny
random weights (tests/hub_helpers.py), completes through the real server over stdio exactly as the
engine does in process; the approximate context cache is exact for the canvas it was computed with;
DreamOn's canvas grows and shrinks; what cannot serve is refused with the reason."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_lsp
import torch
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from hub_helpers import dream_dir, llada_dir
from lsp_helpers import RETURN_POS, SAMPLE, SERVE, configure, inline, messages, model_ready, open_doc, start, stats, until
from redraft.model import hub_sampler
from redraft.model.hub import HubError
from redraft.model.hub_adapter import open_model
from redraft.model.hub_sampler import _Canvas, _context_kv, _hidden
from redraft.model.sampler import Cancelled

MAKERS = {"dream": dream_dir, "dreamon": lambda t: dream_dir(t, kind="dreamon"), "llada": llada_dir,
          "open-dcoder": lambda t: dream_dir(t, kind="open-dcoder")}
PREFIX, SUFFIX = "def add(a, b):\n    return ", "\n\n\ndef greet(name):\n    return name\n"


@pytest.mark.parametrize("kind", list(MAKERS))
def test_the_canvas_pass_against_cached_context_equals_the_full_pass(tmp_path, kind):
    """The approximate cache's one approximation is time: keys/values from a full pass over this
    very canvas give the canvas (and, with the shift, its predictor) the full pass's hidden states."""
    hm, ad = open_model(MAKERS[kind](tmp_path)[0])
    ids, at = ad.layout(ad.tok.encode(PREFIX), [ad.tok.mask_id] * 6, ad.tok.encode(SUFFIX))
    lo, hi = at - int(ad.shift), at + 6
    with torch.no_grad():
        full, cache = _hidden(hm, ids, 0)
        part, _ = _hidden(hm, ids[lo:hi], lo, _context_kv(cache, lo, hi))
        assert torch.allclose(full[lo:hi], part, atol=1e-5)
        changed = list(ids)
        changed[-2] = (changed[-2] + 1) % 200           # the suffix is seen by the canvas
        assert not torch.allclose(_hidden(hm, changed, 0)[0][lo:hi], full[lo:hi], atol=1e-5)


@pytest.mark.parametrize("kind", list(MAKERS))
def test_exact_and_cached_decoding_respect_the_effort_and_cancel(tmp_path, kind):
    hm, ad = open_model(MAKERS[kind](tmp_path)[0])
    pre, suf = ad.tok.encode(PREFIX), ad.tok.encode(SUFFIX)
    for refresh in (1, 3):
        drafts = []
        res = hub_sampler.generate(hm, ad, pre, suf, canvas_len=12, effort="medium", refresh=refresh, min_tokens=1,
                                   on_step=lambda text, step: drafts.append(step))
        assert 1 <= res.forward_passes <= 8 and drafts == list(range(1, res.forward_passes + 1))
        assert 1 <= len(res.token_ids) <= 12 and res.text == ad.tok.decode(res.token_ids)
        assert not set(res.token_ids) & (ad.tok.special_ids - {ad.tok.eom_id})
    with pytest.raises(Cancelled):
        hub_sampler.generate(hm, ad, pre, suf, canvas_len=12, should_stop=lambda: True)


def test_dreamon_expands_and_deletes(tmp_path):
    _, ad = open_model(MAKERS["dreamon"](tmp_path)[0])
    t = ad.tok
    cv = _Canvas(ad, 4)
    cv.tokens = [10, t.expand_id, t.eom_id, t.mask_id]
    assert not cv.expand_delete([1, 2], cap=8)                 # one grown, one deleted: the same length
    assert cv.tokens == [10, t.mask_id, t.mask_id, t.mask_id] and cv.conf == [0.0] * 4
    cv.tokens, cv.conf = [10, t.expand_id, t.mask_id], [0.9, 0.8, 0.0]
    assert cv.expand_delete([1], cap=8) and cv.tokens == [10, t.mask_id, t.mask_id, t.mask_id]
    assert cv.conf == [0.9, 0.0, 0.0, 0.0]
    cv.tokens = [t.expand_id, 11, 12]
    assert not cv.expand_delete([0], cap=3) and cv.tokens == [t.mask_id, 11, 12]   # at the cap: one mask
    cv.tokens = [t.expand_id, t.mask_id]
    assert not cv.expand_delete([], cap=8) and cv.tokens == [t.expand_id, t.mask_id]  # only what was just committed


def test_what_cannot_serve_is_refused_with_the_reason(tmp_path):
    d, _ = dream_dir(tmp_path)
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**cfg, "mask_token_id": 7}))
    with pytest.raises(HubError, match=r"mask token is \d+ but config.json says 7: they do not belong together"):
        open_model(d)
    (d / "config.json").write_text(json.dumps({k: v for k, v in cfg.items() if k != "mask_token_id"}))
    tok = json.loads((d / "tokenizer.json").read_text())
    tok["added_tokens"] = [a for a in tok["added_tokens"] if a["content"] != "<|mask|>"]
    (d / "tokenizer.json").write_text(json.dumps(tok))
    with pytest.raises(HubError, match="no mask token"):
        open_model(d)
    (d / "tokenizer.json").unlink()
    with pytest.raises(HubError, match="no tokenizer.json"):
        open_model(d)


def test_a_plain_qwen2_without_a_mask_token_is_refused_as_autoregressive(tmp_path):
    d, _ = dream_dir(tmp_path, kind="open-dcoder")
    assert open_model(d)[1].family.name == "open-dcoder"
    (d / "tokenizer_config.json").unlink()
    tok = json.loads((d / "tokenizer.json").read_text())
    tok["added_tokens"] = [a for a in tok["added_tokens"] if a["content"] != "<|mask|>"]
    (d / "tokenizer.json").write_text(json.dumps(tok))
    with pytest.raises(HubError, match="no mask token is autoregressive, not a diffusion coder"):
        open_model(d)


# ---- through the real server ----------------------------------------------------------------------

OPTIONS = {"precision": "fp32", "threads": 1}


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, OPTIONS)
    await model_ready(lsp_client)
    open_doc(lsp_client, "file:///hub.py", SAMPLE)
    yield
    await lsp_client.shutdown_session()


def in_process(d: Path) -> str:
    from redraft.engine.pipeline import Engine, Request
    threads = torch.get_num_threads()
    try:
        engine = Engine(str(d), device="cpu", threads=1, precision="fp32")
        offset = SAMPLE.index("return ") + len("return ")
        comp = engine.complete(Request(text=SAMPLE, offset=offset, uri="file:///hub.py", language_id="python",
                                       syntax=False))
    finally:
        torch.set_num_threads(threads)
    return comp.text if comp else ""


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("kind", list(MAKERS))
async def test_a_hub_model_completes_through_the_server(client: LanguageClient, tmp_path: Path, kind: str):
    d, _ = MAKERS[kind](tmp_path)
    configure(client, {"modelDir": str(d)})
    await until(lambda: messages(client, f"model loaded from {d}"), timeout=60)
    result = await inline(client, "file:///hub.py", RETURN_POS)
    want = in_process(d)
    assert want and [i.insert_text for i in result.items] == [want]
    status = (await stats(client))["model"]
    assert status["state"] == "ready" and status["modelDir"] == str(d)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_directory_that_needs_remote_code_is_reported(client: LanguageClient, tmp_path: Path):
    d, _ = dream_dir(tmp_path)
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**cfg, "model_type": "mdm_custom"}))
    configure(client, {"modelDir": str(d)})
    await until(lambda: messages(client, "which redraft does not run"))
    assert len((await inline(client, "file:///hub.py", RETURN_POS)).items) == 0
    assert (await stats(client))["model"]["state"] == "failed"


def test_the_cli_completes_with_a_hub_model_and_refuses_a_broken_one(tmp_path):
    import subprocess
    import sys
    d, _ = llada_dir(tmp_path)
    src = tmp_path / "m.py"
    src.write_text(PREFIX + SUFFIX)
    cmd = [sys.executable, "-m", "redraft", "complete", str(src), "2", str(len("    return ") + 1),
           "--model", str(d), "--json", "--effort", "instant"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["text"] and rec["forward_passes"] <= 2
    (d / "model.safetensors").write_bytes(b"\0" * 16)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "cannot load the model" in r.stderr and "corrupt or unreadable safetensors" in r.stderr
