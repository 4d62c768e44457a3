"""HTTP API under hostile input (issue 44): a seeded, bounded fuzzer of `redraft serve --http`.

Starts the real server (or targets --base, loopback only), then sends hostile requests from a few
threads (bad JSON, deep nesting, long numbers, wrong types, lone surrogates and NUL, sizes near the
4 MB body limit and the 2 MB merge limit, Mercury prompts with missing or broken tags, unknown
routes and methods, malformed HTTP, disconnects, bursts of completions and streams) while a probe
thread sends valid requests (models, a small apply) whose latency is compared with their normal
time measured before; slow clients (a half-sent header, a half-sent body) must be closed after the
server's request timeout; at the end SIGTERM must stop the server within 10 s with exit status 0
(with a slow client and a large apply in flight).  Prints one JSON report; exit status 1 when a
check fails.

  .venv/bin/python bench/http_fuzz.py --seed 1 --requests 400          # about two minutes
  .venv/bin/python bench/http_fuzz.py --seed 1 --requests 40 --small   # the short form the tests run

Checks: the server stays alive; every request answered within 30 s; no 5xx but 503; every /v1 error
in OpenAI's shape {"error": {message, type, param, code}}; every stream that answered 200 ends with
`data: [DONE]` and carries no error event; probes within 1 s of their normal time (p50 before);
slow clients closed within the timeout + 3 s; SIGTERM exits 0 within 10 s.
"""
from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 4 * 1024 * 1024
MERGE_LIMIT = 2 * 1024 * 1024
ANSWER_S = 30.0
ROUTES = ["/v1/completions", "/v1/fim/completions", "/v1/edit/completions", "/v1/apply/completions"]
PY = "import os\n\n\ndef size(path):\n    return os.path."
EDIT = ("<|current_file_content|>\ncurrent_file_path: calc.py\ndef total(prices):\n<|code_to_edit|>\n"
        "    subtotal = 0\n    for p in prices:<|cursor|>\n        amount += p\n    return amount\n"
        "<|/code_to_edit|>\n<|/current_file_content|>\n<|edit_diff_history|>\n--- calc.py\n+++ calc.py\n"
        "@@ -2 +2 @@\n-    amount = 0\n+    subtotal = 0\n<|/edit_diff_history|>")
APPLY = ("<|original_code|>\ndef add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
         "<|/original_code|>\n<|update_snippet|>\ndef add(a, b):\n    return b + a\n<|/update_snippet|>")


# ------------------------------------------------------------------------------- the wire

def http(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None,
         timeout: float = ANSWER_S + 5, raw: bytes | None = None) -> dict:
    """One request on its own connection: {status, headers, body, seconds, error}."""
    t0 = time.time()
    out = {"status": None, "body": b"", "seconds": None, "error": None, "ctype": ""}
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if raw is None:
            h = {"Host": "127.0.0.1", "Content-Type": "application/json", "Content-Length": str(len(body)),
                 "Connection": "close", **(headers or {})}
            raw = (f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items())
                   + "\r\n").encode() + body
        s.sendall(raw)
        data = b""
        while True:
            c = s.recv(1 << 16)
            if not c:
                break
            data += c
        s.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        if lines and lines[0].startswith("HTTP/1.1 "):
            out["status"] = int(lines[0].split()[1])
            hd = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
            out["ctype"] = hd.get("content-type", "")
            if hd.get("transfer-encoding") == "chunked":
                rest = _dechunk(rest)
            out["body"] = rest
    except (OSError, ValueError) as e:
        out["error"] = f"{type(e).__name__}: {e}"
    out["seconds"] = time.time() - t0
    return out


def _dechunk(data: bytes) -> bytes:
    out, i = b"", 0
    while i < len(data):
        j = data.find(b"\r\n", i)
        if j < 0:
            break
        n = int(data[i:j].split(b";")[0] or b"0", 16)
        if n == 0:
            break
        out += data[j + 2:j + 2 + n]
        i = j + 2 + n + 2
    return out


def post(port: int, path: str, obj, **kw) -> dict:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    return http(port, "POST", path, body, **kw)


# ------------------------------------------------------------------------------- hostile requests

def hostile(rng: random.Random, small: bool) -> tuple[str, dict]:
    """(kind, how to send it): one hostile request."""
    route = rng.choice(ROUTES)
    big = 64 * 1024 if small else LIMIT
    kinds = ["bad_json", "deep", "long_int", "types", "surrogate", "nul", "tags", "history", "size",
             "route", "method", "malformed", "disconnect", "stream", "valid_odd", "content_length"]
    kind = rng.choice(kinds)
    msg = lambda c: {"model": "redraft", "messages": [{"role": "user", "content": c}]}  # noqa: E731
    if kind == "bad_json":
        body = rng.choice([b"{", b"{not json", b"[1,2", b"\xff\xfe{}", b"null", b"[]", b"\"x\"", b"{\"model\":",
                           bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))])
        return kind, {"post": (route, body)}
    if kind == "deep":
        d = rng.choice([50, 900, 1100, 5000, 20000])
        o, c = rng.choice([("[", "]"), ('{"a":', "}")])
        return kind, {"post": (route, ('{"model":"redraft","prompt":' + o * d + "1" + c * d + "}").encode())}
    if kind == "long_int":
        n = rng.choice([100, 4300, 4301, 5000, 50000])
        field = rng.choice(["max_tokens", "prompt", "temperature", "n"])
        return kind, {"post": (route, ('{"model":"redraft","' + field + '":' + "9" * n + "}").encode())}
    if kind == "types":
        weird = [True, False, None, 0, -1, 1.5, 10 ** 30, "x", [], [1], {}, {"a": 1}, ["a", 2], float("1e308")]
        body = {"model": rng.choice(["redraft"] * 4 + weird), "prompt": rng.choice([PY] * 2 + weird),
                "suffix": rng.choice(["\n"] + weird), "max_tokens": rng.choice([4, True] + weird),
                "stop": rng.choice([None, "\n"] + weird), "effort": rng.choice(["low", None] + weird),
                "language": rng.choice([None, "python", "cobol"] + weird), "stream": rng.choice([False, True, "yes", 1]),
                "messages": rng.choice([[{"role": "user", "content": EDIT}], [{"role": "user", "content": APPLY}]] + weird)}
        return kind, {"post": (route, json.dumps({k: v for k, v in body.items() if rng.random() < 0.8}).encode())}
    if kind == "surrogate":
        s = rng.choice(["\\ud800", "\\udfff", "a\\ud83d", "\\udc00b"])
        lang = ',"language":"python"' if rng.random() < 0.5 else ""
        stream = ',"stream":true' if rng.random() < 0.4 else ""
        if route in ("/v1/edit/completions", "/v1/apply/completions"):
            base = json.dumps(EDIT if "edit" in route else APPLY)[1:-1]
            b = '{"model":"redraft","messages":[{"role":"user","content":"' + base + s + '"}]' + lang + "}"
        else:
            b = '{"model":"redraft","prompt":"x = ' + s + '","suffix":"' + s + '"' + lang + stream + "}"
        return kind, {"post": (route, b.encode())}
    if kind == "nul":
        if "apply" in route:
            return kind, {"post": (route, msg(APPLY.replace("return b", "return \x00b")))}
        return kind, {"post": (route, {"model": "redraft", "prompt": "x\x00y = ", "suffix": "\x00"})}
    if kind == "tags":
        bad = [EDIT.replace("<|cursor|>", ""), EDIT.replace("<|/current_file_content|>", ""),
               EDIT.replace("<|/code_to_edit|>", ""), EDIT.replace("<|code_to_edit|>", ""),
               EDIT.replace("<|cursor|>", "<|cursor|><|cursor|>"), "hello", "", "<|current_file_content|>",
               APPLY.replace("<|/update_snippet|>", ""), APPLY.replace("<|original_code|>", ""),
               "<|original_code|><|/original_code|><|update_snippet|><|/update_snippet|>",
               "<|code_to_edit|><|cursor|><|/code_to_edit|>", "1#|x\n" * 50]
        r = rng.choice(["/v1/edit/completions", "/v1/apply/completions"])
        return kind, {"post": (r, msg(rng.choice(bad)))}
    if kind == "history":
        hunks = ["@@ -1,3 +1,3 @@\n-x\n", "@@ -2 +2 @@\n", "@@ garbage @@\n-a\n+b\n", "@@ -1 +1 @@\n?what\n",
                 "--- a\n+++ b\n@@ -99999999999999999999 +1 @@\n-a\n+b\n", "@@ -1,0 +1,1 @@\n+" + "y" * 1000 + "\n"]
        h = rng.choice(hunks)
        return kind, {"post": ("/v1/edit/completions", msg(EDIT.replace(
            "@@ -2 +2 @@\n-    amount = 0\n+    subtotal = 0\n", h)))}
    if kind == "size":
        target = rng.choice([big - 200, big + 200, LIMIT + 10, MERGE_LIMIT - 5000, MERGE_LIMIT + 5000])
        if small:
            target = min(target, 96 * 1024)
        if "apply" in route:
            unit = "def f(x):\n    return x + 1\n\n\n"
            orig = unit * max(1, target // len(unit))
            return kind, {"post": (route, msg(f"<|original_code|>\n{orig}<|/original_code|>\n<|update_snippet|>\n"
                                              "def f(x):\n    return x + 2\n<|/update_snippet|>")), "big": True}
        if "edit" in route:
            pad = "x = 1\n" * max(1, target // 6)
            return kind, {"post": (route, msg(EDIT.replace("def total", pad + "def total"))), "big": True}
        return kind, {"post": (route, {"model": "redraft", "prompt": "# " + "y" * target + "\n" + PY,
                                       "max_tokens": 8, "effort": "instant"}), "big": True}
    if kind == "route":
        return kind, {"req": (rng.choice(["GET", "POST"]), rng.choice(["/v1/nope", "/v1/", "/v1/models/x", "/",
                                                                       "/v1/completions/../models", "/%ff"]), b"{}")}
    if kind == "method":
        return kind, {"req": (rng.choice(["PUT", "DELETE", "PATCH", "GET"]), route, b"")}
    if kind == "malformed":
        raw = rng.choice([b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"POST /v1/completions HTTP/1.1\r\nHost x\r\n\r\n",
                          b"GET /v1/models HTTP/1.1\r\nHost: a\r\nContent-Length: -5\r\n\r\n",
                          b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                          b"GET /v1/models HTTP/1.1\r\n" + b"X: " + b"a" * 70000 + b"\r\n\r\n",
                          b"\x00\x01\x02\r\n\r\n"])
        return kind, {"raw": raw}
    if kind == "disconnect":
        return kind, {"disconnect": (route, json.dumps({"model": "redraft", "prompt": PY, "stream": rng.random() < 0.5,
                                                        "max_tokens": 16}).encode())}
    if kind == "stream":
        return kind, {"post": (rng.choice(["/v1/completions", "/v1/fim/completions"]),
                               {"model": "redraft", "prompt": PY, "suffix": "\n", "stream": True, "max_tokens": 8,
                                "diffusing": rng.random() < 0.5, "effort": "instant",
                                **({"language": "python"} if rng.random() < 0.5 else {})})}
    if kind == "content_length":   # a body shorter than its Content-Length: the request never completes
        return kind, {"raw": b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 50\r\n\r\n{\"model\"",
                      "slow": True}
    body = {"model": "redraft", "prompt": rng.choice(["", "\n", "\t" * 100, "é" * 50, PY]),
            "max_tokens": rng.choice([1, 128, 100000]), "effort": rng.choice(["max", "instant", "xhigh"]),
            "stop": rng.choice([[], [""], ["\n"] * 50])}
    return kind, {"post": ("/v1/fim/completions", body)}


def send(port: int, how: dict) -> dict:
    if "post" in how:
        route, obj = how["post"]
        return post(port, route, obj)
    if "req" in how:
        m, path, body = how["req"]
        return http(port, m, path, body)
    if "raw" in how:
        return http(port, "", "", raw=how["raw"])
    route, body = how["disconnect"]
    t0 = time.time()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(f"POST {route} HTTP/1.1\r\nHost: a\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        time.sleep(0.05)
        s.close()
    except OSError:
        pass
    return {"status": "closed", "body": b"", "seconds": time.time() - t0, "error": None, "ctype": ""}


def judge(kind: str, path: str, r: dict, slow: bool = False) -> list[str]:
    """What is wrong with an answer (empty when nothing)."""
    bad = []
    if r["status"] == "closed":
        return bad
    if r["seconds"] > ANSWER_S and not slow:
        bad.append(f"answered after {r['seconds']:.1f} s")
    if r["status"] is None:
        if not (kind == "malformed" and r["error"] is None):
            bad.append(f"no answer ({r['error']})")
        return bad
    if r["status"] >= 500 and r["status"] != 503:
        bad.append(f"status {r['status']}")
    if r["status"] >= 400 and (path.startswith("/v1") or kind in ("malformed", "content_length")):
        try:
            e = json.loads(r["body"])["error"]
            assert set(e) == {"message", "type", "param", "code"} and isinstance(e["message"], str)
            assert "\n" not in e["message"]
        except Exception:  # noqa: BLE001
            bad.append(f"error {r['status']} not in OpenAI's shape: {r['body'][:80]!r}")
    if r["status"] == 200 and "text/event-stream" in r["ctype"]:
        events = [l[6:] for l in r["body"].decode("utf-8", "replace").split("\n") if l.startswith("data: ")]
        if not events or events[-1] != "[DONE]":
            bad.append("stream cut off (no [DONE])")
        if any('"error"' in e[:12] for e in events):
            bad.append("stream carries an error event")
    return bad


# ------------------------------------------------------------------------------- the run

def start(request_timeout: float, max_queue: int) -> tuple[subprocess.Popen, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "redraft", "serve", "--http", f"127.0.0.1:{port}",
                             "--request-timeout", str(request_timeout), "--max-queue", str(max_queue)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err)
    proc.err = err          # type: ignore[attr-defined]
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited {proc.returncode}")
        if http(port, "GET", "/v1/models", timeout=2)["status"] == 200:
            return proc, port
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("the server did not start")


def probe(port: int) -> dict[str, float]:
    """Seconds for each valid probe (None when it did not answer well)."""
    out = {}
    r = http(port, "GET", "/v1/models")
    out["models"] = r["seconds"] if r["status"] == 200 and json.loads(r["body"])["data"] else None
    r = post(port, "/v1/apply/completions", {"model": "redraft", "language": "python",
                                              "messages": [{"role": "user", "content": APPLY}]})
    out["apply"] = r["seconds"] if r["status"] == 200 and "b + a" in json.loads(r["body"])["choices"][0]["message"]["content"] else None
    return out


def slow_client(port: int, raw: bytes) -> float:
    """Seconds until the server closes a connection that sent only `raw`."""
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    s.sendall(raw)
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    s.close()
    return time.time() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--requests", type=int, default=400, help="hostile requests (default 400)")
    ap.add_argument("--seconds", type=float, default=240, help="stop sending after this long (default 240)")
    ap.add_argument("--workers", type=int, default=6, help="threads sending hostile requests")
    ap.add_argument("--request-timeout", type=float, default=3.0, help="the server's --request-timeout")
    ap.add_argument("--small", action="store_true", help="sizes up to 96 KB (the short form)")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    t_start = time.time()
    proc, port = start(a.request_timeout, 8)
    report: dict = {"seed": a.seed, "requests": a.requests, "small": a.small, "violations": []}
    viol = report["violations"]

    base = [probe(port) for _ in range(5)]
    normal = {k: statistics.median(b[k] for b in base if b[k] is not None) for k in base[0]}
    report["probe_normal_s"] = {k: round(v, 3) for k, v in normal.items()}

    jobs = [hostile(rng, a.small) for _ in range(a.requests)]
    by_kind: dict[str, dict] = {}
    lock = threading.Lock()
    done = threading.Event()
    probes: list[dict] = []
    slow_s: list[float] = []

    def one(kind: str, how: dict) -> None:
        if time.time() - t_start > a.seconds:
            return
        r = send(port, how)
        path = (how.get("post") or how.get("req") or how.get("disconnect") or ("", ""))[0] \
            if "req" not in how else how["req"][1]
        bad = judge(kind, path, r, slow=bool(how.get("slow")))
        if how.get("slow"):
            if r["seconds"] > a.request_timeout + 3:
                bad.append(f"incomplete request held {r['seconds']:.1f} s")
        with lock:
            k = by_kind.setdefault(kind, {"n": 0, "status": {}, "max_s": 0.0})
            k["n"] += 1
            k["status"][str(r["status"])] = k["status"].get(str(r["status"]), 0) + 1
            k["max_s"] = round(max(k["max_s"], r["seconds"]), 2)
            for b in bad:
                viol.append({"kind": kind, "path": path, "problem": b})

    def prober() -> None:
        while not done.is_set():
            p = probe(port)
            p["t"] = time.time()
            probes.append(p)
            time.sleep(0.2)

    def slow() -> None:
        for raw in (b"POST /v1/completions HTTP/1.1\r\nHost: a\r\n",
                    b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{\"mo",
                    b"GET /v1/mod"):
            slow_s.append(slow_client(port, raw))

    def burst() -> list[int]:
        body = {"model": "redraft", "prompt": PY, "max_tokens": 8, "effort": "instant"}
        with ThreadPoolExecutor(30) as ex:
            rs = list(ex.map(lambda i: post(port, "/v1/completions", {**body, "stream": i % 2 == 0}), range(30)))
        for r in rs:
            for b in judge("burst", "/v1/completions", r):
                viol.append({"kind": "burst", "path": "/v1/completions", "problem": b})
        return [r["status"] for r in rs]

    pt = threading.Thread(target=prober, daemon=True)
    pt.start()
    st = threading.Thread(target=slow, daemon=True)
    st.start()
    with ThreadPoolExecutor(a.workers) as ex:
        list(ex.map(lambda j: one(*j), jobs))
    codes = burst()
    report["burst_status"] = {str(s): codes.count(s) for s in sorted(set(codes), key=str)}
    done.set()
    st.join(timeout=60)
    pt.join(timeout=60)
    report["by_kind"] = by_kind
    report["answered"] = sum(k["n"] for k in by_kind.values())
    report["slow_clients_closed_s"] = [round(s, 2) for s in slow_s]
    for s in slow_s:
        if s > a.request_timeout + 3:
            viol.append({"kind": "slow_client", "path": "", "problem": f"held {s:.1f} s"})
    late = []
    for p in probes:
        for k in normal:
            if p[k] is None:
                viol.append({"kind": "probe", "path": k, "problem": "valid request not answered well"})
            elif p[k] > normal[k] + 1.0:
                late.append(round(p[k], 2))
    report["probes"] = len(probes)
    report["probe_max_s"] = {k: round(max((p[k] for p in probes if p[k] is not None), default=0), 3) for k in normal}
    for s in late:
        viol.append({"kind": "probe", "path": "", "problem": f"valid request took {s} s (normal + 1 s exceeded)"})
    report["alive"] = proc.poll() is None and http(port, "GET", "/v1/models")["status"] == 200
    if not report["alive"]:
        viol.append({"kind": "server", "path": "", "problem": "the server died"})

    # SIGTERM with a slow client and a large apply in flight
    holder = socket.create_connection(("127.0.0.1", port))
    holder.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{")
    unit = "def f(x):\n    return x + 1\n\n\n"
    big = unit * ((MERGE_LIMIT - 100_000) // len(unit) if not a.small else 3000)
    threading.Thread(target=post, daemon=True, args=(port, "/v1/apply/completions", {"model": "redraft", "messages": [
        {"role": "user", "content": f"<|original_code|>\n{big}<|/original_code|>\n<|update_snippet|>\ndef f(x):\n"
                                    "    return 2\n<|/update_snippet|>"}]})).start()
    time.sleep(1.0)
    t0 = time.time()
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = "killed"
    report["sigterm_exit_s"] = round(time.time() - t0, 2)
    report["sigterm_exit_code"] = code
    holder.close()
    if code != 0 or report["sigterm_exit_s"] > 10:
        viol.append({"kind": "sigterm", "path": "", "problem": f"exit {code} after {report['sigterm_exit_s']} s"})
    proc.err.seek(0)
    stderr = proc.err.read().decode("utf-8", "replace")
    report["stderr_tracebacks"] = stderr.count("Traceback")
    if report["stderr_tracebacks"]:
        viol.append({"kind": "stderr", "path": "", "problem": stderr[stderr.find("Traceback"):][-300:]})
    report["seconds"] = round(time.time() - t_start, 1)
    report["violation_count"] = len(viol)
    report["violations"] = viol[:30]
    report["ok"] = not viol
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
