"""Typing through an HTTP answer (lsp_server/engine/type_through.py `Recent`, used by
lsp_server/http/app.py): a client that sends the prefix of its last request plus characters that
open the last answer gets the answer's rest with no model work, on every completion route; any
other change (suffix, a newline, other settings, characters the answer does not begin with) asks
the model again.  The string rules alone, then the real `redraft serve --http` with the shipped model."""
from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from redraft.engine.type_through import Recent
from test_http_api import start, stop

LINES = "import os\n\n\ndef size(path):\n    "
SETTINGS = ("low", 32, "python", (), 0, 0.0)


def test_the_rest_of_an_answer_while_its_start_is_typed():
    r = Recent()
    r.remember(LINES + "re", "\n", SETTINGS, "turn os.path.getsize(path)")
    assert r.through(LINES + "ret", "\n", SETTINGS) == "urn os.path.getsize(path)"
    assert r.through(LINES + "return os.", "\n", SETTINGS) == "path.getsize(path)"
    assert r.through(LINES + "rex", "\n", SETTINGS) is None              # not what it begins with
    assert r.through(LINES + "re", "\n", SETTINGS) is None               # nothing typed: ask again
    assert r.through(LINES + "return os.path.getsize(path)", "\n", SETTINGS) is None   # all typed
    assert r.through(LINES + "ret", "\n\nprint(1)\n", SETTINGS) is None  # another suffix
    assert r.through(LINES + "ret", "\n", ("medium", *SETTINGS[1:])) is None
    assert r.through("import sys\n" + LINES + "ret", "\n", SETTINGS) is None   # an edit above


def test_a_newline_is_never_typed_through_and_places_are_bounded():
    r = Recent(limit=2)
    r.remember("def f():", "", SETTINGS, "\n    return 1")
    assert r.through("def f():\n", "", SETTINGS) is None                 # the editor indents its own way
    r.remember("a = ", "", SETTINGS, "10")
    r.remember("b = ", "", SETTINGS, "20")
    r.remember("c = ", "", SETTINGS, "30")
    assert r.through("a = 1", "", SETTINGS) is None                      # the oldest place is gone
    assert r.through("c = 3", "", SETTINGS) == "0"
    r.remember("c = ", "", SETTINGS, "")                                 # an empty answer keeps the last
    assert r.through("c = 3", "", SETTINGS) == "0"
    small = Recent(budget=100)                                           # and so many characters
    small.remember("x" * 60, "1", SETTINGS, "abc")
    small.remember("y" * 60, "2", SETTINGS, "abc")                      # two places: 122 characters
    assert small.through("x" * 60 + "a", "1", SETTINGS) is None
    assert small.through("y" * 60 + "a", "2", SETTINGS) == "bc" and small.size == 61
    small.remember("z" * 200, "", SETTINGS, "abc")                       # over the budget alone: nothing kept
    assert small.places == {} and small.size == 0


@pytest.fixture(scope="module")
def base():
    proc, url = start()
    yield url
    stop(proc)


def stats(base: str) -> dict:
    return httpx.get(f"{base}/v1/redraft/stats", timeout=10).json()


def fim(base: str, prefix: str, suffix: str, **extra) -> str:
    r = httpx.post(f"{base}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": prefix, "suffix": suffix, "language": "python", **extra})
    r.raise_for_status()
    return r.json()["choices"][0]["text"]


PREFIX = "def read_lines(path):\n    with open(path) as f:\n        return f."
SUFFIX = "\n\n\nprint(read_lines('x'))\n"


def test_typing_through_over_http_costs_no_pass(base):
    first = fim(base, PREFIX, SUFFIX)
    assert len(first) >= 2, first
    before = stats(base)
    assert fim(base, PREFIX + first[0], SUFFIX) == first[1:]
    after = stats(base)
    assert after["typed_through"] == before["typed_through"] + 1
    assert after["batches"] == before["batches"] and after["completed"] == before["completed"] + 1
    # a streamed request types through too, and gives its place back
    with httpx.stream("POST", f"{base}/v1/fim/completions", timeout=60,
                      json={"model": "redraft", "prompt": PREFIX + first[0], "suffix": SUFFIX,
                            "language": "python", "stream": True}) as s:
        body = "".join(s.iter_text())
    assert f'"text": {json.dumps(first[1:])}' in body and body.rstrip().endswith("[DONE]")
    # llama.cpp's /infill goes through the same answers (its own settings: its own answer first)
    infill = lambda prefix: httpx.post(f"{base}/infill", timeout=60, json={  # noqa: E731
        "input_prefix": prefix, "input_suffix": SUFFIX, "language": "python"}).json()["content"]
    other = infill(PREFIX + "r")
    if len(other) >= 2:
        assert infill(PREFIX + "r" + other[0]) == other[1:]
        assert stats(base)["typed_through"] == before["typed_through"] + 3
    end = stats(base)
    assert end["typed_through"] > after["typed_through"] and end["pending"] == 0


def test_anything_else_asks_the_model(base):
    first = fim(base, PREFIX, SUFFIX)
    assert len(first) >= 2
    other = "#" if first[0] != "#" else "@"
    before = stats(base)
    fim(base, PREFIX + other, SUFFIX)                       # a character it does not begin with
    fim(base, PREFIX + first[0], SUFFIX + "# end\n")        # the text after the cursor changed
    fim(base, PREFIX + first[0], SUFFIX, max_tokens=8)      # other settings
    after = stats(base)
    assert after["typed_through"] == before["typed_through"]
    assert after["batches"] > before["batches"]


# ---------------------------------------------------------------- following (http/follow.py)
class _Job:
    def __init__(self, prefix: str, suffix: str = "\n", settings: tuple = SETTINGS) -> None:
        self.prefix, self.suffix, self._settings = prefix, suffix, settings

    def settings(self) -> tuple:
        return self._settings


def test_a_follower_types_through_the_answer_it_waited_for():
    from redraft.http.follow import Keystrokes

    async def main() -> None:
        k = Keystrokes({"followed": 0})
        first = _Job(LINES + "re")
        flight, early = k.start(first)
        assert early is None                           # nothing ran before it
        flight.started = True
        fits, other, elsewhere = _Job(LINES + "ret"), _Job(LINES + "rex"), _Job(LINES + "ret", suffix="\n\n")
        _, e1 = k.start(fits)
        assert e1 is not None and k.stats["followed"] == 1
        assert await k.flights.wanted(flight)           # its client may go: it runs on for the follower
        _, e2 = k.start(other)                          # the newest at the place is `fits` now, not started
        assert e2 is None
        _, e3 = k.start(elsewhere)
        assert e3 is None                               # another place
        k.end(first, flight, "turn len(x)")
        assert await e1 == "urn len(x)"
        assert k.through(_Job(LINES + "retu")) == "rn len(x)"   # and it is remembered for the next keys
        k = Keystrokes({"followed": 0})
        stopped = _Job(LINES + "re")
        flight, _ = k.start(stopped)
        flight.started = True
        _, e4 = k.start(_Job(LINES + "ret"))
        k.end(stopped, flight, None)                    # ended without an answer (stopped): ask the model
        assert await e4 is None

    asyncio.run(main())


def test_a_running_request_nobody_follows_is_not_kept():
    from redraft.http.follow import GRACE, Flights

    async def main() -> None:
        flights = Flights()
        f = flights.start(Recent.place(LINES, "\n"), LINES, SETTINGS)
        assert not await flights.wanted(f)              # not started: dropped at once
        f.started = True
        t0 = asyncio.get_running_loop().time()
        assert not await flights.wanted(f)              # nobody came within the grace
        assert asyncio.get_running_loop().time() - t0 >= GRACE * 0.9
        assert not await flights.wanted(None)

    asyncio.run(main())
