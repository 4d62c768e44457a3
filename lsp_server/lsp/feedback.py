"""Accept / reject reports for completions (the `redraft.accept` and `redraft.reject` commands).

Design decisions: reports stay on this machine. They are kept in memory (counters plus the last
`MAX_RECORDS` records) and, only when the `feedbackFile` setting names a file, appended to it as
JSON lines. No document text is stored, only what the completion payload carries (id, uri, scope,
sizes, latency). There is no network code here or anywhere in the server.
"""
from __future__ import annotations

import json
import time
from collections import Counter, deque
from pathlib import Path
from typing import Any

MAX_RECORDS = 1000
_KEEP = ("id", "uri", "kind", "scope", "chars", "tokens", "forward_passes", "latency_ms")


class FeedbackLog:
    def __init__(self) -> None:
        self.counters: Counter[str] = Counter()
        self.records: deque[dict[str, Any]] = deque(maxlen=MAX_RECORDS)
        self._shown: dict[str, dict[str, Any]] = {}  # id -> payload of completions handed out

    def shown(self, payload: dict[str, Any]) -> None:
        self.counters["shown"] += 1
        self._shown[payload["id"]] = payload
        while len(self._shown) > MAX_RECORDS:
            self._shown.pop(next(iter(self._shown)))

    def report(self, verdict: str, payload: dict[str, Any], file: str | None) -> tuple[dict[str, int], str | None]:
        """Record `verdict` ("accepted" | "rejected"). Returns (counters, a problem writing the file or None)."""
        known = self._shown.pop(str(payload.get("id")), None)
        merged = {**(known or {}), **{k: payload[k] for k in _KEEP if k in payload}}
        record = {"verdict": verdict, "time": round(time.time(), 3), "known": known is not None, **merged}
        self.counters[verdict] += 1
        self.records.append(record)
        problem = None
        if file:
            try:
                path = Path(file).expanduser()
                with path.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record) + "\n")
            except OSError as e:
                problem = f"cannot append the feedback report to {file}: {e}"
        return self.snapshot(), problem

    def snapshot(self) -> dict[str, int]:
        return {k: self.counters[k] for k in ("shown", "accepted", "rejected")}
