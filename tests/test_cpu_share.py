"""cpu_share: the model's threads for the next request leave out the cores other processes kept
busy since the last request (torch's spinning threads on a shared core cost up to 10x)."""
from __future__ import annotations

import pytest

from redraft.engine import cpu_share
from redraft.engine.cpu_share import CoreShare


class Clock:
    """A fake /proc: all CPUs' total and busy ticks and this process's ticks, advanced by the test."""

    def __init__(self) -> None:
        self.total = self.busy = self.own = 0

    def __call__(self):
        return self.total, self.busy, self.own

    def advance(self, ticks_per_core: int, cores: int, others: float, own: float) -> None:
        """`others`, `own`: cores' worth of work done by other processes and by this one."""
        self.total += ticks_per_core * cores
        self.busy += int(ticks_per_core * (others + own))
        self.own += int(ticks_per_core * own)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(cpu_share, "_ticks", c)
    return c


def test_an_idle_machine_gives_every_core(clock):
    share = CoreShare(cores=2)
    clock.advance(20, 2, others=0.1, own=1.9)     # our own threads' work never counts against us
    assert share.threads(2) == 2


def test_a_core_busy_elsewhere_is_left_alone(clock):
    share = CoreShare(cores=2)
    clock.advance(20, 2, others=1.0, own=0.9)
    assert share.threads(2) == 1
    clock.advance(20, 2, others=0.3, own=1.5)     # the build finished: both cores again
    assert share.threads(2) == 2


def test_never_fewer_than_one_nor_more_than_asked(clock):
    share = CoreShare(cores=4)
    clock.advance(20, 4, others=4.0, own=0.0)
    assert share.threads(4) == 1
    clock.advance(20, 4, others=1.4, own=1.0)     # one core taken (1.4 rounds to 1)
    assert share.threads(4) == 3
    assert share.threads(2) == 2                  # (no time passed: the last decision, capped)
    clock.advance(20, 4, others=1.6, own=1.0)     # two
    assert share.threads(4) == 2


def test_a_short_window_keeps_the_last_decision(clock):
    share = CoreShare(cores=2)
    clock.advance(20, 2, others=1.0, own=0.5)
    assert share.threads(2) == 1
    clock.advance(1, 2, others=0.0, own=2.0)      # 1 tick per core: too short to tell
    assert share.threads(2) == 1


def test_without_proc_every_core_counts(monkeypatch):
    monkeypatch.setattr(cpu_share, "_ticks", lambda: None)
    assert CoreShare(cores=2).threads(2) == 2


def test_reads_this_machines_proc():
    ticks = cpu_share._ticks()
    assert ticks is not None and ticks[0] >= ticks[1] >= 0 and ticks[2] >= 0
    assert 1 <= CoreShare().threads(2) <= 2
