"""A request whose client hangs up while it waits for the model gives its place in the queue back at
once (issue 46: an editor abandons a request at every keystroke): through the real `redraft serve
--http` and a raw socket.  No timing assumption: the runner's test hold (runner.HOLD_ENV) keeps
every admitted job from starting, so the abandoned request is still waiting when its client goes,
and its place must come back while the hold is still there (before, it stayed taken until the
job reached the model)."""
from __future__ import annotations

import json
import socket
import time

from test_http_api import PREFIX, SUFFIX, start, stats, stop


def send(base: str, body: dict) -> socket.socket:
    host, port = base.rsplit("/", 1)[1].split(":")
    raw = json.dumps(body).encode()
    s = socket.create_connection((host, int(port)))
    s.sendall(f"POST /v1/fim/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(raw)}\r\n\r\n".encode() + raw)
    return s


def read(conn: socket.socket) -> tuple[int, dict]:
    conn.settimeout(300)
    data = b""
    while True:
        head, sep, rest = data.partition(b"\r\n\r\n")
        size = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                     if line.lower().startswith(b"content-length:")), None) if sep else None
        if size is not None and len(rest) >= size:
            break
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    conn.close()
    return int(data.split(b" ", 2)[1]), json.loads(data.partition(b"\r\n\r\n")[2])


def wait_for(base: str, ok, what: str) -> dict:
    limit = time.time() + 60            # a guard against a hang, not a timing assumption
    while time.time() < limit:
        s = stats(base)
        if ok(s):
            return s
        time.sleep(0.05)
    raise AssertionError(f"{what}: {stats(base)}")


def test_an_abandoned_waiting_request_gives_its_place_back_at_once(tmp_path):
    hold = tmp_path / "hold"
    hold.write_text("")
    proc, base = start("--max-queue", "1", env={"REDRAFT_HTTP_TEST_HOLD": str(hold)})
    try:
        body = {"model": "redraft", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 16, "language": "python"}
        before = stats(base)
        gone = send(base, body)
        wait_for(base, lambda s: s["pending"] == 1, "the first request is admitted and held")
        kept = send(base, {**body, "prompt": PREFIX + "r"})
        wait_for(base, lambda s: s["pending"] == 2, "the second request is admitted and held")
        gone.close()                    # the typist's next keystroke: the first request is abandoned
        s = wait_for(base, lambda s: s["pending"] == 1 and s["abandoned"] == before["abandoned"] + 1,
                     "the abandoned request's place comes back while the hold is still there")
        assert hold.exists() and s["completed"] == before["completed"] and s["cancelled"] == before["cancelled"] + 1
        # its place is free: a third request is admitted (max queue 1: two may be in at once), not refused
        third = send(base, {**body, "prompt": PREFIX + "re"})
        wait_for(base, lambda s: s["pending"] == 2, "the third request is admitted and held")
        assert stats(base)["refused_busy"] == before["refused_busy"]
        hold.unlink()
        for conn in (kept, third):
            status, answer = read(conn)
            assert status == 200 and isinstance(answer["choices"][0]["text"], str)
        after = wait_for(base, lambda s: s["pending"] == 0, "every request is done")
        assert after["completed"] == before["completed"] + 2      # the abandoned one never ran
        assert after["abandoned"] == before["abandoned"] + 1
    finally:
        if hold.exists():
            hold.unlink()
        stop(proc)
