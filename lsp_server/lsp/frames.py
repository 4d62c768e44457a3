"""The stdio stream cut into frames (issue 44): a pure state machine over bytes (`FrameReader`:
bytes in, frames out, no I/O), the id read from a malformed frame's body (`frame_id`), and the
JSON-level helpers it shares with protocol.py (`valid_id`, `top_level_member`). protocol.py's
`read_messages` feeds it and hands each frame to pygls."""
from __future__ import annotations

import json
import logging
import re
from typing import Any

logger = logging.getLogger("redraft.protocol")

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_DEPTH = {ord("{"): 1, ord("["): 1, ord("}"): -1, ord("]"): -1}


def valid_id(value: Any) -> bool:
    """LSP request ids are integers or strings (not booleans, floats, null, arrays or objects)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def top_level_member(body: bytes, name: str) -> Any:
    """The value of member `name` of the top-level object in a body that json cannot decode whole
    (nested too deep), if it is a scalar; None otherwise. Only for that error path: it walks the
    bytes outside strings in Python."""
    key = json.dumps(name).encode()
    depth, pos = 0, 0
    for m in _STRING.finditer(body):
        for ch in body[pos:m.start()]:
            depth += _DEPTH.get(ch, 0)
        pos = m.end()
        if depth == 1 and m.group() == key:
            rest = body[pos:].lstrip()
            if rest.startswith(b":"):
                try:
                    value, _ = json.JSONDecoder().raw_decode(rest[1:].lstrip().decode("utf-8", "replace"))
                except (ValueError, RecursionError):
                    return None
                return value if not isinstance(value, (list, dict)) else None
    return None


# -- 7. framing ------------------------------------------------------------------------------------
# The base protocol frames each body with HTTP-style headers: `Content-Length: N\r\n`, an optional
# `Content-Type: ...; charset=utf-8\r\n`, a blank line, then N bytes of body. FrameReader is a pure
# state machine over the byte stream (bytes in, frames out; no I/O), so that a bad frame costs that
# frame and nothing after it:
#
#   ALIGNED  at a frame boundary. Blank lines and whitespace are skipped; a line shaped like a header
#            (`token:`) starts HEADERS; anything else is bytes outside any frame -> RESYNC.
#   HEADERS  header lines, ended by `\r\n` or a bare `\n`, read leniently as HTTP readers do: names
#            case-insensitive (`content-length`), optional spaces (`Content-Length:5`), unknown
#            headers (`X-Foo: 1`) ignored, a repeated Content-Length with the same value accepted.
#            A blank line ends the block: with one readable length -> BODY, else -> RESYNC. A line
#            that is no header ends the block at once -> RESYNC from that line (a header block that
#            lost its blank line runs into its body).
#   BODY     exactly N bytes -> ALIGNED. The length is authoritative: nothing inside a body is read
#            as a header or a message.
#   RESYNC   the body of a frame whose length is unknown, or bytes outside any frame: skipped up to
#            the next real header, a line `Content-Length: <value>` case-insensitively (RESYNC_AT:
#            not preceded by a name character, no `"` in the value, ended by a newline: that can
#            never occur inside valid JSON, whose strings hold no raw newline), or up to the end
#            of a complete JSON object or array when the skipped bytes are exactly one (so that a
#            client waiting for the answer to such a frame gets it without sending more). Header
#            lines just before that Content-Length (after a JSON value or a newline: `X-Foo: 1`, a
#            `Content-Type`) are given back: they start the next frame.
#
# A frame is malformed when its length is missing, unreadable (`abc`, negative, over MAX_BODY) or
# given twice with different values, when its Content-Type names a charset other than utf-8 (or an
# invalid one), when its header block is over MAX_HEADER bytes or holds a line that is no header, or
# when the input ends inside it. A malformed frame comes out once, as Frame(body, problem), with
# whatever body was read (kept up to MAX_JUNK bytes); read_messages answers it with ParseError
# (-32700) and the id read from that body (frame_id), or id null when none can be read. The bytes
# after it are read as frames again: the loss is at most the malformed frame itself.

_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER_LINE = re.compile(rb"[ \t]*(" + _TOKEN + rb")[ \t]*:(.*)", re.S)
_HEADER_START = re.compile(rb"[ \t]*" + _TOKEN + rb"[ \t]*:")
_PARTIAL_NAME = re.compile(rb"[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]*[ \t]*")
RESYNC_AT = re.compile(rb"(?<![!#$%&'*+.^_`|~0-9A-Za-z-])content-length[ \t]{0,16}:[^\r\n\"]{0,64}\r?\n",
                       re.I)
_RESYNC_TAIL = 100     # bytes kept back while searching: a RESYNC_AT match is at most this long
MAX_HEADER = 64 * 1024  # a header block longer than this is malformed (read on, not kept)
MAX_BODY = 1 << 30      # a larger Content-Length is unreadable
MAX_JUNK = 1 << 20      # bytes kept of a malformed frame's body (to read its id)
_WS = b" \t\r\n"
_LEADING_WS = re.compile(rb"[ \t\r\n]*")


class Frame:
    """One frame read off the stream: `body`, and `problem` (None for a well-formed frame; else why
    the frame is malformed, and `body` is what could be read of its body, perhaps nothing)."""
    __slots__ = ("body", "problem")

    def __init__(self, body: bytes, problem: str | None = None) -> None:
        self.body, self.problem = body, problem

    def __repr__(self) -> str:
        return f"Frame({self.body[:60]!r}, problem={self.problem!r})"


def frame_id(body: bytes) -> Any:
    """The id of a malformed frame's body if one can be read (a JSON object's valid id, or the
    top-level id of an object cut off or nested too deep); None otherwise."""
    try:
        data = json.loads(body)
    except RecursionError:
        data = None
    except ValueError:
        data = None
        if not body.lstrip().startswith(b"{"):
            return None
    if isinstance(data, dict):
        value = data.get("id")
    else:
        if data is not None:
            return None
        value = top_level_member(body, "id") if body.lstrip().startswith(b"{") else None
    return value if valid_id(value) else None


def _charset_problem(value: str) -> str | None:
    """The problem with a Content-Type's charset, if any (absent means utf-8)."""
    for param in value.split(";")[1:]:
        name, eq, charset = param.partition("=")
        if name.strip().lower() != "charset":
            continue
        charset = charset.strip().strip('"').strip().lower()
        if not eq or not charset:
            return f"invalid Content-Type {value.strip()[:80]!r}"
        if charset not in ("utf-8", "utf8"):
            return f"unsupported charset {charset[:40]!r} (only utf-8)"
    return None


def _json_values(junk: bytes) -> list[bytes] | None:
    """`junk` cut into the JSON objects or arrays it holds one after another (whitespace between);
    None when it is anything else."""
    text = junk.decode("utf-8", "surrogateescape")
    values, pos, at = [], 0, 0
    decoder = json.JSONDecoder()
    while True:
        skip = len(text) - len(text[pos:].lstrip()) - pos if pos < len(text) else 0
        at += len(text[pos:pos + skip].encode("utf-8", "surrogateescape"))
        pos += skip
        if pos >= len(text):
            return values or None
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, (dict, list)):
            return None
        size = len(text[pos:end].encode("utf-8", "surrogateescape"))
        values.append(junk[at:at + size])
        pos, at = end, at + size


_HEADER_LINES = re.compile(rb"(?:[ \t]*" + _TOKEN + rb"[ \t]*:[^\r\n]*\r?\n)+")


def _split_json_prefix(junk: bytes) -> tuple[bytes, bytes]:
    """(body, header lines) when skipped bytes end in header lines (`X-Foo: 1`, `Content-Type: ...`:
    the start of the next frame, whose Content-Length RESYNC_AT found) that follow JSON objects or
    arrays, or a newline; (junk, b"") otherwise."""
    text = junk.decode("utf-8", "surrogateescape")
    end, value, decoder = 0, None, json.JSONDecoder()
    try:
        while text[end:].lstrip()[:1] in ("{", "["):  # JSON values one after another
            value, end = decoder.raw_decode(text, len(text) - len(text[end:].lstrip()))
    except (ValueError, RecursionError):
        value = None
    if value is None:
        found, nl = len(junk), len(junk) - 1
        for _ in range(16):  # header lines at the start of a line, at the end of the junk
            nl = junk.rfind(b"\n", 0, nl)
            if nl < 0 or not _HEADER_LINES.fullmatch(junk, nl + 1):
                break
            found = nl + 1
        return junk[:found], junk[found:]
    cut = len(text[:end].encode("utf-8", "surrogateescape"))
    rest = junk[cut:]
    if isinstance(value, (dict, list)) and rest.strip(_WS) and _HEADER_LINES.fullmatch(rest.lstrip(_WS)):
        return junk[:cut], rest.lstrip(_WS)
    return junk, b""


class FrameReader:
    """The base protocol's framing as a pure state machine (see the comment above): `feed(bytes)`
    returns the frames completed so far, in order; `end()` those left at the end of input."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._state = "aligned"
        self._scan = 0            # HEADERS: where to go on searching _buf for a newline
        self._quiet = False       # RESYNC: the skipped bytes belong to a frame already reported
        self._junk = bytearray()  # RESYNC: the skipped bytes (up to MAX_JUNK)
        self._junk_lost = 0
        self._new_block()

    def _new_block(self) -> None:
        self._length: int | None = None
        self._problem: str | None = None
        self._header_bytes = 0
        self._long_line = False   # HEADERS: inside a line too long to keep

    def _fail(self, problem: str) -> None:
        if self._problem is None:
            self._problem = problem

    # -- input ------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> list[Frame]:
        self._buf += data
        out: list[Frame] = []
        while self._step(out):
            pass
        return out

    def end(self) -> list[Frame]:
        """The end of input: a frame cut off is reported (once)."""
        out: list[Frame] = []
        buf, self._buf = bytes(self._buf), bytearray()
        if self._state == "aligned":
            if buf.strip(_WS):
                out.append(Frame(b"", "end of input inside a header block"))
        elif self._state == "headers":
            out.append(Frame(b"", self._problem or "end of input inside a header block"))
        elif self._state == "body":
            out.append(Frame(buf, f"end of input after {len(buf)} of {self._length} body bytes"))
        elif not self._quiet:
            self._keep_junk(buf)
            out.append(Frame(bytes(self._junk), self._problem or "bytes outside any frame"))
        self._state, self._junk = "aligned", bytearray()
        self._new_block()
        return out

    # -- the states -------------------------------------------------------------------------------
    def _step(self, out: list[Frame]) -> bool:
        """One transition; False when more input is needed."""
        return getattr(self, "_" + self._state)(out)

    def _aligned(self, out: list[Frame]) -> bool:
        buf = self._buf
        n = _LEADING_WS.match(buf).end()
        if n:
            del buf[:n]
        if not buf:
            return False
        if _HEADER_START.match(buf):
            self._state, self._scan, self._quiet = "headers", 0, False
            self._new_block()
            return True
        if _PARTIAL_NAME.fullmatch(buf) and len(buf) < 256:
            return False  # perhaps the start of a header name
        self._to_resync("bytes outside any frame", quiet=self._quiet)
        return True

    def _headers(self, out: list[Frame]) -> bool:
        buf = self._buf
        nl = buf.find(b"\n", self._scan)
        if nl < 0:
            self._scan = len(buf)
            if len(buf) > MAX_HEADER:  # a line too long to keep: read on, keep nothing
                self._fail(f"header block over {MAX_HEADER} bytes")
                self._header_bytes += len(buf)
                self._long_line = True
                del buf[:]
                self._scan = 0
            return False
        line = bytes(buf[:nl]).rstrip(b"\r")
        del buf[:nl + 1]
        self._scan = 0
        self._header_bytes += nl + 1
        if self._header_bytes > MAX_HEADER:
            self._fail(f"header block over {MAX_HEADER} bytes")
        if self._long_line:  # the end of a line too long to keep
            self._long_line = False
            return True
        if not line.strip(_WS):
            self._end_block(out)
            return True
        m = _HEADER_LINE.fullmatch(line)
        if m is None:  # no header: the block ran into a body; that line starts the skipped bytes
            buf[:0] = line + b"\n"
            self._fail("a header line without a name")
            self._to_resync(self._problem)
            return True
        name = m.group(1).decode("ascii").lower()
        value = m.group(2).decode("latin-1")
        if name == "content-length":
            text = value.strip()
            length = int(text) if re.fullmatch(r"[0-9]{1,12}", text) else None
            if length is None or length > MAX_BODY:
                self._fail(f"unreadable Content-Length {text[:40]!r}")
                self._length = -1
            elif self._length is None:
                self._length = length
            elif self._length != length:
                self._fail(f"Content-Length given twice ({self._length} and {length})")
                self._length = -1
        elif name == "content-type":
            if (problem := _charset_problem(value)) is not None:
                self._fail(problem)
        else:
            logger.debug("ignoring the header %s", name[:80])
        return True

    def _end_block(self, out: list[Frame]) -> None:
        length = self._length
        if length is None or length < 0:  # no length to trust: the body ends at the next header
            self._to_resync(self._problem or "no Content-Length header")
            return
        self._state = "body"

    def _body(self, out: list[Frame]) -> bool:
        n = self._length or 0
        if len(self._buf) < n:
            return False
        body = bytes(self._buf[:n])
        del self._buf[:n]
        out.append(Frame(body, self._problem))
        self._state, self._quiet = "aligned", False
        self._new_block()
        return True

    def _to_resync(self, problem: str | None, quiet: bool = False) -> None:
        self._state, self._quiet = "resync", quiet
        self._problem = problem
        self._junk, self._junk_lost = bytearray(), 0

    def _keep_junk(self, data: bytes | bytearray) -> None:
        room = MAX_JUNK - len(self._junk)
        self._junk += data[:max(0, room)]
        self._junk_lost += max(0, len(data) - room)

    def _resync(self, out: list[Frame]) -> bool:
        buf = self._buf
        m = RESYNC_AT.search(buf)
        if m is not None:
            self._keep_junk(buf[:m.start()])
            del buf[:m.start()]
            if not self._junk_lost:  # header lines before the Content-Length belong to the next frame
                body, headers = _split_json_prefix(bytes(self._junk))
                if headers:
                    self._junk = bytearray(body)
                    buf[:0] = headers
            self._emit_junk(out)
            return True
        tail = buf.rstrip(_WS)[-1:] if len(buf) <= 2 * _RESYNC_TAIL else bytes(buf[-_RESYNC_TAIL:]).rstrip(_WS)[-1:]
        whole = b""
        if tail in (b"}", b"]") and not self._junk_lost and len(self._junk) + len(buf) <= MAX_JUNK:
            whole = (self._junk + buf).strip(_WS)
        if whole[-1:] in (b"}", b"]"):
            if _json_values(whole):  # the skipped bytes are JSON objects: that was the body
                self._junk = bytearray(whole)
                del buf[:]
                self._emit_junk(out)
                self._quiet = True  # bytes up to the next header are still that frame's
                return True
        keep = max(0, len(buf) - _RESYNC_TAIL)
        self._keep_junk(buf[:keep])
        del buf[:keep]
        return False

    def _emit_junk(self, out: list[Frame]) -> None:
        """The skipped bytes as the malformed frame's body; when they are several JSON objects or
        arrays in a row, each after the first is a body sent without headers, reported on its own.
        Skipped bytes after a body that ended with its JSON value (quiet) are reported only when
        they are such bodies."""
        junk = bytes(self._junk)
        values = _json_values(junk) if not self._junk_lost else None
        if values and (len(values) > 1 or self._quiet):
            for i, value in enumerate(values):
                problem = self._problem if i == 0 and not self._quiet else "a body without headers"
                out.append(Frame(value, problem or "bytes outside any frame"))
        elif not self._quiet:
            out.append(Frame(junk, self._problem or "bytes outside any frame"))
        self._state, self._quiet = "aligned", False
        self._junk, self._junk_lost = bytearray(), 0
        self._new_block()
