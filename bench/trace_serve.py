"""`redraft serve` with timing events, for lining slow keystrokes up with what the server did meanwhile.

    TRACE_OUT=/tmp/srv.jsonl .venv/bin/python bench/latency.py --workspace DIR --gap-ms 100 \
        --trace /tmp/keys.jsonl --server ".venv/bin/python bench/trace_serve.py"

Writes one JSON line per event to $TRACE_OUT, with wall-clock start and end (`t0`, `t1`, seconds)
and the thread: the garbage collector's passes over 1 ms (`gc`, with the generation), the
workspace index's inserts, unpickled batches, sorted-view rebuilds and look-ups over 0.5 ms, each
request's model work (`denoise`) and its pause of the index (`serving`). bench/latency.py --trace
writes the keystrokes' starts and durations on the same clock. Everything under the main-module
guard: the index's child process is spawned, and re-imports this file."""
from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from contextlib import contextmanager


def install(path: str) -> None:
    log = open(path, "w", buffering=1)
    lock = threading.RLock()       # a collection can start while an event is written

    def event(kind: str, t0: float, t1: float, **kw) -> None:
        with lock:
            log.write(json.dumps({"k": kind, "t0": t0, "t1": t1, "th": threading.current_thread().name, **kw}) + "\n")

    started: dict[int, float] = {}

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[threading.get_ident()] = time.time()
        else:
            t0 = started.pop(threading.get_ident(), None)
            if t0 is not None and time.time() - t0 > 0.001:
                event("gc", t0, time.time(), gen=info["generation"])
    gc.callbacks.append(on_gc)

    def timed(owner, name: str, kind: str, least: float = 0.0005, info=None) -> None:
        inner = getattr(owner, name)

        def wrapper(*a, **k):
            t = time.time()
            try:
                return inner(*a, **k)
            finally:
                if time.time() - t > least:
                    event(kind, t, time.time(), **(info(a) if info else {}))
        setattr(owner, name, wrapper)

    from redraft.engine.workspace import index
    from redraft.lsp import completions

    timed(index.WorkspaceIndex, "_insert", "insert", info=lambda a: {"lines": len(a[3])})
    timed(index.WorkspaceIndex, "_resort", "resort")
    timed(index.WorkspaceIndex, "lines_starting", "lines_starting")
    timed(index.WorkspaceIndex, "followers", "followers")
    timed(completions, "_denoise", "denoise", least=0.0)
    timed(index.pickle, "loads", "unpickle")    # the build's batches (every pickle.loads of the process)
    serving = index.WorkspaceIndex.serving

    @contextmanager
    def traced_serving(self):
        t = time.time()
        with serving(self):
            yield self
        event("serving", t, time.time())
    index.WorkspaceIndex.serving = traced_serving


if __name__ == "__main__":
    install(os.environ.get("TRACE_OUT", "redraft-trace.jsonl"))
    from redraft.main import main
    sys.argv = ["redraft", "serve"] + sys.argv[1:]
    sys.exit(main())
