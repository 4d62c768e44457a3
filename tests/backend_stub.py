"""The remote backends' tests' stand-in server (`Stub`: the standard library's http.server on a
loopback port, in a thread), what it saw (`Seen`) and what it answers (`Reply`: whole JSON, streamed
chunks as server-sent events or Ollama's JSON lines, errors, garbage, oversized answers, a
connection dropped mid-answer, an answer too slow), with the document and helpers the
tests/test_backend_*.py files share."""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

from redraft.engine.backends.config import parse_backend
from redraft.engine.backends.remote import RemoteEngine, Request

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
