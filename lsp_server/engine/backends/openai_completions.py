"""`openai-completions`: any OpenAI legacy `/v1/completions` server (vLLM, SGLang, LMDeploy, TGI,
llama.cpp's and Ollama's OpenAI routes).

Request: `POST {url}/completions` with `model`, `prompt`, `max_tokens`, `temperature` 0, `stop`,
`stream` (and `requestBody`'s fields). The prompt is the FIM prompt redraft renders with the
template (templates.py): no GPU engine builds one for a diffusion model (SGLang drops `suffix`
without an autoregressive coder's `--completion-template`, vLLM answers 400 to it). With
`sendSuffix: true` the prompt is the prefix and `suffix` the suffix, for servers that build the
FIM prompt themselves. Answer: `choices[0].text`; streamed: server-sent events of the same chunks,
ending with `data: [DONE]` (OpenAI's API reference; Tabby's `openai/completion` kind reads the same).
"""
from __future__ import annotations

from typing import Any

from redraft.engine.backends.config import BackendConfig
from redraft.engine.backends.templates import render
from redraft.engine.backends.wire import Infill, choice_text, stream_delta

STREAM = "sse"
ENDPOINT = "/completions"


def fim_request(cfg: BackendConfig, infill: Infill, stream: bool) -> tuple[str, dict[str, Any]]:
    if cfg.send_suffix:
        body: dict[str, Any] = {"model": cfg.model, "prompt": infill.prefix, "suffix": infill.suffix}
    else:
        body = {"model": cfg.model, "prompt": render(cfg.template or "", infill.prefix, infill.suffix,
                                                     infill.filename, infill.language or "")}
    body.update({"max_tokens": infill.max_tokens, "temperature": 0, "stream": stream})
    if infill.stops:
        body["stop"] = infill.stops
    return ENDPOINT, {**body, **cfg.body_extra()}


def fim_answer(body: Any) -> str:
    return choice_text(body)


def fim_event(event: Any) -> tuple[str, bool]:
    return stream_delta(event)
