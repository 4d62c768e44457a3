"""pygls protocol adjustments, kept to what robustness and correct document sync need.

1. A request whose params do not fit the method's type (wrong params, a negative line ...) is
   answered with InvalidParams (-32602) and its id. Plain pygls raises while decoding the message,
   before it knows there is a request to answer, so such a client would wait forever.
2. `textDocument/didOpen|didChange|didClose` go to the server's own `DocumentStore` (see
   documents.py for why) instead of pygls' workspace; the server's handlers do the work.
3. Malformed JSON is answered with ParseError (-32700), valid JSON that is no JSON-RPC message with
   InvalidRequest (-32600), with id null where the id is unknown, as JSON-RPC 2.0 asks (pygls
   only logs them): see 5.
4. `converter_factory`: inline completion items keep their (non-standard) `data` member, which a
   plain lsprotocol converter drops because `InlineCompletionItem` has no such field.
5. One validation layer in front of pygls' dispatch (`receive` for a framed body, then
   `handle_message`). pygls decodes with an `object_hook` that turns every nested object shaped like
   a JSON-RPC message into one, wherever it is (a command argument, a document's text as JSON ...):
   here the hook is the identity and only the top-level object is a message. Decoding errors, JSON
   nested too deep to decode (answered with the id found at the top level), a bad envelope (jsonrpc,
   an id that is not a string or an integer, a method that is not a string, params that are not an
   object or array), a notification method sent with an id, and unknown methods each get one
   JSON-RPC error (-32700, -32600, -32602, -32601), with id null where the id itself is invalid,
   and one line in the local log. Every request is answered once; no traceback goes to the client.
   An answer of the client's that does not fit the request's result type fails that request (the
   server's code awaiting it gets a JsonRpcInternalError) instead of leaving it waiting forever.
6. After `exit`, or once the transport is gone, nothing more is written to it, and nothing about it
   is reported through it (which used to recurse until the recursion limit).
7. Framing (`FrameReader`, `read_messages`): the stdio stream is cut into frames by a pure state
   machine that reads the `Content-Length` header leniently (any case, no space, bare `\n`, unknown
   headers ignored) and, after a malformed frame, resyncs at the next real `Content-Length:` header:
   a malformed frame is answered once with ParseError (-32700) and the id read from its body, and
   costs nothing after it; nothing inside a body is ever taken for a message.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

from cattrs import Converter, transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage
from pygls.protocol.language_server import lsp_method

from redraft.lsp.convert import InlineCompletionItemWithData

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


def envelope_problem(data: Any) -> tuple[Any, int, str] | None:
    """(id to answer with, error code, message) for a top-level value that is no valid JSON-RPC 2.0
    message; None for a valid one."""
    if not isinstance(data, dict):
        return None, types.ErrorCodes.InvalidRequest, f"Invalid request: expected an object, got {type(data).__name__}"
    msg_id = data.get("id")
    answer_id = msg_id if valid_id(msg_id) else None
    if data.get("jsonrpc") != "2.0":
        return answer_id, types.ErrorCodes.InvalidRequest, 'Invalid request: "jsonrpc" must be "2.0"'
    if "id" in data and not valid_id(msg_id):
        return None, types.ErrorCodes.InvalidRequest, \
            f"Invalid request: an id must be an integer or a string, not {json.dumps(msg_id)[:40]}"
    if "method" in data:
        if not isinstance(data["method"], str):
            return answer_id, types.ErrorCodes.InvalidRequest, "Invalid request: the method must be a string"
        if "params" in data and not isinstance(data["params"], (dict, list)) and data["params"] is not None:
            return answer_id, types.ErrorCodes.InvalidParams, f"Invalid params for {data['method'][:100]}: params must be an object or an array"
    elif "id" not in data or not ("result" in data or "error" in data):
        return answer_id, types.ErrorCodes.InvalidRequest, "Invalid request: neither a request, a notification nor a response"
    return None


def converter_factory() -> Converter:
    converter = default_converter()
    base = converter.get_unstructure_hook(types.InlineCompletionItem)

    def unstructure_item(item: types.InlineCompletionItem) -> dict[str, Any]:
        out = base(item)
        if getattr(item, "data", None) is not None:
            out["data"] = converter.unstructure(item.data)
        return out

    converter.register_unstructure_hook(types.InlineCompletionItem, unstructure_item)
    converter.register_unstructure_hook(InlineCompletionItemWithData, unstructure_item)
    return converter


def _explain(error: BaseException | None) -> str:
    """cattrs' validation errors as short readable lines ("invalid value for type ... @ $.position")."""
    if error is None:
        return "unexpected shape"
    try:
        return "; ".join(transform_error(error, path="$"))[:500]
    except Exception:  # noqa: BLE001 - not a cattrs error
        return str(error)[:500]


_ANSWERED = object()  # a message that was already answered while it was decoded


class RedraftProtocol(LanguageServerProtocol):
    closed = False  # after `exit`, or once writing failed: nothing more goes to the client

    # -- 5. the validation layer ------------------------------------------------------------------
    def receive(self, body: bytes) -> None:
        """One framed message body, as read from the transport."""
        try:
            data = json.loads(body)
        except RecursionError:
            msg_id = top_level_member(body, "id")
            self.reject(msg_id if valid_id(msg_id) else None, types.ErrorCodes.InvalidRequest,
                        "Invalid request: JSON nested too deep")
            return
        except ValueError as e:  # JSONDecodeError, UnicodeDecodeError
            self.reject(None, types.ErrorCodes.ParseError, f"Parse error: {e}"[:300])
            return
        self.handle_message(data)

    def reject(self, msg_id: Any, code: int, message: str) -> None:
        """Answer a message that cannot be served with a JSON-RPC error (id null if unknown)."""
        logger.warning("rejected a message: %s", message)
        self._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": int(code), "message": message}})

    def _is_notification_method(self, method: str) -> bool:
        kind = types.METHOD_TO_TYPES.get(method, (None,))[0]
        return kind is not None and kind.__name__.endswith("Notification")

    def _has_method(self, method: str) -> bool:
        return method == types.CANCEL_REQUEST or method in self.fm.builtin_features or method in self.fm.features

    def structure_message(self, data: Any) -> Any:
        return data  # pygls' object_hook: only the top-level object is a message (handle_message)

    def _message_type(self, data: dict[str, Any]) -> type:
        """The lsprotocol class of a message with a valid envelope (as pygls' structure_message picks
        it, without its traceback in the log for every bad message)."""
        if "method" in data:
            fallback = JsonRPCRequestMessage if "id" in data else JsonRPCNotification
            return self.get_message_type(data["method"]) or fallback
        if "error" in data:
            return types.ResponseErrorMessage
        return self._result_types.pop(data["id"], None) or JsonRPCResponseMessage

    def _structure(self, data: dict[str, Any]) -> Any:
        """The envelope is valid: the lsprotocol type of the message (1.: a request whose params do
        not fit is answered with InvalidParams; a notification's is dropped with one log line)."""
        try:
            return self._converter.structure(data, self._message_type(data))
        except Exception as error:  # noqa: BLE001 - a bad message is answered, not raised (and no traceback)
            exc: JsonRpcException = JsonRpcInvalidParams() if isinstance(error, ClassValidationError) \
                else JsonRpcInternalError()
            if isinstance(exc, JsonRpcInvalidParams) and "method" in data:
                exc = JsonRpcInvalidParams(f"Invalid params for {data['method']}: {_explain(error)}")
            if "method" in data and "id" in data:
                self.reject(data["id"], exc.code, exc.message)
            elif "method" not in data:  # the client's answer to a request of ours: fail that request
                future = self._request_futures.pop(data.get("id"), None)
                logger.warning("cannot read the answer to request %r: %s", data.get("id"), _explain(error))
                if future is not None and not future.done():
                    future.set_exception(JsonRpcInternalError(f"cannot read the client's answer: {_explain(error)}"))
            else:  # a notification: nobody to answer; one line in the local log and the client's
                logger.warning("dropped a notification: %s", exc.message)
                self.notify(types.WINDOW_LOG_MESSAGE, types.LogMessageParams(
                    type=types.MessageType.Warning, message=f"redraft: dropped a notification: {exc.message}"))
            return _ANSWERED

    def handle_message(self, message: Any) -> None:
        if hasattr(message, "jsonrpc"):  # structured already (pygls' own calls)
            super().handle_message(message)
            return
        problem = envelope_problem(message)
        if problem is not None:
            self.reject(*problem)
            return
        method, has_id = message.get("method"), "id" in message
        if method is not None and has_id and self._is_notification_method(method):
            self.reject(message["id"], types.ErrorCodes.InvalidRequest,
                        f"Invalid request: {method} is a notification and takes no id")
            return
        if method is not None and not self._has_method(method):
            if has_id:
                self.reject(message["id"], types.ErrorCodes.MethodNotFound, f"Method not found: {method}"[:300])
            elif not method.startswith("$/"):  # "$/" notifications may be ignored (the LSP spec)
                logger.warning("ignoring the notification %s: not supported", method[:200])
            return
        if method == types.CANCEL_REQUEST and not valid_id((message.get("params") or {}).get("id")
                                                         if isinstance(message.get("params"), dict) else None):
            logger.warning("ignoring $/cancelRequest without a valid id")
            return
        structured = self._structure(message)
        if structured is not _ANSWERED:
            super().handle_message(structured)

    def _send_handler_result(self, future: Any, *, msg_id: Any) -> None:
        """A handler that rejected its request (a JsonRpcException: an unknown command, bad
        arguments) is answered with that error and one log line; pygls logs a traceback for it."""
        if not future.cancelled() and isinstance(exc := future.exception(), JsonRpcException):
            self._request_futures.pop(msg_id, None)
            logger.warning("request %r: %s", msg_id, exc.message)
            self._send_response(msg_id, error=exc.to_response_error())
            return
        super()._send_handler_result(future, msg_id=msg_id)

    # -- 6. a closed transport --------------------------------------------------------------------
    def _send_data(self, data: Any) -> None:
        if self.closed:
            return
        super()._send_data(data)

    def _send_response(self, msg_id: Any, result: Any = None, error: types.ResponseError | None = None) -> None:
        """pygls puts the server's traceback into an internal error's `data`: it stays in the local log."""
        if error is not None and error.data is not None and error.code == types.ErrorCodes.InternalError:
            logger.error("internal error answering request %r: %s\n%s", msg_id, error.message, error.data)
            error = types.ResponseError(code=error.code, message=error.message)
        super()._send_response(msg_id, result, error)

    def _user(self, method: str, params: Any):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        yield from self._user(types.TEXT_DOCUMENT_DID_CLOSE, params)


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


def deliver(protocol: RedraftProtocol, frame: Frame) -> None:
    """One frame to the protocol: a body to `receive`; a malformed frame answered with ParseError and
    the id read from its body (id null when there is none)."""
    if frame.problem is None:
        protocol.receive(frame.body)
        return
    protocol.reject(frame_id(frame.body), types.ErrorCodes.ParseError, f"Parse error: malformed frame: {frame.problem}"[:300])


async def read_messages(stop: Any, reader: StdinAsyncReader, protocol: RedraftProtocol) -> None:
    """The stdio read loop: the bytes as they come (a read returns what is there, up to 64 KiB)
    through a FrameReader; each frame to `deliver`, until `exit` or the end of input."""
    frames = FrameReader()
    read1 = getattr(reader.stdin, "read1", None)
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        chunk = await (loop.run_in_executor(reader.executor, read1, 65536) if read1 is not None
                       else reader.readline())
        for frame in frames.feed(chunk) if chunk else frames.end():
            if stop.is_set():
                return
            try:
                deliver(protocol, frame)
            except Exception:  # noqa: BLE001 - one bad message must not end the loop
                logger.exception("unexpected error while handling a message")
            # let the handlers the frame started run before the next frame is delivered (an async
            # didChangeConfiguration handler must apply the settings before the request after it)
            await asyncio.sleep(0)
        if not chunk:
            return
