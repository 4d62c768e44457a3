"""Operating the HTTP API (issue 46, part 3) through a real server (`redraft serve --http`
with the operations flags): the keys file and `redraft keys` (hashes only,
mode 0600, a revoked key refused at once), per-key rate limits (429 with Retry-After), /health
without a key, /metrics in Prometheus's text format (parsed by prometheus_client's parser), the
JSON access log without code or keys, and SIGTERM finishing the answer in flight."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

import httpx
import pytest

from test_http_api import PREFIX, ROOT, SUFFIX, free_port


def keys(path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "redraft", "keys", "--file", str(path), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=30)


def serve(*args: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "redraft", "serve", "--http", f"127.0.0.1:{port}", *args],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}: {proc.stderr.read()}")
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return proc, base
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    d = tmp_path_factory.mktemp("ops")
    kf, log = d / "keys.json", d / "access.log"
    alice = keys(kf, "add", "alice").stdout.strip()
    bob = keys(kf, "add", "bob", "--rate", "1", "--burst", "2").stdout.strip()
    proc, base = serve("--keys-file", str(kf), "--access-log", str(log), "--max-queue", "8")
    yield {"proc": proc, "base": base, "keys": kf, "log": log, "alice": alice, "bob": bob}
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def auth(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def test_the_keys_file_holds_hashes_only_and_list_shows_no_secret(ops):
    kf, alice = ops["keys"], ops["alice"]
    assert alice.startswith("rdk-") and len(alice) > 40
    assert stat.S_IMODE(os.stat(kf).st_mode) == 0o600
    text = kf.read_text()
    assert alice not in text and ops["bob"] not in text and '"sha256"' in text
    out = keys(kf, "list")
    assert out.returncode == 0 and "alice" in out.stdout and "bob" in out.stdout and "rate 1/s" in out.stdout
    stored = json.loads(text)["keys"][0]["sha256"]
    assert alice not in out.stdout + out.stderr and stored not in out.stdout + out.stderr
    assert keys(kf, "add", "alice").returncode == 1                   # one key a name
    assert keys(kf, "add", "no spaces").returncode == 2
    assert keys(kf, "revoke", "nobody").returncode == 1


def test_every_route_but_health_needs_a_known_key(ops):
    base = ops["base"]
    assert httpx.get(f"{base}/health").json()["status"] == "ok"
    assert httpx.get(f"{base}/v1/models").status_code == 401
    assert httpx.get(f"{base}/v1/models", headers=auth(ops["alice"] + "x")).status_code == 401
    assert httpx.get(f"{base}/metrics").status_code == 401
    assert httpx.get(f"{base}/api/tags").json() == {
        "error": "missing or wrong API key: send `Authorization: Bearer <key>`"}
    assert httpx.get(f"{base}/v1/models", headers=auth(ops["alice"])).status_code == 200


def test_a_revoked_key_is_refused_at_once(ops):
    base, kf = ops["base"], ops["keys"]
    carol = keys(kf, "add", "carol").stdout.strip()
    assert httpx.get(f"{base}/v1/models", headers=auth(carol)).status_code == 200   # added: accepted at once
    assert keys(kf, "revoke", "carol").returncode == 0
    r = httpx.get(f"{base}/v1/models", headers=auth(carol))                         # no wait, no reload signal
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
    assert httpx.get(f"{base}/v1/models", headers=auth(ops["alice"])).status_code == 200


def test_a_key_over_its_rate_limit_gets_429_with_retry_after(ops):
    """bob: 1 request a second, 2 at once.  A llama.cpp warm-up (n_predict 0) costs no model time."""
    base, bob = ops["base"], ops["bob"]
    warm = {"input_prefix": "", "input_suffix": "", "prompt": "", "n_predict": 0}
    codes = [httpx.post(f"{base}/infill", json=warm, headers=auth(bob)) for _ in range(3)]
    assert [r.status_code for r in codes[:2]] == [200, 200]
    assert codes[2].status_code == 429 and codes[2].json()["error"]["code"] == "rate_limit_exceeded"
    assert int(codes[2].headers["Retry-After"]) >= 1
    r = httpx.post(f"{base}/api/generate", json={"model": "redraft"}, headers=auth(bob))
    assert r.status_code == 429 and isinstance(r.json()["error"], str)             # Ollama's shape
    assert httpx.post(f"{base}/infill", json=warm, headers=auth(ops["alice"])).status_code == 200   # per key


def test_metrics_parse_as_prometheus_text(ops):
    parser = pytest.importorskip("prometheus_client.parser")        # the dev extra
    base, alice = ops["base"], ops["alice"]
    r = httpx.post(f"{base}/v1/completions", headers=auth(alice), timeout=60,
                   json={"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 16})
    assert r.status_code == 200
    text = httpx.get(f"{base}/metrics", headers=auth(alice)).text
    families = {f.name: f for f in parser.text_string_to_metric_families(text)}
    requests = {(s.labels["route"], s.labels["status"]): s.value for s in families["redraft_http_requests"].samples}
    assert requests[("/v1/completions", "200")] >= 1 and requests[("/v1/models", "401")] >= 1
    hist = families["redraft_http_request_duration_seconds"]
    assert hist.type == "histogram"
    count = [s for s in hist.samples if s.name.endswith("_count") and s.labels["route"] == "/v1/completions"]
    assert count and count[0].value >= 1
    assert families["redraft_queue_depth"].samples[0].value == 0
    tokens = {s.labels["kind"]: s.value for s in families["redraft_tokens"].samples}
    assert tokens["prompt"] > 0 and tokens["completion"] > 0
    assert families["redraft_rate_limited"].samples[0].value >= 1
    assert families["redraft_auth_failures"].samples[0].value >= 1
    events = {s.labels["event"]: s.value for s in families["redraft_runner_events"].samples}
    assert events["completed"] >= 1


def test_the_access_log_has_names_not_keys_or_code(ops):
    lines = [json.loads(line) for line in ops["log"].read_text().splitlines()]
    assert lines and all({"time", "route", "method", "status", "ms", "key"} <= e.keys() for e in lines)
    assert {"alice", "bob"} <= {e["key"] for e in lines} and None in {e["key"] for e in lines}
    assert any(e["route"] == "/v1/completions" and e["status"] == 200 and e["key"] == "alice" for e in lines)
    raw = ops["log"].read_text()
    for secret in (ops["alice"], ops["bob"], "def read(path)", "sys.argv", "Bearer"):
        assert secret not in raw


async def test_log_bodies_adds_the_request_body_and_never_the_key():
    """`--log-bodies` (metrics.Observed around a small Starlette app in this process): the body is
    logged, the Authorization header is not; a route the app does not have is logged as "other"."""
    import io

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from redraft.http.metrics import AccessLog, Metrics, Observed

    async def echo(request):
        request.scope["state"]["key"] = "alice"
        return JSONResponse({"n": len(await request.body())})

    out = io.StringIO()
    app = Observed(Starlette(routes=[Route("/v1/completions", echo, methods=["POST"])]), Metrics(),
                   {"/v1/completions"}, AccessLog(out, bodies=True))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as c:
        r = await c.post("/v1/completions", json={"prompt": "def secret_sauce():"}, headers=auth("rdk-SECRET"))
        await c.get("/nowhere/12345")
    assert r.status_code == 200
    first, second = [json.loads(line) for line in out.getvalue().splitlines()]
    assert first["key"] == "alice" and "secret_sauce" in first["body"] and first["status"] == 200
    assert second["route"] == "other" and second["status"] == 404
    assert "rdk-SECRET" not in out.getvalue()


def test_a_bad_keys_file_stops_the_server_before_it_starts(tmp_path):
    bad = tmp_path / "keys.json"
    bad.write_text('{"keys": [{"name": "x"}]}')
    p = subprocess.run([sys.executable, "-m", "redraft", "serve", "--http", f"127.0.0.1:{free_port()}",
                        "--keys-file", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "sha256" in p.stderr and len(p.stderr.strip().splitlines()) == 1


def test_sigterm_finishes_the_answer_in_flight_then_exits_0(ops):
    """Last: this stops the module's server.  A streamed completion is admitted, SIGTERM arrives;
    the listening socket closes while the answer is still denoised to the end (not cut: a cut one
    is empty), and the process exits 0."""
    proc, base, alice = ops["proc"], ops["base"], ops["alice"]
    out: dict = {}
    started = threading.Event()

    def one() -> None:
        with httpx.stream("POST", f"{base}/v1/completions", headers=auth(alice), timeout=60, json={
                "model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 32, "stream": True}) as r:
            out["status"] = r.status_code       # the 200 comes once the request is admitted, before its answer
            started.set()
            out["events"] = [line[6:] for line in r.iter_lines() if line.startswith("data: ")]

    t = threading.Thread(target=one)
    t.start()
    assert started.wait(30)
    proc.send_signal(signal.SIGTERM)
    refused = False
    while t.is_alive() or not refused:
        try:
            httpx.get(f"{base}/health", timeout=1)
        except httpx.TransportError:
            refused = True
            break
        time.sleep(0.02)
    t.join(60)
    assert refused
    assert out["status"] == 200 and out["events"][-1] == "[DONE]"
    last = json.loads(out["events"][-2])["choices"][0]
    assert last["finish_reason"] == "stop" and last["text"].strip()
    assert proc.wait(30) == 0


def test_batch_and_thread_flags_are_checked():
    """`--max-batch N` / `--threads N` reach the runner; nonsense is a one-line exit 2, no model loaded."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "redraft", "serve", "--http", "127.0.0.1:0", "--max-batch", "0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--max-batch must be >= 1" in r.stderr
