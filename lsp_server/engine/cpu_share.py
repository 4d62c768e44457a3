"""How many cores the model may use for the next request, from what the rest of the machine used
since the previous one (`threads: 0`, the default).

Why: torch's CPU threads spin while they wait for work. On 2 cores with one of them busy elsewhere
(a build, a test run, another model), two spinning model threads fight that process for the core:
typing latency went from p50 38 / p95 47 ms to p50 198 / p95 864 ms, where one thread kept it at
47 / 56 ms (bench/RESULTS.md). So before each request the host reads /proc/stat (all CPU time) and
/proc/self/stat (this process's), and leaves out the cores that other processes kept busy since the
last look. Reading both costs a few tens of microseconds. Where /proc is missing, every core counts.
"""
from __future__ import annotations

import os
from pathlib import Path

BUSY_SHARE = 0.5      # a core other processes kept at least this busy is left to them
MIN_WINDOW = 2        # clock ticks per core: a shorter window keeps the last decision


def _ticks() -> tuple[int, int, int] | None:
    """(total ticks of all CPUs, their busy ticks, this process's ticks), or None without /proc."""
    try:
        cpu = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
        own = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    values = [int(v) for v in cpu[:8]]
    total = sum(values)
    idle = values[3] + values[4]                  # idle + iowait
    return total, total - idle, int(own[11]) + int(own[12])   # utime + stime (fields 14 and 15)


class CoreShare:
    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores or os.cpu_count() or 1
        self._last = _ticks()
        self._threads: int | None = None

    def threads(self, most: int) -> int:
        """Threads for the next request: `most`, less the cores others kept busy since the last call."""
        now = _ticks()
        if now is None or self._last is None:
            return most
        total, busy, own = (a - b for a, b in zip(now, self._last))
        if total < MIN_WINDOW * self.cores and self._threads is not None:
            return min(self._threads, most)       # too short to tell: as last time
        self._last = now
        per_core = max(total / self.cores, 1)
        others = max(0, busy - own) / per_core    # cores' worth of work by other processes
        taken = int(others + 1 - BUSY_SHARE)      # cores busy at least BUSY_SHARE, rounded
        self._threads = max(1, min(most, self.cores - taken))
        return self._threads
