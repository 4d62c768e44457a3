"""`redraft`: another `redraft serve --http` (a team's GPU box, or a bigger model on a workstation).

Its API is Mercury's (mercury.py: `/v1/fim/completions`, `/v1/edit/completions`,
`/v1/apply/completions`, Bearer key if it was started with one) plus redraft's own fields: `effort`
(the effort dial), `language` (the languageId, so that the server does not guess it) and, for
apply, `keep_unmarked` (the `apply.deleteUnmarked` setting). The server plans and trims the infill
with the same syntax layer, so for the same model and settings its answer is the local one.
"""
from __future__ import annotations

from typing import Any

from redraft.engine.backends import mercury
from redraft.engine.backends.config import BackendConfig
from redraft.engine.backends.wire import Infill

STREAM = "sse"
fim_answer, fim_event = mercury.fim_answer, mercury.fim_event
edit_prompt, edit_answer, apply_answer = mercury.edit_prompt, mercury.edit_answer, mercury.apply_answer


def fim_request(cfg: BackendConfig, infill: Infill, stream: bool) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any] = {"model": cfg.model, "prompt": infill.prefix, "suffix": infill.suffix,
                            "max_tokens": infill.max_tokens, "stream": stream, "effort": infill.effort}
    if infill.language:
        body["language"] = infill.language
    if infill.stops:
        body["stop"] = infill.stops
    return "/fim/completions", {**body, **cfg.body_extra()}


def edit_request(cfg: BackendConfig, prompt: str, effort: str) -> tuple[str, dict[str, Any]]:
    endpoint, body = mercury.edit_request(cfg, prompt, effort)
    return endpoint, {**body, "effort": effort, **cfg.body_extra()}


def apply_request(cfg: BackendConfig, original: str, snippet: str, language: str | None,
                  delete_unmarked: bool) -> tuple[str, dict[str, Any]]:
    endpoint, body = mercury.apply_request(cfg, original, snippet, language, delete_unmarked)
    body["keep_unmarked"] = not delete_unmarked
    if language:
        body["language"] = language
    return endpoint, {**body, **cfg.body_extra()}
