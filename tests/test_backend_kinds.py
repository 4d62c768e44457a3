"""Each remote backend kind (lsp_server/engine/backends) against a small real HTTP server started by
the test (backend_stub.Stub), which checks the request exactly as the backend's documentation
specifies it (path, headers, field names, the rendered FIM prompt of each preset) and answers in
that backend's format, whole and streamed. Failures: tests/test_backend_failures.py."""
from __future__ import annotations

import time

import pytest

from backend_stub import KEY, PREFIX, SUFFIX, Reply, Seen, Stub, engine, openai_chunks, request
from redraft.engine.backends.templates import PRESETS, render


# ------------------------------------------------------------------------- openai-completions


EXPECTED_PROMPTS = {
    "qwen": f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",
    "codegemma": f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",
    "starcoder": f"<fim_prefix>{PREFIX}<fim_suffix>{SUFFIX}<fim_middle>",
    "deepseek": f"<\uff5cfim\u2581begin\uff5c>{PREFIX}<\uff5cfim\u2581hole\uff5c>{SUFFIX}<\uff5cfim\u2581end\uff5c>",
    "codellama": f"<PRE> {PREFIX} <SUF>{SUFFIX} <MID>",
    "codestral": f"[SUFFIX]{SUFFIX}[PREFIX]{PREFIX}",
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("stream", [False, True])
def test_openai_completions_renders_each_preset(stub: Stub, preset: str, stream: bool):
    assert set(EXPECTED_PROMPTS) == set(PRESETS)
    stub.answer = lambda seen: (Reply(events=openai_chunks("width", " * height")) if stream
                                else Reply(json={"id": "c", "object": "text_completion",
                                                 "choices": [{"text": "width * height", "index": 0,
                                                              "finish_reason": "stop"}]}))
    eng = engine("openai-completions", stub.url + "/v1", model="qwen2.5-coder-1.5b", template=preset,
                 apiKeyEnv="TEST_KEY", stream=stream)
    comp = eng.complete(request())
    assert comp.text == "width * height" and comp.error is None
    (seen,) = stub.seen
    assert seen.path == "/v1/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["content-type"] == "application/json"
    stops = ["\n", *PRESETS[preset].stops]
    assert seen.body == {"model": "qwen2.5-coder-1.5b", "prompt": EXPECTED_PROMPTS[preset], "max_tokens": 32,
                         "temperature": 0, "stream": stream, "stop": stops}


def test_custom_template_and_placeholders_in_the_code(stub: Stub):
    """A custom template fills {prefix} {suffix} {filename} {language} once: placeholder names and
    braces inside the code stay as they are."""
    text = 'x = "{suffix} {prefix}"\ny = '
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="<f:{filename} l:{language}>{prefix}|{suffix}<m>",
                 stream=False)
    eng.complete(request(text=text, offset=len(text)))
    assert stub.seen[0].body["prompt"] == f'<f:geometry.py l:python>{text}|<m>'
    assert render("{prefix}", "{suffix}", "S") == "{suffix}"


def test_send_suffix_lets_the_server_build_the_prompt(stub: Stub):
    eng = engine("openai-completions", stub.url + "/v1", model="m", sendSuffix=True, stream=False,
                 requestBody={"top_p": 0.9, "temperature": 0.2})
    assert eng.complete(request()).text == "width * height"
    body = stub.seen[0].body
    assert body["prompt"] == PREFIX and body["suffix"] == SUFFIX
    assert body["top_p"] == 0.9 and body["temperature"] == 0.2      # requestBody's fields win
    assert "authorization" not in stub.seen[0].headers              # no apiKeyEnv: no key


def test_the_answer_is_post_processed_as_the_local_model_answer(stub: Stub):
    """The plan's one-line scope cuts the second line, a FIM control token ends the answer, and the
    syntax layer trims what would not parse."""
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height<|endoftext|>junk"}]})
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="qwen", stream=False)
    assert eng.complete(request()).text == "width * height"
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height)\n    print(1)"}]})
    assert eng.complete(request()).text == "width * height"
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height  # the area"}]})
    out = eng.complete(request(syntax=False))
    assert out.text == "width * height  # the area" and out.plan.scope == "line-rest"


def test_a_stream_is_closed_once_the_first_line_is_complete(stub: Stub):
    """A one-line plan needs nothing after the first newline: the connection is closed there and
    the server sees it go (its next write fails)."""
    many = ["width", " * height\n", "    more\n"] + ["x = 1\n"] * 50
    stub.answer = lambda seen: Reply(events=openai_chunks(*many), delay_s=0.02)
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="qwen")
    t0 = time.monotonic()
    comp = eng.complete(request())
    assert comp.text == "width * height" and eng.stats["ended_early"] == 1
    assert time.monotonic() - t0 < 0.5                  # not the ~1 s the whole stream takes
    assert stub.closed_early.wait(5)


def test_the_window_starts_on_a_snapped_line_and_ends_at_a_line_end(stub: Stub):
    lines = [f"v{i} = {i}" for i in range(400)]
    text = "\n".join(lines[:300]) + "\nresult = \n" + "\n".join(lines[300:])
    offset = text.index("result = ") + len("result = ")
    eng = engine("openai-completions", stub.url + "/v1", model="m", sendSuffix=True, stream=False,
                 prefixChars=500, suffixChars=100)
    eng.complete(request(text=text, offset=offset, syntax=False))
    body = stub.seen[0].body
    assert text[:offset].endswith(body["prompt"]) and len(body["prompt"]) <= 500
    first = text.count("\n", 0, offset - len(body["prompt"]))
    assert first % 8 == 0 and body["prompt"].startswith(lines[first])
    assert text[offset:].startswith(body["suffix"]) and len(body["suffix"]) <= 100
    assert body["suffix"].endswith(lines[300 + body["suffix"].count("\n") - 1])


def test_inside_an_identifier_no_request_is_sent(stub: Stub):
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="qwen")
    text = "value = compute_area(1)\n"
    assert eng.complete(request(text=text, offset=text.index("area"), syntax=False)) is None
    assert stub.seen == []


# -------------------------------------------------------------------------------------- mercury


@pytest.mark.parametrize("stream", [False, True])
def test_mercury_fim(stub: Stub, stream: bool):
    stub.answer = lambda seen: (Reply(events=openai_chunks("width * ", "height")) if stream else
                                Reply(json={"id": "f", "object": "text_completion", "model": "mercury-edit",
                                            "choices": [{"index": 0, "text": "width * height",
                                                         "finish_reason": "stop"}]}))
    eng = engine("mercury", stub.url + "/v1", stream=stream, stop=["\n\n\n", "\n \n", "#", "//"])
    assert eng.complete(request()).text == "width * height"
    (seen,) = stub.seen
    assert seen.path == "/v1/fim/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"        # INCEPTION_API_KEY, the kind's default
    assert seen.body == {"model": "mercury-edit", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 32,
                         "stream": stream, "stop": ["\n", "\n\n\n", "\n \n", "#"]}   # Mercury takes at most 4


def test_mercury_next_edit_sends_the_tagged_prompt_and_reads_the_fenced_region(stub: Stub):
    from redraft.http.formats import read_edit_prompt
    text = "def f(a, b):\n    return a + b\n\n\nx = f(1, 2)\ny = f(3, 4)\n"
    history = [("def f(a):\n    return a", "def f(a, b):\n    return a + b")]

    def answer(seen: Seen) -> Reply:
        return Reply(json={"id": "e", "object": "edit.completion", "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "```python\nx = f(1, 2)\ny = f(3, 4, 5)\n```"}}]})
    stub.answer = answer
    eng = engine("mercury", stub.url + "/v1")
    edit, passes = eng.next_edit(text, 5, 0, history, "file:///proj/calc.py")
    (seen,) = stub.seen
    assert seen.path == "/v1/edit/completions" and seen.headers["authorization"] == f"Bearer {KEY}"
    assert set(seen.body) == {"model", "messages"} and seen.body["model"] == "mercury-edit"
    (msg,) = seen.body["messages"]
    assert msg["role"] == "user"
    content = msg["content"]
    for tag in ("<|current_file_content|>", "current_file_path: calc.py", "<|code_to_edit|>", "<|cursor|>",
                "<|/code_to_edit|>", "<|/current_file_content|>", "<|edit_diff_history|>", "<|/edit_diff_history|>"):
        assert tag in content
    back = read_edit_prompt(content)              # what redraft's own server (and Mercury's docs) read
    # (its reader drops the blank lines just above the region; every other line is there)
    assert [l for l in back.text.split("\n") if l] == [l for l in text.split("\n") if l]
    assert back.history == history and back.text[back.offset:].startswith("y = f(3, 4)")
    region = back.text.split("\n")[back.region[0]:back.region[1]]
    assert region == ["x = f(1, 2)", "y = f(3, 4)"]
    assert edit is not None and edit.start == edit.end and edit.text == ", 5" and passes == 0
    assert text[:edit.start].endswith("y = f(3, 4")


def test_mercury_apply(stub: Stub):
    from redraft.http.formats import read_apply_prompt
    original = "def f():\n    return 1\n"
    snippet = "def f():\n    return 2\n"
    stub.answer = lambda seen: Reply(json={"choices": [{"message": {"role": "assistant", "content": "def f():\n    return 2\n"}}]})
    eng = engine("mercury", stub.url + "/v1")
    assert eng.apply(original, snippet, "python") == "def f():\n    return 2\n"
    (seen,) = stub.seen
    assert seen.path == "/v1/apply/completions"
    (msg,) = seen.body["messages"]
    assert msg["role"] == "user"
    assert msg["content"] == ("<|original_code|>\ndef f():\n    return 1\n<|/original_code|>\n"
                              "<|update_snippet|>\ndef f():\n    return 2\n<|/update_snippet|>")
    assert read_apply_prompt(msg["content"]) == (original, snippet)


def test_kinds_without_edit_endpoints_merge_locally(stub: Stub):
    eng = engine("ollama", stub.url, model="m")
    assert eng.apply("def f():\n    return 1\n", "def f():\n    return 2\n", "python") == "def f():\n    return 2\n"
    assert stub.seen == []


# ------------------------------------------------------------------------------------ llama.cpp


@pytest.mark.parametrize("stream", [False, True])
def test_llama_cpp_infill(stub: Stub, stream: bool):
    events = [{"content": "width", "stop": False}, {"content": " * height", "stop": False},
              {"content": "", "stop": True, "stop_type": "eos"}]
    stub.answer = lambda seen: (Reply(events=events, done=False) if stream else
                                Reply(json={"content": "width * height", "stop": True, "tokens_predicted": 4}))
    eng = engine("llama.cpp", stub.url, stream=stream, apiKeyEnv="TEST_KEY")
    assert eng.complete(request()).text == "width * height"
    (seen,) = stub.seen
    assert seen.path == "/infill" and seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body == {"input_prefix": PREFIX, "input_suffix": SUFFIX, "input_extra": [], "prompt": "",
                         "n_predict": 32, "temperature": 0, "cache_prompt": True, "stream": stream, "stop": ["\n"]}


def test_llama_cpp_input_extra_carries_the_requests_snippets(stub: Stub):
    """Other files' text sent with a request (`Request.snippets`, the workspace-context work) goes
    to llama.cpp as `input_extra` chunks."""
    stub.answer = lambda seen: Reply(json={"content": "width * height", "stop": True})
    eng = engine("llama.cpp", stub.url, stream=False)
    eng.complete(request(snippets=("def helper():\n    return 2\n", "")))
    assert stub.seen[0].body["input_extra"] == [{"filename": "", "text": "def helper():\n    return 2\n"}]


# --------------------------------------------------------------------------------------- ollama


@pytest.mark.parametrize("stream", [False, True])
def test_ollama_generate_with_suffix(stub: Stub, stream: bool):
    lines = [{"model": "qwen2.5-coder:1.5b", "response": "width", "done": False},
             {"model": "qwen2.5-coder:1.5b", "response": " * height", "done": False},
             {"model": "qwen2.5-coder:1.5b", "response": "", "done": True, "done_reason": "stop"}]
    stub.answer = lambda seen: (Reply(events=lines, fmt="ndjson") if stream else
                                Reply(json={"model": "qwen2.5-coder:1.5b", "response": "width * height", "done": True}))
    eng = engine("ollama", stub.url, model="qwen2.5-coder:1.5b", stream=stream,
                 requestBody={"keep_alive": "30m", "options": {"num_ctx": 4096}})
    assert eng.complete(request()).text == "width * height"
    (seen,) = stub.seen
    assert seen.path == "/api/generate" and "authorization" not in seen.headers
    assert seen.body == {"model": "qwen2.5-coder:1.5b", "prompt": PREFIX, "suffix": SUFFIX, "stream": stream,
                         "options": {"num_predict": 32, "temperature": 0, "stop": ["\n"], "num_ctx": 4096},
                         "keep_alive": "30m"}


def test_ollama_raw_mode_with_a_template(stub: Stub):
    stub.answer = lambda seen: Reply(json={"response": "width * height", "done": True})
    eng = engine("ollama", stub.url, model="codellama:7b-code", template="codellama", stream=False)
    assert eng.complete(request()).text == "width * height"
    body = stub.seen[0].body
    assert body["prompt"] == EXPECTED_PROMPTS["codellama"] and body["raw"] is True and "suffix" not in body
    assert body["options"]["stop"] == ["\n", "<EOT>", "<PRE>", "<SUF>"]


def test_redraft_kind_sends_effort_and_language(stub: Stub):
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height"}]})
    eng = engine("redraft", stub.url + "/v1", stream=False)
    assert eng.complete(request(effort="medium")).text == "width * height"
    assert stub.seen[0].path == "/v1/fim/completions"
    assert stub.seen[0].body == {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 32,
                                 "stream": False, "effort": "medium", "language": "python", "stop": ["\n"]}


def test_a_full_endpoint_url_is_taken_as_it_is(stub: Stub):
    eng = engine("openai-completions", stub.url + "/v1/completions", model="m", template="qwen", stream=False)
    eng.complete(request())
    assert stub.seen[0].path == "/v1/completions"
