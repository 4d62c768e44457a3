"""The HTTP API under hostile input (issue 44, part 2): one-request reproducers through a real
`redraft serve --http` process (raw sockets for malformed HTTP and slow clients), and the short
form of bench/http_fuzz.py."""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx
import pytest

from test_http_api import ROOT, start

TIMEOUT = 2.0      # the server's --request-timeout here
APPLY = ("<|original_code|>\ndef add(a, b):\n    return a + b\n<|/original_code|>\n"
         "<|update_snippet|>\ndef add(a, b):\n    return b + a\n<|/update_snippet|>")
EDIT = ("<|current_file_content|>\ncurrent_file_path: calc.py\ndef total(prices):\n<|code_to_edit|>\n"
        "    subtotal = 0\n    for p in prices:<|cursor|>\n        amount += p\n    return amount\n"
        "<|/code_to_edit|>\n<|/current_file_content|>\n<|edit_diff_history|>\n--- calc.py\n+++ calc.py\n"
        "@@ -2 +2 @@\n-    amount = 0\n+    subtotal = 0\n<|/edit_diff_history|>")


@pytest.fixture(scope="module")
def server():
    proc, base = start("--request-timeout", str(TIMEOUT), "--max-queue", "4")
    yield proc, base, int(base.rsplit(":", 1)[1])
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    err = proc.stderr.read()
    assert "Traceback" not in err, err[-2000:]


def is_openai_error(r, status: int) -> dict:
    assert r.status_code == status, (r.status_code, r.text[:300])
    e = r.json()["error"]
    assert set(e) == {"message", "type", "param", "code"} and "\n" not in e["message"]
    return e


def post(base: str, path: str, content: bytes | str, timeout: float = 30):
    return httpx.post(base + path, content=content.encode() if isinstance(content, str) else content,
                      timeout=timeout)


def msg(content: str, **extra) -> str:
    return json.dumps({"model": "redraft", "messages": [{"role": "user", "content": content}], **extra})


def raw(port: int, data: bytes, wait: float = 20) -> tuple[float, bytes]:
    """Sends data on a new connection; (seconds until the server closed it, what it answered)."""
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    s.sendall(data)
    out = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            out += c
    except socket.timeout:
        out += b"<still open>"
    s.close()
    return time.time() - t0, out


# ------------------------------------------------------------------- bad input: 4xx, not 500

@pytest.mark.parametrize("path,content,needle", [
    ("/v1/edit/completions", msg("no tags at all"), "current_file_content"),
    ("/v1/edit/completions", msg(EDIT.replace("<|/current_file_content|>", "")), "not closed"),
    ("/v1/edit/completions", msg(EDIT.replace("<|cursor|>", "")), "cursor"),
    ("/v1/edit/completions", msg(EDIT.replace("@@ -2 +2 @@\n-    amount = 0\n+    subtotal = 0\n",
                                              "@@ -1,3 +1,3 @@\n-x\n")), "ends early"),
    ("/v1/apply/completions", msg("<|original_code|>x"), "not closed"),
    ("/v1/apply/completions", msg("nothing here"), "original_code"),
], ids=["edit-missing", "edit-unclosed", "edit-no-cursor", "history-ends-early", "apply-unclosed", "apply-missing"])
def test_mercury_prompts_it_cannot_read_are_400(server, path, content, needle):
    e = is_openai_error(post(server[1], path, content), 400)
    assert needle in e["message"] and e["param"] == "messages"


@pytest.mark.parametrize("body,param", [
    ('{"model":"redraft","prompt":' + "[" * 5000 + "]" * 5000 + "}", None),
    ('{"model":"redraft","prompt":"x","max_tokens":' + "9" * 5000 + "}", None),
    ('{"model":"redraft","prompt":"x = \\ud800"}', "prompt"),
    ('{"model":"redraft","prompt":"x = 1","suffix":"\\udfff","language":"python"}', "suffix"),
    ('{"model":"redraft","prompt":"x","max_tokens":true}', "max_tokens"),
], ids=["nested-5000", "int-5000-digits", "surrogate-prompt", "surrogate-suffix-language", "max-tokens-bool"])
def test_bad_bodies_are_400(server, body, param):
    e = is_openai_error(post(server[1], "/v1/completions", body), 400)
    assert e["param"] == param


def test_a_lone_surrogate_in_messages_is_400(server):
    body = msg(APPLY).replace("return b + a", "return b + a\\ud800")
    e = is_openai_error(post(server[1], "/v1/apply/completions", body), 400)
    assert e["param"] == "messages"


def test_a_stream_with_a_lone_surrogate_is_refused_before_its_200(server):
    r = post(server[1], "/v1/completions",
             '{"model":"redraft","prompt":"x = \\ud800","language":"python","stream":true}')
    is_openai_error(r, 400)


# ------------------------------------------------------------------- errors in OpenAI's shape

def test_404_and_405_are_openai_errors(server):
    base = server[1]
    assert is_openai_error(httpx.get(base + "/v1/nope"), 404)["code"] == "not_found"
    assert is_openai_error(httpx.post(base + "/v1/models"), 405)["code"] == "method_not_allowed"


def test_malformed_http_is_an_openai_error(server):
    _, out = raw(server[2], b"GARBAGE\r\n\r\n")
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"application/json" in head
    assert json.loads(body)["error"]["code"] == "invalid_http"


# ------------------------------------------------------------------- slow clients

@pytest.mark.parametrize("data", [b"POST /v1/completions HTTP/1.1\r\nHost: a\r\n",
                                  b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{\"mo"],
                         ids=["half-header", "half-body"])
def test_an_incomplete_request_is_closed_after_the_timeout(server, data):
    seconds, out = raw(server[2], data)
    assert TIMEOUT - 0.2 < seconds < TIMEOUT + 2, seconds
    assert out.startswith(b"HTTP/1.1 408")
    assert json.loads(out.partition(b"\r\n\r\n")[2])["error"]["code"] == "request_timeout"


# ------------------------------------------------------------------- the loop is never blocked

def test_a_large_apply_without_language_does_not_block_other_requests(server):
    base = server[1]
    unit = "def f(x):\n    return x + 1\n\n\n"
    original = unit * (1_400_000 // len(unit))
    big = msg(f"<|original_code|>\n{original}<|/original_code|>\n<|update_snippet|>\ndef g(y):\n"
              "    return y\n<|/update_snippet|>")
    out = {}
    t = threading.Thread(target=lambda: out.update(r=post(base, "/v1/apply/completions", big, timeout=60)))
    t.start()
    time.sleep(0.5)
    worst = 0.0
    while t.is_alive():
        t0 = time.time()
        assert httpx.get(base + "/v1/models", timeout=10).status_code == 200
        worst = max(worst, time.time() - t0)
        time.sleep(0.1)
    t.join()
    assert worst < 1.0, worst
    assert out["r"].status_code in (200, 422, 429), out["r"].text[:300]
    if out["r"].status_code != 200:
        is_openai_error(out["r"], out["r"].status_code)


def test_an_apply_over_the_merge_limit_is_refused_at_once(server):
    original = "x = 1\n" * (2_200_000 // 6)
    t0 = time.time()
    r = post(server[1], "/v1/apply/completions", msg(f"<|original_code|>\n{original}<|/original_code|>\n"
                                                       "<|update_snippet|>\nx = 2\n<|/update_snippet|>"))
    assert is_openai_error(r, 422)["code"] == "apply_refused" and time.time() - t0 < 5


# ------------------------------------------------------------------- streams under load

def test_streams_under_load_are_refused_before_their_200(server):
    base = server[1]
    body = {"model": "redraft", "prompt": "def f(x):\n    return ", "max_tokens": 8, "effort": "instant",
            "stream": True}
    results = []

    def one() -> None:
        with httpx.stream("POST", base + "/v1/completions", json=body, timeout=60) as r:
            results.append((r.status_code, [l for l in r.iter_lines() if l.startswith("data: ")]))

    threads = [threading.Thread(target=one) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {s for s, _ in results} <= {200, 429} and 200 in {s for s, _ in results}
    for status, lines in results:
        if status == 200:
            assert lines[-1] == "data: [DONE]" and not any('"error"' in l for l in lines)


# ------------------------------------------------------------------- shutdown

def test_sigterm_stops_the_server_with_a_slow_client_open():
    proc, base = start("--request-timeout", "60")
    port = int(base.rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{")
    s2 = socket.create_connection(("127.0.0.1", port))
    s2.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: a\r\n")
    time.sleep(0.5)
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
    s.close()
    s2.close()
    assert code == 0 and time.time() - t0 < 10


# ------------------------------------------------------------------- the fuzzer, short

def test_the_short_fuzz_run_finds_nothing():
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "http_fuzz.py"), "--seed", "3", "--requests", "40",
                          "--small", "--seconds", "90"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    report = json.loads(out.stdout)
    assert report["ok"], json.dumps(report["violations"], indent=1)
    assert report["answered"] == 40 and report["sigterm_exit_code"] == 0
