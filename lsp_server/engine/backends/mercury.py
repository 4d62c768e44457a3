"""`mercury`: Inception's API (https://api.inceptionlabs.ai/v1, `Authorization: Bearer` with the key
from `INCEPTION_API_KEY` unless `apiKeyEnv` names another variable; model `mercury-edit`).

* FIM `POST {url}/fim/completions`: `model`, `prompt` (before the cursor), `suffix`, `max_tokens`,
  `stop` (at most 4), `stream`; the answer `choices[0].text` (streamed: server-sent events of the
  same chunks ending with `data: [DONE]`). Temperature and the penalties keep Mercury's defaults.
* Next edit `POST {url}/edit/completions`: exactly one user message, the tagged prompt
  (`edit_prompt`): recently viewed snippets, the current file with `current_file_path:`, the
  editable region `<|code_to_edit|>` holding `<|cursor|>`, the edit history as unified diffs oldest
  first; the answer is the rewritten region in `choices[0].message.content` (in a ``` fence). No
  streaming on this endpoint.
* Apply `POST {url}/apply/completions`: one user message `<|original_code|>` + `<|update_snippet|>`;
  the merged file in `choices[0].message.content`.
Field names and tags: the Inception docs (models, next-edit pages) and Continue's Inception provider,
see ../shared/notes/remote-and-serving.md section 3.
"""
from __future__ import annotations

from typing import Any

from redraft.engine.backends.config import BackendConfig
from redraft.engine.backends.wire import Infill, choice_content, choice_text, stream_delta, unfence

STREAM = "sse"
MAX_STOPS = 4
REGION_ABOVE, REGION_BELOW = 2, 8     # the editable region: lines around the cursor (the docs advise 10-15)


def fim_request(cfg: BackendConfig, infill: Infill, stream: bool) -> tuple[str, dict[str, Any]]:
    body: dict[str, Any] = {"model": cfg.model, "prompt": infill.prefix, "suffix": infill.suffix,
                            "max_tokens": infill.max_tokens, "stream": stream}
    if infill.stops:
        body["stop"] = infill.stops[:MAX_STOPS]
    return "/fim/completions", {**body, **cfg.body_extra()}


def fim_answer(body: Any) -> str:
    return choice_text(body)


def fim_event(event: Any) -> tuple[str, bool]:
    return stream_delta(event)


def history_diff(history: list[tuple[str, str]], path: str) -> str:
    """(before, after) hunks as unified diffs, oldest first (what `parse_history` reads back)."""
    out = []
    for before, after in history:
        b, a = before.split("\n"), after.split("\n")
        out += [f"--- a/{path}", f"+++ b/{path}", f"@@ -1,{len(b)} +1,{len(a)} @@"]
        out += ["-" + line for line in b] + ["+" + line for line in a]
    return "\n".join(out)


def region_of(lines: list[str], line: int) -> tuple[int, int]:
    """The editable region's lines [start, end) around the cursor's line: blank lines at its ends
    left out (the prompt's reader strips them), the cursor's line always in."""
    a, b = max(0, line - REGION_ABOVE), min(len(lines), line + REGION_BELOW + 1)
    while a < line and not lines[a].strip():
        a += 1
    while b - 1 > line and not lines[b - 1].strip():
        b -= 1
    return a, b


def edit_prompt(text: str, line: int, col: int, history: list[tuple[str, str]], path: str,
                snippets: list[dict[str, str]] | None = None) -> tuple[str, int, int]:
    """Mercury's next-edit prompt for the cursor at (line, col) -> (prompt, region start, region end)."""
    lines = text.split("\n")
    a, b = region_of(lines, line)
    region = lines[a:b]
    i = line - a
    region[i] = region[i][:col] + "<|cursor|>" + region[i][col:]
    parts = []
    if snippets:
        parts.append("<|recently_viewed_code_snippets|>")
        for s in snippets:
            parts += ["<|recently_viewed_code_snippet|>", f"code_snippet_file_path: {s.get('filename', '')}",
                      s.get("text", ""), "<|/recently_viewed_code_snippet|>"]
        parts += ["<|/recently_viewed_code_snippets|>", ""]
    parts += ["<|current_file_content|>", f"current_file_path: {path}"]
    parts += lines[:a] + ["<|code_to_edit|>"] + region + ["<|/code_to_edit|>"] + lines[b:]
    parts += ["<|/current_file_content|>", ""]
    parts += ["<|edit_diff_history|>", history_diff(history, path), "<|/edit_diff_history|>"]
    return "\n".join(parts), a, b


def edit_request(cfg: BackendConfig, prompt: str, effort: str) -> tuple[str, dict[str, Any]]:
    body = {"model": cfg.model, "messages": [{"role": "user", "content": prompt}]}
    return "/edit/completions", {**body, **cfg.body_extra()}


def edit_answer(body: Any) -> str:
    return unfence(choice_content(body))


def apply_prompt(original: str, snippet: str) -> str:
    return (f"<|original_code|>\n{original.rstrip(chr(10))}\n<|/original_code|>\n"
            f"<|update_snippet|>\n{snippet.rstrip(chr(10))}\n<|/update_snippet|>")


def apply_request(cfg: BackendConfig, original: str, snippet: str, language: str | None,
                  delete_unmarked: bool) -> tuple[str, dict[str, Any]]:
    body = {"model": cfg.model, "messages": [{"role": "user", "content": apply_prompt(original, snippet)}]}
    return "/apply/completions", {**body, **cfg.body_extra()}


def apply_answer(body: Any) -> str:
    return unfence(choice_content(body))
