"""What the HTTP API's routes share (app.py's OpenAI and Mercury routes, routes_compat.py's
llama.cpp and Ollama ones): the error type, the JSON body reader, usage counts, stop strings, the
language guess.  No I/O here."""
from __future__ import annotations

import json
import math
from typing import Any, Callable

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from redraft.engine.host import EngineUnavailable
from redraft.http.runner import Busy

MAX_CANVAS = 128                # tokens a completion may fill at most (the canvas cap)


class ApiError(Exception):
    """An error answer: OpenAI's shape `{"error": {message, type, param, code}}` (llama.cpp's routes
    answer the same shape), or Ollama's `{"error": message}` (`flavor="ollama"`)."""

    def __init__(self, status: int, message: str, type_: str = "invalid_request_error",
                 code: str | None = None, param: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.param = status, message, type_, code, param
        self.headers = headers or {}

    def response(self, flavor: str = "openai") -> JSONResponse:
        if flavor == "ollama":
            body: dict[str, Any] = {"error": self.message}
        else:
            body = {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}
        return JSONResponse(body, status_code=self.status, headers=self.headers)


def guarded(flavor: str = "openai", work: bool = True) -> Callable:
    """A route method's wrapper: the key (and, for `work`, its rate limit) first, then the handler;
    every failure becomes an error answer in the route's `flavor` ("openai" or "ollama").  The
    method's object has `api` (the app's _Api) or is it."""
    def deco(handler: Callable) -> Callable:
        async def wrapped(self: Any, request: Request) -> Response:
            api = getattr(self, "api", self)
            try:
                api.authorize(request, work)
                return await handler(self, request)
            except ApiError as e:
                return e.response(flavor)
            except ClientDisconnect:            # nobody is listening for an answer
                return Response(status_code=499)
            except EngineUnavailable as e:
                return ApiError(503, str(e), "server_error").response(flavor)
            except Busy as e:                   # the runner's hint, where it gives one
                wait = getattr(e, "retry_after", None)
                wait = wait if isinstance(wait, (int, float)) and not isinstance(wait, bool) else 1
                return ApiError(429, "the server is busy: too many requests are waiting for the model; retry "
                                "shortly", "rate_limit_error", "rate_limit_exceeded",
                                headers={"Retry-After": str(max(1, math.ceil(wait)))}).response(flavor)
            except Exception as e:  # noqa: BLE001 - a failure answers 500 with its one-line cause
                api.runner.stats["errors"] += 1
                return ApiError(500, f"internal error: {type(e).__name__}: {e}".split("\n")[0],
                                "server_error").response(flavor)
        return wrapped
    return deco


def _one_user_message(body: dict[str, Any]) -> str:
    messages = body.get("messages")
    if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict) \
            or messages[0].get("role") != "user" or not isinstance(messages[0].get("content"), str):
        raise ApiError(400, "messages must be exactly one message with role user and string content",
                       param="messages")
    return messages[0]["content"]


def _parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON body, or a 400 with the reason: not JSON, nested too deep, a number too long, a
    string with a lone surrogate (not Unicode, which nothing downstream can encode)."""
    try:
        body = json.loads(raw or b"null")
    except (ValueError, UnicodeDecodeError, RecursionError) as e:   # JSONDecodeError is a ValueError
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise ApiError(400, f"could not parse the JSON body: {reason}".split("\n")[0], code="invalid_json") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the JSON body must be an object", code="invalid_json")
    stack: list[tuple[Any, str]] = [(v, k) for k, v in body.items()]
    while stack:
        value, param = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ApiError(400, f"{param} is not valid Unicode (it holds a lone surrogate)",
                               param=param, code="invalid_unicode") from None
        elif isinstance(value, dict):
            stack.extend((v, param) for v in value.values())
            stack.extend((k, param) for k in value)
        elif isinstance(value, list):
            stack.extend((v, param) for v in value)
    return body


def _read(reader: Callable[[str], Any], content: str) -> Any:
    """A Mercury prompt read by formats.py; a prompt it cannot read is a 400 with its reason."""
    try:
        return reader(content)
    except (ValueError, IndexError, KeyError) as e:
        raise ApiError(400, f"cannot read the message: {e}".split("\n")[0], param="messages",
                       code="invalid_prompt") from None


def _sample(text: str, limit: int) -> str:
    """At most `limit` characters from the start of text, cut at a line end when there is one."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    return text[:cut if cut > 0 else limit]


def _usage(prompt: str, completion: str) -> dict[str, int]:
    """Token counts estimated at ~4 characters a token (the tokenizer stays on the model thread)."""
    p, c = (len(prompt) + 3) // 4, (len(completion) + 3) // 4
    return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}


def _cut(text: str, stops: list[str]) -> str:
    at = min((text.find(s) for s in stops if s and s in text), default=-1)
    return text if at < 0 else text[:at]


def _guess_language(text: str) -> str:
    """The language whose grammar parses the text with the fewest errors (Python first on ties).
    A text Python parses without an error is Python at once: one parse instead of five for the
    usual request (five parses of 10 KB cost ~120 ms of CPU, which capped a loaded server)."""
    from redraft.engine.apply.definitions import _error_count
    from redraft.engine.syntax.languages import language_for
    best, name = None, "python"
    for cand in ("python", "typescript", "javascript", "rust", "go"):
        lang = language_for(cand)
        if lang is None:
            continue
        n = _error_count(lang, text)
        if cand == "python" and n == 0:
            return cand
        if best is None or n < best:
            best, name = n, cand
    return name


def chat_message(body: dict[str, Any], answer: dict[str, Any]) -> Response:
    """A next-edit or apply answer; with `"stream": true` (Continue's Inception provider asks so)
    as chat-completion chunks (`delta.content`, then `finish_reason`, then [DONE]), sent once the
    answer is whole: every error is still a plain 4xx before any 200."""
    if not body.get("stream"):
        return JSONResponse(answer)
    choice = answer["choices"][0]
    head = {"id": answer["id"], "object": "chat.completion.chunk", "created": answer["created"],
            "model": answer["model"]}
    events = [{**head, "choices": [{"index": 0, "delta": choice["message"], "finish_reason": None}]},
              {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": answer["usage"]}]

    async def sse():
        for e in events:
            yield "data: " + json.dumps(e) + "\n\n"
        yield "data: [DONE]\n\n"
    return StreamingResponse(sse(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
