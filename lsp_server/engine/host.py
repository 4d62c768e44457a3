"""Owns the one in-process `Engine`: loads it once, off the event loop, reloads it when the model
settings change, and turns a load failure into a message instead of a crash.

Design decisions:
* Loading starts at `initialized` (so the first completion does not pay for it) and runs in a
  thread; torch is imported there too, so `initialize` answers at once.
* Requests that arrive while the model loads await the same load (`asyncio.shield`: a cancelled
  request must not cancel the load).
* A failed load (bad `modelDir`, corrupt checkpoint, ...) is logged and shown once per attempted
  configuration; completions then answer empty until the settings change.
* `device: cuda` without a usable GPU falls back to the CPU with a warning.
* `threads: 0` (the default) means `auto_threads()`, not torch's default of every core.
* `threads: 0` also means: before each request, leave out the cores other processes kept busy
  since the last one (cpu_share.py; spinning torch threads on an oversubscribed core cost up to 10x).
* A remote backend (the `backend` setting, or `redraft serve --backend*` as the default): the host
  builds a `RemoteEngine` (engine/backends/remote.py) instead of loading the model, without
  importing torch, and the local model too only for `fallback: "local"`. The remote engine's log
  lines and health changes ("backend unreachable") come back through `_backend_event` to the
  front door's log and status; `status()` says "failed" with the reason while the backend fails.
* One model thread: importing torch, loading and every denoising run on the same OS thread
  (`model_thread`). torch's CPU ops run on an OpenMP team that belongs to the thread that starts
  them, and an idle team keeps spinning for a while: requests that hop between pool threads left
  teams spinning against each other and cost ~20 ms a keystroke on 2 cores (bench/RESULTS.md).
"""
from __future__ import annotations

import asyncio
import gc
import importlib
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from redraft.engine.backends.config import LOCAL, BackendConfig
from redraft.engine.cpu_share import CoreShare
from redraft.engine.settings import Settings

if TYPE_CHECKING:
    from redraft.engine.pipeline import Engine


class Level(IntEnum):
    """A message's weight, numbered as LSP's MessageType so that a front door can pass it on."""
    ERROR = 1
    WARNING = 2
    INFO = 3
    LOG = 4


class Reporter(Protocol):
    """What the host needs from its front door: messages and work-done progress."""

    def log(self, kind: Level, message: str) -> None: ...
    def show(self, kind: Level, message: str) -> None: ...
    async def progress_begin(self, title: str, message: str) -> Any: ...
    def progress_end(self, token: Any, message: str) -> None: ...
    def status_changed(self) -> None: ...


@dataclass(frozen=True)
class ModelKey:
    model_dir: str | None
    device: str
    threads: int
    precision: str
    backend: BackendConfig = LOCAL      # the `backend` setting, else the server's default (CLI flags), else local

    @classmethod
    def of(cls, s: Settings, default_dir: str | None, default_backend: BackendConfig | None = None) -> "ModelKey":
        d = s.model_dir or default_dir
        return cls(str(Path(d).expanduser()) if d else None, s.device, s.threads, s.precision,
                   s.backend or default_backend or LOCAL)

    @property
    def remote(self) -> bool:
        return self.backend.remote


class EngineUnavailable(RuntimeError):
    """The engine cannot take work yet (its host is not started or the model did not load): a front
    door answers "try later" (HTTP 503) rather than an internal error."""


def auto_threads() -> int:
    """Every core up to 4: a completion is a short burst while the user types, and on a 2-core
    machine the second thread takes warm latency from ~100 ms to ~85 ms (bench/RESULTS.md). Set
    `threads: 1` when something else keeps the cores busy (oversubscribed cores make torch's
    spinning worker threads many times slower)."""
    return max(1, min(4, os.cpu_count() or 1))


def _construct(key: ModelKey, on_event: Any = None) -> tuple["Engine", list[str]]:
    """Runs in a worker thread (imports torch, reads the checkpoint; for a remote backend only
    with a local fallback)."""
    if key.remote:
        return _construct_remote(key, on_event)
    import torch

    from redraft.engine.pipeline import Engine

    warnings = []
    device = key.device
    if device == "cuda" and not torch.cuda.is_available():
        warnings.append("device 'cuda' was requested but no CUDA device is available; using the CPU")
        device = "cpu"
    if key.precision == "int8" and device != "cpu":
        warnings.append("precision 'int8' (dynamic quantization) runs on the CPU only; using bf16 on the GPU")
    engine = Engine(key.model_dir, device=device, threads=key.threads or auto_threads(), precision=key.precision)
    settle_heap()
    return engine, warnings


def settle_heap() -> None:
    """Once the model is loaded: everything alive now (torch's and the server's modules, ~200,000
    objects) lives as long as the server, so it leaves the garbage collector's full passes
    (`gc.freeze`). Each pass had walked all of it, ~85 ms holding the interpreter lock while a
    keystroke waited (bench/RESULTS.md, session 30). Unfrozen first: a model loaded before
    (settings changed) is collected now, cycles and all, instead of living on frozen."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def _construct_remote(key: ModelKey, on_event: Any) -> tuple[Any, list[str]]:
    from redraft.engine.backends.remote import RemoteEngine
    warnings: list[str] = []
    local = None
    if key.backend.fallback == "local":
        local, warnings = _construct(ModelKey(key.model_dir, key.device, key.threads, key.precision))
    engine = RemoteEngine(key.backend, local, on_event)
    if engine.key_missing:
        warnings.append(f"backend {key.backend.kind}: the environment variable {key.backend.api_key_env} (apiKeyEnv) "
                        "is not set in the server's environment; requests go without a key")
    return engine, warnings


class EngineHost:
    def __init__(self, reporter: Reporter, default_model_dir: str | None = None) -> None:
        self._reporter = reporter
        self.default_model_dir = default_model_dir  # `redraft serve --model`; the modelDir setting wins
        self.default_backend: BackendConfig | None = None  # `redraft serve --backend*`; the backend setting wins
        self._loop: asyncio.AbstractEventLoop | None = None
        self._key: ModelKey | None = None
        self._task: asyncio.Task[Engine | None] | None = None
        self.model_thread = ThreadPoolExecutor(1, thread_name_prefix="redraft-model")
        self._share = CoreShare()
        self._threads_now = 0          # torch threads last set by fit_threads (0: not yet)
        self.engine: Engine | None = None
        self.error: str | None = None
        self.message: str | None = None  # what the last load said: "loading ...", "model loaded from ..."

    def preload(self) -> None:
        """Import torch and the pipeline on the model thread now, while the client is still starting
        up and initializing: the first load then only reads the checkpoint."""
        self.model_thread.submit(importlib.import_module, "redraft.engine.pipeline")

    def start(self, settings: Settings) -> asyncio.Task["Engine | None"]:
        """Begin loading the model these settings name, unless it is loaded or loading already."""
        key = self.key_of(settings)
        if self._task is None or key != self._key:
            self._key = key
            self._task = asyncio.ensure_future(self._load(key))
        return self._task

    async def get(self, settings: Settings) -> "Engine | None":
        """The engine for these settings (waiting for a load in progress), or None if it cannot load."""
        task = self.start(settings)
        engine = await asyncio.shield(task)
        return engine if task is self._task else None  # settings changed meanwhile: the caller retries later

    def key_of(self, settings: Settings) -> ModelKey:
        return ModelKey.of(settings, self.default_model_dir, self.default_backend)

    def _backend_event(self, level: str, message: str, status_changed: bool) -> None:
        """A remote engine's log line (and health change), from the model thread: onto the loop."""
        def report() -> None:
            self._reporter.log(Level.WARNING if level == "warning" else Level.INFO, message)
            if status_changed:
                self._reporter.status_changed()
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(report)
        except RuntimeError:    # the loop is closing
            pass

    @property
    def started(self) -> bool:
        return self._task is not None

    def fit_threads(self) -> None:
        """On the model thread, before a request: with `threads: 0`, use the cores that the rest of
        the machine left free since the last request (at most auto_threads())."""
        if self._key is None or self._key.threads or self.engine is None or self.engine.device != "cpu":
            return      # (a RemoteEngine's device is "remote")
        n = self._share.threads(auto_threads())
        if n != self._threads_now:
            import torch
            torch.set_num_threads(n)
            self._threads_now = n

    def shutdown(self) -> None:
        """No more model work: queued runs are dropped, a running one finishes on its own."""
        self.model_thread.shutdown(wait=False, cancel_futures=True)
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()     # a remote engine's kept-alive connections

    def forget(self, uri: str) -> None:
        """Drop a closed document's context cache."""
        if self.engine is not None:
            self.engine.forget(uri)

    def status(self) -> dict[str, Any]:
        loading = self._task is not None and not self._task.done()
        state = "ready" if self.engine is not None else (
            "failed" if self.error else ("loading" if loading else "not loaded"))
        e = self.engine
        error = self.error
        down = getattr(e, "unreachable", None)          # a remote engine whose backend fails
        if down:
            state, error = "failed", down
        cpu = getattr(e, "cpu", None)
        backend = self._key.backend if self._key else (self.default_backend or LOCAL)
        return {"state": state, "error": error, "message": self.message,
                "device": getattr(e, "device", None), "modelDir": self._key.model_dir if self._key else None,
                "precision": getattr(e, "precision", None), "cpu": cpu.summary() if cpu is not None else None,
                "threads": self._threads_now or None, "backend": backend.describe(),
                "backendStats": dict(e.stats) if getattr(e, "remote", False) else None}

    async def _load(self, key: ModelKey) -> "Engine | None":
        where = key.model_dir or "the shipped model"
        if key.remote:
            where = f"backend {key.backend.kind} at {key.backend.describe()['url']}"
        self._loop = asyncio.get_running_loop()
        old = self.engine
        self.engine, self.error, self.message = None, None, f"loading {where}"
        if old is not None and getattr(old, "remote", False):
            old.close()
        self._reporter.status_changed()
        token = await self._reporter.progress_begin("redraft", self.message)
        t0 = time.perf_counter()
        outcome = "model failed to load"
        try:
            engine, warnings = await asyncio.get_running_loop().run_in_executor(
                self.model_thread, _construct, key, self._backend_event)
            for w in warnings:
                self._reporter.log(Level.WARNING, w)
            if self._key != key:  # superseded by a newer configuration while loading
                outcome = "superseded by a newer configuration"
                return None
            self.engine = engine
            if key.remote:
                outcome = f"{engine.describe()}" + (" (fallback: the local model)" if engine.local else "")
            else:
                outcome = (f"model loaded from {where} on {engine.device} in {time.perf_counter() - t0:.1f} s, "
                           f"precision {engine.precision} (CPU: {engine.cpu.summary()})")
            self._reporter.log(Level.INFO, outcome)
            return engine
        except Exception as e:  # noqa: BLE001 - any load failure becomes a message, never a crash
            self.error = f"cannot load the redraft model from {where}: {e}"
            if key.remote:
                self.error = f"cannot use {where}: {getattr(e, 'message', e)}"
            self._reporter.log(Level.ERROR, self.error + "; completions are off until "
                               + ("the backend setting is fixed" if key.remote else "modelDir is fixed"))
            self._reporter.show(Level.ERROR, f"redraft: {self.error}")
            return None
        finally:
            self._reporter.progress_end(token, outcome)
            if self._key == key:  # a superseded load leaves the status to the newer one
                self.message = outcome
                self._reporter.status_changed()
