"""A keystroke's request that follows the one before it (issue 46).

An editor sends a request per keystroke and hangs up on the one before.  Under load that one is
usually still denoising, and stopping it throws its work away.  But the new request's text is the
old one plus the typed characters, so the old answer is worth having if it begins with them
(typing through, engine/type_through.py `Recent`).  So:

* a running request whose client hangs up keeps running for `GRACE` seconds, and to its end if a
  request at the same place (the same text after the cursor and before its line) that extends
  its prefix comes meanwhile: it is *followed*;
* the follower asks the model as any request does (it loses no time when the answer before does
  not fit), and when that answer comes first and begins with the typed characters, its rest is
  the follower's answer at once and the follower's own work stops (a place in the queue given
  back, or a batch place at its next step).

Nothing is answered twice: the hung-up request's answer goes nowhere but to `Recent`.  A request
that has not started when its client goes is dropped at once, as before."""
from __future__ import annotations

import asyncio
from typing import Callable

from redraft.engine.type_through import Recent

__all__ = ["Flight", "Flights", "Keystrokes", "GRACE"]

GRACE = 0.05      # seconds a running request whose client left waits for a follower


class Flight:
    """One request in flight at its place."""
    __slots__ = ("place", "prefix", "settings", "started", "joined", "done")

    def __init__(self, place: tuple, prefix: str, settings: tuple) -> None:
        self.place, self.prefix, self.settings = place, prefix, settings
        self.started = False            # its model work has begun (set on the worker thread)
        self.joined = asyncio.Event()   # a follower came
        self.done = asyncio.Event()     # its answer (if any) is in Recent


class Flights:
    """The requests in flight, by place (the newest at each)."""

    def __init__(self) -> None:
        self.at: dict[tuple, Flight] = {}

    def start(self, place: tuple, prefix: str, settings: tuple) -> Flight:
        """`place`: Recent.place of the request's prefix and suffix."""
        f = self.at[place] = Flight(place, prefix, settings)
        return f

    def end(self, f: Flight) -> None:
        f.done.set()
        if self.at.get(f.place) is f:
            del self.at[f.place]

    def ahead(self, place: tuple, prefix: str, settings: tuple) -> Flight | None:
        """The running request that this one may follow: same place and settings, a shorter prefix."""
        f = self.at.get(place)
        if f is None or not f.started or f.settings != settings or len(prefix) <= len(f.prefix) \
                or not prefix.startswith(f.prefix):
            return None
        return f

    @staticmethod
    async def answer_of(f: Flight, through: Callable[[], str | None]) -> str | None:
        """`through()` once `f` has ended (its answer then in Recent); `f` knows it is followed."""
        f.joined.set()
        await f.done.wait()
        return through()

    @staticmethod
    async def wanted(f: Flight | None) -> bool:
        """Whether a running request whose client left is still wanted: a follower comes within GRACE."""
        if f is None or not f.started:
            return False
        if not f.joined.is_set():
            try:
                await asyncio.wait_for(f.joined.wait(), GRACE)
            except asyncio.TimeoutError:
                return False
        return True


class Keystrokes:
    """The app's infills as keystrokes: typing through earlier answers (`Recent`) and the
    requests in flight (`Flights`).  `job`: http/jobs.py Infill.  On the event loop only."""

    def __init__(self, stats: dict) -> None:
        self.stats, self.typed, self.flights = stats, Recent(), Flights()

    def through(self, job) -> str | None:
        return self.typed.through(job.prefix, job.suffix, job.settings())

    def start(self, job) -> tuple[Flight, "asyncio.Future | None"]:
        """`job`'s flight, and the typed-through answer of the running request it follows (a
        future: None when that answer does not fit), or None when it follows none."""
        place, settings = Recent.place(job.prefix, job.suffix), job.settings()
        ahead = self.flights.ahead(place, job.prefix, settings)
        flight = self.flights.start(place, job.prefix, settings)
        if ahead is None:
            return flight, None
        self.stats["followed"] += 1
        return flight, asyncio.ensure_future(self.flights.answer_of(
            ahead, lambda: self.typed.through(job.prefix, job.suffix, settings, place)))

    def remember(self, job, out: str | None, place: tuple | None = None) -> None:
        self.typed.remember(job.prefix, job.suffix, job.settings(), out or "", place)

    def end(self, job, flight: Flight, out: str | None) -> None:
        self.remember(job, out, flight.place)
        self.flights.end(flight)
