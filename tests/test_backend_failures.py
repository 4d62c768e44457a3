"""A remote backend that fails (against backend_stub.Stub): HTTP errors in each server's shape,
garbage, oversized and broken answers, refused and slow connections answer empty with one line
why; backoff and recovery, cancellation, keep-alive, the fallback to the local model."""
from __future__ import annotations

import threading
import time

import pytest

from backend_stub import Reply, Stub, engine, openai_chunks, request
from redraft.engine.backends.config import parse_backend
from redraft.engine.backends.remote import BACKOFF_AFTER, RemoteEngine


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
