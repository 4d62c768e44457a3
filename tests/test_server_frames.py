"""Malformed LSP frames (issue 44), each as a one-message reproducer through the real server over
stdio (`python -m redraft serve`, raw bytes written to its stdin): the lenient forms of the base
protocol's header (`content-length`, `Content-Length:5`, a bare `\\n`, an unknown header, the same
length twice, a `\\r\\n` split across reads) are served; every other bad frame is answered once with
ParseError (-32700) and the id read from its body, and costs that frame only: the request written
right after it is answered, nothing inside a body is taken for a message, and no response comes for
an id that was never sent. The pure frame reader (redraft.lsp.frames.FrameReader) is checked
byte by byte as well."""
from __future__ import annotations

import json
import time

import pytest

from lsp_helpers import SAMPLE, raw_session
from redraft.lsp.frames import FrameReader, frame_id
from redraft.lsp.stdio_client import JsonRpcStdioClient

URI = "file:///frames.py"
STATS = {"command": "redraft.stats", "arguments": [{"uri": URI}]}


def body(msg_id, **extra) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand",
                       "params": {**STATS, **extra}}).encode()


def write(c: JsonRpcStdioClient, *parts: bytes, pause: float = 0.0) -> None:
    """Raw bytes to the server's stdin, each part flushed on its own (`pause` s apart)."""
    with c._write_lock:
        for part in parts:
            c.proc.stdin.write(part)
            c.proc.stdin.flush()
            if pause:
                time.sleep(pause)


@pytest.fixture(scope="module")
def server():
    c = raw_session(URI, SAMPLE)
    yield c
    assert c.close() == 0
    assert not [line for line in c.stderr if "Traceback" in line], "".join(c.stderr[-40:])


@pytest.fixture()
def ids():
    """Fresh ids for one test (strings, so they never meet the client's own integer ids)."""
    ids.n = getattr(ids, "n", 0) + 1
    return [f"t{ids.n}-{i}" for i in range(4)]


def after(c: JsonRpcStdioClient, bad_id) -> dict:
    """The answer to `bad_id`, checked to be the only one, and that a request written after the bad
    frame is served (the frame cost nothing more) and no answer came for an id never sent."""
    nulls = len(c.null_id_responses)
    good = c.request_async("workspace/executeCommand", STATS)
    answer = c.wait(bad_id, 60)
    assert "result" in c.wait(good, 60), "the request after the bad frame was not served"
    time.sleep(0.05)
    with c._cond:
        stray = dict(c._responses)
    assert stray == {}, f"answers to ids never sent (or twice): {stray}"
    assert len(c.null_id_responses) == nulls, c.null_id_responses[nulls:]
    return answer


def parse_error(c: JsonRpcStdioClient, bad_id, needle: str) -> None:
    err = after(c, bad_id).get("error")
    assert err is not None and err["code"] == -32700, err
    assert needle in err["message"] and "data" not in err


def served(c: JsonRpcStdioClient, msg_id) -> None:
    answer = after(c, msg_id)
    assert "result" in answer and answer["result"]["document"].get("sha256"), answer


def test_duplicated_content_length_with_two_values_is_a_parse_error(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: 5\r\nContent-Length: %d\r\n\r\n" % len(b) + b)
    parse_error(server, ids[0], "given twice")


def test_duplicated_content_length_with_one_value_is_served(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (len(b), len(b)) + b)
    served(server, ids[0])


def test_lowercase_content_length_is_served(server, ids):
    b = body(ids[0])
    write(server, b"content-length: %d\r\n\r\n" % len(b) + b)
    served(server, ids[0])


def test_content_length_without_the_space_is_served(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length:%d\r\n\r\n" % len(b) + b)
    served(server, ids[0])


def test_a_bare_newline_ending_header_lines_is_served(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: %d\n\n" % len(b) + b)
    served(server, ids[0])


def test_crlf_split_across_reads_is_served(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: %d\r" % len(b), b"\n\r", b"\n" + b[:7], b[7:], pause=0.2)
    served(server, ids[0])


@pytest.mark.parametrize("value", [b"abc", b"-5", b"", b"99999999999999"])
def test_an_unreadable_content_length_is_a_parse_error(server, ids, value):
    write(server, b"Content-Length: " + value + b"\r\n\r\n" + body(ids[0]))
    parse_error(server, ids[0], "Content-Length")


def test_an_unknown_header_is_ignored(server, ids):
    b = body(ids[0])
    write(server, b"X-Foo: 1\r\nContent-Length: %d\r\nX-Bar: 2\r\n\r\n" % len(b) + b)
    served(server, ids[0])


@pytest.mark.parametrize("charset", [b"utf-16", b"latin-1", b"", b'"\x01bogus'])
def test_a_charset_other_than_utf8_is_a_parse_error(server, ids, charset):
    b = body(ids[0])
    write(server, b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=%s\r\n\r\n"
          % (len(b), charset) + b)
    parse_error(server, ids[0], "Content-Type" if charset in (b"",) else "charset")


@pytest.mark.parametrize("charset", [b"utf-8", b"UTF8", b'"utf-8"'])
def test_a_utf8_content_type_is_served(server, ids, charset):
    b = body(ids[0])
    write(server, b"Content-Type: application/vscode-jsonrpc; charset=%s\r\nContent-Length: %d\r\n\r\n"
          % (charset, len(b)) + b)
    served(server, ids[0])


def test_a_frame_without_headers_is_a_parse_error(server, ids):
    write(server, body(ids[0]))
    parse_error(server, ids[0], "outside any frame")


def test_a_header_block_without_its_blank_line_is_a_parse_error(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: %d\r\n" % len(b) + b)
    parse_error(server, ids[0], "without a name")


def test_a_header_block_of_one_megabyte_is_a_parse_error(server, ids):
    b = body(ids[0])
    write(server, b"Content-Length: %d\r\nX-Pad: " % len(b) + b"a" * (1 << 20) + b"\r\n\r\n" + b)
    parse_error(server, ids[0], "header block over")


def test_a_frame_inside_a_body_is_never_a_message(server, ids):
    """The bad frame's body holds a whole frame (as JSON text): it is skipped with the body."""
    inner = body(ids[1]).decode()
    b = body(ids[0], arguments=[f"Content-Length: {len(inner)}\r\n\r\n{inner}", {"uri": URI}])
    write(server, b"Content-Length: zz\r\n\r\n" + b)
    parse_error(server, ids[0], "Content-Length")  # after(): no answer to ids[1]


def test_a_bad_frame_with_a_garbage_body_costs_that_frame_only(server, ids):
    write(server, b"Content-Length: x\r\n\r\n\xff\xfe\x80")
    nulls = len(server.null_id_responses)
    good = server.request_async("workspace/executeCommand", STATS)
    assert "result" in server.wait(good, 60)
    assert len(server.null_id_responses) == nulls + 1
    assert server.null_id_responses[-1]["error"]["code"] == -32700


def test_a_body_shorter_than_its_length_at_the_end_of_input():
    c = raw_session(URI, SAMPLE)
    try:
        assert c.request("shutdown", None, timeout=60) is None
        write(c, b"Content-Length: 500\r\n\r\n" + body("cut"))
        c.proc.stdin.close()
        err = c.wait("cut", 60)["error"]
        assert err["code"] == -32700 and "end of input" in err["message"]
        c.proc.wait(30)
        assert not [line for line in c.stderr if "Traceback" in line], "".join(c.stderr[-40:])
    finally:
        if c.proc.poll() is None:
            c.proc.kill()


# -- the pure frame reader, byte by byte ---------------------------------------------------------
B = body(5)
GOOD = b"Content-Length: %d\r\n\r\n" % len(B) + B


@pytest.mark.parametrize("bad, problem", [
    (b"Content-Length: 5\r\nContent-Length: 7\r\n\r\n" + B, "given twice"),
    (b"Content-Length: abc\r\n\r\n" + B, "unreadable"),
    (b"Content-Length: -5\r\n\r\n" + B, "unreadable"),
    (b"Content-Type: a; charset=utf-16\r\nContent-Length: %d\r\n\r\n" % len(B) + B, "charset"),
    (b"Content-Length: %d\r\n" % len(B) + B, "without a name"),
    (B, "outside any frame"),
    (b"Content-Length: %d\r\nX: " % len(B) + b"a" * 70000 + b"\r\n\r\n" + B, "header block over"),
    (b"content-length: %d\r\n\r\n" % len(B) + B, None),
    (b"Content-Length:%d\n\n" % len(B) + B, None),
    (b"X-Foo: 1\r\nContent-Length: %d\r\n\r\n" % len(B) + B, None),
])
@pytest.mark.parametrize("step", [None, 1, 3, 64])
def test_frame_reader_loses_at_most_the_bad_frame(bad, problem, step):
    data = GOOD + bad + GOOD
    r, frames = FrameReader(), []
    for i in range(0, len(data), step or len(data)):
        frames += r.feed(data[i:i + (step or len(data))])
    frames += r.end()
    assert [f.problem for f in frames][::2] == [None, None]
    assert len(frames) == 3 and (frames[1].problem is None) == (problem is None)
    assert problem is None or problem in frames[1].problem
    assert [frame_id(f.body) for f in frames] == [5, 5, 5]


def test_frame_reader_end_of_input_inside_a_body():
    r = FrameReader()
    assert [f.problem for f in r.feed(GOOD + b"Content-Length: 500\r\n\r\n" + B)] == [None]
    [cut] = r.end()
    assert "end of input" in cut.problem and frame_id(cut.body) == 5


@pytest.mark.parametrize("step", [None, 1, 5])
@pytest.mark.parametrize("lead", [b"Content-Length: abc\r\n\r\n", b"Content-Length: %d\r\n" % len(B), b""])
def test_frame_reader_reports_bodies_without_headers_one_by_one(lead, step):
    """A bad frame's body followed by a body sent without headers: each answered with its own id."""
    seven = body(7)
    data = lead + B + seven + b"X-Foo: 1\r\n" + GOOD
    r, frames = FrameReader(), []
    for i in range(0, len(data), step or len(data)):
        frames += r.feed(data[i:i + (step or len(data))])
    frames += r.end()
    assert [(f.problem is None, frame_id(f.body)) for f in frames] == [(False, 5), (False, 7), (True, 5)]
