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
7. Framing (frames.py's `FrameReader`, fed by `read_messages`): the stdio stream is cut into frames by a pure state
   machine that reads the `Content-Length` header leniently (any case, no space, bare `\n`, unknown
   headers ignored) and, after a malformed frame, resyncs at the next real `Content-Length:` header:
   a malformed frame is answered once with ParseError (-32700) and the id read from its body, and
   costs nothing after it; nothing inside a body is ever taken for a message.
"""
from __future__ import annotations

import asyncio
import json
import logging
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
from redraft.lsp.frames import Frame, FrameReader, frame_id, top_level_member, valid_id

logger = logging.getLogger("redraft.protocol")
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
