"""The HTTP API (lsp_server/http) through the real `redraft serve --http` on a loopback port, driven
by the official `openai` client where it has the call, by httpx for Mercury's endpoints and raw
requests.  What it answers is checked against the engine run in this process on the same text."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import openai
import pytest

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "import sys\n\n\ndef read(path):\n    with open(path) as f:\n        return f."
SUFFIX = "\n\n\nprint(read(sys.argv[1]))\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*extra: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "redraft", "serve", "--http", f"127.0.0.1:{port}", *extra],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}: {proc.stderr.read()}")
        try:
            httpx.get(f"{base}/v1/models", timeout=1, headers={"Authorization": "Bearer sekret"})
            return proc, base
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def server():
    proc, base = start("--max-queue", "4")
    yield base
    stop(proc)


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def expected():
    """The engine in this process: the text to insert between PREFIX and SUFFIX."""
    from redraft.http.jobs import complete_job as _complete
    from redraft.engine.pipeline import Engine
    engine = Engine(None, threads=1)
    return _complete(engine, (PREFIX, SUFFIX, "low", 32, "python", (), None, 0.0), None, None)


def stats(base: str) -> dict:
    return httpx.get(f"{base}/v1/redraft/stats").json()


def test_models_lists_the_one_model(client):
    assert [m.id for m in client.models.list()] == ["redraft"]


def test_completion_with_prompt_and_suffix_is_the_engines(client, expected):
    out = client.completions.create(model="redraft", prompt=PREFIX, suffix=SUFFIX, max_tokens=32)
    assert out.object == "text_completion" and out.choices[0].finish_reason == "stop"
    assert out.choices[0].text == expected and expected.strip()


@pytest.mark.parametrize("prompt", [
    f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",                      # Qwen (Zed)
    f"<|repo_name|>r\n<|file_sep|>a.py\n<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",
    f"[SUFFIX]{SUFFIX}[PREFIX]{PREFIX}",                                                  # Codestral
    f"<fim_prefix>{PREFIX}<fim_suffix>{SUFFIX}<fim_middle>",                              # StarCoder
], ids=["qwen", "qwen-repo", "codestral", "starcoder"])
def test_fill_in_the_middle_prompts_are_recognised(client, expected, prompt):
    out = client.completions.create(model="redraft", prompt=prompt, max_tokens=32)
    assert out.choices[0].text == expected


def test_mercury_fim_endpoint_with_stop(server, expected):
    r = httpx.post(f"{server}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 32})
    assert r.status_code == 200 and r.json()["choices"][0]["text"] == expected
    cut = expected[1:2] or "x"
    r = httpx.post(f"{server}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "stop": [cut]})
    assert r.json()["choices"][0]["text"] == expected.split(cut)[0]


def test_streaming_sends_the_answer_then_done(client, expected):
    chunks = list(client.completions.create(model="redraft", prompt=PREFIX, suffix=SUFFIX, max_tokens=32,
                                            stream=True))
    assert "".join(c.choices[0].text for c in chunks) == expected
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_a_diffusing_stream_sends_every_draft_then_the_answer(server, expected):
    with httpx.stream("POST", f"{server}/v1/completions", timeout=60, json={
            "model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 32, "stream": True,
            "diffusing": True, "effort": "medium"}) as r:
        lines = [l for l in r.iter_lines() if l.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    events = [json.loads(l[6:]) for l in lines[:-1]]
    assert len(events) >= 3 and all(e["diffusing"] for e in events)
    assert [e["choices"][0]["finish_reason"] for e in events[:-1]] == [None] * (len(events) - 1)
    assert events[-1]["choices"][0]["text"] == expected


def test_a_client_that_disconnects_stops_the_denoising(server):
    before = stats(server)["cancelled"]
    with httpx.stream("POST", f"{server}/v1/completions", timeout=60, json={
            "model": "redraft", "prompt": PREFIX * 40, "suffix": SUFFIX, "max_tokens": 128, "stream": True,
            "diffusing": True, "effort": "max"}) as r:
        next(l for l in r.iter_lines() if l.startswith("data: "))      # the first draft, then hang up
    deadline = time.time() + 10
    while stats(server)["cancelled"] == before and time.time() < deadline:
        time.sleep(0.05)
    assert stats(server)["cancelled"] == before + 1


def test_errors_in_openai_shape(server, client):
    r = httpx.post(f"{server}/v1/completions", content=b"{not json", timeout=10)
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json"
    with pytest.raises(openai.NotFoundError) as e:
        client.completions.create(model="gpt-4", prompt="x")
    assert "redraft" in str(e.value)
    r = httpx.post(f"{server}/v1/completions", timeout=10,
                   content=json.dumps({"model": "redraft", "prompt": "x" * (5 * 1024 * 1024)}).encode())
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"
    r = httpx.post(f"{server}/v1/completions", json={"model": "redraft", "prompt": "x", "effort": "huge"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "effort"
    r = httpx.post(f"{server}/v1/edit/completions", json={"model": "redraft", "messages": []})
    assert r.status_code == 400 and r.json()["error"]["param"] == "messages"


def test_fifty_concurrent_requests_are_answered_or_refused_with_429(tmp_path):
    """Fifty requests at once against a queue of 4: exactly max_queue + 1 = 5 are admitted and
    answered, the other 45 refused at once with 429 and Retry-After, each counted once.  No timing
    assumption: the server runs with the runner's test hold (runner.HOLD_ENV), so no admitted job
    starts until every refusal has been seen, however slow the machine; then the hold is lifted
    (the time held does not count against a job's deadline)."""
    hold = tmp_path / "hold"
    hold.write_text("")
    proc, base = start("--max-queue", "4", env={"REDRAFT_HTTP_TEST_HOLD": str(hold)})
    codes: list[int] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        r = httpx.post(f"{base}/v1/completions", timeout=300,
                       json={"model": "redraft", "prompt": PREFIX + f"# {i}\n", "max_tokens": 16})
        assert r.status_code in (200, 429), r.text
        if r.status_code == 429:
            assert r.json()["error"]["code"] == "rate_limit_exceeded" and int(r.headers["retry-after"]) >= 1
        else:
            assert isinstance(r.json()["choices"][0]["text"], str)
        with lock:
            codes.append(r.status_code)

    try:
        before = stats(base)
        threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        limit = time.time() + 240       # a guard against a hang, not a timing assumption
        while time.time() < limit:
            s = stats(base)
            with lock:
                got = len(codes)
            if got == 45 and s["refused_busy"] - before["refused_busy"] == 45 and s["pending"] == 5:
                break
            time.sleep(0.05)
        with lock:
            assert codes == [429] * 45      # every refusal answered while the five wait
        hold.unlink()
        for t in threads:
            t.join()
        assert len(codes) == 50 and codes.count(200) == 5 and codes.count(429) == 45
        after = stats(base)                     # every request counted once: served or refused
        assert after["completed"] - before["completed"] == 5
        assert after["refused_busy"] - before["refused_busy"] == 45 and after["pending"] == 0
    finally:
        if hold.exists():
            hold.unlink()
        stop(proc)


def test_mercury_next_edit_carries_a_rename(server):
    content = ("<|current_file_content|>\ncurrent_file_path: calc.py\n"
               "def total(prices):\n<|code_to_edit|>\n    subtotal = 0\n    for p in prices:<|cursor|>\n"
               "        amount += p\n    return amount\n<|/code_to_edit|>\n<|/current_file_content|>\n"
               "<|edit_diff_history|>\n--- calc.py\n+++ calc.py\n@@ -2 +2 @@\n-    amount = 0\n+    subtotal = 0\n"
               "<|/edit_diff_history|>")
    r = httpx.post(f"{server}/v1/edit/completions", timeout=30,
                   json={"model": "redraft", "messages": [{"role": "user", "content": content}]})
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "edit.completion"
    assert body["choices"][0]["message"]["content"] == \
        "    subtotal = 0\n    for p in prices:\n        subtotal += p\n    return subtotal"


def test_mercury_apply_merges_and_refuses_with_422(server):
    original = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    snippet = "# ... existing code ...\ndef b():\n    return 3\n"
    content = f"<|original_code|>\n{original}<|/original_code|>\n<|update_snippet|>\n{snippet}<|/update_snippet|>"
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30,
                   json={"model": "redraft", "messages": [{"role": "user", "content": content}]})
    assert r.status_code == 200
    assert r.json()["choices"][0]["message"]["content"] == original.replace("return 2", "return 3")
    bad = content.replace("def b():\n    return 3", "def zzz():\n    return 3\n# ... existing code ...\ndef q():")
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30,
                   json={"model": "redraft", "messages": [{"role": "user", "content": bad}]})
    assert r.status_code == 422 and r.json()["error"]["code"] == "apply_refused"


def test_mercury_apply_reports_deletions_and_keeps_unmarked_lines_on_request(server):
    """The snippet's unmarked omission at the file's end is deleted and reported in `deletions`
    (the merge of `redraft apply`); `keep_unmarked: true` keeps those lines, as --keep-unmarked."""
    original = "import os\n\n\ndef a():\n    return 1\n\n\nclass Old:\n    pass\n"
    snippet = "# ... existing code ...\ndef a():\n    return 2\n"
    content = f"<|original_code|>\n{original}<|/original_code|>\n<|update_snippet|>\n{snippet}<|/update_snippet|>"
    msg = [{"role": "user", "content": content}]
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30, json={"model": "redraft", "messages": msg})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["choices"][0]["message"]["content"] == "import os\n\n\ndef a():\n    return 2\n"
    (gone,) = body["deletions"]
    assert "Old" in gone["summary"] and gone["lines"] >= 2
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30,
                   json={"model": "redraft", "messages": msg, "keep_unmarked": True})
    assert r.json()["choices"][0]["message"]["content"] == original.replace("return 1", "return 2")
    assert r.json()["deletions"] == []
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30,
                   json={"model": "redraft", "messages": msg, "keep_unmarked": "yes"})
    assert r.status_code == 400 and r.json()["error"]["param"] == "keep_unmarked"


def test_mercury_apply_warns_of_lines_the_grammar_cannot_read(server):
    """TypeScript overloads whose call signature returns a function type, which
    tree-sitter-typescript reads with an ERROR: merged as written, named in `warnings`."""
    from test_apply_grammar_gaps import GAPS, _snippet
    marker, before, old, new, after, gap = GAPS["typescript"]
    original, snippet = before + gap + old + gap + after, _snippet(marker, before, new, after, gap)
    content = f"<|original_code|>\n{original}<|/original_code|>\n<|update_snippet|>\n{snippet}<|/update_snippet|>"
    r = httpx.post(f"{server}/v1/apply/completions", timeout=30, json={
        "model": "redraft", "language": "typescript", "messages": [{"role": "user", "content": content}]})
    assert r.status_code == 200, r.text
    assert r.json()["choices"][0]["message"]["content"] == before + gap + new + gap + after
    assert r.json()["warnings"] == ["lines 4-5 do not parse (typescript grammar); merged as the snippet wrote them"]


def test_an_api_key_is_required_when_set_and_compared():
    proc, base = start("--api-key", "sekret")
    try:
        good = openai.OpenAI(base_url=f"{base}/v1", api_key="sekret", max_retries=0)
        assert [m.id for m in good.models.list()] == ["redraft"]
        for key in ("wrong", "sekret-and-more"):
            with pytest.raises(openai.AuthenticationError):
                openai.OpenAI(base_url=f"{base}/v1", api_key=key, max_retries=0).models.list()
        assert httpx.get(f"{base}/v1/models").status_code == 401
    finally:
        stop(proc)


def test_a_non_loopback_bind_without_a_key_is_refused():
    p = subprocess.run([sys.executable, "-m", "redraft", "serve", "--http", f"0.0.0.0:{free_port()}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env={k: v for k, v in os.environ.items() if k != "REDRAFT_API_KEY"})
    assert p.returncode == 2 and "API key" in p.stderr


def test_beside_the_language_server_the_api_uses_its_engine():
    """`redraft serve --stdio --http`: an editor's language server and the HTTP API in one process
    on one engine: the API waits for the editor's initialize, then answers as the editor's
    completion does for the same text."""
    from redraft.lsp.convert import LineIndex
    from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    client = JsonRpcStdioClient(SERVE_CMD + ["--stdio", "--http", f"127.0.0.1:{port}"], timeout=120)
    try:
        deadline = time.time() + 30
        while True:
            try:
                early = httpx.post(f"{base}/v1/fim/completions", timeout=5,
                                   json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX})
                break
            except httpx.TransportError:
                assert time.time() < deadline
                time.sleep(0.1)
        assert early.status_code == 503 and "initialized" in early.json()["error"]["message"]
        client.initialize({"gate": "always"})   # the editor shows every draft, as the API answers it
        uri = "file:///beside/read.py"
        text = PREFIX + SUFFIX
        client.open_document(uri, text)
        pos = LineIndex(text).position(len(PREFIX))
        lsp = client.request("textDocument/inlineCompletion", {
            "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
            "context": {"triggerKind": 1}})
        items = lsp["items"] if isinstance(lsp, dict) else lsp
        r = httpx.post(f"{base}/v1/fim/completions", timeout=60,
                       json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "language": "python"})
        assert r.status_code == 200
        assert items and r.json()["choices"][0]["text"] == items[0]["insertText"]
    finally:
        if client.proc.poll() is None:
            client.proc.kill()
