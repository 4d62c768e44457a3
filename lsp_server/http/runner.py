"""The HTTP front door's hold on the engine: one model thread, a bounded queue, cancellation.

* The engine (`redraft.engine.pipeline.Engine`, the language server's) loads once, on the model thread,
  at start-up; every request's model work runs on that same thread (see engine_host.py for why).
  Beside a language server in the same process (`redraft serve --stdio --http ...`) a `source`
  gives the language server's own engine and model thread instead: one model in memory, and HTTP
  and editor requests take turns on the one thread.
* At most `max_queue` requests wait for the model thread; one more is refused at once (`Busy`, which
  the app answers with 429) rather than queued behind work its client may already have given up on.
* Each job gets a `threading.Event`; the app sets it when the client disconnects and the engine's
  `should_stop` reads it between denoising steps.  `admit` takes a place in the queue at once
  (a streamed answer is admitted before its 200 is sent) and `run_admitted` does the work;
  `shutdown` sets every running job's event, so that the server stops within seconds.
* Batched denoising (issue 46, `redraft.engine.batching`): when the runner loads its own engine
  (the native model), up to `max_batch` requests run at once, each in its own worker thread on a
  view of the engine, and their forward passes go through the model together, step by step (a
  request joins at its next step and leaves when it is done; each has its own context cache,
  effort and cancellation); by default 2 on a CPU and 8 on a GPU.  `max_batch=1` (or
  REDRAFT_HTTP_MAX_BATCH=1) is the one-at-a-time model thread.  A job whose client left before
  its turn is skipped: the app sees the hang-up at once (no polling) and cancels the job's task,
  which gives its place in the queue back there and then (`abandoned` in the stats; a job
  already running stops at its next step).  The queue
  bound counts every admitted request, running or waiting.
* Work that is not the model's (reading large prompts, guessing a language, merging an apply) runs
  on `cpu_pool` (small requests) or `big_pool` (requests over `BIG` characters, one at a time, at
  most `max_big` waiting): never on the event loop, and a large request never holds up a small one.
  A large merge runs in a child process (`isolated`: a long C call there holds no lock of ours) with
  a deadline (`BIG_DEADLINE`), past which the child is ended and the request refused.
"""
from __future__ import annotations

import asyncio
import os
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

__all__ = ["Busy", "EngineRunner", "BIG", "ANSWERED"]

BIG = 64 * 1024                 # characters: work on more runs on the pool for large requests
BIG_DEADLINE = 12.0             # seconds a large job may run in the child process
DEADLINE = 20.0                 # seconds from a request's arrival to its answer: the model stops
                                # denoising then (and a request still waiting is refused)
MAX_BATCH = 8                   # requests whose denoising steps share the model's passes (a GPU)
MAX_BATCH_CPU = 2               # on the CPU: a pass of 8 takes ~4 times one of 2, and a typist's
                                # request that takes longer than a keystroke is abandoned (serve_load)
MAX_WAIT = 1.0                  # seconds: a job waiting longer goes before newer ones (no starving)
ANSWERED = "answered otherwise"        # a job cancelled with this was answered without it (typed through)
ORDER_ENV = "REDRAFT_HTTP_ORDER"       # "newest" (default) or "oldest": which waiting job a freed place goes to
HOLD_ENV = "REDRAFT_HTTP_TEST_HOLD"   # tests: while the file this names exists, no admitted job starts


class TooLong(Exception):
    """A job in the child process ran past its deadline (and was ended)."""


class Busy(Exception):
    """More requests are waiting than the queue holds."""


class EngineRunner:
    def __init__(self, model_dir: str | None = None, max_queue: int = 16, threads: int = 0,
                 source: Callable[[], tuple[Any, Any]] | None = None, max_batch: int | None = None) -> None:
        self.model_dir = model_dir
        self.source = source          # blocking () -> (engine, executor), or None: load our own
        self.max_queue = max_queue
        env_threads = os.environ.get("REDRAFT_HTTP_THREADS", "")
        self.threads = threads or (int(env_threads) if env_threads.isdigit() else 0)   # 0: auto_threads()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="redraft-http-model")
        self.engine: Any = None
        self.pending = 0
        self.job_s = 1.0              # a model job's seconds, a moving average (admission's estimate)
        self.cpu_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="redraft-http-cpu")
        self.big_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="redraft-http-big")
        self.max_big = 2
        self.proc_pool: Any = None
        self.big_pending = 0
        self.stops: weakref.WeakSet = weakref.WeakSet()   # running jobs' stop events
        self.stats: dict[str, Any] = {"requests": 0, "completed": 0, "refused_busy": 0, "cancelled": 0,
                                      "errors": 0, "skipped": 0, "abandoned": 0, "typed_through": 0,
                                      "followed": 0, "kept": 0}
        env = os.environ.get("REDRAFT_HTTP_MAX_BATCH", "")
        given = max_batch if max_batch is not None else int(env) if env.isdigit() else None
        self.max_batch = max(1, given if given is not None else MAX_BATCH)
        self.batch_given = given is not None      # else the loaded model's device picks it
        self.scheduler: Any = None    # batching.StepScheduler once a batchable engine is loaded
        self.cache_pool: Any = None
        self.workers: ThreadPoolExecutor | None = None
        self.hold = os.environ.get(HOLD_ENV) or None
        self.running = 0              # batched jobs in flight (at most max_batch), and those waiting
        self.waiting: list[tuple[float, asyncio.Future]] = []   # (since, future), oldest first
        self.order = os.environ.get(ORDER_ENV, "newest")

    def load(self) -> None:
        """Loads the engine on the model thread (blocking; call before serving); nothing to do when
        the engine comes from a `source`."""
        if self.source is None:
            self.pool.submit(self._load).result()

    def _load(self) -> None:
        import torch

        from redraft.engine.host import auto_threads, settle_heap
        from redraft.engine.pipeline import Engine
        torch.set_num_threads(self.threads or auto_threads())
        engine = Engine(self.model_dir)
        settle_heap()    # the loaded model out of the collector's full passes, as in the language server
        if not self.batch_given and engine.device == "cpu":
            self.max_batch = MAX_BATCH_CPU
        if self.max_batch > 1:
            self.batching(engine)
            if self.scheduler is not None and not self.threads:
                # batched: one torch thread.  The passes run on whichever request thread is last
                # to give the baton back, and torch's spinning workers of several such threads
                # starved each other on 2 cores (a lone request 119 vs 94 ms p50, bench/serve_load.py);
                # the second core serves the HTTP loop meanwhile
                torch.set_num_threads(1)
        self.engine = engine

    def batching(self, engine: Any) -> None:
        """Turns on batched denoising for `engine` (when its model can batch)."""
        from redraft.engine import batching
        if not batching.batchable(engine):
            return
        batching.prepare(engine)
        self.scheduler = batching.StepScheduler(stats=self.stats)
        self.cache_pool = batching.CachePool(max(32, 2 * self.max_batch))
        self.workers = ThreadPoolExecutor(max_workers=self.max_batch, thread_name_prefix="redraft-http-batch")

    @property
    def batch_size(self) -> int | None:
        """Requests in the model's last pass (None: not batching)."""
        return self.scheduler.batch_size if self.scheduler is not None else None

    def admit(self) -> None:
        """Takes a place in the queue (synchronously, so that no await lies between the check and the
        count); Busy when the queue is full. Every admit is followed by one run_admitted."""
        rounds = -(-self.pending // self.max_batch) if self.scheduler is not None else self.pending
        if self.pending > self.max_queue or rounds * self.job_s > 0.8 * DEADLINE:
            self.stats["refused_busy"] += 1
            raise Busy()
        self.pending += 1
        self.stats["requests"] += 1

    def answered_without_model(self, admitted: bool) -> None:
        """A request answered with no model work (typed through an earlier answer): counted as
        requested and completed; an admitted one gives its place back."""
        if admitted:
            self.pending -= 1
        else:
            self.stats["requests"] += 1
        self._typed_through()

    def _typed_through(self) -> None:
        self.stats["completed"] += 1
        self.stats["typed_through"] += 1

    async def run(self, fn: Callable[..., Any], *args: Any, deadline: float | None = None) -> Any:
        """fn(engine, *args) on the model thread; Busy when the queue is full, or when the job reaches
        the model thread after its `deadline` (time.monotonic())."""
        self.admit()
        return await self.run_admitted(fn, *args, deadline=deadline)

    async def run_admitted(self, fn: Callable[..., Any], *args: Any, deadline: float | None = None) -> Any:
        stop = next((a for a in args if isinstance(a, _Check)), None)
        held = 0.0
        slot = False

        def job(engine: Any) -> Any:
            if deadline is not None and time.monotonic() - held > deadline:
                self.stats["refused_busy"] += 1
                raise Busy()
            if stop is not None and stop.event.is_set():   # its client left while it waited
                self.stats["skipped"] += 1
                return None
            t0 = time.monotonic()
            try:
                if self.scheduler is None or engine is not self.engine:
                    return fn(engine, *args)
                from redraft.engine.batching import engine_view
                with self.scheduler.job(stop), engine_view(engine, self.scheduler, self.cache_pool) as view:
                    return fn(view, *args)
            finally:
                self.job_s = 0.7 * self.job_s + 0.3 * (time.monotonic() - t0)

        try:
            held = await self._held(stop)
            loop = asyncio.get_running_loop()
            engine, pool = (self.engine, self.pool) if self.source is None else \
                await loop.run_in_executor(None, self.source)
            if self.scheduler is not None and self.source is None:
                pool = self.workers
                await self._slot()
                slot = True
            out = await loop.run_in_executor(pool, lambda: job(engine))
            self.stats["completed"] += 1
            return out
        except asyncio.CancelledError as e:   # its client left (app.watched): a waiting job leaves
            if e.args[:1] == (ANSWERED,):      # the queue, a running one stops at its next step
                self._typed_through()
            else:
                self.stats["abandoned"] += 1
            raise
        finally:
            self.pending -= 1
            if slot:
                self._free()

    async def _slot(self) -> None:
        """A place among the `max_batch` jobs in flight: at once when one is free, else when a job
        ends and this one is next.  ORDER "newest" (the default): the most recent waiting job
        first, as under overload an editor's newest request is the one still wanted (one whose
        client left has already gone from the list), unless the oldest has waited over MAX_WAIT
        (a patient client, a bot): then it goes first.  "oldest": first come, first served."""
        if self.running < self.max_batch and not self.waiting:
            self.running += 1
            return
        fut = asyncio.get_running_loop().create_future()
        entry = (time.monotonic(), fut)
        self.waiting.append(entry)
        try:
            await fut
        except asyncio.CancelledError:
            if entry in self.waiting:
                self.waiting.remove(entry)
            elif fut.done() and not fut.cancelled():
                self._free()                # the place was handed to it as it left: pass it on
            raise

    def _free(self) -> None:
        while self.waiting:
            oldest = self.order != "newest" or time.monotonic() - self.waiting[0][0] > MAX_WAIT
            entry = self.waiting.pop(0 if oldest else -1)
            if not entry[1].done():
                entry[1].set_result(None)   # the place passes to it (running stays the same)
                return
        self.running -= 1

    async def cpu(self, size: int, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) off the event loop: on big_pool when `size` (characters of input) is over BIG,
        Busy when more than max_big such requests wait; else on cpu_pool."""
        loop = asyncio.get_running_loop()
        if size <= BIG:
            return await loop.run_in_executor(self.cpu_pool, lambda: fn(*args))
        if self.big_pending >= self.max_big:
            self.stats["refused_busy"] += 1
            raise Busy()
        self.big_pending += 1
        try:
            return await loop.run_in_executor(self.big_pool, lambda: fn(*args))
        finally:
            self.big_pending -= 1

    async def isolated(self, size: int, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) (a picklable module-level function) off the loop: in a thread for small input,
        in the child process for input over BIG characters, ended after BIG_DEADLINE seconds
        (TooLong); Busy when more than max_big such jobs are in flight."""
        if size <= BIG:
            return await self.cpu(size, fn, *args)
        from concurrent.futures.process import BrokenProcessPool
        if self.big_pending >= self.max_big:
            self.stats["refused_busy"] += 1
            raise Busy()
        self.big_pending += 1
        try:
            pool = self._proc_pool()
            fut = pool.submit(fn, *args)
            try:
                return await asyncio.wait_for(asyncio.wrap_future(fut), BIG_DEADLINE)
            except asyncio.TimeoutError:
                if fut.cancel():                # it was still waiting for the child
                    self.stats["refused_busy"] += 1
                    raise Busy() from None
                self._end_proc_pool()           # running: end the child (and whatever waited with it)
                raise TooLong() from None
            except BrokenProcessPool:           # another job's child was ended under this one
                raise Busy() from None
        finally:
            self.big_pending -= 1

    def _proc_pool(self) -> Any:
        if self.proc_pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor
            self.proc_pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self.proc_pool

    def _end_proc_pool(self) -> None:
        pool, self.proc_pool = self.proc_pool, None
        if pool is None:
            return
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            try:
                proc.terminate()
            except Exception:  # noqa: BLE001 - already gone
                pass
        pool.shutdown(wait=False, cancel_futures=True)

    def stopper(self, deadline: float | None = None) -> tuple[threading.Event, Callable[[], bool]]:
        """A job's stop event (set by the app when its client leaves, and by shutdown) and the
        engine's should_stop: the event, or the deadline (time.monotonic()) passed."""
        stop = threading.Event()
        self.stops.add(stop)
        return stop, _Check(stop, deadline)

    async def _held(self, stop: "_Check | None" = None) -> float:
        """Tests (HOLD_ENV): an admitted job waits while the hold file exists, so that a test can
        fill the queue without racing the model; the seconds held do not count against the
        job's deadline.  Returns them."""
        t0 = time.monotonic()
        while self.hold is not None and os.path.exists(self.hold):
            await asyncio.sleep(0.01)
        held = time.monotonic() - t0 if self.hold is not None else 0.0
        if stop is not None and stop.deadline is not None:
            stop.deadline += held
        return held

    def shutdown(self) -> None:
        for stop in list(self.stops):
            stop.set()
        for pool in (self.pool, self.cpu_pool, self.big_pool, self.workers):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        self._end_proc_pool()      # (batched jobs: their stop events are set, they leave at their next step)


class _Check:
    """A job's should_stop: its stop event is set, or its deadline (time.monotonic()) passed. The
    runner finds it among a job's arguments (the scheduler drops a stopped request's steps)."""
    __slots__ = ("event", "deadline")

    def __init__(self, event: threading.Event, deadline: float | None) -> None:
        self.event, self.deadline = event, deadline

    def __call__(self) -> bool:
        return self.event.is_set() or (self.deadline is not None and time.monotonic() > self.deadline)


def stopper() -> tuple[threading.Event, Callable[[], bool]]:
    stop = threading.Event()
    return stop, stop.is_set
