"""The runner's places for batched jobs (lsp_server/http/runner.py `_slot`/`_free`, issue 46): at
most `max_batch` jobs in flight; a freed place goes to the newest waiting job (the default)
unless the oldest has waited too long, or with REDRAFT_HTTP_ORDER=oldest to the oldest; a
waiting job whose client left (its task cancelled) takes no place, and one cancelled just as a
place was handed to it passes the place on.  The runner's own code on an event loop, no engine
needed (no job runs)."""
from __future__ import annotations

import asyncio

import pytest

from redraft.http.runner import ORDER_ENV, EngineRunner


async def served(runner: EngineRunner, got: list, k: int) -> None:
    """Job `k`: takes a place, is served (noted in `got`), gives the place back."""
    await runner._slot()
    got.append(k)
    await asyncio.sleep(0)
    runner._free()


def served_order(order: str, monkeypatch, cancel: tuple[int, ...] = ()) -> tuple[list[int], EngineRunner]:
    monkeypatch.setenv(ORDER_ENV, order)
    runner = EngineRunner(max_batch=1)
    got: list[int] = []

    async def main() -> None:
        await runner._slot()                     # the one place, taken
        tasks = []
        for k in range(5):
            tasks.append(asyncio.ensure_future(served(runner, got, k)))
            await asyncio.sleep(0)              # each waits, in this order
        assert runner.running == 1 and len(runner.waiting) == 5
        for k in cancel:
            tasks[k].cancel()
        await asyncio.sleep(0)
        runner._free()                          # the first job ends: its place goes on
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    return got, runner


@pytest.mark.parametrize("order, expected", [("oldest", [0, 1, 2, 3, 4]), ("newest", [4, 3, 2, 1, 0])])
def test_a_freed_place_goes_to_the_oldest_or_the_newest(order, expected, monkeypatch):
    got, runner = served_order(order, monkeypatch)
    assert got == expected
    assert runner.running == 0 and not runner.waiting


@pytest.mark.parametrize("order, expected", [("oldest", [0, 2, 4]), ("newest", [4, 2, 0])])
def test_a_waiting_job_whose_client_left_takes_no_place(order, expected, monkeypatch):
    got, runner = served_order(order, monkeypatch, cancel=(1, 3))
    assert got == expected
    assert runner.running == 0 and not runner.waiting


def test_a_place_handed_to_a_job_cancelled_meanwhile_passes_on(monkeypatch):
    monkeypatch.setenv(ORDER_ENV, "oldest")
    runner = EngineRunner(max_batch=1)
    got: list[str] = []

    async def main() -> None:
        await runner._slot()
        first = asyncio.ensure_future(runner._slot())
        await asyncio.sleep(0)
        second = asyncio.ensure_future(runner._slot())
        await asyncio.sleep(0)
        runner._free()              # handed to `first` (its future resolved) ...
        first.cancel()              # ... which leaves before it resumes: `second` gets the place
        await asyncio.gather(first, return_exceptions=True)
        await second
        got.append("second")
        assert runner.running == 1 and not runner.waiting
        runner._free()

    asyncio.run(main())
    assert got == ["second"] and runner.running == 0


def test_a_job_that_waited_too_long_goes_before_newer_ones(monkeypatch):
    """Newest first, but not for ever: a job waiting longer than MAX_WAIT (a patient client: a bot,
    a user who stopped typing) takes the next place, so none starves under sustained load."""
    from redraft.http import runner as runner_mod
    monkeypatch.setenv(ORDER_ENV, "newest")
    runner = EngineRunner(max_batch=1)
    got: list[int] = []

    async def main() -> None:
        await runner._slot()
        tasks = []
        for k in range(3):
            tasks.append(asyncio.ensure_future(served(runner, got, k)))
            await asyncio.sleep(0)
        since, fut = runner.waiting[0]
        runner.waiting[0] = (since - runner_mod.MAX_WAIT - 1, fut)   # job 0: long ago
        runner._free()
        await asyncio.gather(*tasks)

    asyncio.run(main())
    assert got == [0, 2, 1]


