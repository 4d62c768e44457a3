"""`llama.cpp`: llama-server's `/infill` (the url without `/v1`; default http://127.0.0.1:8080).

Request: `input_prefix`, `input_suffix`, `input_extra` (a list of `{filename, text}` chunks put
before the prefix: the workspace's snippets, when the context work gives some), `prompt` "" (text
after the FIM middle token), `n_predict`, `stop`, `stream`, `cache_prompt` true (llama.vim's
request; the server reuses the cached prompt while the user types), `temperature` 0. The server
applies the model's own FIM tokens. Answer: `content`; streamed: server-sent events
`data: {"content": ..., "stop": false}` ending with one that has `"stop": true`. A key, if any, goes
as `Authorization: Bearer` (llama-server `--api-key`). Fields: llama.cpp PR #9894 and its server
README (`/infill`), ggml-org/llama.vim `autoload/llama.vim`.
"""
from __future__ import annotations

from typing import Any

from redraft.engine.backends.config import BackendConfig
from redraft.engine.backends.wire import Infill, Malformed, stream_error

STREAM = "sse"


def fim_request(cfg: BackendConfig, infill: Infill, stream: bool) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any] = {"input_prefix": infill.prefix, "input_suffix": infill.suffix,
                            "input_extra": [{"filename": c.get("filename", ""), "text": c.get("text", "")}
                                            for c in infill.extra],
                            "prompt": "", "n_predict": infill.max_tokens, "temperature": 0,
                            "cache_prompt": True, "stream": stream}
    if infill.stops:
        body["stop"] = infill.stops
    if cfg.model:
        body["model"] = cfg.model
    return "/infill", {**body, **cfg.body_extra()}


def fim_answer(body: Any) -> str:
    stream_error(body)
    if not isinstance(body, dict) or not isinstance(body.get("content"), str):
        raise Malformed("the answer has no `content` string")
    return body["content"]


def fim_event(event: Any) -> tuple[str, bool]:
    return fim_answer(event), bool(event.get("stop"))
