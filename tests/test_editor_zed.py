"""Zed (neither Zed nor its extension crate can be had here): the shipped extension.toml, Cargo.toml
and settings.json parse, agree on the server's id, and carry settings the server accepts as they are."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from redraft.engine.settings import parse_settings

ZED = Path(__file__).resolve().parents[1] / "editors" / "zed"
ZED_LANGUAGES = {"Python", "JavaScript", "TypeScript", "TSX", "Rust", "Go"}  # Zed's names for them


def test_extension_manifest_registers_redraft():
    manifest = tomllib.loads((ZED / "extension.toml").read_text(encoding="utf-8"))
    assert manifest["id"] == "redraft" and manifest["schema_version"] == 1
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    server = manifest["language_servers"]["redraft"]
    assert set(server["languages"]) == ZED_LANGUAGES
    cargo = tomllib.loads((ZED / "Cargo.toml").read_text(encoding="utf-8"))
    assert cargo["lib"]["crate-type"] == ["cdylib"] and "zed_extension_api" in cargo["dependencies"]
    assert cargo["package"]["version"] == manifest["version"]
    source = (ZED / "src" / "lib.rs").read_text(encoding="utf-8")
    assert 'const SERVER: &str = "redraft";' in source and "zed::register_extension!(Redraft);" in source
    assert 'vec!["serve".to_string()]' in source  # started as `redraft serve`


def test_settings_snippet_parses_and_the_server_accepts_it():
    settings = json.loads((ZED / "settings.json").read_text(encoding="utf-8"))
    for name, language in settings["languages"].items():
        assert name in ZED_LANGUAGES and language["language_servers"] == ["...", "redraft"]
    lsp = settings["lsp"]["redraft"]
    for key in ("initialization_options", "settings"):
        parsed, problems, ignored = parse_settings(lsp[key])
        assert problems == [] and ignored == [], key
    assert parse_settings(lsp["initialization_options"])[0].enabled_languages == ("python",)
    provider = settings["edit_predictions"]
    api = provider[provider["provider"]]
    assert provider["provider"] == "open_ai_compatible_api"
    url = urlsplit(api["api_url"])
    assert url.hostname == "127.0.0.1" and url.path == "/v1/completions"  # loopback: nothing leaves the machine
    assert api["prompt_format"] == "qwen" and 1 <= api["max_output_tokens"] <= 256


def test_the_edit_prediction_request_zed_sends_is_answered():
    """Replays the request Zed's `open_ai_compatible_api` provider sends with this settings.json (a
    legacy completions body: the prompt in the configured format, Qwen's here, with a file-separator
    line before it, `max_tokens` from max_output_tokens and Qwen's stop tokens; reconstructed from
    Zed's documentation and the provider's pull request, no Zed binary being available) to the real
    `redraft serve --http`; the answer is the text to insert, as the engine computes it."""
    import httpx
    from test_http_api import start, stop

    from redraft.http.jobs import complete_job as _complete
    from redraft.engine.pipeline import Engine

    cfg = json.loads((ZED / "settings.json").read_text(encoding="utf-8"))["edit_predictions"]
    api = cfg["open_ai_compatible_api"]
    assert cfg["provider"] == "open_ai_compatible_api" and api["prompt_format"] == "qwen"
    assert urlsplit(api["api_url"]).path == "/v1/completions"
    prefix, suffix = "import os\n\n\ndef home():\n    return os.path.", "\n"
    body = {"model": api["model"], "max_tokens": api["max_output_tokens"], "temperature": 0, "stream": False,
            "prompt": f"<|file_sep|>home.py\n<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
            "stop": ["<|endoftext|>", "<|file_sep|>", "<|fim_pad|>", "<|repo_name|>", "<|im_end|>"]}
    proc, base = start()
    try:
        r = httpx.post(base + "/v1/completions", json=body, timeout=60)
    finally:
        stop(proc)
    assert r.status_code == 200
    want = _complete(Engine(None, threads=1), (prefix, suffix, "low", 64, "python", (), None, 0.0), None, None)
    assert r.json()["choices"][0]["text"] == want and want
