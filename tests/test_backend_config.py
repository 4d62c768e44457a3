"""The `backend` setting (lsp_server/engine/backends/config.py): parsing never raises, bad fields are
reported and defaulted, a backend that cannot work is reported and dropped (the in-process model
answers), the kinds' defaults, the `--backend*` flags, the remote engine's twins of the pipeline's
Request and Completion, and the editors' example settings (every one accepted as it is)."""
from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path

import pytest

from redraft.engine.backends.config import (LOCAL, BackendConfig, api_key, display_url, from_flags,
                                            is_loopback_host, parse_backend)
from redraft.engine.backends.templates import PRESETS, check_template, clean
from redraft.engine.settings import Settings, parse_settings

ROOT = Path(__file__).resolve().parents[1]


def test_absent_null_and_empty_mean_not_set():
    assert Settings().backend is None
    for raw in ({}, {"backend": None}, {"backend": {}}):
        s, problems, ignored = parse_settings(raw)
        assert s.backend is None and problems == [] and ignored == []
    s, _, _ = parse_settings({"backend": {"kind": "ollama", "model": "m"}})
    s2, _, _ = parse_settings({"backend": None}, s)          # an explicit null unsets it
    assert s2.backend is None


@pytest.mark.parametrize("raw,kind,url,model,key_env", [
    ({"kind": "mercury"}, "mercury", "https://api.inceptionlabs.ai/v1", "mercury-edit", "INCEPTION_API_KEY"),
    ("mercury", "mercury", "https://api.inceptionlabs.ai/v1", "mercury-edit", "INCEPTION_API_KEY"),
    ({"kind": "Redraft"}, "redraft", "http://127.0.0.1:8177/v1", "redraft", None),
    ({"kind": "ollama", "model": "qwen2.5-coder:1.5b"}, "ollama", "http://127.0.0.1:11434", "qwen2.5-coder:1.5b", None),
    ({"kind": "llama.cpp"}, "llama.cpp", "http://127.0.0.1:8080", None, None),
    ({"kind": "openai-completions", "url": "https://gpu.example.com/v1", "model": "llada", "template": "QWEN"},
     "openai-completions", "https://gpu.example.com/v1", "llada", None),
    ({"kind": "mercury", "api_key_env": "MY_INCEPTION"}, "mercury", "https://api.inceptionlabs.ai/v1", "mercury-edit",
     "MY_INCEPTION"),
    ({"kind": "mercury", "apiKeyEnv": None}, "mercury", "https://api.inceptionlabs.ai/v1", "mercury-edit", None),
])
def test_kinds_and_their_defaults(raw, kind, url, model, key_env):
    cfg, problems = parse_backend(raw)
    assert problems == [] and cfg is not None
    assert (cfg.kind, cfg.url, cfg.model, cfg.api_key_env) == (kind, url, model, key_env)
    assert hash(cfg) == hash(parse_backend(raw)[0])        # frozen and hashable: the host compares it


@pytest.mark.parametrize("raw,says", [
    ({"kind": "gpt-4"}, "backend.kind='gpt-4' is invalid"),
    ({"url": "http://x"}, "backend.kind is missing"),
    (["ollama"], "backend must be an object"),
    ({"kind": "openai-completions", "model": "m", "template": "qwen"}, "needs a url"),
    ({"kind": "openai-completions", "url": "http://127.0.0.1:8000/v1", "template": "qwen"}, "needs a model"),
    ({"kind": "openai-completions", "url": "http://127.0.0.1:8000/v1", "model": "m"}, "needs a template"),
    ({"kind": "ollama"}, "needs a model"),
    ({"kind": "ollama", "model": "m", "url": "ftp://127.0.0.1"}, "must start with http:// or https://"),
    ({"kind": "ollama", "model": "m", "url": "http://127.0.0.1:99999"}, "cannot be read"),
    ({"kind": "ollama", "model": "m", "url": "http://192.168.1.20:11434"}, "plain http to 192.168.1.20"),
    ({"kind": "redraft", "url": "http://gpu-box.lan:8177/v1"}, "plain http to gpu-box.lan"),
])
def test_a_backend_that_cannot_work_is_dropped_with_its_reason(raw, says):
    cfg, problems = parse_backend(raw)
    assert cfg is None and len(problems) == 1 and says in problems[0], problems
    s, problems2, _ = parse_settings({"redraft": {"backend": raw, "effort": "high"}})
    assert s.backend is None and s.effort == "high" and says in problems2[0]


def test_bad_fields_are_reported_and_defaulted():
    cfg, problems = parse_backend({"kind": "ollama", "model": "m", "timeoutMs": 10, "stream": "yes",
                                   "fallback": "cloud", "stop": [1], "requestBody": [1], "template": "mystery",
                                   "colour": "blue"})
    assert cfg is not None and cfg.timeout_ms == 4000 and cfg.stream is True and cfg.fallback == "none"
    assert cfg.stop == () and cfg.request_body is None and cfg.template is None
    joined = " | ".join(problems)
    for part in ("backend.timeoutMs=10 is invalid", "backend.stream='yes' is invalid", "backend.fallback='cloud'",
                 "backend.stop=its value is invalid", "backend.requestBody=its value", "backend.template='mystery'",
                 "backend.colour is unknown"):
        assert part in joined, joined


def test_plain_http_needs_the_opt_in_except_on_loopback():
    for host in ("127.0.0.1", "localhost", "[::1]", "127.3.4.5", "dev.localhost"):
        cfg, problems = parse_backend({"kind": "ollama", "model": "m", "url": f"http://{host}:11434"})
        assert cfg is not None and problems == [], host
    cfg, problems = parse_backend({"kind": "ollama", "model": "m", "url": "http://10.0.0.7:11434", "allowInsecure": True})
    assert cfg is not None and cfg.allow_insecure and problems == []
    cfg, problems = parse_backend({"kind": "ollama", "model": "m", "url": "https://10.0.0.7:11434"})
    assert cfg is not None and problems == []
    assert not is_loopback_host("localhost.example.com") and not is_loopback_host("10.0.0.1")


def test_describe_and_display_url_show_no_secrets():
    cfg, _ = parse_backend({"kind": "openai-completions", "url": "https://h.example/v1?api-key=abc", "model": "m",
                            "template": "starcoder", "requestBody": {"top_p": 0.9, "user": "me"}})
    d = cfg.describe()
    assert d["url"] == "https://h.example/v1" and d["requestBody"] == ["top_p", "user"]
    assert "abc" not in json.dumps(d)
    assert display_url("https://u:p@h:8443/v1?x=1#f") == "https://h:8443/v1"
    assert LOCAL.describe() == {"kind": "local"}


def test_api_key_comes_from_the_named_variable_only():
    cfg, _ = parse_backend({"kind": "mercury"})
    assert api_key(cfg, {"INCEPTION_API_KEY": " k1 "}) == "k1"
    assert api_key(cfg, {}) is None
    cfg, _ = parse_backend({"kind": "redraft"})
    assert api_key(cfg, {"INCEPTION_API_KEY": "k1", "REDRAFT_API_KEY": "k2"}) is None


def test_templates():
    assert check_template("Qwen") == "qwen" and check_template("<s>{prefix}") == "<s>{prefix}"
    with pytest.raises(ValueError):
        check_template("no placeholders")
    assert clean("x = 1<|endoftext|>junk") == "x = 1"
    assert clean("a = [PREFIX]") == "a = [PREFIX]"              # another family's token that could be code
    assert clean("a = 1[PREFIX]b", "codestral") == "a = 1"
    assert set(PRESETS) == {"qwen", "codegemma", "starcoder", "deepseek", "codellama", "codestral"}


def test_flags():
    assert from_flags(None) == (None, [])
    cfg, problems = from_flags("openai-completions", "http://127.0.0.1:30000/v1", "llada2-mini", "SGLANG_KEY", 900,
                               "qwen", False, "local", False)
    assert problems == [] and cfg == BackendConfig("openai-completions", "http://127.0.0.1:30000/v1", "llada2-mini",
                                                    "SGLANG_KEY", 900, "qwen", fallback="local")
    cfg, problems = from_flags("ollama")
    assert cfg is None and "needs a model" in problems[0]


def test_request_and_completion_twins_match_the_pipeline():
    """The remote engine's torch-free Request reads pipeline.Request's fields with their defaults,
    and its Completion has every field of pipeline.Completion (front doors read them)."""
    from redraft.engine import pipeline
    from redraft.engine.backends import remote
    real = {f.name: f.default for f in dataclasses.fields(pipeline.Request)}
    assert {k: real.get(k, "missing") for k in remote.Request.DEFAULTS} == remote.Request.DEFAULTS
    req = remote.Request("x = ", 4, effort="high", seed=3)
    assert (req.effort, req.seed, req.max_tokens) == ("high", 3, 32)
    twin = {f.name for f in dataclasses.fields(remote.Completion)}
    assert {f.name for f in dataclasses.fields(pipeline.Completion)} <= twin


# ------------------------------------------------------------------------ the editors' examples


def _accepted(raw: dict) -> BackendConfig | None:
    s, problems, ignored = parse_settings(raw)
    assert problems == [] and ignored == [], (problems, ignored)
    return s.backend


def test_vscode_contributes_the_backend_object():
    props = json.loads((ROOT / "editors/vscode/package.json").read_text())["contributes"]["configuration"]["properties"]
    b = props["redraft.backend"]
    assert b["default"] is None and set(b["type"]) == {"object", "null"}
    schema = b["properties"]
    assert schema["kind"]["enum"] == ["local", "redraft", "mercury", "openai-completions", "llama.cpp", "ollama"]
    fields = {f.name for f in dataclasses.fields(BackendConfig)}
    camel = {re.sub(r"_(\w)", lambda m: m.group(1).upper(), f) for f in fields}
    assert set(schema) == camel, set(schema) ^ camel
    for key, spec in schema.items():                      # each documented default is the server's
        if "default" in spec:
            snake = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
            default = getattr(BackendConfig(), snake)
            assert spec["default"] == (list(default) if isinstance(default, tuple) else default), key


def test_helix_backend_examples_are_accepted():
    cfg = tomllib.loads((ROOT / "editors/helix/backends.toml").read_text())
    servers = cfg["language-server"]
    kinds = set()
    for name, server in servers.items():
        assert server["command"] == "redraft" and server["args"] == ["serve"]
        b = _accepted(server["config"])
        assert b is not None, name
        kinds.add(b.kind)
    assert kinds == {"redraft", "mercury", "openai-completions", "llama.cpp", "ollama"}


def test_zed_backend_examples_are_accepted():
    cfg = json.loads((ROOT / "editors/zed/backends.json").read_text())
    kinds = set()
    for name, lsp in cfg.items():
        opts = lsp["lsp"]["redraft"]
        b = _accepted(opts["initialization_options"])
        assert b == _accepted(opts["settings"]), name
        kinds.add(b.kind)
    assert kinds == {"redraft", "mercury", "openai-completions", "llama.cpp", "ollama"}


def test_nvim_doc_examples_are_accepted():
    """Every `backend = {...}` table in the Neovim help parses (as Lua tables read here) and is accepted."""
    text = (ROOT / "editors/nvim/doc/redraft.txt").read_text()
    tables = re.findall(r"backend = (\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})", text)
    kinds = set()
    for t in tables:
        py = re.sub(r"(\w+) = ", r'"\1": ', t).replace("true", "True").replace("false", "False")
        raw = eval(py, {"__builtins__": {}})              # noqa: S307 - our own doc's literal tables
        b = _accepted({"backend": raw})
        kinds.add(b.kind)
    assert kinds >= {"redraft", "mercury", "openai-completions", "llama.cpp", "ollama"}
