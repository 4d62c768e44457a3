"""`ollama`: Ollama's `POST /api/generate` (the url without `/api`; default http://127.0.0.1:11434).

Request: `model`, `prompt` (the text before the cursor), `suffix` (the text after it: Ollama fills
the middle with the model's own FIM template), `stream`, `options` {`num_predict`, `temperature` 0,
`stop`}. With a `template` redraft renders the FIM prompt itself and sends it with `raw: true` (for
a model whose Ollama template has no suffix). Answer: `response`; streamed (Ollama's default): JSON
lines `{"response": ..., "done": false}` ending with `"done": true`; errors `{"error": "..."}`.
Fields: Ollama's API docs (`/api/generate`).
"""
from __future__ import annotations

from typing import Any

from redraft.engine.backends.config import BackendConfig
from redraft.engine.backends.templates import render
from redraft.engine.backends.wire import Infill, Malformed, stream_error

STREAM = "ndjson"


def fim_request(cfg: BackendConfig, infill: Infill, stream: bool) -> tuple[str, dict[str, Any]]:
    options: dict[str, Any] = {"num_predict": infill.max_tokens, "temperature": 0}
    if infill.stops:
        options["stop"] = infill.stops
    if cfg.template:
        body: dict[str, Any] = {"model": cfg.model, "prompt": render(cfg.template, infill.prefix, infill.suffix,
                                                                     infill.filename, infill.language or ""),
                                "raw": True}
    else:
        body = {"model": cfg.model, "prompt": infill.prefix, "suffix": infill.suffix}
    body.update({"stream": stream, "options": options})
    extra = cfg.body_extra()
    if isinstance(extra.get("options"), dict):     # requestBody's options add to ours
        extra = {**extra, "options": {**options, **extra["options"]}}
    return "/api/generate", {**body, **extra}


def fim_answer(body: Any) -> str:
    stream_error(body)
    if not isinstance(body, dict) or not isinstance(body.get("response"), str):
        raise Malformed("the answer has no `response` string")
    return body["response"]


def fim_event(event: Any) -> tuple[str, bool]:
    stream_error(event)
    if isinstance(event, dict) and event.get("done") and "response" not in event:
        return "", True
    return fim_answer(event), bool(event.get("done"))
