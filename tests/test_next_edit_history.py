"""The edit history (lsp_server/engine/next_edit/history.py): hunks from didChange texts, coalescing,
bounds, replay (the acceptance criterion: replaying the recorded hunks on the starting text gives
the text now), and the server's wiring (`redraft.stats {"uri"}` -> `recentEdits`)."""
from __future__ import annotations

import time

import pytest
import pytest_lsp
from hypothesis import given, settings, strategies as st
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import SERVE, insert, open_doc, start
from redraft.engine.next_edit.history import EditHistory, replay


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def history(**kw) -> tuple[EditHistory, Clock]:
    clock = Clock()
    return EditHistory(clock=clock, **kw), clock


def typing(h: EditHistory, clock: Clock, uri: str, text: str, at: int, word: str, version: int = 2) -> str:
    """Type `word` at offset `at` one character per didChange, 0.1 s apart; the text after."""
    for i, ch in enumerate(word):
        new = text[:at + i] + ch + text[at + i:]
        h.record(uri, text, new, version + i)
        text, clock.t = new, clock.t + 0.1
    return text


BASE = "def f(x):\n    return x\n\n\ndef g(y):\n    return y\n"


def test_a_burst_of_keystrokes_on_one_line_is_one_hunk():
    h, clock = history()
    at = BASE.index("x\n\n")
    text = typing(h, clock, "a", BASE, at + 1, " + 1")
    [e] = h.recent()
    assert (e.uri, e.start_line, e.before, e.after) == ("a", 1, "    return x", "    return x + 1")
    assert e.version == 5 and e.line_now == 1
    assert replay(BASE, [e]) == text


def test_edits_on_far_apart_lines_are_two_hunks():
    h, clock = history()
    text = typing(h, clock, "a", BASE, BASE.index("x\n\n") + 1, "1")
    typing(h, clock, "a", text, text.index("y\n") + 1, "2")
    assert [(e.start_line, e.after) for e in h.recent()] == [(1, "    return x1"), (5, "    return y2")]


def test_typing_then_deleting_leaves_nothing():
    h, clock = history()
    at = BASE.index("x\n\n") + 1
    text = typing(h, clock, "a", BASE, at, "abc")
    for i in range(3):
        new = text[:at + 2 - i] + text[at + 3 - i:]
        h.record("a", text, new, 10 + i)
        text = new
    assert text == BASE and h.recent() == [] and h.count("a") == 0
    h.record("a", BASE, BASE, 20)          # a no-op change records nothing
    assert len(h) == 0


def test_adjacent_lines_coalesce_and_a_new_line_too():
    h, clock = history()
    text = typing(h, clock, "a", BASE, BASE.index("x\n\n") + 1, " + 1\n    y = 2")
    [e] = h.recent()      # Enter before blank lines: placed at the end of the line typed on
    assert (e.start_line, e.before, e.after) == (1, "    return x", "    return x + 1\n    y = 2")
    text = typing(h, clock, "a", text, 0, "z")                          # the line above, at once
    [e] = h.recent()
    assert (e.start_line, e.before) == (0, "def f(x):\n    return x")
    assert e.after == "zdef f(x):\n    return x + 1\n    y = 2"
    assert replay(BASE, [e]) == text


def test_an_ambiguous_insertion_goes_where_it_coalesces():
    h, clock = history()
    text = typing(h, clock, "a", "a\nb\n\n\n\nc\n", 7, "X")            # line 5: "c" -> "Xc"
    h.record("a", text, text.replace("\n\nX", "\n\n\nX"), 3)          # one more blank line above it
    assert [(e.start_line, e.before, e.after) for e in h.recent()] == [(5, "c", "\nXc")]
    clock.t += 5                                                      # alone: at the earliest place
    h.record("a", "a\nb\n\n\nc", "a\nb\n\n\n\nc", 4)
    assert h.recent()[-1].start_line == 1 and h.recent()[-1].after == "b\n"


def test_a_time_gap_splits():
    h, clock = history()
    at = BASE.index("x\n\n") + 1
    text = typing(h, clock, "a", BASE, at, "ab")
    clock.t += 2.5
    typing(h, clock, "a", text, at + 2, "c")
    assert [(e.before, e.after) for e in h.recent()] == [("    return x", "    return xab"),
                                                         ("    return xab", "    return xabc")]
    assert h.recent()[0].line_now is None   # the later hunk rewrote its line


def test_another_document_in_between_splits():
    h, clock = history()
    at = BASE.index("x\n\n") + 1
    text = typing(h, clock, "a", BASE, at, "a")
    typing(h, clock, "b", BASE, 0, "#")
    typing(h, clock, "a", text, at + 1, "b")
    assert [(e.uri, e.after) for e in h.recent()] == [("a", "    return xa"), ("b", "#def f(x):"),
                                                      ("a", "    return xab")]
    assert h.pairs("a") == [("    return x", "    return xa"), ("    return xa", "    return xab")]
    assert [e.uri for e in h.recent(limit=2)] == ["b", "a"]


def test_line_now_follows_lines_added_above():
    h, clock = history()
    text = typing(h, clock, "a", BASE, BASE.index("y\n") + 1, "!")
    clock.t += 5
    new = "# one\n# two\n" + text
    h.record("a", text, new, 9)
    old, top = h.recent()
    assert (old.start_line, old.line_now) == (5, 7)
    assert new.split("\n")[old.line_now] == old.after
    assert (top.start_line, top.before, top.after) == (0, "def f(x):", "# one\n# two\ndef f(x):")


def test_bounds_on_edits_and_documents():
    h, clock = history(max_edits=4, max_docs=2)
    for i in range(6):
        clock.t += 5
        h.record("a", "x\n" * 10, "x\n" * i + "y\n" + "x\n" * (9 - i), i)
    assert len(h) == 4 and [e.version for e in h.recent()] == [2, 3, 4, 5]
    clock.t += 5
    h.record("b", "b", "bb", 1)
    clock.t += 5
    h.record("c", "c", "cc", 1)                 # a third document: "a", the least recently edited, goes
    assert h.count("a") == 0 and [e.uri for e in h.recent()] == ["b", "c"]


def test_size_caps_give_large_change_markers():
    h, clock = history(max_chars=50)
    h.record("a", "one\ntwo\n", "one\n" + "z" * 60 + "\n" + "two\n", 2)   # a paste
    [e] = h.recent()
    assert e.large and e.before == e.after == "" and (e.start_line, e.before_lines, e.after_lines) == (0, 1, 2)
    assert e.diff() == "@@ -1,1 +1,2 @@ large change (text not kept)"
    assert h.pairs() == []
    with pytest.raises(ValueError):
        replay("one\ntwo\n", [e])
    # keystrokes on a huge line merge into the one marker; a small edit later stays text
    text = "one\n" + "z" * 60 + "\n" + "two\n"
    h.record("a", text, text.replace("zz", "zyz", 1), 3)
    clock.t += 5
    h.record("a", text, "ONE" + text[3:], 4)
    assert [(e.large, e.after) for e in h.recent()] == [(True, ""), (False, "ONE")]
    # a coalesced hunk that grows past the cap becomes a marker
    h2, clock2 = history(max_chars=20)
    typing(h2, clock2, "a", "", 0, "abcdefghij" * 3)
    [e] = h2.recent()
    assert e.large and (e.before_lines, e.after_lines) == (1, 1)


def test_forget():
    h, clock = history()
    typing(h, clock, "a", BASE, 0, "#")
    clock.t += 5
    typing(h, clock, "b", BASE, 0, "#")
    h.forget("a")
    assert [e.uri for e in h.recent()] == ["b"] and h.count("a") == 0 and h.count("b") == 1
    h.forget("unknown")


def test_a_10_mb_document_is_fast_and_bounded():
    h, clock = history()
    big = ("x = 1  # padding padding padding padding\n" * 250_000)
    mid = len(big) // 2 + 4
    typed, last = big[:mid] + "Q" + big[mid:], big[:-1] + "!"
    ys, ys_typed = "y" * 10**7, "y" * (5 * 10**6) + "!" + "y" * (5 * 10**6)
    t0 = time.perf_counter()
    h.record("a", big, typed, 2)            # a keystroke in the middle
    h.record("b", "", big, 1)               # a 10 MB paste
    h.record("c", ys, ys_typed, 1)          # a keystroke in one huge line
    h.record("d", big, last, 2)             # the last character
    assert time.perf_counter() - t0 < 0.5
    a, b, c, d = h.recent()
    assert a.after == "x = Q1  # padding padding padding padding" and a.start_line == 125_000
    assert b.large and b.after_lines == 250_001 and c.large and (c.before_lines, c.after_lines) == (1, 1)
    line = "x = 1  # padding padding padding padding"
    assert (d.start_line, d.before, d.after) == (249_999, line + "\n", line + "!")


def test_diff_rendering():
    h, clock = history()
    h.record("a", "a\nb\nc\r\nd\n", "a\nb\nX\r\nY\r\nd\n", 3)
    [e] = h.recent()
    assert e.diff() == "@@ -3,1 +3,2 @@\n-c\n+X\n+Y"
    h2, _ = history()
    h2.record("a", "a\nb\nc\n", "a\nnew\nb\nc\n", 1)       # a pure insertion carries a neighbour line
    [e] = h2.recent()
    assert (e.start_line, e.before, e.after) == (0, "a", "a\nnew")
    assert e.diff() == "@@ -1,1 +1,2 @@\n a\n+new"
    assert e.diff(context=0) == "@@ -1,0 +2,1 @@\n+new"


def test_observe_never_raises_and_logs_once(caplog):
    h, _ = history()
    h._clock = None                                    # a bug: record() raises TypeError
    h.observe("a", "x", "y", 1)
    h.observe("a", "x", "z", 2)
    assert len(h) == 0 and sum("logged once" in r.getMessage() for r in caplog.records) == 1


# -- the property: replaying the recorded hunks on the starting text gives the text now ----------
PIECES = ["a", "b", " ", "\n", "\r\n", "\r", "\U0001F600", "x = 1\n", "\t"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
change = st.tuples(st.floats(0, 1), st.integers(0, 12), texts)
notification = st.tuples(st.sampled_from(["d1", "d2"]), st.lists(change, min_size=1, max_size=3),
                         st.sampled_from([0.0, 0.1, 0.5, 3.0]))


@settings(max_examples=300, deadline=None)
@given(start=texts, notes=st.lists(notification, max_size=25))
def test_replay_of_recorded_hunks_gives_the_text_now(start, notes):
    h, clock = history(max_edits=10_000, max_docs=100, max_chars=10_000)
    docs = {"d1": start, "d2": start[::-1]}
    first = dict(docs)
    for uri, changes, dt in notes:
        clock.t += dt
        old = text = docs[uri]
        for frac, n, ins in changes:                   # insert, delete or replace, anywhere
            at = int(frac * len(text))
            text = text[:at] + ins + text[at + n:]
        h.record(uri, old, text, 1)
        docs[uri] = text
    for uri in docs:
        edits = h.recent(uri)
        assert replay(first[uri], edits) == docs[uri]
        lines = docs[uri].split("\n")
        for e in edits:
            assert e.before != e.after
            if e.line_now is not None:
                assert lines[e.line_now:e.line_now + e.after_lines] == e.after.split("\n")
        assert all(e.diff().startswith("@@ -") for e in edits)


# -- end to end: the real server over stdio ---------------------------------------------------------
@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    await start(lsp_client, {"enabled": False})     # the history needs no model
    yield
    await lsp_client.shutdown_session()


async def uri_stats(client: LanguageClient, uri: str) -> dict:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="redraft.stats", arguments=[{"uri": uri}]))


@pytest.mark.asyncio(loop_scope="module")
async def test_server_records_typing_as_one_edit_and_forgets_on_close(client: LanguageClient):
    uri = "file:///history.py"
    open_doc(client, uri, "def f(x):\n    return x\n")
    for i, ch in enumerate(" + 1"):
        insert(client, uri, 2 + i, types.Position(line=1, character=12 + i), ch)
    s = await uri_stats(client, uri)
    assert s["recentEdits"] == 1 and s["document"]["version"] == 5
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    s = await uri_stats(client, uri)
    assert s["recentEdits"] == 0 and s["document"] is None
