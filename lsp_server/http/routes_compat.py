"""llama.cpp's and Ollama's wire formats on the HTTP API's port (app.py has OpenAI's and Mercury's),
so that clients written for those servers point at redraft with a URL (and a key where they send
one).  The same engine and queue answer; only the shapes differ.

llama.cpp (`llama-server`):
  POST /infill        `input_prefix`, `input_suffix`, `prompt` (the text of the cursor's line before
                      the cursor: it goes after the prefix), `input_extra` ([{filename, text}]: their
                      lines are the engine's project lines, Request.snippets), `n_predict` (0: no work, the
                      answer is empty, as llama.vim's cache warm-ups expect; -1: the canvas cap),
                      `stop`, `stream`, `response_fields` (["timings/predicted_ms", ...]: only those,
                      flattened by path, as llama.cpp does).  Answer: `content`, `stop`, `timings`, ...
  POST /completion    `prompt` already in a fill-in-the-middle format (Tabby's `llama.cpp/completion`
  POST /completions   renders its `prompt_template`; llm-ls's llamacpp backend its `fim` tokens)
  Streaming (`"stream": true`): server-sent events `data: {"content": ..., "stop": false}` then a
  last `data: {..., "content": "", "stop": true}` and no `[DONE]` (llama.cpp sends none here).
  Sampling fields (`temperature`, `top_k`, `top_p`, `samplers`, `seed`, `cache_prompt`, `n_indent`,
  `t_max_*`) are accepted and ignored: the denoiser is deterministic and a canvas is not cut by time.

Ollama:
  POST /api/generate  `model` (`redraft` or `redraft:latest`), `prompt`, `suffix`, `options.num_predict`,
                      `options.stop`, `stream` (default true: one JSON object a line, the last with
                      `"done": true`); a prompt in a fill-in-the-middle format without `suffix` (Tabby's
                      template, `raw` clients) is split at its markers.  An empty prompt only "loads"
                      (Ollama's answer, no work).  Errors are Ollama's `{"error": "..."}`.
  GET  /api/tags, GET /api/version, POST /api/show   what clients probe before they complete: the one
                      model, `redraft:latest`, with a template that has `.Suffix` (Continue reads it
                      to decide that the model fills in the middle).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from redraft.http.common import MAX_CANVAS, ApiError, _cut, guarded
from redraft.http.formats import split_fim
from redraft.http.runner import DEADLINE

MAX_EXTRA = 256                 # input_extra chunks a request may carry
OLLAMA_VERSION = "0.12.0"       # the Ollama API level these routes follow (clients compare versions)
OLLAMA_TEMPLATE = ("{{- if .Suffix }}<|fim_prefix|>{{ .Prompt }}<|fim_suffix|>{{ .Suffix }}<|fim_middle|>"
                   "{{- else }}{{ .Prompt }}{{- end }}")


def _string(body: dict[str, Any], name: str, default: str = "") -> str:
    v = body.get(name, default)
    if v is None:
        return default
    if not isinstance(v, str):
        raise ApiError(400, f"{name} must be a string", param=name)
    return v


def _int(value: Any, name: str, default: int) -> int:
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(400, f"{name} must be an integer", param=name)
    return value


def read_extra(value: Any) -> list[tuple[str, str]]:
    """llama.cpp's `input_extra`: [{filename?, text}, ...] -> [(filename, text)] or a 400."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ApiError(400, "input_extra must be a list of {\"filename\", \"text\"} objects", param="input_extra")
    if len(value) > MAX_EXTRA:
        raise ApiError(400, f"input_extra holds {len(value)} chunks; at most {MAX_EXTRA}", param="input_extra")
    out = []
    for i, chunk in enumerate(value):
        if not isinstance(chunk, dict) or not isinstance(chunk.get("text"), str):
            raise ApiError(400, f"input_extra[{i}] must be an object with a string \"text\"", param="input_extra")
        name = chunk.get("filename", "")
        if name is not None and not isinstance(name, str):
            raise ApiError(400, f"input_extra[{i}].filename must be a string", param="input_extra")
        out.append((name or "", chunk["text"]))
    return out


def project(response: dict[str, Any], fields: Any) -> dict[str, Any]:
    """llama.cpp's `response_fields`: only the named fields, each path ("timings/prompt_n") a key."""
    if not isinstance(fields, list) or not fields:
        return response
    if not all(isinstance(f, str) for f in fields):
        raise ApiError(400, "response_fields must be a list of strings", param="response_fields")
    out: dict[str, Any] = {}
    for path in fields:
        node: Any = response
        for part in path.split("/"):
            node = node.get(part, _MISSING) if isinstance(node, dict) else _MISSING
        if node is not _MISSING:
            out[path] = node
    return out


_MISSING = object()


def _iso_now() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1e6):06d}Z"


class Compat:
    def __init__(self, api: Any) -> None:
        self.api = api            # app.py's _Api: body, options, job, answer, drafts, runner

    def routes(self) -> list[Route]:
        return [Route("/infill", self.infill, methods=["POST"]),
                Route("/completion", self.completion, methods=["POST"]),
                Route("/completions", self.completion, methods=["POST"]),
                Route("/api/generate", self.generate, methods=["POST"]),
                Route("/api/tags", self.tags, methods=["GET"]),
                Route("/api/version", self.version, methods=["GET"]),
                Route("/api/show", self.show, methods=["POST"])]

    # ---------------------------------------------------------------------------- llama.cpp

    @guarded()
    async def infill(self, request: Request) -> Response:
        body = await self.api.body(request, check_model=False)
        prefix, suffix = _string(body, "input_prefix"), _string(body, "input_suffix")
        middle = _string(body, "prompt")
        extra = read_extra(body.get("input_extra"))     # other files' chunks: their lines are candidates
        return await self.llama(request, body, prefix + middle, suffix, tuple(text for _, text in extra))

    @guarded()
    async def completion(self, request: Request) -> Response:
        body = await self.api.body(request, check_model=False)
        prompt = body.get("prompt", "")
        if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise ApiError(400, "prompt must be a string (token ids are not accepted)", param="prompt")
        prefix, suffix, _ = split_fim(prompt, None)
        return await self.llama(request, body, prefix, suffix)

    async def llama(self, request: Request, body: dict[str, Any], prefix: str, suffix: str,
                    snippets: tuple[str, ...] = ()) -> Response:
        t0 = time.monotonic()
        n_predict = _int(body.get("n_predict"), "n_predict", -1)
        stream = body.get("stream", False)
        if not isinstance(stream, bool):
            raise ApiError(400, "stream must be true or false", param="stream")
        cap = MAX_CANVAS if n_predict < 0 else max(1, n_predict)
        effort, max_tokens, stops = self.api.options(body, max_tokens=cap)
        p_tokens = (len(prefix) + len(suffix) + 3) // 4

        def final(text: str, content: str, stop_word: str = "") -> dict[str, Any]:
            ms = (time.monotonic() - t0) * 1000
            c = (len(text) + 3) // 4
            return {"index": 0, "content": content, "tokens": [], "id_slot": 0, "stop": True,
                    "model": self.api.model_id, "tokens_predicted": c, "tokens_evaluated": p_tokens,
                    "generation_settings": {"n_predict": n_predict, "stop": stops, "stream": stream},
                    "has_new_line": "\n" in text, "truncated": False,
                    "stop_type": "word" if stop_word else "eos" if n_predict else "limit",
                    "stopping_word": stop_word, "tokens_cached": 0,
                    "timings": {"prompt_n": p_tokens, "prompt_ms": 0.0, "prompt_per_token_ms": 0.0,
                                "prompt_per_second": 0.0, "predicted_n": c, "predicted_ms": round(ms, 3),
                                "predicted_per_token_ms": round(ms / c, 3) if c else 0.0,
                                "predicted_per_second": round(c / ms * 1000, 3) if c and ms else 0.0}}

        if n_predict == 0:                       # nothing to predict (a client warming a cache)
            return JSONResponse(project(final("", ""), body.get("response_fields")))
        deadline = t0 + DEADLINE
        job = await self.api.job(body, prefix, suffix, effort, max_tokens, snippets)
        if stream:
            self.api.runner.admit()              # admitted or refused (429) before the 200
            return StreamingResponse(self.llama_stream(job, stops, deadline, final),
                                     media_type="text/event-stream", headers={"Cache-Control": "no-cache"})
        raw = await self.api.answer(request, job, deadline)
        text = _cut(raw, stops)
        word = next((s for s in stops if s and len(text) < len(raw) and raw[len(text):].startswith(s)), "")
        return JSONResponse(project(final(text, text, word), body.get("response_fields")))

    def llama_stream(self, job: tuple, stops: list[str], deadline: float, final):

        async def events():
            async with contextlib.aclosing(self.api.drafts(job, False, deadline)) as drafts:
                async for kind, text in drafts:
                    if kind == "error":
                        yield "data: " + json.dumps({"error": {"code": 500, "message": text,
                                                               "type": "server_error"}}) + "\n\n"
                    elif kind == "final":
                        cut = _cut(text, stops)
                        if cut:
                            chunk = {"index": 0, "content": cut, "tokens": [], "stop": False, "id_slot": 0,
                                     "tokens_predicted": (len(cut) + 3) // 4,
                                     "tokens_evaluated": final("", "")["tokens_evaluated"]}
                            yield "data: " + json.dumps(chunk) + "\n\n"
                        yield "data: " + json.dumps(final(cut, "")) + "\n\n"
        return events()

    # ---------------------------------------------------------------------------- Ollama

    def _model(self, body: dict[str, Any], *names: str) -> str:
        model = next((body[n] for n in names if body.get(n) is not None), None)
        if not isinstance(model, str) or not model:
            raise ApiError(400, "model is required", param="model")
        if model not in (self.api.model_id, self.api.model_id + ":latest"):
            raise ApiError(404, f"model '{model}' not found; this server has '{self.api.model_id}:latest'",
                           param="model", code="model_not_found")
        return model

    @guarded("ollama")
    async def generate(self, request: Request) -> Response:
        t0 = time.monotonic()
        body = await self.api.body(request, check_model=False)
        model = self._model(body, "model")
        prompt, suffix = _string(body, "prompt"), _string(body, "suffix")
        options = body.get("options")
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ApiError(400, "options must be an object", param="options")
        stream = body.get("stream", True)
        if not isinstance(stream, bool):
            raise ApiError(400, "stream must be true or false", param="stream")
        n = _int(options.get("num_predict"), "options.num_predict", 32)
        effort, max_tokens, stops = self.api.options(body, max_tokens=MAX_CANVAS if n < 0 else max(1, n),
                                                     stops=options.get("stop") or [])
        head = {"model": model, "created_at": _iso_now()}

        def done(text: str, reason: str = "stop") -> dict[str, Any]:
            ns = int((time.monotonic() - t0) * 1e9)
            return {**head, "response": "", "done": True, "done_reason": reason, "context": [],
                    "total_duration": ns, "load_duration": 0, "prompt_eval_count": (len(prompt) + len(suffix) + 3) // 4,
                    "prompt_eval_duration": 0, "eval_count": (len(text) + 3) // 4, "eval_duration": ns}

        if not prompt and not suffix:             # Ollama's "load the model" request: no work
            return JSONResponse(done("", "load"))
        prefix, suffix_, _ = split_fim(prompt, suffix or None)
        deadline = t0 + DEADLINE
        job = await self.api.job(body, prefix, suffix_, effort, max_tokens)
        if not stream:
            text = _cut(await self.api.answer(request, job, deadline), stops)
            return JSONResponse({**done(text), "response": text})
        self.api.runner.admit()

        async def lines():
            async with contextlib.aclosing(self.api.drafts(job, False, deadline)) as drafts:
                async for kind, text in drafts:
                    if kind == "error":
                        yield json.dumps({"error": text}) + "\n"
                    elif kind == "final":
                        cut = _cut(text, stops)
                        if cut:
                            yield json.dumps({**head, "response": cut, "done": False}) + "\n"
                        yield json.dumps(done(cut)) + "\n"
        return StreamingResponse(lines(), media_type="application/x-ndjson")

    def _entry(self) -> dict[str, Any]:
        name = self.api.model_id + ":latest"
        return {"name": name, "model": name, "modified_at": time.strftime(
                    "%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.api.created)), "size": 0,
                "digest": hashlib.sha256(name.encode()).hexdigest(),
                "details": {"parent_model": "", "format": "safetensors", "family": "redraft",
                            "families": ["redraft"], "parameter_size": "", "quantization_level": ""}}

    @guarded("ollama", work=False)
    async def tags(self, request: Request) -> Response:
        return JSONResponse({"models": [self._entry()]})

    @guarded("ollama", work=False)
    async def version(self, request: Request) -> Response:
        return JSONResponse({"version": OLLAMA_VERSION})

    @guarded("ollama", work=False)
    async def show(self, request: Request) -> Response:
        body = await self.api.body(request, check_model=False)
        self._model(body, "model", "name")
        e = self._entry()
        return JSONResponse({"license": "", "modelfile": "", "parameters": "", "template": OLLAMA_TEMPLATE,
                             "details": e["details"], "model_info": {"general.architecture": "redraft"},
                             "capabilities": ["completion", "insert"], "modified_at": e["modified_at"]})
