"""The HTTP API (OpenAI- and Mercury-compatible) over the engine: a Starlette app, served by uvicorn.

Routes (JSON in and out; errors in OpenAI's shape `{"error": {message, type, param, code}}`):
  GET  /v1/models                 the one model
  POST /v1/completions            OpenAI completions: `prompt` (+ `suffix`), or a prompt already in a
                                  fill-in-the-middle format (formats.py); `stream`, `diffusing`
  POST /v1/fim/completions        Mercury's FIM: `prompt`, `suffix`, `max_tokens`, `stop`, `stream`
  POST /v1/edit/completions       Mercury's next edit: one user message with the tagged prompt
  POST /v1/apply/completions      Mercury's apply: one user message with original code and snippet
  GET  /v1/redraft/stats          the front door's counters (requests, cancelled, refused_busy, ...)
`effort` or `reasoning_effort` picks the effort dial.  Streaming is server-sent events in OpenAI's
chunk format ending with `data: [DONE]`; with `"diffusing": true` every denoising step sends the
whole draft (each chunk replaces the last: Mercury's diffusing stream).  A client that disconnects
stops the denoising at the next step.  Limits: bodies over `max_body` bytes get 413; more requests
waiting for the model than the queue holds get 429.  With an API key every request needs
`Authorization: Bearer <key>` (compared in constant time).  Nothing of a request is logged.

Hostile input: every error (404, 405 and malformed HTTP included, see serve.py) is OpenAI's JSON
error shape with a one-line reason; input the server cannot read is a 4xx, never a 500 (JSON too
deep or numbers too long, lone surrogates, wrong types, Mercury prompts without their tags).  No
request's work runs on the event loop: reading large prompts, guessing a language (from a bounded
sample) and merging run on the runner's CPU pools, and what the merge would refuse for its size is
refused before any work.  A streamed answer is admitted (or refused with 429) before its 200.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import time
import uuid
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from redraft.engine.host import EngineUnavailable
from redraft.http.formats import read_apply_prompt, read_edit_prompt, split_fim
from redraft.http.runner import BIG, BIG_DEADLINE, DEADLINE, Busy, EngineRunner, TooLong

MAX_BODY = 4 * 1024 * 1024
MAX_CANVAS = 128                # tokens a completion may fill at most (the canvas cap)
GUESS_SAMPLE = 16 * 1024        # characters of an apply's original read to guess its language
EFFORT_ALIASES = {"none": "instant", "minimal": "instant", "instant": "instant", "low": "low",
                  "medium": "medium", "high": "high", "xhigh": "max", "max": "max"}


class ApiError(Exception):
    def __init__(self, status: int, message: str, type_: str = "invalid_request_error",
                 code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.type, self.code, self.param = status, message, type_, code, param

    def response(self) -> JSONResponse:
        return JSONResponse({"error": {"message": self.message, "type": self.type, "param": self.param,
                                       "code": self.code}}, status_code=self.status)


def create_app(runner: EngineRunner, model_id: str = "redraft", api_key: str | None = None,
               max_body: int = MAX_BODY, default_effort: str = "low") -> Starlette:
    api = _Api(runner, model_id, api_key, max_body, default_effort)
    routes = [Route("/v1/models", api.models, methods=["GET"]),
              Route("/v1/completions", api.completions, methods=["POST"]),
              Route("/v1/fim/completions", api.fim, methods=["POST"]),
              Route("/v1/edit/completions", api.edit, methods=["POST"]),
              Route("/v1/apply/completions", api.apply, methods=["POST"]),
              Route("/v1/redraft/stats", api.stats, methods=["GET"])]
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _server_error})


async def _http_error(request: Request, exc: HTTPException) -> Response:
    """Starlette's own errors (404 no such route, 405 wrong method) in OpenAI's shape."""
    reasons = {404: f"no such route: {request.method} {request.url.path}",
               405: f"method {request.method} is not allowed on {request.url.path}"}
    message = reasons.get(exc.status_code, str(exc.detail))
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
    r = ApiError(exc.status_code, message, code=code).response()
    for k, v in (exc.headers or {}).items():
        r.headers[k] = v
    return r


async def _server_error(request: Request, exc: Exception) -> Response:
    return ApiError(500, f"internal error: {type(exc).__name__}".split("\n")[0], "server_error").response()


def _guarded(handler: Callable) -> Callable:
    async def wrapped(self: "_Api", request: Request) -> Response:
        try:
            self.authorize(request)
            return await handler(self, request)
        except ApiError as e:
            return e.response()
        except ClientDisconnect:            # nobody is listening for an answer
            return Response(status_code=499)
        except EngineUnavailable as e:
            return ApiError(503, str(e), "server_error").response()
        except Busy:
            return ApiError(429, "the server is busy: too many requests are waiting for the model; retry "
                            "shortly", "rate_limit_error", "rate_limit_exceeded").response()
        except Exception as e:  # noqa: BLE001 - a failure answers 500 with its one-line cause
            self.runner.stats["errors"] += 1
            return ApiError(500, f"internal error: {type(e).__name__}: {e}".split("\n")[0], "server_error").response()
    return wrapped


class _Api:
    def __init__(self, runner: EngineRunner, model_id: str, api_key: str | None, max_body: int,
                 default_effort: str) -> None:
        self.runner, self.model_id, self.api_key = runner, model_id, api_key
        self.max_body, self.default_effort = max_body, default_effort
        self.created = int(time.time())

    # ---------------------------------------------------------------------------- plumbing

    def authorize(self, request: Request) -> None:
        if self.api_key is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), self.api_key.encode()):
            raise ApiError(401, "missing or wrong API key: send `Authorization: Bearer <key>`",
                           "invalid_request_error", "invalid_api_key")

    async def body(self, request: Request) -> dict[str, Any]:
        size = request.headers.get("content-length")
        if size is not None and size.isdigit() and int(size) > self.max_body:
            if int(size) <= 2 * self.max_body:     # read (and drop) it: the client then reads the 413
                await self._drain(request, 0)       # rather than a reset connection
            raise ApiError(413, f"request body of {int(size)} bytes is over the limit of {self.max_body}",
                           code="request_too_large")
        parts, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size <= self.max_body:
                parts.append(chunk)
            elif size > 2 * self.max_body:    # over the limit: dropped (read up to twice the limit)
                break
        if size > self.max_body:
            raise ApiError(413, f"request body is over the limit of {self.max_body} bytes",
                           code="request_too_large")
        raw = b"".join(parts)
        body = await self.runner.cpu(len(raw), _parse_body, raw) if len(raw) > BIG else _parse_body(raw)
        model = body.get("model")
        if model is None:
            raise ApiError(400, "you must provide a model parameter", param="model", code="missing_model")
        if model != self.model_id:
            raise ApiError(404, f"the model {model!r} does not exist; this server has {self.model_id!r}",
                           param="model", code="model_not_found")
        return body

    async def _drain(self, request: Request, size: int) -> None:
        """Reads an oversized body, up to twice the limit (the request timeout bounds a slow one),
        dropping it."""
        async for chunk in request.stream():
            size += len(chunk)
            if size > 2 * self.max_body:
                return

    def effort(self, body: dict[str, Any]) -> str:
        raw = body.get("effort", body.get("reasoning_effort"))
        if raw is None:
            return self.default_effort
        if not isinstance(raw, str) or raw.lower() not in EFFORT_ALIASES:
            raise ApiError(400, f"effort must be one of {sorted(EFFORT_ALIASES)}, got {raw!r}", param="effort")
        return EFFORT_ALIASES[raw.lower()]

    def head(self, kind: str, prefix: str) -> dict[str, Any]:
        return {"id": f"{prefix}-{uuid.uuid4().hex[:24]}", "object": kind, "created": int(time.time()),
                "model": self.model_id}

    async def watched(self, request: Request, stop, coro) -> Any:
        """Awaits the model's work; a client that disconnects meanwhile sets `stop`."""
        task = asyncio.ensure_future(coro)
        while True:
            done, _ = await asyncio.wait({task}, timeout=0.05)
            if done:
                return task.result()
            if await request.is_disconnected():
                stop.set()
                self.runner.stats["cancelled"] += 1
                try:
                    return await task
                except Exception:  # noqa: BLE001 - nobody is listening any more
                    return None

    # ---------------------------------------------------------------------------- routes

    @_guarded
    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": self.model_id, "object": "model", "created": self.created, "owned_by": "redraft"}]})

    @_guarded
    async def stats(self, request: Request) -> Response:
        return JSONResponse({**self.runner.stats, "pending": self.runner.pending})

    @_guarded
    async def completions(self, request: Request) -> Response:
        body = await self.body(request)
        prompt = body.get("prompt", "")
        if isinstance(prompt, list) and len(prompt) == 1:
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise ApiError(400, "prompt must be a string (one prompt per request)", param="prompt")
        suffix = body.get("suffix")
        if suffix is not None and not isinstance(suffix, str):
            raise ApiError(400, "suffix must be a string", param="suffix")
        prefix, suffix, _ = split_fim(prompt, suffix)
        return await self.fill(request, body, prefix, suffix)

    @_guarded
    async def fim(self, request: Request) -> Response:
        body = await self.body(request)
        prefix, suffix = body.get("prompt"), body.get("suffix", "")
        if not isinstance(prefix, str) or not isinstance(suffix, str):
            raise ApiError(400, "prompt (the text before the cursor) and suffix must be strings", param="prompt")
        return await self.fill(request, body, prefix, suffix)

    async def fill(self, request: Request, body: dict[str, Any], prefix: str, suffix: str) -> Response:
        deadline = time.monotonic() + DEADLINE
        effort = self.effort(body)
        max_tokens = body.get("max_tokens", 32)
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ApiError(400, "max_tokens must be a positive integer", param="max_tokens")
        stops = body.get("stop") or []
        stops = [stops] if isinstance(stops, str) else stops
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise ApiError(400, "stop must be a string or a list of strings", param="stop")
        language = body.get("language")
        if language is not None and not isinstance(language, str):
            raise ApiError(400, "language must be a string (a languageId such as python)", param="language")
        if not language:
            sample = prefix[-8000:] + suffix[:2000]
            language = await self.runner.cpu(len(sample), _guess_language, sample)
        job = (prefix, suffix, effort, min(max_tokens, MAX_CANVAS), language)
        if body.get("stream"):
            self.runner.admit()       # admitted or refused (429) before the 200 is sent
            return StreamingResponse(self.stream(job, stops, bool(body.get("diffusing")), deadline),
                                     media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
        stop, should_stop = self.runner.stopper(deadline)
        out = await self.watched(request, stop, self.runner.run(_complete, job, should_stop, None, deadline=deadline))
        text = _cut(out or "", stops)
        return JSONResponse({**self.head("text_completion", "cmpl"), "choices": [
            {"text": text, "index": 0, "logprobs": None, "finish_reason": "stop"}], "usage": _usage(prefix + suffix, text)})

    def stream(self, job: tuple, stops: list[str], diffusing: bool, deadline: float):
        """The job's task starts now (its place in the queue is already taken), so that its place is
        given back even when the client leaves before the first event is sent."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        stop, should_stop = self.runner.stopper(deadline)
        head = self.head("text_completion", "cmpl")

        def on_step(draft: str, step: int) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, ("step", draft))

        def chunk(text: str, finish: str | None, **extra: Any) -> str:
            return "data: " + json.dumps({**head, **extra, "choices": [
                {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}]}) + "\n\n"

        task = asyncio.ensure_future(self.runner.run_admitted(_complete, job, should_stop,
                                                              on_step if diffusing else None))
        task.add_done_callback(lambda _t: loop.call_soon_threadsafe(queue.put_nowait, ("done", None)))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())   # retrieved: never "never retrieved"

        async def events():
            try:
                while True:
                    kind, draft = await queue.get()
                    if kind == "done":
                        break
                    yield chunk(draft, None, diffusing=True)
                try:
                    text = _cut(task.result() or "", stops)
                except Exception as e:  # noqa: BLE001 - the stream ends with an error event, not a cut
                    self.runner.stats["errors"] += 1
                    yield "data: " + json.dumps({"error": {
                        "message": f"internal error: {type(e).__name__}", "type": "server_error",
                        "param": None, "code": None}}) + "\n\n"
                    yield "data: [DONE]\n\n"
                    return
                yield chunk(text, "stop", **({"diffusing": True} if diffusing else {}))
                yield "data: [DONE]\n\n"
            finally:
                if not task.done():       # the client went away: stop the denoising at its next step
                    stop.set()
                    self.runner.stats["cancelled"] += 1
        return events()

    @_guarded
    async def edit(self, request: Request) -> Response:
        deadline = time.monotonic() + DEADLINE
        body = await self.body(request)
        content = _one_user_message(body)
        effort = self.effort(body)
        prompt = await self.runner.cpu(len(content), _read, read_edit_prompt, content)
        stop, should_stop = self.runner.stopper(deadline)
        region = await self.watched(request, stop, self.runner.run(_next_edit, prompt, effort, should_stop,
                                                                   deadline=deadline))
        return JSONResponse({**self.head("edit.completion", "edit"), "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": region or ""}}],
            "usage": _usage(prompt.text, region or "")})

    @_guarded
    async def apply(self, request: Request) -> Response:
        body = await self.body(request)
        content = _one_user_message(body)
        language = body.get("language")
        if language is not None and not isinstance(language, str):
            raise ApiError(400, "language must be a string (a languageId such as python)", param="language")
        keep = body.get("keep_unmarked", False)
        if not isinstance(keep, bool):
            raise ApiError(400, "keep_unmarked must be true or false", param="keep_unmarked")
        from redraft.engine.apply import MAX_BYTES
        original, snippet = await self.runner.cpu(len(content), _read, read_apply_prompt, content)
        for name, text in (("file", original), ("snippet", snippet)):    # what merge refuses, before any work
            if len(text) > MAX_BYTES or len(text.encode("utf-8")) > MAX_BYTES:
                raise ApiError(422, f"the snippet cannot be applied: {name} is larger than "
                               f"{MAX_BYTES // (1024 * 1024)} MB", code="apply_refused")
            if "\x00" in text:
                raise ApiError(422, "the snippet cannot be applied: binary data (NUL bytes)", code="apply_refused")
        size = len(original) + len(snippet)
        lang = language or await self.runner.cpu(size, _guess_language, _sample(original, GUESS_SAMPLE))
        try:
            result = await self.runner.isolated(size, _merge, original, snippet, lang, not keep)
        except TooLong:
            raise ApiError(422, f"the snippet cannot be applied: the merge did not finish within "
                           f"{BIG_DEADLINE:g} s (the file is too large to merge)", code="apply_refused") from None
        if not result.ok:
            raise ApiError(422, f"the snippet cannot be applied: {result.reason}", code="apply_refused")
        # `deletions`: what the snippet omitted without a marker and the merge deleted (redraft's field)
        return JSONResponse({**self.head("apply.completion", "apply"), "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": result.text}}],
            "usage": _usage(original + snippet, result.text),
            "deletions": [d.as_json() for d in result.deletions]})



def _merge(original: str, snippet: str, language: str | None, delete_unmarked: bool):
    """engine.apply.merge with its keyword, as a module-level function (the child process pickles it)."""
    from redraft.engine.apply import merge
    return merge(original, snippet, language, delete_unmarked=delete_unmarked)

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


def _complete(engine, job: tuple, should_stop, on_step) -> str | None:
    """The engine's completion between prefix and suffix, as the text to insert there."""
    from redraft.engine.pipeline import Cancelled
    from redraft.engine.pipeline import Request as EngineRequest
    prefix, suffix, effort, max_tokens, language = job
    text = prefix + suffix
    req = EngineRequest(text=text, offset=len(prefix), uri="redraft-http://completions", effort=effort,
                        max_tokens=max_tokens, language_id=language)
    try:
        res = engine.complete(req, should_stop=should_stop, on_step=on_step)
    except Cancelled:
        return None
    if res is None:
        return ""
    out = res.text
    head, tail = text[res.start:req.offset], text[req.offset:res.end]
    if head and out.startswith(head):
        out = out[len(head):]
    if tail and out.endswith(tail):
        out = out[:len(out) - len(tail)]
    return out


def _next_edit(engine, prompt, effort: str, should_stop) -> str:
    """The editable region after the predicted next edit (unchanged when the edit does not lie
    inside it: Mercury's endpoint rewrites only `<|code_to_edit|>`)."""
    text, (rs, re_) = prompt.text, prompt.region
    before = text[:prompt.offset]
    line, col = before.count("\n"), len(before) - (before.rfind("\n") + 1)
    from redraft.engine.pipeline import Cancelled
    try:
        edit, _ = engine.next_edit(text, line, col, prompt.history, "redraft-http://edit", effort, should_stop)
    except Cancelled:                  # the client left, or the deadline passed: no edit
        edit = None
    except ValueError as e:            # a history that does not fit the file
        raise ApiError(400, f"cannot read the edit history: {e}".split("\n")[0], param="messages",
                       code="invalid_prompt") from None
    lines = text.split("\n")
    start = sum(len(x) + 1 for x in lines[:rs])
    end = start + len("\n".join(lines[rs:re_]))
    if edit is None or edit.start < start or edit.end > end:
        return "\n".join(lines[rs:re_])
    region = text[start:end]
    return region[:edit.start - start] + edit.text + region[edit.end - start:]


def _guess_language(text: str) -> str:
    """The language whose grammar parses the text with the fewest errors (Python first on ties)."""
    from redraft.engine.apply.definitions import _error_count
    from redraft.engine.syntax.languages import language_for
    best, name = None, "python"
    for cand in ("python", "typescript", "javascript", "rust", "go"):
        lang = language_for(cand)
        if lang is None:
            continue
        n = _error_count(lang, text)
        if best is None or n < best:
            best, name = n, cand
    return name
