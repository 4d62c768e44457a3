"""Batched denoising: concurrent requests share the model's forward passes, step by step (issue 46).

Each request runs the engine's own code (`Engine.complete`, `Engine.next_edit`: every sampler loop,
rerank, repair and post-processing exactly as for a lone request) in its own worker thread, on an
engine *view* whose model is a `BatchedModel`: a forward call does not run there but goes to the
`StepScheduler`, which runs the calls of all the requests in flight as one pass of the model
(model/batch.py `forward_many`: position-wise layers once for all rows, attention per request
against its own context keys/values).

Lockstep, one baton.  The request threads take turns, so that only one of them computes at a time
(two cores, and torch's threads spin: two computing threads at once are several times slower):
each request that is ready runs, in the order they became ready, until its next forward call (or
its end); when the last of them has given the baton back, every request in flight waits for the
model, and that last thread runs the round's calls as one pass, after which every caller is ready
again.  So a request that arrives joins at the next step, one that finishes leaves the batch at
once, and no request waits more than one step behind any other (fairness).  Cancellation per
request: a pass drops the call of a request whose `should_stop` is true and raises `Cancelled` in
its thread (the engine's own check between steps does the rest); the others' rows are untouched.

Each request keeps its own context cache: a view's caches come from a `CachePool` of
`ContextCache`s, leased per request; at its first encode a lease takes the idle cache with the
longest common token prefix (a typist's next keystroke finds the keys/values of the last one,
whichever client's cache sits beside it) and gives it back when the request ends.
"""
from __future__ import annotations

import copy
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable

from redraft.model.batch import Call, forward_many
from redraft.model.sampler import Cancelled, ContextCache

__all__ = ["StepScheduler", "BatchedModel", "CachePool", "engine_view", "batchable"]


class _Pending:
    __slots__ = ("model", "call", "stop", "result", "error", "job")

    def __init__(self, model, call: Call, stop, job) -> None:
        self.model, self.call, self.stop, self.job = model, call, stop, job
        self.result: Any = None
        self.error: BaseException | None = None


class _Job:
    __slots__ = ("stop", "turn", "passes", "scratch")

    def __init__(self, stop: Callable[[], bool] | None) -> None:
        self.stop = stop
        self.turn = threading.Event()    # set: this job holds the baton
        self.passes: list[int] = []      # the numbers of the passes its calls went through
        self.scratch: dict = {}          # model/batch.py's buffers for its canvas, kept across steps


class StepScheduler:
    """The baton the request threads take turns with, and the passes of the model.

    No thread of its own: the request thread that gives the baton back when every other request
    in flight already waits for the model runs the pass itself (one request alone never changes
    thread), then hands the baton on to the callers in their calls' order, itself first if it
    made the first call."""

    def __init__(self, max_rows: int = 4096, stats: dict | None = None) -> None:
        self.max_rows = max_rows         # tokens in one pass at most (a round over it runs in parts)
        self.cv = threading.Condition()
        self.ready: deque[_Job] = deque()        # request threads waiting for the baton
        self.calls: list[_Pending] = []          # this round's forward calls
        self.local = threading.local()
        self.holder: _Job | None = None
        self.running = False                     # a pass is running
        self.paused: int | None = None           # tests: no pass past this many (pause/resume)
        self.passes = 0                          # passes run so far
        self.batch_size = 0                      # requests in the last pass
        # counters (updated in place: the HTTP runner passes its own stats), and "batch_sizes":
        # passes by their number of calls, replaced on every change (a reader may iterate it)
        self.stats = stats if stats is not None else {}
        for k in ("batches", "batched_calls", "batched_rows", "dropped_calls", "pass_seconds"):
            self.stats.setdefault(k, 0)
        self.stats.setdefault("batch_sizes", {})

    # ------------------------------------------------------------------ request threads
    @contextmanager
    def job(self, stop: Callable[[], bool] | None = None):
        """A request's turn-taking: its thread computes only while it holds the baton."""
        j = _Job(stop)
        self.local.job = j
        with self.cv:
            if self.holder is None and not self.ready and not self.running:
                self.holder = j
                j.turn.set()
            else:
                self.ready.append(j)
        j.turn.wait()
        try:
            yield j
        finally:
            self.local.job = None
            self._release(j)

    def forward(self, model, call: Call):
        """Called by a request thread holding the baton: queues the call, gives the baton back,
        and returns the call's (h, new keys/values) once its pass has run."""
        j: _Job | None = getattr(self.local, "job", None)
        if j is None:                    # not a scheduled request (e.g. a warm-up): run it alone
            return forward_many(model, [call])[0]
        call.scratch = j.scratch
        p = _Pending(model, call, j.stop, j)
        with self.cv:
            self.calls.append(p)
        self._release(j)
        j.turn.wait()                    # set again after the pass, when it is this job's turn
        if p.error is not None:
            raise p.error
        return p.result

    def _release(self, j: _Job) -> None:
        """`j` gives the baton back: to the next ready request, or, when every request waits for
        the model, this thread runs the pass."""
        with self.cv:
            j.turn.clear()
            if self.holder is j:
                self.holder = None
            calls = self._next()
        if calls:
            self._pass(calls)

    def _next(self) -> list[_Pending] | None:
        """Under the lock, with no holder: the baton to the next ready request, or the calls of a
        pass that the calling thread must run (every request in flight waits for the model)."""
        if self.holder is not None or self.running:
            return None
        if self.ready:
            self.holder = self.ready.popleft()
            self.holder.turn.set()
            return None
        if not self.calls or (self.paused is not None and self.passes >= self.paused):
            return None
        calls, self.calls = self.calls, []
        self.running = True
        return calls

    def _pass(self, calls: list[_Pending]) -> None:
        while calls:
            try:
                self._run(calls)
            finally:
                with self.cv:            # the callers are ready again, in their calls' order
                    self.running = False
                    self.ready.extend(p.job for p in calls)
                    calls = self._next()

    def _run(self, calls: list[_Pending]) -> None:
        live = []
        for p in calls:
            if p.stop is not None and _stopped(p.stop):
                p.error = Cancelled()
                self.stats["dropped_calls"] += 1
            else:
                live.append(p)
        for part in _parts(live, self.max_rows):
            by_model: dict[int, list[_Pending]] = {}
            for p in part:
                by_model.setdefault(id(p.model), []).append(p)
            for group in by_model.values():
                t0 = time.perf_counter()
                try:
                    outs = forward_many(group[0].model, [p.call for p in group])
                    for p, out in zip(group, outs):
                        p.result = out
                except BaseException as e:  # noqa: BLE001 - each caller raises it in its own thread
                    for p in group:
                        p.error = e
                n = len(group)
                self.stats["pass_seconds"] += time.perf_counter() - t0
                self.stats["batched_rows"] += sum(p.call.tokens.shape[1] for p in group)
                self.passes += 1
                for p in group:
                    p.job.passes.append(self.passes)
                self.batch_size = n
                self.stats["batches"] += 1
                self.stats["batched_calls"] += n
                sizes = self.stats["batch_sizes"]
                self.stats["batch_sizes"] = {**sizes, str(n): sizes.get(str(n), 0) + 1}

    def pause(self, after: int = 0) -> None:
        """Tests: once `after` passes have run in all, no other runs until resume(); the requests'
        calls queue up meanwhile."""
        with self.cv:
            self.paused = after

    def resume(self, until: int | None = None) -> None:
        """Lifts the pause (with `until`: up to that many passes in all); the pass that waited runs
        on the calling thread."""
        with self.cv:
            self.paused = until
            calls = self._next()
        if calls:
            self._pass(calls)

    def queued(self) -> int:
        """Calls waiting for the next pass."""
        with self.cv:
            return len(self.calls)

    def close(self) -> None:
        """Nothing to stop (no thread of its own); kept for symmetry with the runner's shutdown."""


def _stopped(stop: Callable[[], bool]) -> bool:
    try:
        return bool(stop())
    except Exception:  # noqa: BLE001 - a broken check stops nothing
        return False


def _parts(calls: list[_Pending], max_rows: int) -> list[list[_Pending]]:
    out: list[list[_Pending]] = []
    rows = 0
    for p in calls:
        n = p.call.tokens.shape[1]
        if not out or rows + n > max_rows:
            out.append([])
            rows = 0
        out[-1].append(p)
        rows += n
    return out


class BatchedModel:
    """A Transformer whose forward calls go through the scheduler; everything else (cfg, tok_emb,
    logits, ...) is the model's own."""

    def __init__(self, model, scheduler: StepScheduler) -> None:
        self._model = model
        self._scheduler = scheduler

    def __call__(self, tokens, positions, past=None, mask=None):
        return self._scheduler.forward(self._model, Call(tokens, positions, past, mask))

    def __getattr__(self, name: str):
        return getattr(self._model, name)


class CachePool:
    """Context caches, leased one per request (and per layout: completion, next edit).

    A request takes the cache whose tokens share the longest prefix with its context: an idle one
    is handed over; one still leased to another request (a typist's last keystroke, not yet
    abandoned) is copied: its keys/values are never written in place (an encode builds new
    tensors and rebinds `ids`/`kv`), and under the scheduler's baton no encode rebinds them while
    another request reads them."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self.lock = threading.Lock()
        self.idle: list[ContextCache] = []      # least recently used first
        self.leased: list[ContextCache] = []

    def take(self, ids: list[int]) -> ContextCache:
        """The best match when it shares at least half of `ids` (else a new cache: taking
        another's would only evict it)."""
        with self.lock:
            best, best_n = None, 0
            for c in self.idle + self.leased:
                n = _common(c.ids, ids)
                if n > best_n:
                    best, best_n = c, n
            if best is None or 2 * best_n < len(ids):
                out = ContextCache()
            elif any(c is best for c in self.idle):
                self.idle = [c for c in self.idle if c is not best]
                out = best
            else:
                out = ContextCache(ids=list(best.ids), kv=best.kv)
            self.leased.append(out)
            return out

    def give(self, cache: ContextCache) -> None:
        """Back to the pool (the least recently used beyond `size` are dropped)."""
        with self.lock:
            if any(c is cache for c in self.leased):
                self.leased = [c for c in self.leased if c is not cache]
            if cache.kv is None:
                return
            self.idle.append(cache)
            del self.idle[: max(0, len(self.idle) - self.size)]


def _common(a: list[int], b: list[int]) -> int:
    n, limit = 0, min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n


class LeasedCache(ContextCache):
    """A request's context cache: at its first encode, the pool's best match for the context."""

    def __init__(self, pool: CachePool) -> None:
        super().__init__()
        self.pool = pool
        self.held: ContextCache | None = None

    def encode(self, model, ids: list[int], canvas=None, canvas_pos=None):
        if self.held is None:
            self.held = self.pool.take(ids)
        out = self.held.encode(model, ids, canvas, canvas_pos)
        self.ids, self.kv = self.held.ids, self.held.kv
        return out

    def release(self) -> None:
        if self.held is not None:
            self.pool.give(self.held)
            self.held = None


class _Leases(dict):
    """A view's `_caches`: every document key gets a lease (given back by `engine_view`'s end)."""

    def __init__(self, pool: CachePool) -> None:
        super().__init__()
        self.pool = pool

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = LeasedCache(self.pool)
        return self[key]


_NEXT_EDIT_LOCK = threading.Lock()


def batchable(engine: Any) -> bool:
    """Whether the engine's model can go through the scheduler: the native Transformer (a hub
    model or a remote backend has its own loop)."""
    return getattr(engine, "hub", None) is None and getattr(engine, "model", None) is not None \
        and hasattr(engine.model, "blocks")


def prepare(engine: Any) -> None:
    """Once, before the first view: what an engine computes lazily on first use (a view would
    compute it again for every request)."""
    _ = engine._newlines


@contextmanager
def engine_view(engine: Any, scheduler: StepScheduler, pool: CachePool):
    """A shallow copy of `engine` for one request: its model batched, its own lock, its own leased
    context caches (given back to the pool at the end)."""
    view = copy.copy(engine)
    view.model = BatchedModel(engine.model, scheduler)
    view._lock = threading.Lock()
    leases = _Leases(pool)
    view._caches = leases

    def next_edit_model():
        with _NEXT_EDIT_LOCK:            # the engine's, looked up (or loaded) once
            found = engine.next_edit_model()
        if isinstance(found, tuple) and hasattr(found[0], "blocks"):
            return (BatchedModel(found[0], scheduler), *found[1:])
        return found
    view.next_edit_model = next_edit_model
    try:
        yield view
    finally:
        for lease in leases.values():
            lease.release()
