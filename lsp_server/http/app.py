"""The HTTP API over the engine: a Starlette app, served by uvicorn.  Every client's wire format on
one port: OpenAI's and Mercury's here, llama.cpp's and Ollama's in routes_compat.py; operations
(keys, rate limits, /health, /metrics, access logs) through keys.py and metrics.py.

Routes (JSON in and out; errors in OpenAI's shape `{"error": {message, type, param, code}}`):
  GET  /v1/models                 the one model
  POST /v1/completions            OpenAI completions: `prompt` (+ `suffix`), or a prompt already in a
                                  fill-in-the-middle format (formats.py); `stream`, `diffusing`
  POST /v1/fim/completions        Mercury's FIM: `prompt`, `suffix`, `max_tokens`, `stop`, `stream`
  POST /v1/edit/completions       Mercury's next edit: one user message with the tagged prompt
  POST /v1/apply/completions      Mercury's apply: one user message with original code and snippet
                                  (both: `"stream": true` sends the whole answer as chat chunks)
  GET  /v1/redraft/stats          the front door's counters (requests, cancelled, refused_busy, ...)
  POST /infill, /completion       llama.cpp's (routes_compat.py); also /completions
  POST /api/generate              Ollama's; GET /api/tags, /api/version, POST /api/show
  GET  /health                    no key needed: 200 {"status": "ok"}, 503 while loading or draining
  GET  /metrics                   Prometheus text format (metrics.py)
`effort` or `reasoning_effort` picks the effort dial.  Streaming is server-sent events in OpenAI's
chunk format ending with `data: [DONE]`; with `"diffusing": true` every denoising step sends the
whole draft (each chunk replaces the last: Mercury's diffusing stream).  A client that disconnects
stops the denoising at the next step; a request that only types the start of an earlier answer at
the same place gets its rest with no model work (follow.py).  Limits: bodies over `max_body`
bytes get 413; more requests waiting for the model than the queue holds get 429 (Retry-After).
With keys (a keys file, keys.py, and/or one `--api-key`) every request but /health needs
`Authorization: Bearer <key>`, and a key over its rate limit gets 429 with Retry-After.  Nothing of a request's code is logged:
the access log has route, status, time and the key's name.

Hostile input: every error (404, 405 and malformed HTTP included, see serve.py) is OpenAI's JSON
error shape with a one-line reason; input the server cannot read is a 4xx, never a 500 (JSON too
deep or numbers too long, lone surrogates, wrong types, Mercury prompts without their tags).  No
request's work runs on the event loop: reading large prompts, guessing a language (from a bounded
sample) and merging run on the runner's CPU pools, and what the merge would refuse for its size is
refused before any work.  A streamed answer is admitted (or refused with 429) before its 200.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from redraft.http.common import (MAX_CANVAS, ApiError, _cut, _guess_language, _one_user_message, _parse_body, _read,
                                 _sample, _usage, chat_message, guarded)
from redraft.http.follow import Flight, Flights, Keystrokes
from redraft.http.formats import read_apply_prompt, read_edit_prompt, split_fim
from redraft.http.jobs import Infill, complete_job, merge_job, next_edit_job
from redraft.http.keys import KeyStore, RateLimits, retry_after
from redraft.http.metrics import AccessLog, Metrics, Observed
from redraft.http.routes_compat import Compat
from redraft.http.runner import ANSWERED, BIG, BIG_DEADLINE, DEADLINE, EngineRunner, TooLong

MAX_BODY = 4 * 1024 * 1024
GUESS_SAMPLE = 16 * 1024        # characters of an apply's original read to guess its language
EFFORT_ALIASES = {"none": "instant", "minimal": "instant", "instant": "instant", "low": "low",
                  "medium": "medium", "high": "high", "xhigh": "max", "max": "max"}
_guarded = guarded


def create_app(runner: EngineRunner, model_id: str = "redraft", api_key: str | None = None,
               max_body: int = MAX_BODY, default_effort: str = "low", keys: KeyStore | None = None,
               limits: RateLimits | None = None, access_log: AccessLog | None = None, workspace: Any = None,
               gate: float = 0.0) -> Observed:
    """The ASGI app (the Starlette app inside `Observed`, which counts and logs every request);
    `.api` is the routes' object (serve.py sets `.api.draining` on SIGTERM). `workspace`: a
    WorkspaceIndex whose lines every completion gets as candidates (`--workspace DIR`); `gate`: the
    completions' default threshold (`--gate`, as the language server's `gate` setting; 0: every
    draft is answered), which a request's `gate` field overrides."""
    keys = keys if keys is not None else KeyStore(api_key=api_key)
    api = _Api(runner, model_id, keys, limits or RateLimits(), max_body, default_effort)
    api.workspace, api.gate = workspace, gate
    compat = Compat(api)
    routes = [Route("/v1/models", api.models, methods=["GET"]),
              Route("/v1/completions", api.completions, methods=["POST"]),
              Route("/v1/fim/completions", api.fim, methods=["POST"]),
              Route("/v1/edit/completions", api.edit, methods=["POST"]),
              Route("/v1/apply/completions", api.apply, methods=["POST"]),
              Route("/v1/redraft/stats", api.stats, methods=["GET"]),
              Route("/health", api.health, methods=["GET"]),
              Route("/metrics", api.metrics_text, methods=["GET"]),
              *compat.routes()]
    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _server_error})
    observed = Observed(app, api.metrics, {r.path for r in routes}, access_log)
    observed.api = api           # type: ignore[attr-defined]
    return observed


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


class _Api:
    def __init__(self, runner: EngineRunner, model_id: str, keys: KeyStore, limits: RateLimits, max_body: int,
                 default_effort: str) -> None:
        self.runner, self.model_id, self.keys, self.limits = runner, model_id, keys, limits
        self.max_body, self.default_effort = max_body, default_effort
        self.workspace: Any = None       # create_app's `workspace` and `gate`
        self.gate = 0.0
        self.metrics = Metrics()
        self.keystrokes = Keystrokes(runner.stats)   # typing through earlier answers (follow.py)
        self.created = int(time.time())
        self.draining = False

    # ---------------------------------------------------------------------------- plumbing

    def authorize(self, request: Request, work: bool = True) -> None:
        """The request's key (its name goes to the access log), then, for a request that asks the
        model for work, the key's rate limit (per client address when the server has no keys)."""
        name, rate, burst = None, None, None
        if self.keys.enabled:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            key = self.keys.lookup(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
            if key is None:
                self.metrics.auth_failures += 1
                raise ApiError(401, "missing or wrong API key: send `Authorization: Bearer <key>`",
                               "invalid_request_error", "invalid_api_key")
            name, rate, burst = key.name, key.rate, key.burst
        request.scope.setdefault("state", {})["key"] = name
        if work:
            who = name if name is not None else "client:" + (request.client.host if request.client else "")
            wait = self.limits.take(who, rate, burst)
            if wait:
                self.metrics.rate_limited += 1
                raise ApiError(429, f"rate limit exceeded for {'key ' + name if name else 'this client'}; "
                               f"retry after {retry_after(wait)} s", "rate_limit_error", "rate_limit_exceeded",
                               headers={"Retry-After": retry_after(wait)})

    async def body(self, request: Request, check_model: bool = True) -> dict[str, Any]:
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
        if not check_model:
            return body
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

    async def watched(self, request: Request, stop, coro, flight: Flight | None = None,
                      early: "asyncio.Future | None" = None) -> Any:
        """Awaits the model's work; a client that disconnects meanwhile sets `stop` at once (its
        connection's close wakes `_gone`: no polling), so that a job still waiting is skipped and
        a running one leaves the batch at its next step, unless the running `flight` is followed
        (follow.py): then it runs to its end for the follower.  An `early` text (typed through
        the answer of the keystroke before) answers in place of the work, which is stopped."""
        task = asyncio.ensure_future(coro)
        gone = asyncio.ensure_future(_gone(request))
        waits = {task, gone} if early is None else {task, gone, early}
        try:
            while True:
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if early not in done or task.done() or gone.done():
                    break
                waits.discard(early)
                if early.result() is not None:
                    stop.set()
                    task.cancel(ANSWERED)     # counted as answered, its place given back
                    with contextlib.suppress(Exception, asyncio.CancelledError):
                        await task
                    return early.result()
        finally:
            gone.cancel()
            if early is not None:
                early.cancel()
        if task.done():
            return task.result()
        if gone.exception() is not None:     # cannot tell (never with uvicorn): wait for the answer
            return await task
        if await Flights.wanted(flight):     # the next keystroke's request waits for this answer
            self.runner.stats["kept"] += 1
            try:
                return await task
            except (Exception, asyncio.CancelledError):  # noqa: BLE001 - the follower asks the model
                return None
        stop.set()
        self.runner.stats["cancelled"] += 1
        task.cancel()        # its place in the queue is given back now (a running job stops at its next step)
        try:
            return await task
        except (Exception, asyncio.CancelledError):  # noqa: BLE001 - nobody is listening any more
            return None

    # ---------------------------------------------------------------------------- routes

    @_guarded(work=False)
    async def models(self, request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": self.model_id, "object": "model", "created": self.created, "owned_by": "redraft"}]})

    @_guarded(work=False)
    async def stats(self, request: Request) -> Response:
        ws = dict(self.workspace.stats) if self.workspace is not None else None
        return JSONResponse({**self.runner.stats, "pending": self.runner.pending, "workspace": ws})

    async def health(self, request: Request) -> Response:
        """No key needed (load balancers, Ray, llama.cpp's clients): 503 while the model loads or
        the server drains on SIGTERM."""
        ready = self.runner.engine is not None or self.runner.source is not None
        status = "draining" if self.draining else "ok" if ready else "loading"
        return JSONResponse({"status": status, "model": self.model_id, "queue_depth": self.runner.pending,
                             "in_flight": self.metrics.in_flight}, status_code=200 if status == "ok" else 503)

    @_guarded(work=False)
    async def metrics_text(self, request: Request) -> Response:
        return Response(self.metrics.render(self.runner), media_type="text/plain; version=0.0.4; charset=utf-8")

    @_guarded()
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
        if suffix == "<|endoftext|>":      # Continue's Inception provider: "nothing after the cursor"
            suffix = ""
        prefix, suffix, _ = split_fim(prompt, suffix)
        return await self.fill(request, body, prefix, suffix)

    @_guarded()
    async def fim(self, request: Request) -> Response:
        body = await self.body(request)
        prefix, suffix = body.get("prompt"), body.get("suffix", "")
        if not isinstance(prefix, str) or not isinstance(suffix, str):
            raise ApiError(400, "prompt (the text before the cursor) and suffix must be strings", param="prompt")
        return await self.fill(request, body, prefix, suffix)

    def options(self, body: dict[str, Any], max_tokens: Any = None, stops: Any = None) -> tuple[str, int, list[str]]:
        """(effort, max_tokens, stop strings) from a body in OpenAI's names (or the values given)."""
        effort = self.effort(body)
        max_tokens = body.get("max_tokens", 32) if max_tokens is None else max_tokens
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ApiError(400, "max_tokens must be a positive integer", param="max_tokens")
        stops = (body.get("stop") or []) if stops is None else stops
        stops = [stops] if isinstance(stops, str) else stops
        if not isinstance(stops, list) or not all(isinstance(s, str) for s in stops):
            raise ApiError(400, "stop must be a string or a list of strings", param="stop")
        return effort, max_tokens, stops

    async def job(self, body: dict[str, Any], prefix: str, suffix: str, effort: str, max_tokens: int,
                  snippets: tuple[str, ...] = ()) -> tuple:
        """The engine's job for an infill: `language` from the body, or guessed off the loop;
        `snippets`, other files' text the client sent (llama.cpp's `input_extra`), whose lines the
        engine reads as the project's."""
        language = body.get("language")
        if language is not None and not isinstance(language, str):
            raise ApiError(400, "language must be a string (a languageId such as python)", param="language")
        if not language:
            head = prefix[-8000:]
            head = head[head.find("\n") + 1:] if len(prefix) > 8000 else head   # whole lines only
            sample = head + suffix[:2000]
            language = await self.runner.cpu(len(sample), _guess_language, sample)
        return Infill(prefix, suffix, effort, min(max_tokens, MAX_CANVAS), language, snippets, self.workspace,
                      self.request_gate(body))

    def request_gate(self, body: dict[str, Any]) -> float:
        """The body's `gate` ("auto", "always", or a number from 0 to 1), else the server's."""
        if "gate" not in body:
            return self.gate
        from redraft.engine.settings import gate_value
        try:
            return gate_value(body["gate"])
        except ValueError as e:
            raise ApiError(400, f"gate: {e}", param="gate") from None

    async def answer(self, request: Request, job: tuple, deadline: float) -> str:
        """The infill, not streamed ("" when the client left or the deadline cut it)."""
        out = self.through(job)
        if out is None:
            out = await self.infill(request, job, deadline)
        self.metrics.count_tokens(len(job[0]) + len(job[1]), len(out or ""))
        return out or ""

    async def infill(self, request: Request, job: Infill, deadline: float) -> str | None:
        """The model's infill, in flight at its place while it runs; when the request of the
        keystroke before is still running, its answer is typed through if it fits, the moment it
        comes (http/follow.py)."""
        stop, should_stop = self.runner.stopper(deadline)
        flight, early = self.keystrokes.start(job)
        out = None

        def work(engine: Any, *args: Any) -> str | None:
            flight.started = True
            return complete_job(engine, *args)
        try:
            run = self.runner.run(work, job, should_stop, None, deadline=deadline)
            out = await self.watched(request, stop, run, flight, early)
        finally:
            self.keystrokes.end(job, flight, out)
        return out

    def through(self, job: Infill, admitted: bool = False) -> str | None:
        """The rest of an earlier answer that the client typed the start of (engine/type_through.py
        Recent), with no model work; None when there is none."""
        out = self.keystrokes.through(job)
        if out is not None:
            self.runner.answered_without_model(admitted)
        return out

    async def fill(self, request: Request, body: dict[str, Any], prefix: str, suffix: str) -> Response:
        deadline = time.monotonic() + DEADLINE
        effort, max_tokens, stops = self.options(body)
        job = await self.job(body, prefix, suffix, effort, max_tokens)
        if body.get("stream"):
            self.runner.admit()       # admitted or refused (429) before the 200 is sent
            return StreamingResponse(self.stream(job, stops, bool(body.get("diffusing")), deadline),
                                     media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
        text = _cut(await self.answer(request, job, deadline), stops)
        return JSONResponse({**self.head("text_completion", "cmpl"), "choices": [
            {"text": text, "index": 0, "logprobs": None, "finish_reason": "stop"}], "usage": _usage(prefix + suffix, text)})

    def drafts(self, job: tuple, diffusing: bool, deadline: float) -> AsyncIterator[tuple[str, str]]:
        """An admitted job's events: ("draft", text) for each denoising step when `diffusing`, then
        ("final", text) or ("error", message).  The job's task starts now (its place in the queue is
        already taken), so that its place is given back even when the client leaves before the
        first event is sent; a client that leaves stops the denoising at its next step."""
        hit = self.through(job, admitted=True)
        if hit is not None:
            return _events(("final", hit))
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        stop, should_stop = self.runner.stopper(deadline)

        def on_step(draft: str, step: int) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, ("step", draft))

        task = asyncio.ensure_future(self.runner.run_admitted(complete_job, job, should_stop,
                                                              on_step if diffusing else None))
        task.add_done_callback(lambda _t: loop.call_soon_threadsafe(queue.put_nowait, ("done", None)))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())   # retrieved: never "never retrieved"

        async def events():
            try:
                while True:
                    kind, draft = await queue.get()
                    if kind == "done":
                        break
                    yield "draft", draft
                try:
                    text = task.result() or ""
                except Exception as e:  # noqa: BLE001 - the stream ends with an error event
                    self.runner.stats["errors"] += 1
                    yield "error", f"internal error: {type(e).__name__}"
                    return
                self.keystrokes.remember(job, text)
                self.metrics.count_tokens(len(job[0]) + len(job[1]), len(text))
                yield "final", text
            finally:
                if not task.done():       # the client went away: stop the denoising at its next step
                    stop.set()
                    self.runner.stats["cancelled"] += 1
        return events()

    def stream(self, job: tuple, stops: list[str], diffusing: bool, deadline: float):
        """OpenAI's server-sent events over `drafts`."""
        head = self.head("text_completion", "cmpl")

        def chunk(text: str, finish: str | None, **extra: Any) -> str:
            return "data: " + json.dumps({**head, **extra, "choices": [
                {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}]}) + "\n\n"

        async def events():
            async with contextlib.aclosing(self.drafts(job, diffusing, deadline)) as drafts:
                async for kind, text in drafts:
                    if kind == "draft":
                        yield chunk(text, None, diffusing=True)
                    elif kind == "error":
                        yield "data: " + json.dumps({"error": {"message": text, "type": "server_error",
                                                               "param": None, "code": None}}) + "\n\n"
                    else:
                        yield chunk(_cut(text, stops), "stop", **({"diffusing": True} if diffusing else {}))
            yield "data: [DONE]\n\n"
        return events()

    @_guarded()
    async def edit(self, request: Request) -> Response:
        deadline = time.monotonic() + DEADLINE
        body = await self.body(request)
        content = _one_user_message(body)
        effort = self.effort(body)
        prompt = await self.runner.cpu(len(content), _read, read_edit_prompt, content)
        stop, should_stop = self.runner.stopper(deadline)
        region = await self.watched(request, stop, self.runner.run(next_edit_job, prompt, effort, should_stop,
                                                                   deadline=deadline))
        return chat_message(body, {**self.head("edit.completion", "edit"), "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": region or ""}}],
            "usage": _usage(prompt.text, region or "")})

    @_guarded()
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
            result = await self.runner.isolated(size, merge_job, original, snippet, lang, not keep)
        except TooLong:
            raise ApiError(422, f"the snippet cannot be applied: the merge did not finish within "
                           f"{BIG_DEADLINE:g} s (the file is too large to merge)", code="apply_refused") from None
        if not result.ok:
            raise ApiError(422, f"the snippet cannot be applied: {result.reason}", code="apply_refused")
        # `deletions`: what the snippet omitted without a marker and the merge deleted; `warnings`: the
        # snippet's own lines that the grammar cannot read, merged as written (redraft's fields)
        return chat_message(body, {**self.head("apply.completion", "apply"), "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": result.text}}],
            "usage": _usage(original + snippet, result.text),
            "deletions": [d.as_json() for d in result.deletions], "warnings": list(result.warnings)})

async def _events(*events: tuple[str, str]) -> AsyncIterator[tuple[str, str]]:
    for e in events:
        yield e


async def _gone(request: Request) -> None:
    """Returns when the client has disconnected (the body is read by then: receive() waits until
    the connection closes)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
        if not message.get("more_body") and not message.get("body"):
            await asyncio.sleep(0.05)    # a server that answers at once with an empty message: poll
