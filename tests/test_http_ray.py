"""The HTTP API on Ray Serve (lsp_server/http/ray_app.py, issue 46 part 4): a local Ray instance
started here, two replicas of the deployment, each with its own engine, and every wire format
answered as a plain `redraft serve --http` answers it (same model, same request: the same text).
Skipped when ray is not installed (`pip install 'redraft[serve]'`; `make test-serve`)."""
from __future__ import annotations

import json
import time
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.serve")

from test_http_api import PREFIX, SUFFIX, free_port, start, stop  # noqa: E402

N = 32
LINE_START = PREFIX.rindex("\n") + 1
ORIGINAL = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
APPLY = (f"<|original_code|>\n{ORIGINAL}<|/original_code|>\n<|update_snippet|>\n"
         "# ... existing code ...\ndef b():\n    return 3\n<|/update_snippet|>")
READY_S = 600          # replicas load their model on a shared 2-core machine: generous
WAIT_S = 180           # a replica busy with a request gets none of the router's: wait for it generously


@pytest.fixture(scope="module")
def plain():
    proc, base = start("--max-queue", "8")
    yield base
    stop(proc)


@pytest.fixture(scope="module")
def ray_base(plain):
    from redraft.http import ray_app
    port = free_port()
    try:
        base = ray_app.start(port, address="local", replicas=2, num_cpus=1, max_queue=8, timeout_s=READY_S,
                             ray_init={"num_cpus": 2, "include_dashboard": False, "log_to_driver": False,
                                       "object_store_memory": 200 * 1024 * 1024, "logging_level": "WARNING"})
        yield base
    finally:
        ray_app.stop()
        left = subprocess.run(["pgrep", "-f", "ray::|raylet|gcs_server"], capture_output=True, text=True).stdout
        if left.strip():      # a Ray process still there: end this test's instance
            ray_cli = str(Path(sys.executable).parent / "ray")
            subprocess.run([ray_cli, "stop", "--force"], capture_output=True, timeout=60)


def sse(r: httpx.Response) -> list[str]:
    return [line[6:] for line in r.iter_lines() if line.startswith("data: ")]


def _openai_text(r: httpx.Response, stream: bool) -> str:
    if not stream:
        return r.json()["choices"][0]["text"]
    events = sse(r)
    assert events[-1] == "[DONE]"
    return "".join(json.loads(e)["choices"][0]["text"] for e in events[:-1])


def _apply_text(r: httpx.Response, stream: bool) -> str:
    if not stream:
        return r.json()["choices"][0]["message"]["content"]
    events = sse(r)
    assert events[-1] == "[DONE]"
    return "".join(json.loads(e)["choices"][0]["delta"].get("content", "") for e in events[:-1])


def _infill_text(r: httpx.Response, stream: bool) -> str:
    if not stream:
        return r.json()["content"]
    return "".join(json.loads(e)["content"] for e in sse(r))


def _ollama_text(r: httpx.Response, stream: bool) -> str:
    lines = [json.loads(line) for line in r.iter_lines() if line.strip()]
    assert lines[-1]["done"] is True
    return "".join(line["response"] for line in lines)


CASES = {
    # OpenAI /v1/completions with prompt + suffix (Tabby, Continue, llm-ls, minuet, Zed)
    "openai": ("/v1/completions", {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": N,
                                   "temperature": 0.1}, _openai_text),
    "openai-stream": ("/v1/completions", {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": N,
                                          "stream": True}, _openai_text),
    "openai-fim-template": ("/v1/completions", {"model": "redraft", "max_tokens": N,
                                                "prompt": f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",
                                                "stop": ["<|endoftext|>"]}, _openai_text),
    # Mercury
    "mercury-fim": ("/v1/fim/completions", {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX,
                                            "max_tokens": N}, _openai_text),
    "mercury-apply": ("/v1/apply/completions", {"model": "redraft", "messages": [{"role": "user", "content": APPLY}]},
                      _apply_text),
    "mercury-apply-stream": ("/v1/apply/completions", {"model": "redraft", "stream": True,
                                                       "messages": [{"role": "user", "content": APPLY}]}, _apply_text),
    # llama.cpp /infill as llama.vim sends it
    "llama-infill": ("/infill", {"input_prefix": PREFIX[:LINE_START], "input_suffix": SUFFIX,
                                 "input_extra": [{"text": "def write(path, text):\n    pass\n", "filename": "util.py"}],
                                 "prompt": PREFIX[LINE_START:], "n_predict": N, "stop": [], "n_indent": 8,
                                 "stream": False, "cache_prompt": True, "response_fields": ["content", "truncated"]},
                     _infill_text),
    "llama-infill-stream": ("/infill", {"input_prefix": PREFIX[:LINE_START], "input_suffix": SUFFIX,
                                        "prompt": PREFIX[LINE_START:], "n_predict": N, "stream": True},
                            _infill_text),
    # Ollama /api/generate with suffix (Continue, Tabby, llm-ls)
    "ollama-stream": ("/api/generate", {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX,
                                        "options": {"temperature": 0.01, "num_predict": N}}, _ollama_text),
    "ollama": ("/api/generate", {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "stream": False,
                                 "options": {"num_predict": N}}, _ollama_text),
}


def _ask(base: str, path: str, body: dict, read) -> tuple[int, str, str, str | None]:
    with httpx.stream("POST", f"{base}{path}", json=body, timeout=120) as r:
        r.read()
        text = read(r, r.headers["content-type"].startswith("text/event-stream"))
        return r.status_code, r.headers["content-type"], text, r.headers.get("x-redraft-replica")


@pytest.mark.parametrize("case", list(CASES))
def test_each_format_answers_as_the_plain_server(plain, ray_base, case):
    path, body, read = CASES[case]
    want = _ask(plain, path, body, read)
    got = _ask(ray_base, path, body, read)
    assert want[0] == 200 and want[2].strip(), want
    assert got[:3] == want[:3]
    assert got[3]                     # answered by a replica of the deployment


def test_both_replicas_answer_with_the_same_text(ray_base):
    """Requests go to both replicas (Ray's router picks among them); each answers alike."""
    path, body, read = CASES["mercury-fim"]
    seen: dict[str, str] = {}
    for _ in range(64):
        r = httpx.get(f"{ray_base}/health", timeout=30)
        assert r.status_code == 200 and r.json()["status"] == "ok"
        seen.setdefault(r.headers["x-redraft-replica"], "")
        if len(seen) == 2:
            break
    assert len(seen) == 2
    texts = {}
    for _ in range(64):
        _, _, text, replica = _ask(ray_base, path, body, read)
        texts.setdefault(replica, text)
        if len(texts) == 2:
            break
    assert len(texts) == 2 and len(set(texts.values())) == 1


def test_health_models_and_errors_are_the_plain_servers(plain, ray_base):
    for base in (plain, ray_base):
        h = httpx.get(f"{base}/health", timeout=30)
        assert h.status_code == 200 and h.json()["status"] == "ok" and h.json()["model"] == "redraft"
    assert [m["id"] for m in httpx.get(f"{ray_base}/v1/models", timeout=30).json()["data"]] == ["redraft"]
    for method, path, body in (("POST", "/v1/fim/completions", {"model": "gpt-4", "prompt": "x"}),
                               ("POST", "/v1/fim/completions", {"model": "redraft", "prompt": 3}),
                               ("GET", "/v1/completions", None), ("GET", "/nowhere", None)):
        want = httpx.request(method, f"{plain}{path}", json=body, timeout=30)
        got = httpx.request(method, f"{ray_base}{path}", json=body, timeout=30)
        assert (got.status_code, got.json()["error"]) == (want.status_code, want.json()["error"])


def test_metrics_are_the_plain_servers_families(plain, ray_base):
    parser = pytest.importorskip("prometheus_client.parser")

    def families(base: str) -> dict[str, str]:
        r = httpx.get(f"{base}/metrics", timeout=30)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        return {f.name: f.type for f in parser.text_string_to_metric_families(r.text)}

    want = families(plain)
    assert want and families(ray_base) == want


def _until(get, done):
    """get() until done(it) (or WAIT_S has passed: the caller's assertion then says what was seen)."""
    deadline = time.monotonic() + WAIT_S
    value = get()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.05)
        value = get()
    return value


def _replica_stats(base: str, replica: str) -> dict:
    """/v1/redraft/stats of one replica (Ray's router picks one, never a busy one while the other is
    idle: asked until it is that one)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        r = httpx.get(f"{base}/v1/redraft/stats", timeout=30)
        if r.headers["x-redraft-replica"] == replica:
            return r.json()
        time.sleep(0.02)
    raise AssertionError(f"replica {replica} never answered /v1/redraft/stats")


def test_a_client_that_leaves_stops_its_denoising(plain, ray_base):
    """Through Ray's proxy, as on the plain server: a diffusing stream closed after its first
    draft stops at the next step (far fewer model passes than the whole answer takes)."""
    body = {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 128, "effort": "max",
            "stream": True, "diffusing": True}
    with httpx.stream("POST", f"{plain}/v1/completions", json=body, timeout=120) as r:
        steps = len(sse(r)) - 2               # every draft, then the answer and [DONE]
    assert steps > 8
    before = _both_stats(ray_base)            # both replicas' counters (Ray's router sends nothing
    with httpx.stream("POST", f"{ray_base}/v1/completions", json=body, timeout=120) as r:
        replica = r.headers["x-redraft-replica"]
        before = before[replica]             # to a replica busy with this stream)
        for line in r.iter_lines():
            if line.startswith("data: "):
                break                         # one draft: the client leaves
    after = _until(lambda: _replica_stats(ray_base, replica), lambda v: v["pending"] == 0)   # its work ends
    assert after["pending"] == 0 and after["cancelled"] == before["cancelled"] + 1
    if "batched_calls" in after:
        assert after["batched_calls"] - before["batched_calls"] < steps


def _both_stats(base: str, tries: int | None = None) -> dict[str, dict]:
    """Each replica's /v1/redraft/stats: both (waiting up to WAIT_S for the router to pick each),
    or those that answered within `tries` requests."""
    out: dict[str, dict] = {}
    deadline = time.monotonic() + WAIT_S
    n = 0
    while len(out) < 2 and (n < tries if tries is not None else time.monotonic() < deadline):
        r = httpx.get(f"{base}/v1/redraft/stats", timeout=30)
        out.setdefault(r.headers["x-redraft-replica"], r.json())
        n += 1
    assert tries is not None or len(out) == 2, "a replica never answered /v1/redraft/stats"
    return out


def test_zz_the_gpu_path_a_remote_model_behind_the_replicas(plain, ray_base):
    """Last (it replaces the deployment): the replicas answer through the `openai-completions`
    backend (as in front of SGLang or vLLM), here a real `redraft serve --http` behind them that
    gets the FIM prompt rendered with the Qwen template: the same text as asking it directly."""
    from redraft.engine.backends.config import from_flags
    from redraft.http import ray_app
    cfg, problems = from_flags("openai-completions", f"{plain}/v1", "redraft", None, 60000, "qwen", False, None, False)
    assert problems == []
    port = int(ray_base.rsplit(":", 1)[1])
    assert ray_app.start(port, replicas=1, num_cpus=0, backend=cfg, timeout_s=READY_S) == ray_base
    behind = httpx.get(f"{plain}/v1/redraft/stats", timeout=30).json()["requests"]
    for case in ("mercury-fim", "openai", "ollama"):
        path, body, read = CASES[case]
        want = _ask(plain, path, body, read)
        got = _ask(ray_base, path, body, read)
        assert got[:3] == want[:3]
    assert httpx.get(f"{plain}/v1/redraft/stats", timeout=30).json()["requests"] == behind + 6
