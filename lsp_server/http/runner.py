"""The HTTP front door's hold on the engine: one model thread, a bounded queue, cancellation.

* The engine (`redraft.engine.pipeline.Engine`, the language server's) loads once, on the model thread,
  at start-up; every request's model work runs on that same thread (see engine_host.py for why).
  Beside a language server in the same process (`redraft serve --stdio --http ...`) a `source`
  gives the language server's own engine and model thread instead: one model in memory, and HTTP
  and editor requests take turns on the one thread.
* At most `max_queue` requests wait for the model thread; one more is refused at once (`Busy`, which
  the app answers with 429) rather than queued behind work its client may already have given up on.
* Each job gets a `threading.Event`; the app sets it when the client disconnects and the engine's
  `should_stop` reads it between denoising steps.
"""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

__all__ = ["Busy", "EngineRunner"]


class Busy(Exception):
    """More requests are waiting than the queue holds."""


class EngineRunner:
    def __init__(self, model_dir: str | None = None, max_queue: int = 16, threads: int = 0,
                 source: Callable[[], tuple[Any, Any]] | None = None) -> None:
        self.model_dir = model_dir
        self.source = source          # blocking () -> (engine, executor), or None: load our own
        self.max_queue = max_queue
        self.threads = threads
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="redraft-http-model")
        self.engine: Any = None
        self.pending = 0
        self.stats = {"requests": 0, "completed": 0, "refused_busy": 0, "cancelled": 0, "errors": 0}

    def load(self) -> None:
        """Loads the engine on the model thread (blocking; call before serving); nothing to do when
        the engine comes from a `source`."""
        if self.source is None:
            self.pool.submit(self._load).result()

    def _load(self) -> None:
        import torch

        from redraft.engine.host import auto_threads
        from redraft.engine.pipeline import Engine
        torch.set_num_threads(self.threads or auto_threads())
        self.engine = Engine(self.model_dir)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(engine, *args) on the model thread; Busy when the queue is full."""
        if self.pending > self.max_queue:
            self.stats["refused_busy"] += 1
            raise Busy()
        self.pending += 1
        self.stats["requests"] += 1
        try:
            loop = asyncio.get_running_loop()
            engine, pool = (self.engine, self.pool) if self.source is None else \
                await loop.run_in_executor(None, self.source)
            out = await loop.run_in_executor(pool, lambda: fn(engine, *args))
            self.stats["completed"] += 1
            return out
        finally:
            self.pending -= 1

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def stopper() -> tuple[threading.Event, Callable[[], bool]]:
    stop = threading.Event()
    return stop, stop.is_set
