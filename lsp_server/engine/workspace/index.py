"""The workspace index: the project's lines and definitions, built in the background, kept current
by the editor's notifications, read by every completion without waiting.

What it holds, per file of an enabled language: the file's code lines (stripped of indentation,
ids into one table of distinct lines, each with how many times the project writes it) and its
definitions from tree-sitter (name, kind, signature line, position). From these: `lines_starting`
(the project's lines that start with what is typed on the cursor's line, most frequent first)
and `definitions_of` (where the project defines a name).

Design decisions:
* Requests never wait: `build` runs on its own daemon thread and pauses between files while a
  request runs (`serving`; bench/RESULTS.md measured what a build contending for the interpreter
  lock cost typing); readers see whatever is indexed so far. A lock guards the tables; readers hold
  it for a dictionary look-up and a bisect.
* Bounded: at most `max_files` files of at most `max_bytes` each, lines of 3..MAX_LINE characters,
  at most `max_lines` distinct lines in all (a line past that still counts where it is known).
  Measured on 5,000 files in bench/RESULTS.md.
* Current: `update(path, text)` re-reads a file from the editor's text (didOpen, didSave, and
  didChange at most every UPDATE_EVERY seconds per file), `remove(path)` forgets it (deleted,
  closed-and-gone); `refresh(path)` re-reads it from disk (file watcher events). A file that
  cannot be read (permissions, deleted while read, not UTF-8) is skipped and counted.
* `lines_starting` bisects a sorted view of the distinct lines and scans the few lines added since
  it was built; the view is rebuilt off the requests' threads (at the build's end, and when the
  lines that arrived since reach RESORT_AT and half the view), so no keystroke pays for a sort
  and the scan stays short.
"""
from __future__ import annotations

import bisect
import gc
import heapq
import logging
import multiprocessing
import pickle
import signal
import threading
import time
from array import array
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from redraft.engine.workspace.files import list_files
from redraft.engine.workspace.scan import (Definition, code_lines, definitions, extensions_of, language_of, scan,
                                          signal_child)

log = logging.getLogger(__name__)

UPDATE_EVERY = 2.0       # seconds between re-indexing one file without `force`
RESORT_AT = 4096         # lines added since the sorted view was built that start a rebuild
SCAN = 20_000           # sorted lines read at most per look-up
SORT_RUN = 8192          # lines sorted at a time when the sorted view is rebuilt (_sorted_order)
BATCH = 8                # files per message from the build's child (unpickling one holds the interpreter lock)
RECENT_SCAN = 8192       # lines added since the sorted view was built that a look-up reads at most (the newest)
FREEZE_EVERY = 256       # files put in the tables between moves of their objects out of the collector's reach

@dataclass
class _File:
    language: str
    line_ids: array                      # ids of its indexed lines, in order
    defs: list[tuple] = field(default_factory=list)   # Definition's fields as plain tuples (below)
    updated: float = 0.0


class WorkspaceIndex:
    def __init__(self, roots: list[Path], languages: Iterable[str] = ("python",), max_files: int = 5000,
                 max_bytes: int = 512 * 1024, max_lines: int = 400_000, delay_s: float = 0.0) -> None:
        self.roots = [Path(r).resolve() for r in roots]
        self.languages = tuple(languages)
        self.max_files, self.max_bytes, self.max_lines = max_files, max_bytes, max_lines
        self.delay_s = delay_s              # test hook: the build sleeps this long after each file
        self._lock = threading.Lock()
        self._ids: dict[str, int] = {}
        self._text: list[str] = []
        self._count = array("i")
        self._files: dict[str, _File] = {}
        # definitions as plain tuples, Definition's fields: the garbage collector stops tracking a
        # tuple of strings and ints (not a named tuple); 100k tracked definitions had made every full
        # collection ~100 ms longer, holding the interpreter lock while a keystroke waited
        self._defs: dict[str, list[tuple]] = {}
        self._sorted: list[str] = []
        self._sorted_ids = array("i")
        self._recent: list[int] = []        # ids of lines added since the sorted view was built
        self._sorting = False
        # every file's line ids end to end, -1 between files (rebuilt with the sorted view): which
        # lines follow a given line, for `followers`; files changed since are read on their own
        self._flat = np.full(1, -1, np.int32)
        self._flat_at: dict[str, tuple[int, int]] = {}
        self._changed: dict[str, None] = {}     # files inserted or removed since _flat was built, in order
        self._stop = threading.Event()
        self._busy = 0                      # requests running now: the build waits for them (`serving`)
        self._busy_lock = threading.Lock()
        self._scanner: int | None = None    # pid of the build's child process while it runs (`serving` stops it)
        self._thread: threading.Thread | None = None
        self.stats = {"files": 0, "lines": 0, "distinct_lines": 0, "definitions": 0, "skipped": {},
                      "build_s": None, "state": "idle", "errors": 0}

    # -- building --------------------------------------------------------------------------------
    def start(self) -> None:
        """Index in the background (a daemon thread); returns at once."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._build, name="redraft-index", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the build; the tables go once nothing refers to them. They were frozen (out of the
        garbage collector's reach, `_ready`): unfrozen now, so that whatever cycle holds them is
        collected too (the next model load or build freezes what lives on)."""
        self._stop.set()
        gc.unfreeze()

    def wait(self, timeout: float | None = None) -> bool:
        """For tests and benchmarks: block until the build is done."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _build(self) -> None:
        """The build's parent side: a child process lists, reads and parses the files (`scan`) and
        sends each batch's lines and definitions; this thread only puts them in the tables,
        waiting while a request runs. The parsing never competes with the model's thread for the
        interpreter lock."""
        t0 = time.perf_counter()
        self.stats["state"] = "indexing"
        ctx = multiprocessing.get_context("spawn")
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=scan, args=(send, [str(r) for r in self.roots], self.languages, self.max_files,
                                              self.max_bytes, BATCH, self.delay_s), name="redraft-index-scan",
                                  daemon=True)
        try:
            try:
                proc.start()
            except Exception as e:  # noqa: BLE001 - no child process: the build is this thread's
                log.warning("indexing in this process: %s", e)
                return self._build_here(t0)
            send.close()
            with self._busy_lock:
                self._scanner = proc.pid
                if self._busy:
                    signal_child(proc.pid, signal.SIGSTOP)
            inserted = 0
            while not self._stop.is_set():
                try:
                    message = recv.recv_bytes()
                except (EOFError, OSError):
                    break
                self._wait_for_requests()     # unpickling a batch holds the interpreter lock
                kind, payload = pickle.loads(message)
                if kind == "skipped":
                    for k, v in payload.items():
                        self.stats["skipped"][k] = self.stats["skipped"].get(k, 0) + v
                elif kind == "errors":
                    self.stats["errors"] += payload
                elif kind == "done":
                    break
                else:
                    for path, lang, lines, defs in payload:
                        self._wait_for_requests()
                        if path not in self._files:   # the editor's text came first (didOpen)
                            self._insert(path, lang, lines, defs)
                            inserted += 1
                            if not inserted % FREEZE_EVERY:
                                gc.freeze()   # see _ready: the tables so far, out of the full collections
        finally:
            with self._busy_lock:
                self._scanner = None
            if proc.pid is not None:        # started (a failed start falls back to _build_here)
                signal_child(proc.pid, signal.SIGCONT)
                if proc.is_alive():
                    proc.terminate()
                proc.join(5)
            recv.close()
        if self._stop.is_set():
            self.stats["state"] = "stopped"
            return
        self._ready(t0)

    def _ready(self, t0: float) -> None:
        self._resort()
        self.stats["build_s"] = round(time.perf_counter() - t0, 3)
        self.stats["state"] = "ready"
        # the tables live as long as the server: out of the garbage collector's full passes (each
        # would walk them again, holding the interpreter lock while a keystroke waits). The build
        # freezes every FREEZE_EVERY files too: its survivors trigger full collections (a keystroke
        # on the model's thread paid 70-120 ms for one, bench/RESULTS.md session 30); whatever else
        # is alive at that moment stays too, which costs at most a few small cycles per freeze
        gc.freeze()

    def _build_here(self, t0: float) -> None:
        exts = extensions_of(self.languages)
        for root in self.roots:
            paths, skipped = list_files(root, exts, self.max_files - len(self._files), self.max_bytes)
            for k, v in skipped.items():
                self.stats["skipped"][k] = self.stats["skipped"].get(k, 0) + v
            for path in paths:
                if self._stop.is_set():
                    self.stats["state"] = "stopped"
                    return
                self._wait_for_requests()
                if str(path) not in self._files:
                    self.refresh(path)
        self._ready(t0)

    @contextmanager
    def serving(self):
        """Around a request's model work: the background build pauses between files meanwhile (its
        Python work would otherwise contend for the interpreter lock with the model's thread and
        make keystrokes wait), and its child process is stopped (SIGSTOP; SIGCONT when the last request
        ends): on two cores a parsing child beside the model's two threads doubled typing's p95."""
        with self._busy_lock:
            self._busy += 1
            if self._busy == 1 and self._scanner is not None:
                signal_child(self._scanner, signal.SIGSTOP)
        try:
            yield self
        finally:
            with self._busy_lock:
                self._busy -= 1
                if self._busy == 0 and self._scanner is not None:
                    signal_child(self._scanner, signal.SIGCONT)

    # -- keeping current ---------------------------------------------------------------------------
    def refresh(self, path: Path | str) -> bool:
        """Re-read one file from disk; a file that is gone or unreadable is forgotten."""
        p = Path(path)
        lang = language_of(str(p), self.languages)
        if lang is None:
            return False
        try:
            if p.stat().st_size > self.max_bytes:
                self.remove(p)
                return False
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            self.stats["errors"] += 1
            self.remove(p)
            return False
        self.update(p, text, force=True)
        return True

    def update(self, path: Path | str, text: str, force: bool = False) -> bool:
        """Index `text` as the file's content (the editor's). Skipped when the file was indexed less
        than UPDATE_EVERY seconds ago, unless `force`. Returns whether it indexed."""
        key = str(Path(path))
        lang = language_of(key, self.languages)
        if lang is None or len(text) > self.max_bytes:
            return False
        now = time.monotonic()
        old = self._files.get(key)
        if old is not None and not force and now - old.updated < UPDATE_EVERY:
            return False
        if old is None and len(self._files) >= self.max_files:
            return False
        self._insert(key, lang, [s for _, s in code_lines(text)], [tuple(d) for d in definitions(text, lang, key)])
        return True

    def _insert(self, key: str, lang: str, lines: list[str], defs: list[tuple]) -> None:
        """`defs`: Definition's fields as plain tuples (as the build's child sends them)."""
        now = time.monotonic()
        with self._lock:
            old = self._files.get(key)
            if old is not None:
                self._forget(key, old)
            ids = array("i")
            for s in lines:
                i = self._ids.get(s)
                if i is None:
                    if len(self._text) >= self.max_lines:
                        continue
                    i = self._ids[s] = len(self._text)
                    self._text.append(s)
                    self._count.append(0)
                    self._recent.append(i)
                self._count[i] += 1
                ids.append(i)
            self._files[key] = _File(lang, ids, defs, now)
            self._changed.pop(key, None)
            self._changed[key] = None
            for d in defs:
                self._defs.setdefault(d[0], []).append(d)
            self.stats["files"] = len(self._files)
            self.stats["lines"] += len(ids)
            self.stats["distinct_lines"] = len(self._text)
            self.stats["definitions"] += len(defs)
            resort = len(self._recent) >= max(RESORT_AT, len(self._sorted) // 2) and not self._sorting
            if resort:
                self._sorting = True
        if resort:
            threading.Thread(target=self._resort, name="redraft-index-sort", daemon=True).start()

    def remove(self, path: Path | str) -> None:
        key = str(Path(path))
        with self._lock:
            old = self._files.pop(key, None)
            if old is not None:
                self._forget(key, old)
                self._changed[key] = None
                self.stats["files"] = len(self._files)

    def _forget(self, key: str, old: _File) -> None:
        for i in old.line_ids:
            self._count[i] -= 1
        self.stats["lines"] -= len(old.line_ids)
        for d in old.defs:
            lst = self._defs.get(d[0])
            if lst is not None:
                lst[:] = [x for x in lst if x[3] != key]   # Definition.path
                if not lst:
                    del self._defs[d[0]]
        self.stats["definitions"] -= len(old.defs)

    def _wait_for_requests(self) -> None:
        while self._busy and not self._stop.is_set():
            time.sleep(0.002)   # a request is running: it gets the interpreter to itself

    def _sorted_order(self, text: list[str], n: int | None = None) -> array:
        """The ids of the first `n` lines (all) in the lines' order, sorted a SORT_RUN-line run at a
        time and merged, with a pause whenever a request runs: one `sorted` over 400,000 lines held
        the interpreter lock for a second (a keystroke that came then waited for all of it); a run
        holds it a few ms, and the merge is Python code, which gives the lock up every few ms.
        Runs and result are arrays, not lists: the garbage collector walks every element of a
        young list at each of its frequent youngest-generation passes (a 400,000-element list made
        each of them ~15 ms, on whichever thread allocated, the model's too); an array of ints has
        no elements to walk."""
        n = len(text) if n is None else n
        runs = []
        for a in range(0, n, SORT_RUN):
            self._wait_for_requests()
            runs.append(array("i", sorted(range(a, min(n, a + SORT_RUN)), key=text.__getitem__)))
        if len(runs) <= 1:
            return runs[0] if runs else array("i")
        out = array("i")
        for k, i in enumerate(heapq.merge(*runs, key=text.__getitem__)):
            if not k & 4095:
                self._wait_for_requests()
            out.append(i)
        return out

    def _resort(self) -> None:
        """Rebuild the sorted view of distinct lines (off the requests' threads: the build's own
        thread at its end, or a short-lived one when many lines arrived since)."""
        with self._lock:
            n = len(self._text)
            text = self._text        # only ever appended to: its first n lines stay as they are
            files = [(k, f.line_ids) for k, f in self._files.items()]
            self._changed = {}
        ids = self._sorted_order(text, n)
        view: list[str] = []
        for a in range(0, n, 16 * SORT_RUN):
            self._wait_for_requests()
            view += [text[i] for i in ids[a:a + 16 * SORT_RUN]]
        gc.freeze()     # the view lives until the next rebuild: out of every pass's walk (see _sorted_order)
        parts, at, pos = [np.full(1, -1, np.int32)], {}, 1
        for k, line_ids in files:
            parts.append(np.frombuffer(line_ids, dtype=np.int32))
            parts.append(np.full(1, -1, np.int32))
            at[k] = (pos, pos + len(line_ids))
            pos += len(line_ids) + 1
        flat = np.concatenate(parts)
        with self._lock:
            self._sorted, self._sorted_ids = view, ids
            self._flat, self._flat_at = flat, at
            self._recent = [i for i in self._recent if i >= n]
            self._sorting = False

    # -- reading -----------------------------------------------------------------------------------
    def lines_starting(self, typed: str, limit: int = 64, scan: int = SCAN) -> list[tuple[str, int]]:
        """The project's distinct lines that start with `typed` and are longer, with how many times
        the project writes each (counted where they still are), most frequent first. Reads at most
        `scan` lines of the sorted view (a short prefix matches many) and the newest RECENT_SCAN lines
        added since it was built."""
        with self._lock:
            view, ids, counts, text = self._sorted, self._sorted_ids, self._count, self._text
            # while a large build runs up to half the lines wait for the next sorted view: reading
            # them all took 10-30 ms per keystroke, so only the newest RECENT_SCAN (~1 ms)
            recent = [i for i in self._recent[-RECENT_SCAN:] if text[i].startswith(typed)]
        lo = bisect.bisect_left(view, typed)
        hi = bisect.bisect_left(view, typed + "\U0010ffff", lo, min(len(view), lo + scan))
        found = [ids[k] for k in range(lo, hi)] + recent
        best = heapq.nlargest(limit + 1, found, key=counts.__getitem__)
        return [(text[i], counts[i]) for i in best if counts[i] > 0 and len(text[i]) > len(typed)][:limit]

    def followers(self, line: str, limit: int = 16, fresh: int = 32) -> dict[str, int]:
        """The project's lines that come right after `line` (a stripped code line) and how often,
        the most frequent `limit`. Reads the files changed since the last rebuild on their own (the
        `fresh` most recent of them)."""
        with self._lock:
            p = self._ids.get(line)
            if p is None:
                return {}
            flat, at = self._flat, self._flat_at
            changed = list(self._changed)[-fresh:]
            extra = [self._files[k].line_ids for k in changed if k in self._files]
            stale = [at[k] for k in self._changed if k in at]
            text = self._text
        pos = np.flatnonzero(flat[:-1] == p)
        if len(pos) and stale:
            keep = np.ones(len(pos), bool)
            for a, b in stale:
                keep &= (pos < a) | (pos >= b)
            pos = pos[keep]
        nxt = [flat[pos + 1]] + [a[1:][a[:-1] == p] for a in (np.frombuffer(x, dtype=np.int32) for x in extra)]
        ids, counts = np.unique(np.concatenate(nxt), return_counts=True)
        counts[ids < 0] = 0
        top = np.argsort(-counts, kind="stable")[:limit]
        return {text[int(ids[k])]: int(counts[k]) for k in top if counts[k] > 0}

    def count(self, line: str) -> int:
        with self._lock:
            i = self._ids.get(line)
            return self._count[i] if i is not None else 0

    def definitions_of(self, name: str) -> list[Definition]:
        with self._lock:
            return [Definition(*d) for d in self._defs.get(name, ())]

    def file_definitions(self, path: Path | str) -> list[Definition]:
        with self._lock:
            f = self._files.get(str(Path(path)))
            return [Definition(*d) for d in f.defs] if f is not None else []

    def contains(self, path: Path | str) -> bool:
        return str(Path(path)) in self._files

    def snapshot_stats(self) -> dict:
        with self._lock:
            return dict(self.stats, skipped=dict(self.stats["skipped"]))
