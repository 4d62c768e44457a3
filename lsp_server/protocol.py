"""pygls protocol adjustments, kept to what robustness and correct document sync need.

1. A request whose params do not fit the method's type (wrong params, a negative line ...) is
   answered with InvalidParams (-32602) and its id. Plain pygls raises while decoding the message,
   before it knows there is a request to answer, so such a client would wait forever.
2. `textDocument/didOpen|didChange|didClose` go to the server's own `DocumentStore` (see
   documents.py for why) instead of pygls' workspace; the server's handlers do the work.
3. Malformed JSON is answered with ParseError (-32700), valid JSON that is no JSON-RPC message with
   InvalidRequest (-32600), with id null where the id is unknown, as JSON-RPC 2.0 asks (pygls
   only logs them): see `RedraftServer.report_server_error`.
4. `converter_factory`: inline completion items keep their (non-standard) `data` member, which a
   plain lsprotocol converter drops because `InlineCompletionItem` has no such field.
"""
from __future__ import annotations

from typing import Any

from cattrs import Converter, transform_error
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.language_server import lsp_method

from .convert import InlineCompletionItemWithData


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


class InvalidMessage(ValueError):
    """Valid JSON that is not a JSON-RPC message (no "jsonrpc" member, an array, a number ...)."""


class RedraftProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(exc, JsonRpcInvalidParams) and "method" in data:
                exc = JsonRpcInvalidParams(f"Invalid params for {data['method']}: {_explain(exc.__cause__)}")
            if "method" in data and isinstance(data.get("id"), (int, str)):
                self._send_response(data["id"], error=exc.to_response_error())
                return _ANSWERED
            raise exc from None

    def handle_message(self, message: Any) -> None:
        if message is _ANSWERED:
            return
        if not hasattr(message, "jsonrpc"):
            if isinstance(message, dict) and isinstance(message.get("id"), (int, str)):
                self._send_response(message["id"], error=types.ResponseError(
                    code=types.ErrorCodes.InvalidRequest, message='Invalid request: "jsonrpc": "2.0" is missing'))
                return
            raise InvalidMessage(f"not a JSON-RPC message: {str(message)[:200]}")
        super().handle_message(message)

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
