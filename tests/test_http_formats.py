"""Every client's wire format on the one port of a real `redraft serve --http` (issue 46, part 1):
each request is shaped as its client sends it (field names from the client's code: Tabby's
`openai/completion`, `llama.cpp/completion` and `ollama/completion` kinds, Continue's OpenAI and
Ollama providers, llm-ls's openai/llamacpp/ollama backends, minuet's `openai_fim_compatible`, Zed's
`open_ai_compatible_api`, llama.vim's /infill), streaming and not, and each must answer the same
text as Mercury's /v1/fim/completions for the same prefix and suffix (which test_http_api.py checks
against the engine itself)."""
from __future__ import annotations

import json

import httpx
import pytest

from test_http_api import PREFIX, SUFFIX, start, stop

N = 32                                           # every client's max tokens here (the canvas cap)
QWEN = f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>"
STARCODER = f"<fim_prefix>{PREFIX}<fim_suffix>{SUFFIX}<fim_middle>"
LINE_START = PREFIX.rindex("\n") + 1             # llama.vim: lines before the cursor's, and its line


@pytest.fixture(scope="module")
def server():
    proc, base = start("--max-queue", "8")
    yield base
    stop(proc)


@pytest.fixture(scope="module")
def expected(server) -> str:
    r = httpx.post(f"{server}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": N})
    assert r.status_code == 200
    text = r.json()["choices"][0]["text"]
    assert text.strip()
    return text


def sse(r: httpx.Response) -> list[str]:
    return [line[6:] for line in r.iter_lines() if line.startswith("data: ")]


# ---------------------------------------------------------------------------- OpenAI /v1/completions

def test_tabby_openai_completion_streams_choices(server, expected):
    """Tabby `kind = "openai/completion"`: prompt + suffix (null when empty), stream, its sampling
    fields; it reads choices[0].text until a finish_reason."""
    body = {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": N, "temperature": 0.1,
            "stream": True, "presence_penalty": 0.0}
    with httpx.stream("POST", f"{server}/v1/completions", json=body, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = sse(r)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert "".join(c["choices"][0]["text"] for c in chunks) == expected
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    r = httpx.post(f"{server}/v1/completions", timeout=60, json={**body, "suffix": None, "stream": False,
                                                                 "prompt": "import os\n"})
    assert r.status_code == 200 and isinstance(r.json()["choices"][0]["text"], str)


def test_minuet_openai_fim_compatible_with_stop_strings(server, expected):
    """minuet `openai_fim_compatible`: model, stream, its `optional` fields (max_tokens, top_p, stop),
    prompt and suffix; it reads choices[1].text from each `data:` line."""
    cut = expected[1:2] or "x"
    body = {"model": "redraft", "stream": True, "max_tokens": N, "top_p": 0.9, "stop": [cut],
            "prompt": PREFIX, "suffix": SUFFIX}
    with httpx.stream("POST", f"{server}/v1/completions", json=body, timeout=60,
                      headers={"Accept": "application/json"}) as r:
        texts = [json.loads(e)["choices"][0]["text"] for e in sse(r) if e != "[DONE]"]
    assert "".join(texts) == expected.split(cut)[0]


def test_continue_openai_provider_sends_its_rendered_template(server, expected):
    """Continue `provider: openai` autocomplete: the template rendered into `prompt` (StarCoder's
    markers by default), its stop tokens and penalties, to /v1/completions, streamed; it reads
    choices[0].text."""
    body = {"model": "redraft", "max_tokens": N, "temperature": 0.01, "top_p": None, "frequency_penalty": None,
            "presence_penalty": None, "stream": True, "prompt": STARCODER,
            "stop": ["<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<|endoftext|>", "</fim_middle>"]}
    with httpx.stream("POST", f"{server}/v1/completions", json=body, timeout=60) as r:
        texts = [json.loads(e)["choices"][0]["text"] for e in sse(r) if e != "[DONE]"]
    assert "".join(texts) == expected


def test_continue_inception_provider_fim_and_streamed_apply(server):
    """Continue `provider: inception` (Mercury): FIM to {apiBase}completions with `<|endoftext|>` as
    the suffix when nothing follows the cursor; apply to apply/completions with stream: true, read
    as chat chunks (delta.content)."""
    alone = httpx.post(f"{server}/v1/fim/completions", timeout=60, json={
        "model": "redraft", "prompt": PREFIX, "suffix": "", "max_tokens": N}).json()["choices"][0]["text"]
    with httpx.stream("POST", f"{server}/v1/completions", timeout=60, json={
            "model": "redraft", "prompt": PREFIX, "suffix": "<|endoftext|>", "max_tokens": N, "temperature": 0.0,
            "top_p": None, "frequency_penalty": None, "presence_penalty": 1.5,
            "stop": ["<|endoftext|>", "\n\n", "\n \n"], "stream": True}) as r:
        text = "".join(json.loads(e)["choices"][0]["text"] for e in sse(r) if e != "[DONE]")
    assert text == alone.split("\n\n")[0].split("\n \n")[0]
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    content = (f"<|original_code|>\n{original}<|/original_code|>\n<|update_snippet|>\n"
               "# ... existing code ...\ndef b():\n    return 3\n<|/update_snippet|>")
    with httpx.stream("POST", f"{server}/v1/apply/completions", timeout=60, json={
            "model": "redraft", "messages": [{"role": "user", "content": content}], "max_tokens": None,
            "temperature": None, "stop": None, "stream": True}) as r:
        assert r.status_code == 200
        events = sse(r)
    assert events[-1] == "[DONE]"
    merged = "".join(json.loads(e)["choices"][0]["delta"].get("content", "") for e in events[:-1])
    assert merged == original.replace("return 2", "return 3")


def test_llm_ls_openai_backend_sends_its_own_fim_tokens(server, expected):
    """llm-ls `backend = "openai"`: the prompt rendered with its `fim` tokens, stream false, the
    user's request_body merged in."""
    r = httpx.post(f"{server}/v1/completions", timeout=60, json={
        "max_tokens": N, "temperature": 0.2, "top_p": 0.95, "prompt": STARCODER, "model": "redraft", "stream": False})
    assert r.status_code == 200 and r.json()["choices"][0]["text"] == expected


def test_zed_open_ai_compatible_api_gets_its_raw_completion_response(server, expected):
    """Zed's edit-prediction provider: model, a Qwen FIM prompt, max_tokens, temperature, stop;
    its response type needs id, object, created, model, choices[].text and usage."""
    r = httpx.post(f"{server}/v1/completions", timeout=60, json={
        "model": "redraft", "prompt": QWEN, "max_tokens": N, "temperature": 0.0,
        "stop": ["<|endoftext|>", "<|file_sep|>"], "environment": "zed"})
    body = r.json()
    assert r.status_code == 200 and body["choices"][0]["text"] == expected
    assert {"id", "object", "created", "model", "usage"} <= body.keys()
    assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}


# ---------------------------------------------------------------------------- llama.cpp

def llama_vim_body(**over) -> dict:
    body = {"input_prefix": PREFIX[:LINE_START], "input_suffix": SUFFIX,
            "input_extra": [{"text": "def write(path, text):\n    pass\n", "time": [1732650000, 123456],
                             "filename": "util.py"}],
            "prompt": PREFIX[LINE_START:], "n_predict": N, "stop": [], "n_indent": 8, "top_k": 40, "top_p": 0.90,
            "stream": False, "samplers": ["top_k", "top_p", "infill"], "cache_prompt": True,
            "t_max_prompt_ms": 500, "t_max_predict_ms": 250,
            "response_fields": ["content", "timings/prompt_n", "timings/prompt_ms", "timings/prompt_per_token_ms",
                                "timings/prompt_per_second", "timings/predicted_n", "timings/predicted_ms",
                                "timings/predicted_per_token_ms", "timings/predicted_per_second", "truncated",
                                "tokens_cached"]}
    body.update(over)
    return body


def test_llama_vim_infill_answers_content_with_the_fields_it_asks_for(server, expected):
    r = httpx.post(f"{server}/infill", json=llama_vim_body(), timeout=60)
    body = r.json()
    assert r.status_code == 200 and body["content"] == expected
    assert set(body) == set(llama_vim_body()["response_fields"])      # flattened paths, as llama.cpp
    assert body["timings/predicted_ms"] > 0 and body["truncated"] is False


def test_llama_vim_cache_warmup_does_no_work(server):
    """The ring-buffer update: empty prefix and suffix, the chunks, n_predict 0: answered at once."""
    before = httpx.get(f"{server}/v1/redraft/stats").json()["requests"]
    r = httpx.post(f"{server}/infill", timeout=10, json={
        "input_prefix": "", "input_suffix": "", "input_extra": llama_vim_body()["input_extra"], "prompt": "",
        "n_predict": 0, "temperature": 0.0, "stream": False, "samplers": [], "cache_prompt": True,
        "t_max_prompt_ms": 1, "t_max_predict_ms": 1, "response_fields": [""]})
    assert r.status_code == 200 and r.json() == {}
    assert httpx.get(f"{server}/v1/redraft/stats").json()["requests"] == before


def test_input_extra_chunks_are_read_as_the_projects_lines(server):
    """llama.vim's ring of chunks from other files: a line there that continues the typed line is
    the answer (the engine's Request.snippets), where the model alone writes something else."""
    body = {"input_prefix": "def grow(shape):\n", "prompt": "    radius = compute_ra", "input_suffix": "\n",
            "n_predict": 24}
    alone = httpx.post(f"{server}/infill", json=body, timeout=60).json()["content"]
    extra = [{"filename": "geometry.py", "text": "def area(c):\n    radius = compute_radius_of(c, scale=2.5)\n"}]
    got = httpx.post(f"{server}/infill", json={**body, "input_extra": extra}, timeout=60).json()["content"]
    assert got == "dius_of(c, scale=2.5)" and alone != got


def test_infill_streams_as_llama_cpp_does(server, expected):
    """llama.cpp's stream: `data: {content, stop: false}` chunks, the last with stop true, no [DONE]."""
    with httpx.stream("POST", f"{server}/infill", json=llama_vim_body(stream=True, response_fields=None),
                      timeout=60) as r:
        assert r.status_code == 200
        events = [json.loads(e) for e in sse(r)]
    assert events[-1]["stop"] is True and all(e["stop"] is False for e in events[:-1])
    assert "".join(e["content"] for e in events) == expected
    assert "timings" in events[-1]


def test_tabby_llama_cpp_completion_streams_a_rendered_template(server, expected):
    """Tabby `kind = "llama.cpp/completion"` posts {api_endpoint}/completion with the prompt its
    `prompt_template` rendered; it reads `content` until `stop`."""
    body = {"seed": 0, "prompt": QWEN, "n_predict": N, "temperature": 0.1, "stream": True, "penalty_last_n": 0,
            "presence_penalty": 0.0}
    text = ""
    with httpx.stream("POST", f"{server}/completion", json=body, timeout=60,
                      headers={"Authorization": "Bearer unused"}) as r:
        for e in sse(r):
            chunk = json.loads(e)
            text += chunk["content"]
            if chunk["stop"]:
                break
    assert text == expected


def test_llm_ls_llamacpp_backend_posts_only_a_prompt(server, expected):
    r = httpx.post(f"{server}/completions", json={"prompt": STARCODER, "n_predict": N}, timeout=60)
    assert r.status_code == 200 and r.json()["content"] == expected and r.json()["stop"] is True


def test_llama_cpp_routes_refuse_bad_input_with_a_reason(server):
    for body, param in (({"input_extra": "util.py"}, "input_extra"),
                        ({"input_extra": [{"filename": "a"}]}, "input_extra"),
                        ({"n_predict": "many"}, "n_predict"), ({"input_prefix": 3}, "input_prefix"),
                        ({"stream": "yes"}, "stream")):
        r = httpx.post(f"{server}/infill", json=body, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["param"] == param, (body, r.text)
    r = httpx.post(f"{server}/completion", json={"prompt": [1, 2, 3]}, timeout=10)
    assert r.status_code == 400 and "token ids" in r.json()["error"]["message"]
    r = httpx.post(f"{server}/infill", content=b'{"input_extra": [{"text": "\\ud800"}]}', timeout=10)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_unicode"
    r = httpx.post(f"{server}/infill", json={"input_extra": [{"text": "x"}] * 257}, timeout=10)
    assert r.status_code == 400 and "at most 256" in r.json()["error"]["message"]


# ---------------------------------------------------------------------------- Ollama

def test_continue_ollama_probes_show_then_streams_fim(server, expected):
    """Continue's Ollama provider: POST /api/show {name} (FIM only if the template has `.Suffix`),
    then /api/generate with prompt + suffix, its options and keep_alive, stream: one JSON a line."""
    show = httpx.post(f"{server}/api/show", json={"name": "redraft"}, timeout=10).json()
    assert ".Suffix" in show["template"] and not show["parameters"]
    body = {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX,
            "options": {"temperature": 0.01, "top_p": 0.9, "num_predict": N, "stop": ["\n\n\n\n"], "num_ctx": 4096},
            "keep_alive": 1800, "stream": True}
    with httpx.stream("POST", f"{server}/api/generate", json=body, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in r.iter_lines() if line.strip()]
    assert lines[-1]["done"] is True and lines[-1]["done_reason"] == "stop"
    assert all(line["done"] is False for line in lines[:-1])
    assert "".join(line["response"] for line in lines) == expected


def test_tabby_ollama_lists_tags_then_generates_with_its_template(server, expected):
    """Tabby `kind = "ollama/completion"` (ollama-rs): /api/tags must hold model_name (name, modified_at
    and size are required there), then /api/generate with `template` and options, streamed."""
    tags = httpx.get(f"{server}/api/tags", timeout=10).json()["models"]
    assert [t["name"] for t in tags] == ["redraft:latest"] and {"modified_at", "size"} <= tags[0].keys()
    assert httpx.get(f"{server}/api/version", timeout=10).json()["version"]
    body = {"model": "redraft:latest", "prompt": QWEN, "template": "{{ .Prompt }}",
            "options": {"num_ctx": 2048, "num_predict": N, "seed": 0, "repeat_last_n": 0, "temperature": 0.1}}
    with httpx.stream("POST", f"{server}/api/generate", json=body, timeout=60) as r:
        text = "".join(json.loads(line)["response"] for line in r.iter_lines() if line.strip())
    assert text == expected


def test_llm_ls_ollama_backend_is_answered_in_one_object(server, expected):
    r = httpx.post(f"{server}/api/generate", timeout=60, json={
        "options": {"temperature": 0.2, "top_p": 0.95, "num_predict": N}, "prompt": STARCODER,
        "model": "redraft", "stream": False})
    body = r.json()
    assert r.status_code == 200 and body["response"] == expected and body["done"] is True


def test_ollama_errors_are_ollama_shaped(server):
    r = httpx.post(f"{server}/api/generate", json={"model": "codellama:7b", "prompt": "x"}, timeout=10)
    assert r.status_code == 404 and isinstance(r.json()["error"], str) and "redraft" in r.json()["error"]
    r = httpx.post(f"{server}/api/generate", json={"prompt": "x"}, timeout=10)
    assert r.status_code == 400 and r.json() == {"error": "model is required"}
    r = httpx.post(f"{server}/api/generate", json={"model": "redraft"}, timeout=10)     # "load the model"
    assert r.status_code == 200 and r.json()["done_reason"] == "load"
    r = httpx.post(f"{server}/api/generate", json={"model": "redraft", "prompt": "x", "options": []}, timeout=10)
    assert r.status_code == 400 and "options" in r.json()["error"]
    r = httpx.post(f"{server}/api/generate", content=b"[" * 100000, timeout=10)
    assert r.status_code == 400 and "JSON" in r.json()["error"]
    r = httpx.post(f"{server}/api/show", json={"name": "mistral"}, timeout=10)
    assert r.status_code == 404 and isinstance(r.json()["error"], str)


def test_the_official_ollama_client_lists_shows_and_generates(server, expected):
    """The `ollama` Python client (its own request and response models) against the Ollama routes."""
    ollama = pytest.importorskip("ollama")
    client = ollama.Client(host=server, timeout=60)
    assert [m.model for m in client.list().models] == ["redraft:latest"]
    assert "insert" in (client.show("redraft").capabilities or [])
    out = client.generate(model="redraft", prompt=PREFIX, suffix=SUFFIX, options={"num_predict": N})
    assert out.response == expected and out.done
    parts = list(client.generate(model="redraft:latest", prompt=PREFIX, suffix=SUFFIX, stream=True,
                                 options={"num_predict": N}))
    assert "".join(p.response for p in parts) == expected and parts[-1].done
    with pytest.raises(ollama.ResponseError) as e:
        client.generate(model="llama3", prompt="x")
    assert e.value.status_code == 404
