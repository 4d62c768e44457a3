"""Protocol fuzzing of the real server (`redraft serve` over stdio), seeded and bounded.

    .venv/bin/python bench/fuzz.py [--messages 10000] [--edits 1000] [--seed 1] [--time-limit 900]

One server process gets a stream of messages: well-formed requests, every supported method with
mutated params, bad envelopes (ids of every JSON type, no jsonrpc, a method that is no string,
params that are scalars, notification methods with ids, unknown methods), malformed bodies (cut
off, not UTF-8, nested thousands deep, JSON-RPC-shaped objects inside params) and random
incremental edits (CRLF, CJK, emoji) to a document the client keeps its own copy of, and frames of
every shape (FRAMES: a duplicated or unreadable Content-Length, lowercase and no-space headers, bare
`\n` line ends, unknown headers, charsets other than utf-8, no headers or no blank line, a header block
of 1 MB, `\r\n` split across writes; a body shorter than its length at the end of input). Checked:
every request with a valid id answered exactly once, every response valid JSON-RPC 2.0, no response
to an id the client never sent, the server's copy of the document identical to the client's (its
SHA-256 through `redraft.stats`), no traceback in the server's stderr, exit code 0 after shutdown;
each frame served or answered with ParseError (-32700) and its id as its shape asks, and the loss
after a malformed frame (requests written after it, before the next one, left unanswered: at most 0)
reported. Prints a JSON report; tests/test_server_fuzz.py runs a short form.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.lsp.convert import LineIndex, apply_change  # noqa: E402
from redraft.lsp.stdio_client import SERVE_CMD  # noqa: E402

URI = "file:///fuzz/doc.py"
START = "def area(width, height):\n    return width * height\n"
METHODS = ["textDocument/inlineCompletion", "textDocument/completion", "workspace/executeCommand",
           "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose",
           "workspace/didChangeConfiguration", "$/cancelRequest", "initialize", "shutdown", "initialized"]
# frame shapes: name -> (header bytes for a body of length n, the frame served (True) or answered
# with ParseError and the id of its body (False)). "garbage" has no body to read an id from.
FRAMES: dict[str, tuple[Any, bool]] = {
    "length twice, two values": (lambda n: b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n + 2), False),
    "length twice, one value": (lambda n: b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n), True),
    "lowercase content-length": (lambda n: b"content-length: %d\r\n\r\n" % n, True),
    "Content-Length:N": (lambda n: b"Content-Length:%d\r\n\r\n" % n, True),
    "bare newline": (lambda n: b"Content-Length: %d\n\n" % n, True),
    "length abc": (lambda n: b"Content-Length: abc\r\n\r\n", False),
    "negative length": (lambda n: b"Content-Length: -%d\r\n\r\n" % n, False),
    "unknown header": (lambda n: b"X-Foo: 1\r\nContent-Length: %d\r\n\r\n" % n, True),
    "charset utf-16": (lambda n: b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-16\r\n\r\n" % n, False),
    "charset first, latin-1": (lambda n: b"Content-Type: application/vscode-jsonrpc; charset=latin-1\r\nContent-Length: %d\r\n\r\n" % n, False),
    "charset invalid": (lambda n: b"Content-Length: %d\r\nContent-Type: text/x; charset=\r\n\r\n" % n, False),
    "charset utf8": (lambda n: b"Content-Type: application/vscode-jsonrpc; charset=UTF8\r\nContent-Length: %d\r\n\r\n" % n, True),
    "no headers": (lambda n: b"", False),
    "no blank line": (lambda n: b"Content-Length: %d\r\n" % n, False),
    "crlf split across writes": (lambda n: b"Content-Length: %d\r" % n, True),
    "garbage body": (lambda n: b"Content-Length: x\r\n\r\n", False),
    "header block of 1 MB": (lambda n: b"Content-Length: %d\r\nX-Pad: %s\r\n\r\n" % (n, b"a" * (1 << 20)), False),
}
PIECES = ["x", " ", "\n", "\r\n", "é", "数据", "😀", "def f():\n    ", "return ", "(", ")", '"', "\t", ""]


def _value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value (small, sometimes nested)."""
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 6:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == 7:
        return {rng.choice(["uri", "line", "position", "textDocument", "id", "text"]): _value(rng, depth + 1)
                for _ in range(rng.randrange(3))}
    if kind == 8:
        return {"line": rng.randint(-5, 99), "character": rng.randint(-5, 400)}
    return [None, True, rng.randint(-2**40, 2**40), rng.random() * 1e6, "", "\U0001F600x\u0000"][kind]


def _mutate(rng: random.Random, params: Any) -> Any:
    """`params` with one member replaced, dropped or added, anywhere in it."""
    if not isinstance(params, dict) or not params or rng.random() < 0.15:
        return _value(rng)
    out = dict(params)
    key = rng.choice(list(out))
    action = rng.randrange(3)
    if action == 0:
        out[key] = _value(rng)
    elif action == 1:
        del out[key]
    else:
        out[key] = _mutate(rng, out[key])
    return out


class Fuzzer:
    def __init__(self, cmd: list[str], seed: int) -> None:
        self.rng = random.Random(seed)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lock = threading.Condition()
        self.write_lock = threading.Lock()
        self.responses: dict[Any, list[dict]] = {}   # id -> responses (must be exactly one)
        self.null_id: list[dict] = []
        self.invalid: list[str] = []                 # protocol violations seen in the server's output
        self.stderr: list[str] = []
        self.sent_ids: set[Any] = set()
        self.next_id = 0
        self.text, self.version = START, 1
        self.last_shape: str | None = None           # the shape of the last frame written, None for a plain one
        self.sent_order: list[Any] = []              # ids of requests, in the order written
        self.frames: list[tuple[str, Any, bool, int]] = []  # (shape, id or None, served?, index in sent_order)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(
            line.decode("utf-8", "replace") for line in iter(self.proc.stderr.readline, b"")), daemon=True).start()

    # -- output --------------------------------------------------------------------------------
    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with self.lock:
                        self.lock.notify_all()
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length or 0)
            try:
                msg = json.loads(body)
            except ValueError:
                self.invalid.append(f"not JSON: {body[:200]!r}")
                continue
            self._check(msg)

    def _check(self, msg: Any) -> None:
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            self.invalid.append(f"not JSON-RPC 2.0: {str(msg)[:200]}")
            return
        if "method" in msg:
            if "id" in msg:  # a request from the server: answer it
                result = [None] * len(msg.get("params", {}).get("items", [])) if msg["method"] == "workspace/configuration" else None
                self._write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode())
            return
        if "id" not in msg or ("result" in msg) == ("error" in msg):
            self.invalid.append(f"bad response: {str(msg)[:200]}")
        elif "error" in msg and (not isinstance(msg["error"], dict) or not isinstance(msg["error"].get("code"), int)
                                 or "Traceback" in json.dumps(msg["error"])):
            self.invalid.append(f"bad error: {str(msg)[:300]}")
        with self.lock:
            if msg.get("id") is None:
                self.null_id.append(msg)
            else:
                if msg["id"] not in self.sent_ids:
                    self.invalid.append(f"response to an id never sent: {msg['id']!r}")
                self.responses.setdefault(msg["id"], []).append(msg)
            self.lock.notify_all()

    # -- input ---------------------------------------------------------------------------------
    def _write(self, body: bytes) -> None:
        self.last_shape = None
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def raw(self, *parts: bytes, pause: float = 0.0) -> None:
        """Bytes as they are, each part flushed on its own (`pause` s apart). One writer at a time,
        for all its parts: the reader thread's answers to the server's own requests must not land
        between the parts of a frame split across writes."""
        with self.write_lock:
            try:
                for part in parts:
                    self.proc.stdin.write(part)
                    self.proc.stdin.flush()
                    if pause:
                        time.sleep(pause)
            except (BrokenPipeError, ValueError):
                self.invalid.append("the server closed its input")

    def send(self, msg: dict[str, Any], body: bytes | None = None) -> None:
        if "id" in msg and isinstance(msg["id"], (int, str)) and not isinstance(msg["id"], bool):
            self.sent_ids.add(msg["id"])
            self.sent_order.append(msg["id"])
        self._write(body if body is not None else json.dumps(msg).encode())

    def frame(self) -> None:
        """A request (redraft.stats) in a frame of a random shape (FRAMES); its id expected answered
        (served or with ParseError) unless the body is garbage."""
        rng = self.rng
        names = list(FRAMES)
        shape = rng.choice(names[:-1]) if rng.random() > 0.02 else names[-1]
        header, served = FRAMES[shape]
        msg_id = self.new_id()
        body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",
                           "params": {"command": "redraft.stats"}}).encode()
        if shape == "garbage body":
            body, msg_id = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\r\n", None
        elif shape == "no headers" and self.last_shape == "garbage body":
            msg_id = None  # it runs on from a body of unknown length that is no JSON: part of that body
        if msg_id is not None:
            self.sent_ids.add(msg_id)
        self.frames.append((shape, msg_id, served, len(self.sent_order)))
        if msg_id is not None:
            self.sent_order.append(msg_id)
        self.last_shape = shape
        if shape == "crlf split across writes":
            self.raw(header(len(body)), b"\n\r", b"\n" + body, pause=0.001)
        else:
            self.raw(header(len(body)) + body)

    def frame_report(self) -> dict[str, Any]:
        """Per shape: frames, answered as the shape asks; the loss after each malformed frame: the
        requests written after it (before the next frame of FRAMES) left unanswered, in a row."""
        shapes: dict[str, dict[str, int]] = {}
        losses: list[int] = []
        wrong: list[str] = []
        for k, (shape, msg_id, served, at) in enumerate(self.frames):
            row = shapes.setdefault(shape, {"sent": 0, "as_expected": 0})
            row["sent"] += 1
            answers = self.responses.get(msg_id, []) if msg_id is not None else []
            ok = msg_id is None or (len(answers) == 1 and (("result" in answers[0]) if served else
                                    (answers[0].get("error") or {}).get("code") == -32700))
            row["as_expected"] += ok
            if not ok:
                wrong.append(f"{shape}: id {msg_id!r}: {str(answers)[:200]}")
            if not served:
                end = self.frames[k + 1][3] if k + 1 < len(self.frames) else len(self.sent_order)
                start = at + (msg_id is not None)
                lost = 0
                for later in self.sent_order[start:end]:
                    if later in self.responses:
                        break
                    lost += 1
                losses.append(lost)
        losses.sort()
        return {"frames": len(self.frames), "malformed_frames": len(losses), "shapes": shapes,
                "frames_not_as_expected": wrong[:20],
                "loss_after_malformed": {"max": losses[-1] if losses else 0,
                                         "median": losses[len(losses) // 2] if losses else 0,
                                         "total": sum(losses)}}

    def new_id(self) -> int | str:
        self.next_id += 1
        return self.next_id if self.next_id % 3 else f"r{self.next_id}"

    def request(self, method: str, params: Any, timeout: float = 120) -> dict:
        msg_id = self.new_id()
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        with self.lock:
            while msg_id not in self.responses:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise TimeoutError(f"no answer to {method} (id {msg_id})")
                self.lock.wait(0.2)
            return self.responses[msg_id][0]

    def edit(self) -> None:
        rng, index = self.rng, LineIndex(self.text)
        a = rng.randrange(len(self.text) + 1)
        b = min(len(self.text), a + rng.choice([0, 0, 1, 2, 5]))
        new = "".join(rng.choice(PIECES) for _ in range(rng.randrange(3)))
        start, end = index.position(a), index.position(b)
        change = {"range": {"start": {"line": start.line, "character": start.character},
                            "end": {"line": end.line, "character": end.character}}, "text": new}
        self.version += 1
        self.send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": self.version}, "contentChanges": [change]}})
        self.text = apply_change(self.text, _Change(change))

    def fuzz_message(self) -> None:
        rng = self.rng
        kind = rng.randrange(12)
        if kind >= 10:    # a request in a frame of some shape, well-formed or not
            self.frame()
            return
        method = rng.choice(METHODS)
        valid = {"textDocument/inlineCompletion": {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11},
                                                   "context": {"triggerKind": 2}},
                 "workspace/executeCommand": {"command": "redraft.stats", "arguments": []}}.get(method, {})
        if kind <= 2:     # a well-formed request, answered
            m = rng.choice(["textDocument/inlineCompletion", "textDocument/completion", "workspace/executeCommand"])
            params = {"textDocument": {"uri": URI}, "position": {"line": rng.randint(0, 3), "character": rng.randint(0, 30)},
                      "context": {"triggerKind": 2}} if m != "workspace/executeCommand" else {"command": "redraft.stats"}
            self.send({"jsonrpc": "2.0", "id": self.new_id(), "method": m, "params": params})
        elif kind <= 4:   # a supported method with mutated params, as a request or a notification
            msg = {"jsonrpc": "2.0", "method": method, "params": _mutate(rng, valid or _value(rng))}
            if method in ("textDocument/didOpen", "textDocument/didClose", "textDocument/didChange") and \
                    isinstance(msg["params"], dict):
                msg["params"]["textDocument"] = {"uri": "file:///fuzz/other.py", "version": 1}  # never the checked doc
            if rng.random() < 0.6 and method not in ("shutdown", "initialized"):
                msg["id"] = self.new_id()
            if method != "shutdown":
                self.send(msg)
        elif kind == 5:   # an id of another JSON type
            bad = rng.choice([None, True, False, 1.5, [], {}, [1], {"a": 1}, -0.0])
            self.send({}, json.dumps({"jsonrpc": "2.0", "id": bad, "method": "workspace/executeCommand",
                                      "params": {"command": "redraft.stats"}}).encode())
        elif kind == 6:   # other bad envelopes
            body = rng.choice([{"id": self.new_id(), "method": "workspace/executeCommand"},
                               {"jsonrpc": "1.0", "id": self.new_id(), "method": "shutdown"},
                               {"jsonrpc": "2.0", "id": self.new_id(), "method": 7},
                               {"jsonrpc": "2.0", "id": self.new_id(), "method": "textDocument/completion", "params": 3},
                               {"jsonrpc": "2.0", "id": self.new_id(), "method": "textDocument/didOpen", "params": {}},
                               {"jsonrpc": "2.0", "id": self.new_id(), "method": "redraft/nothing"},
                               {"jsonrpc": "2.0", "method": "$/nothing"}, [], 3, "x", None])
            self.send(body if isinstance(body, dict) else {}, json.dumps(body).encode())
        elif kind == 7:   # malformed bodies
            deep = rng.randint(500, 5000)
            msg_id = self.new_id()
            body = rng.choice([b'{"jsonrpc": "2.0", "id": 1, "meth', b"\xff\xfe\x80", b"", b"{}",
                               b'{"jsonrpc":"2.0","id":%s,"method":"workspace/executeCommand","params":{"arguments":[%s%s]}}'
                               % (json.dumps(msg_id).encode(), b"[" * deep, b"]" * deep)])
            self.send({"id": msg_id} if b"arguments" in body else {}, body)
        elif kind == 8:   # JSON-RPC-shaped objects inside params
            inner = {"jsonrpc": "2.0", "id": rng.randint(10**6, 10**7), "method": rng.choice(METHODS), "params": {}}
            self.send({"jsonrpc": "2.0", "id": self.new_id(), "method": "workspace/executeCommand",
                       "params": {"command": "redraft.stats", "arguments": [rng.choice([inner, {**inner, "result": 1}])]}})
        else:             # cancel something, or nothing
            self.send({"jsonrpc": "2.0", "method": "$/cancelRequest",
                       "params": {"id": rng.choice([self.next_id, _value(rng)])}})

    def server_view_matches(self) -> bool:
        doc = self.request("workspace/executeCommand", {"command": "redraft.stats", "arguments": [{"uri": URI}]})
        doc = (doc.get("result") or {}).get("document") or {}
        return doc.get("sha256") == hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest() \
            and doc.get("version") == self.version


class _Change:
    """A TextDocumentContentChangeEvent as convert.apply_change reads it (attributes, Position objects)."""

    def __init__(self, change: dict[str, Any]) -> None:
        from lsprotocol import types
        r = change["range"]
        self.range = types.Range(start=types.Position(**r["start"]), end=types.Position(**r["end"]))
        self.text = change["text"]


def run(messages: int, edits: int, seed: int = 1, time_limit_s: float = 900, cmd: list[str] | None = None) -> dict:
    t0 = time.monotonic()
    f = Fuzzer(cmd or SERVE_CMD, seed)
    report: dict[str, Any] = {"messages": messages, "edits": edits, "seed": seed}
    try:
        f.request("initialize", {"processId": None, "rootUri": None, "capabilities": {"window": {"workDoneProgress": True}},
                                 "initializationOptions": {"threads": 1, "effort": "instant"}})
        f.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        f.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": URI, "languageId": "python", "version": 1, "text": START}}})
        mismatches, checks = 0, 0
        edit_every = max(1, messages // max(1, edits))
        done_edits = 0
        for i in range(messages):
            if time.monotonic() - t0 > time_limit_s:
                report["stopped_early_at"] = i
                break
            f.fuzz_message()
            if done_edits < edits and i % edit_every == 0:
                f.edit()
                done_edits += 1
                if done_edits % 50 == 0:
                    checks += 1
                    mismatches += not f.server_view_matches()
        checks += 1
        mismatches += not f.server_view_matches()
        # every valid id answered exactly once (wait for the last answers)
        deadline = time.monotonic() + 120
        with f.lock:
            while set(f.sent_ids) - set(f.responses) and time.monotonic() < deadline and f.proc.poll() is None:
                f.lock.wait(0.5)
            unanswered = sorted(map(str, set(f.sent_ids) - set(f.responses)))
            twice = sorted(str(k) for k, v in f.responses.items() if len(v) > 1)
        status = Path(f"/proc/{f.proc.pid}/status")
        peak = next((int(line.split()[1]) // 1024 for line in status.read_text().splitlines()
                     if line.startswith("VmHWM")), None) if status.exists() else None
        frames = f.frame_report()
        shutdown = f.request("shutdown", None)
        # the end of input inside a body shorter than its length: answered with ParseError and its id
        cut = json.dumps({"jsonrpc": "2.0", "id": "cut", "method": "workspace/executeCommand",
                          "params": {"command": "redraft.stats"}}).encode()
        f.sent_ids.add("cut")
        f.raw(b"Content-Length: %d\r\n\r\n" % (len(cut) + 100) + cut)
        f.proc.stdin.close()
        code = f.proc.wait(30)
        time.sleep(0.2)
        cut_answer = f.responses.get("cut", [])
        report.update(frames)
        report.update({"short_body_at_end_answered": len(cut_answer) == 1 and
                       (cut_answer[0].get("error") or {}).get("code") == -32700})
        report.update({
            "edits_done": done_edits, "requests_with_valid_ids": len(f.sent_ids), "unanswered": unanswered[:20],
            "answered_twice": twice[:20], "null_id_answers": len(f.null_id), "invalid_output": f.invalid[:20],
            "document_checks": checks, "document_mismatches": mismatches,
            "tracebacks": sum("Traceback" in line for line in f.stderr), "stderr_lines": len(f.stderr),
            "stderr_sample": [l for l in f.stderr if "Error" in l or "Traceback" in l or "File " in l][:16],
            "shutdown_answered": "result" in shutdown, "exit_code": code, "peak_rss_mib": peak,
            "wall_s": round(time.monotonic() - t0, 1)})
    finally:
        if f.proc.poll() is None:
            f.proc.kill()
    report["ok"] = (not report.get("unanswered") and not report.get("answered_twice") and not report.get("invalid_output")
                    and not report.get("frames_not_as_expected") and report.get("short_body_at_end_answered")
                    and (report.get("loss_after_malformed") or {}).get("max") == 0
                    and report.get("document_mismatches") == 0 and report.get("tracebacks") == 0
                    and report.get("exit_code") == 0 and "stopped_early_at" not in report)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--edits", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=900, help="seconds; stops sending after this")
    a = ap.parse_args(argv)
    report = run(a.messages, a.edits, a.seed, a.time_limit)
    print(json.dumps(report, indent=2))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
