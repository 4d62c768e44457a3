"""Following (lsp_server/http/follow.py) end to end: the app served by uvicorn in this process on a
loopback port, the shipped model, raw sockets as an editor's keystrokes.  No timing assumption:
the scheduler's pause holds the model's passes and the runner's test hold (runner.HOLD_ENV)
keeps the second request from starting, so the first is running when the second arrives and
hangs up only once the second follows it."""
from __future__ import annotations

import socket
import threading
import time

import pytest
import uvicorn

from redraft.http.app import create_app
from redraft.http.jobs import Infill, complete_job
from redraft.http.runner import HOLD_ENV, EngineRunner
from test_http_abandon import read, send
from test_http_api import PREFIX, SUFFIX


def until(check, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@pytest.fixture(scope="module")
def served(tmp_path_factory, monkeypatch_module):
    hold = tmp_path_factory.mktemp("hold") / "hold"
    monkeypatch_module.setenv(HOLD_ENV, str(hold))
    runner = EngineRunner(max_queue=8, max_batch=2)
    runner.load()
    app = create_app(runner)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    until(lambda: server.started)
    yield runner, app.api, f"http://127.0.0.1:{port}", hold
    server.should_exit = True
    thread.join(30)
    runner.shutdown()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def body(prefix: str) -> dict:
    return {"model": "redraft", "prompt": prefix, "suffix": SUFFIX, "language": "python"}


def test_the_next_keystroke_gets_the_rest_of_the_answer_it_followed(served):
    runner, api, base, hold = served
    # what the first keystroke's request answers (the model alone, on this thread: no HTTP, no Recent)
    answer = complete_job(runner.engine, Infill(PREFIX, SUFFIX, "low", 32, "python"), None, None)
    assert len(answer) >= 2, answer
    stats = dict(runner.stats)
    runner.scheduler.pause(after=runner.scheduler.passes)      # no pass runs: the first waits in its first step
    first = send(base, body(PREFIX))
    until(lambda: any(f.started for f in api.keystrokes.flights.at.values()))
    hold.write_text("")                                        # the second is admitted but does not start
    second = send(base, body(PREFIX + answer[0]))
    until(lambda: runner.stats["followed"] == stats["followed"] + 1)
    first.close()                                              # the editor hangs up on the keystroke before
    until(lambda: runner.stats["kept"] == stats["kept"] + 1)  # ... which runs on for its follower
    runner.scheduler.resume()
    status, out = read(second)
    hold.unlink()
    assert status == 200 and out["choices"][0]["text"] == answer[1:]
    until(lambda: runner.pending == 0)
    assert runner.stats["typed_through"] == stats["typed_through"] + 1
    assert runner.stats["abandoned"] == stats["abandoned"]    # the second was answered, the first ran to its end
    assert runner.stats["completed"] == stats["completed"] + 2


def test_a_keystroke_the_answer_before_does_not_fit_asks_the_model(served):
    runner, api, base, hold = served
    answer = complete_job(runner.engine, Infill(PREFIX, SUFFIX, "low", 32, "python"), None, None)
    other = "#" if answer[0] != "#" else "@"
    stats = dict(runner.stats)
    runner.scheduler.pause(after=runner.scheduler.passes)
    first = send(base, body(PREFIX))
    until(lambda: any(f.started for f in api.keystrokes.flights.at.values()))
    second = send(base, body(PREFIX + other))
    until(lambda: runner.stats["followed"] == stats["followed"] + 1)
    first.close()
    until(lambda: runner.stats["kept"] == stats["kept"] + 1)
    runner.scheduler.resume()
    status, out = read(second)
    alone = complete_job(runner.engine, Infill(PREFIX + other, SUFFIX, "low", 32, "python"), None, None)
    assert status == 200 and out["choices"][0]["text"] == alone
    assert runner.stats["typed_through"] == stats["typed_through"]
