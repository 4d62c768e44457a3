"""Another file's snippet for the model's context (issue 42): where in the project the code being
written has a close neighbour, the model sees it (model/crossfile.py: the layout and the scoring,
shared with training).

Where snippets come from, for a request at a cursor:
* the texts the client sent with it (`Request.snippets`: HTTP `input_extra`, ...);
* the workspace index's files that define the identifiers of the lines before the cursor's line
  (the modules the code uses: an import's definitions, a base class, a helper), the files that
  define most of them first, at most FILES of them, read from disk (cached by modification time).

Design decisions:
* The query is the lines before the cursor's line (model/crossfile.py `query_text`), so while a
  line is typed the snippet, and with it the head of the context, stays put (the context cache
  re-encodes only the last tokens).
* A picker remembers each document's last snippet and keeps it while it still scores at least
  KEEP of the best window's score: moving a line down re-encodes the context only when a clearly
  better neighbour turns up.
* Never the document itself (its own text is already the context).
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Sequence

from redraft.engine.workspace.files import uri_path
from redraft.model.crossfile import IDENT, jaccard, query_text, words, worded_windows

FILES = 6              # index files read per query at most
KEEP = 0.8             # the last snippet stays while it scores this share of the best one
FILE_CACHE = 64        # files' windows kept (least recently used dropped)
MAX_FILE_CHARS = 400_000


class SnippetPicker:
    """One per engine; thread-safe (requests of several documents may ask at once)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: OrderedDict[str, tuple[float, list[tuple[str, frozenset[str]]]]] = OrderedDict()
        self._last: dict[str, tuple[str, str | None]] = {}   # uri -> (query, snippet)

    def pick(self, text: str, offset: int, uri: str, index: Any = None, extra: Sequence[str] = ()) -> str | None:
        """The snippet for a request (None: no window of another file shares a word with the
        lines before the cursor)."""
        query = query_text(text, offset)
        with self._lock:
            last = self._last.get(uri)
        if last is not None and last[0] == query:
            return last[1]
        q = words(query)
        cands = [w for t in extra for w in worded_windows(t[:MAX_FILE_CHARS])]
        if index is not None:
            for path in self._files_for(query, uri, index):
                cands += self._windows_of_file(path)
        best, best_score, kept = None, 0.0, None
        prev = last[1] if last is not None else None
        for w, ws in cands:
            s = jaccard(q, ws)
            if s > best_score:
                best, best_score = w, s
            if prev is not None and w == prev:
                kept = s
        if kept is not None and best_score > 0 and kept >= KEEP * best_score:
            best = prev
        with self._lock:
            self._last[uri] = (query, best)
        return best

    def forget(self, uri: str) -> None:
        with self._lock:
            self._last.pop(uri, None)

    @staticmethod
    def _files_for(query: str, uri: str, index: Any) -> list[str]:
        """The index's files that define the query's identifiers, those defining most first."""
        own = str(uri_path(uri) or uri)
        hits: dict[str, int] = {}
        for name in set(IDENT.findall(query)):
            if len(name) < 3:
                continue
            for d in index.definitions_of(name):
                if d.path != own:
                    hits[d.path] = hits.get(d.path, 0) + 1
        return sorted(hits, key=lambda p: -hits[p])[:FILES]

    def _windows_of_file(self, path: str) -> list[tuple[str, frozenset[str]]]:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return []
        with self._lock:
            got = self._files.get(path)
            if got is not None and got[0] == mtime:
                self._files.move_to_end(path)
                return got[1]
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            return []
        made = worded_windows(text[:MAX_FILE_CHARS])
        with self._lock:
            self._files[path] = (mtime, made)
            self._files.move_to_end(path)
            while len(self._files) > FILE_CACHE:
                self._files.popitem(last=False)
        return made

