"""Each remote backend kind (lsp_server/engine/backends) against a small real HTTP server started by
the test (`Stub`: the standard library's http.server on a loopback port, in a thread). The stub
checks the request exactly as the backend's documentation specifies it (path, headers, field
names, the rendered FIM prompt of each preset) and answers in that backend's format: whole JSON,
streamed chunks (server-sent events, or Ollama's JSON lines), errors, garbage, oversized answers, a
connection dropped mid-answer, an answer too slow for `timeoutMs`.

`Stub` is imported by the other tests/test_backend_*.py files."""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

from redraft.engine.backends.config import parse_backend
from redraft.engine.backends.remote import BACKOFF_AFTER, RemoteEngine, Request
from redraft.engine.backends.templates import PRESETS, render

KEY = "test-key-0f3c9b7e1d"          # what the tests' API key variable holds
DOC = ('import math\n\n\ndef area(width: float, height: float) -> float:\n    """Area of a rectangle."""\n'
       '    return \n\n\ndef circle(r):\n    return math.pi * r * r\n')
CURSOR = DOC.index("return \n") + len("return ")
PREFIX, SUFFIX = DOC[:CURSOR], DOC[CURSOR:]


# ------------------------------------------------------------------------------------- the stub


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    port: int                       # the client's port: one per connection


@dataclass
class Reply:
    status: int = 200
    json: Any = None                # a whole JSON answer
    events: list[Any] | None = None  # streamed: each a JSON object (or raw bytes), then [DONE] for sse
    fmt: str = "sse"                # sse | ndjson
    done: bool = True               # sse: end with `data: [DONE]`
    raw: bytes | None = None        # exactly these bytes as the body
    delay_s: float = 0.0            # before the answer (and between streamed chunks)
    drop: bool = False              # close the connection without answering
    drop_after: int | None = None   # streamed: close the connection after this many chunks
    headers: dict[str, str] = field(default_factory=dict)


class Stub:
    """A real HTTP/1.1 server on 127.0.0.1; `answer(seen) -> Reply` decides each answer."""

    def __init__(self, answer: Callable[[Seen], Reply] | None = None) -> None:
        self.answer = answer or (lambda seen: Reply(json={"choices": [{"text": "width * height", "index": 0}]}))
        self.seen: list[Seen] = []
        self.disconnects = 0            # streamed answers the client stopped reading (a write failed)
        self.closed_early = threading.Event()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw
                seen = Seen("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                            self.client_address[1])
                stub.seen.append(seen)
                stub.reply(self, stub.answer(seen))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None   # a client that reset its kept-alive connection
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def reply(self, h: BaseHTTPRequestHandler, r: Reply) -> None:
        try:
            if r.delay_s and r.events is None:
                time.sleep(r.delay_s)
            if r.drop:
                h.connection.shutdown(socket.SHUT_RDWR)
                h.close_connection = True
                return
            if r.events is None:
                body = r.raw if r.raw is not None else json.dumps(r.json).encode()
                head = [f"HTTP/1.1 {r.status} X", "Content-Type: application/json", f"Content-Length: {len(body)}",
                        *[f"{k}: {v}" for k, v in r.headers.items()]]
                h.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)   # one write: no Nagle wait
                return
            ctype = "text/event-stream" if r.fmt == "sse" else "application/x-ndjson"
            h.wfile.write(f"HTTP/1.1 {r.status} X\r\nContent-Type: {ctype}\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
            for i, ev in enumerate(r.events):
                if r.drop_after is not None and i >= r.drop_after:
                    h.connection.shutdown(socket.SHUT_RDWR)
                    h.close_connection = True
                    return
                if r.delay_s:
                    time.sleep(r.delay_s)
                data = ev if isinstance(ev, bytes) else json.dumps(ev).encode()
                data = b"data: " + data + b"\n\n" if r.fmt == "sse" and not isinstance(ev, bytes) else data + b"\n"
                h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                h.wfile.flush()
            if r.fmt == "sse" and r.done:
                data = b"data: [DONE]\n\n"
                h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            h.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.disconnects += 1
            self.closed_early.set()
            h.close_connection = True

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    s = Stub()
    yield s
    s.close()


def engine(kind: str, url: str, **extra: Any) -> RemoteEngine:
    cfg, problems = parse_backend({"kind": kind, "url": url, **extra})
    assert cfg is not None and not problems, problems
    return RemoteEngine(cfg, environ={"TEST_KEY": KEY, "INCEPTION_API_KEY": KEY})


def request(text: str = DOC, offset: int = CURSOR, **kw: Any) -> Request:
    return Request(text=text, offset=offset, uri="file:///proj/geometry.py", language_id="python", **kw)


def openai_chunks(*texts: str) -> list[dict]:
    out = [{"id": "c", "object": "text_completion", "choices": [{"text": t, "index": 0, "finish_reason": None}]}
           for t in texts]
    out.append({"id": "c", "object": "text_completion", "choices": [{"text": "", "index": 0, "finish_reason": "stop"}]})
    out.append({"id": "c", "object": "text_completion", "choices": [], "usage": {"prompt_tokens": 9}})
    return out


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


# ------------------------------------------------------------------------------ errors, garbage


GARBAGE = [
    ("an HTTP 500 with OpenAI's error", Reply(status=500, json={"error": {"message": "CUDA out of memory", "type": "server_error"}}),
     "HTTP 500: CUDA out of memory"),
    ("an HTTP 400 (vLLM and suffix)", Reply(status=400, json={"object": "error", "message": "suffix is not currently supported"}),
     "HTTP 400: suffix is not currently supported"),
    ("Ollama's error shape", Reply(status=404, json={"error": "model 'm' not found"}), "HTTP 404: model 'm' not found"),
    ("an HTML error page", Reply(status=502, raw=b"<html><body>Bad Gateway</body></html>"), "HTTP 502"),
    ("a wrong key", Reply(status=401, json={"error": {"message": "invalid api key"}}), "refused the API key"),
    ("text that is not JSON", Reply(raw=b"Hello world"), "not JSON"),
    ("JSON without choices", Reply(json={"text": "width"}), "no choices[0]"),
    ("a choice without text", Reply(json={"choices": [{"message": {}}]}), "choices[0].text"),
    ("an array", Reply(json=[1, 2, 3]), "not a JSON object"),
    ("a body over the limit", Reply(json={"choices": [{"text": "x" * 300_000}]}), "over the limit"),
    ("a redirect", Reply(status=307, raw=b"", headers={"Location": "http://example.com/v1?k=secret"}), "redirects are not followed"),
    ("a stream of garbage", Reply(events=[b"data: {not json"]), "not JSON"),
    ("an error inside the stream", Reply(events=[{"choices": [{"text": "wid"}]}, {"error": {"message": "overloaded"}}]),
     "overloaded"),
    ("a stream cut mid-answer", Reply(events=openai_chunks("wid", "th"), drop_after=1), "broke off"),
    ("a connection dropped without an answer", Reply(drop=True), "closed"),
    ("a stream over the limit", Reply(events=openai_chunks(*["x" * 1000] * 300)), "over the limit"),
]


@pytest.mark.parametrize("what,reply,says", GARBAGE, ids=[g[0] for g in GARBAGE])
def test_failures_answer_empty_with_one_line_why(stub: Stub, what: str, reply: Reply, says: str):
    stub.answer = lambda seen: reply
    lines: list[tuple[str, str, bool]] = []
    cfg, _ = parse_backend({"kind": "openai-completions", "url": stub.url + "/v1", "model": "m", "template": "qwen",
                            "stream": reply.events is not None})
    eng = RemoteEngine(cfg, on_event=lambda *a: lines.append(a))
    comp = eng.complete(request())
    assert comp is not None and comp.text == "" and says in comp.error, comp.error
    assert len(lines) == 1 and lines[0][0] == "warning" and lines[0][2] is True   # one line; the status changes
    assert "\n" not in lines[0][1] and lines[0][1].startswith("redraft: backend unreachable: completion failed")
    assert eng.unreachable and eng.unreachable.startswith("backend unreachable: ")
    assert "secret" not in comp.error          # a redirect's query is not shown


def test_refused_and_slow(stub: Stub):
    port = stub.port
    stub.close()
    eng = engine("llama.cpp", f"http://127.0.0.1:{port}", stream=False)
    comp = eng.complete(request())
    assert comp.text == "" and "connection refused" in comp.error
    slow = Stub(lambda seen: Reply(json={"content": "width"}, delay_s=1.5))
    try:
        eng = engine("llama.cpp", slow.url, stream=False, timeoutMs=200)
        t0 = time.monotonic()
        comp = eng.complete(request())
        assert time.monotonic() - t0 < 0.6 and "no answer within 200 ms" in comp.error
        slow.answer = lambda seen: Reply(events=[{"content": "w", "stop": False}] * 20, delay_s=0.1, done=False)
        eng = engine("llama.cpp", slow.url, timeoutMs=300)
        t0 = time.monotonic()
        comp = eng.complete(request())                 # a stream that trickles past the deadline
        assert time.monotonic() - t0 < 0.8 and "no answer within 300 ms" in comp.error
    finally:
        slow.close()


def test_backoff_after_repeated_failures_then_recovery(stub: Stub, monkeypatch):
    from redraft.engine.backends import remote
    monkeypatch.setattr(remote, "BACKOFF_BASE_S", 0.3)
    failing = True
    stub.answer = lambda seen: Reply(status=503, json={"error": {"message": "loading model"}}) if failing else \
        Reply(json={"choices": [{"text": "width * height"}]})
    events: list[tuple] = []
    cfg, _ = parse_backend({"kind": "openai-completions", "url": stub.url + "/v1", "model": "m", "template": "qwen",
                            "stream": False})
    eng = RemoteEngine(cfg, on_event=lambda *a: events.append(a))
    for _ in range(BACKOFF_AFTER):
        assert eng.complete(request()).error
    assert len(stub.seen) == BACKOFF_AFTER and eng.health.backing_off() > 0
    comp = eng.complete(request())                     # backing off: no request at all
    assert comp.text == "" and "retrying in" in comp.error and len(stub.seen) == BACKOFF_AFTER
    assert [e[2] for e in events] == [True, False, False]   # the status changed once
    failing = False
    time.sleep(0.35)
    assert eng.complete(request()).text == "width * height"
    assert eng.unreachable is None and events[-1][2] is True and "answers again" in events[-1][1]


def test_should_stop_closes_the_connection(stub: Stub):
    stub.answer = lambda seen: Reply(events=openai_chunks(*["w"] * 100), delay_s=0.05)
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="qwen")
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    t0 = time.monotonic()
    assert eng.complete(request(), should_stop=stop.is_set) is None      # stopped: as the local Cancelled
    assert time.monotonic() - t0 < 0.4
    assert stub.closed_early.wait(3) and eng.stats["cancelled"] == 1 and eng.unreachable is None


def test_keep_alive_and_a_connection_the_server_closed(stub: Stub):
    eng = engine("openai-completions", stub.url + "/v1", model="m", template="qwen", stream=False)
    eng.complete(request())
    eng.complete(request())
    assert stub.seen[0].port == stub.seen[1].port                  # one connection, kept alive
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height"}]}, headers={"Connection": "close"})
    eng.complete(request())
    stub.answer = lambda seen: Reply(json={"choices": [{"text": "width * height"}]})
    assert eng.complete(request()).text == "width * height"        # a fresh connection after a close
    assert stub.seen[3].port != stub.seen[2].port


def test_fallback_to_the_local_model(stub: Stub):
    class Local:
        calls = 0

        def complete(self, req, should_stop=None, on_step=None):
            Local.calls += 1
            return "local answer"

        def forget(self, uri):
            pass
    stub.answer = lambda seen: Reply(status=500, json={"error": {"message": "down"}})
    cfg, _ = parse_backend({"kind": "mercury", "url": stub.url + "/v1", "fallback": "local", "stream": False})
    eng = RemoteEngine(cfg, local=Local(), on_event=lambda *a: None)
    assert eng.complete(request()) == "local answer" and Local.calls == 1 and eng.stats["fallback"] == 1
