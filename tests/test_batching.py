"""Batched denoising (issue 46): concurrent requests share the model's forward passes step by step
(model/batch.py, lsp_server/engine/batching.py, the HTTP runner).  With the shipped checkpoint:
one ragged pass computes what each call alone computes; every request of a concurrent batch gets
the answer it gets alone (same seed); a request cancelled mid-batch leaves the others untouched;
no request waits more than one step behind the others; each request keeps its own context cache.
The scheduler's pause (a test hook) makes the batches deterministic: no timing assumptions."""
from __future__ import annotations

import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from redraft.engine import batching
from redraft.engine.pipeline import Cancelled, Engine, Request
from redraft.model.batch import Call, forward_many
from redraft.model.sampler import ContextCache

LINES = Path(textwrap.__file__).read_text().split("\n")


def cut(i: int, chars: int) -> tuple[str, int]:
    """textwrap.py with line i typed up to `chars` characters past its indentation."""
    line = LINES[i]
    at = len(line) - len(line.lstrip()) + chars
    text = "\n".join(LINES[:i] + [line[:at]] + LINES[i + 1:])
    return text, len("\n".join(LINES[:i])) + 1 + at


# documents of different lengths and cursors, every effort the HTTP API offers but max
JOBS = [(120, 4, "low"), (151, 9, "medium"), (191, 3, "instant"), (221, 8, "high"), (300, 6, "low"),
        (136, 5, "medium")]


@pytest.fixture(scope="module")
def engine():
    e = Engine(None, threads=1)
    batching.prepare(e)
    return e


def request(k: int) -> Request:
    i, chars, effort = JOBS[k]
    text, offset = cut(i, chars)
    return Request(text=text, offset=offset, uri=f"file:///doc{k}.py", effort=effort, language_id="python")


@pytest.fixture(scope="module")
def alone(engine):
    """Each request alone on the engine itself (no scheduler), from an empty context cache."""
    out = []
    for k in range(len(JOBS)):
        engine.forget(f"file:///doc{k}.py")
        c = engine.complete(request(k))
        out.append((c.text, c.forward_passes))
    return out


def run_batch(engine, ks, stops=None, pause_after=0, before_resume=None):
    """Requests ks at once through a fresh scheduler; its first pass waits until every request has
    queued its first call (after `pause_after` passes: every live request's next call), so the batch
    holds them all.  Returns (results: (text, passes) or the exception, each job's pass numbers,
    the scheduler)."""
    sched = batching.StepScheduler()
    pool = batching.CachePool()
    results: dict[int, object] = {}
    jobs: dict[int, object] = {}
    sched.pause(0)          # the first pass, only once every request has queued its first call

    def one(k: int) -> None:
        stop = (stops or {}).get(k)
        try:
            with sched.job(stop) as j, batching.engine_view(engine, sched, pool) as view:
                jobs[k] = j
                c = view.complete(request(k), should_stop=stop)
                results[k] = (c.text, c.forward_passes)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            results[k] = e

    threads = {k: threading.Thread(target=one, args=(k,)) for k in ks}
    for t in threads.values():
        t.start()
    limit = time.time() + 120            # a guard against a hang, not a timing assumption
    for after in (0, pause_after) if pause_after else (0,):
        if after:
            sched.resume(until=after)    # then `pause_after` passes in all, and every live request's next call
        while time.time() < limit:
            live = sum(t.is_alive() for t in threads.values())
            if sched.passes >= after and live and sched.queued() == live:
                break
            time.sleep(0.005)
    if before_resume is not None:
        before_resume(sched)
    sched.resume()
    for t in threads.values():
        t.join(120)
    sched.close()
    return results, {k: j.passes for k, j in jobs.items()}, sched


def test_one_ragged_pass_computes_what_each_call_computes_alone(engine):
    m = engine.model
    g = torch.Generator().manual_seed(0)
    calls = []
    for n in (40, 97, 150):                                   # denoising steps over their own contexts
        ids = torch.randint(10, 8000, (n,), generator=g).tolist()
        kv, _ = ContextCache().encode(m, ids)
        canvas = torch.randint(10, 8000, (1, 16 + n % 7), generator=g)
        calls.append(Call(canvas, torch.arange(n, n + canvas.shape[1])[None], kv, None))
    T = 23                                                    # a context encoded causally, no past
    calls.append(Call(torch.randint(10, 8000, (1, T), generator=g), torch.arange(T)[None], None,
                      torch.ones(T, T, dtype=torch.bool).tril()[None, None]))
    P = calls[1].past[0][0].shape[2]                          # rows after a past, with their own mask
    mask = torch.cat([torch.ones(3, P, dtype=torch.bool), torch.ones(3, 3, dtype=torch.bool).tril()], 1)
    calls.append(Call(torch.randint(10, 8000, (1, 3), generator=g), torch.arange(P, P + 3)[None],
                      calls[1].past, mask[None, None]))
    for c in calls[:3]:                                       # each canvas keeps its [context | canvas] buffers
        c.scratch = {}
    forward_many(m, calls)
    for c in calls[:3]:                                       # the next step: new canvas tokens, same buffers
        c.tokens = torch.randint(10, 8000, c.tokens.shape, generator=g)
    many = forward_many(m, calls)
    assert all(c.scratch.get("canvas_kv") for c in calls[:3])
    with torch.inference_mode():
        for c, (h, kv) in zip(calls, many):
            h1, kv1 = m(c.tokens, c.positions, past=c.past, mask=c.mask)
            torch.testing.assert_close(h, h1, rtol=1e-5, atol=1e-5)
            for (k, v), (k1, v1) in zip(kv, kv1):
                torch.testing.assert_close(k, k1, rtol=1e-5, atol=1e-5)
                torch.testing.assert_close(v, v1, rtol=1e-5, atol=1e-5)


def test_every_request_of_a_batch_gets_its_answer_alone_and_none_falls_behind(engine, alone):
    ks = list(range(len(JOBS)))
    results, passes, sched = run_batch(engine, ks)
    assert [results[k] for k in ks] == alone
    assert any(text for text, _ in alone)
    assert sched.stats["batch_sizes"].get(str(len(ks)), 0) >= 1     # the first pass held every request
    for k in ks:   # fairness: a request in flight is in every pass until it is done (lockstep)
        p = passes[k]
        assert p[0] == 1 and p == list(range(1, len(p) + 1)), (k, p)
    assert sched.stats["batches"] < sum(len(p) for p in passes.values())   # passes were shared


def test_a_request_cancelled_mid_batch_leaves_the_others_untouched(engine, alone):
    ks = [0, 1, 3, 4]
    flag = threading.Event()
    results, passes, sched = run_batch(engine, ks, stops={3: flag.is_set}, pause_after=2,
                                       before_resume=lambda s: flag.set())
    assert isinstance(results[3], Cancelled)
    assert passes[3] == [1, 2]                    # in the first two passes, its third call dropped
    assert sched.stats["dropped_calls"] == 1
    assert [results[k] for k in (0, 1, 4)] == [alone[k] for k in (0, 1, 4)]


def test_each_request_keeps_its_own_context_cache(engine):
    sched = batching.StepScheduler()
    pool = batching.CachePool()

    def complete(i: int, chars: int):
        text, offset = cut(i, chars)
        with sched.job(), batching.engine_view(engine, sched, pool) as view:
            return view.complete(Request(text=text, offset=offset, uri="same-uri-for-all", language_id="python"))

    a, b = complete(120, 4), complete(300, 6)        # two typists, two files, one uri
    assert a.context_reused == 0 and b.context_reused < b.context_tokens // 2
    out: dict[str, object] = {}
    ta = threading.Thread(target=lambda: out.__setitem__("a", complete(120, 5)))   # each types on
    tb = threading.Thread(target=lambda: out.__setitem__("b", complete(300, 7)))
    ta.start(), tb.start()
    ta.join(60), tb.join(60)
    sched.close()
    for c in (out["a"], out["b"]):    # each found its own last keystroke's keys/values
        assert c.context_reused >= c.context_tokens - 8, (c.context_reused, c.context_tokens)
