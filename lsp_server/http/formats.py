"""What HTTP clients send, read into the engine's terms (no I/O here; app.py calls these).

* Fill-in-the-middle prompts that already carry their own format (Zed's OpenAI-compatible edit
  prediction provider and other tools put prefix and suffix into one `prompt`): `split_fim`
  recognises the common formats and returns (prefix, suffix).
* Mercury's next-edit prompt (`<|current_file_content|>`, `<|code_to_edit|>` with `<|cursor|>`,
  `<|edit_diff_history|>`): `read_edit_prompt`.
* Mercury's apply prompt (`<|original_code|>`, `<|update_snippet|>`): `read_apply_prompt`.
Each raises ValueError with a one-line reason on input it cannot read.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from redraft.engine.next_edit.history import parse_history

# (name, marker before the prefix, marker before the suffix, marker where the middle goes, order)
# order "psm": prefix first; "spm": suffix first.
FIM_FORMATS = [
    ("qwen", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "psm"),
    ("starcoder", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "psm"),
    ("deepseek", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "psm"),
    ("codellama", "<PRE>", "<SUF>", "<MID>", "psm"),
    ("codestral", "[PREFIX]", "[SUFFIX]", "", "spm"),
]
_REPO_FILE = re.compile(r"^(?:<\|repo_name\|>[^\n]*\n)?(?:<\|file_sep\|>[^\n]*\n)*")


def split_fim(prompt: str, suffix: str | None = None) -> tuple[str, str, str | None]:
    """(prefix, suffix, the format's name or None): a prompt in one of FIM_FORMATS is split at its
    markers; any other prompt is the prefix and `suffix` (OpenAI's field) the suffix."""
    for name, pre, suf, mid, order in FIM_FORMATS:
        if order == "psm" and pre in prompt and suf in prompt:
            head, _, rest = prompt.partition(pre)
            p, _, s = rest.partition(suf)
            if mid:
                s = s.split(mid, 1)[0] if mid in s else s
            return p, s, name
        if order == "spm" and pre in prompt and suf in prompt:
            s_at, p_at = prompt.index(suf), prompt.index(pre)
            if s_at < p_at:                              # [SUFFIX]suffix[PREFIX]prefix
                return prompt[p_at + len(pre):], prompt[s_at + len(suf):p_at], name
            return prompt[p_at + len(pre):s_at], prompt[s_at + len(suf):], name
    return prompt, suffix or "", None


def _between(text: str, tag: str) -> str | None:
    open_, close = f"<|{tag}|>", f"<|/{tag}|>"
    if open_ not in text:
        return None
    body = text.split(open_, 1)[1]
    if close not in body:
        raise ValueError(f"<|{tag}|> is not closed with <|/{tag}|>")
    return body.split(close, 1)[0].strip("\n")


def _numbered(text: str) -> str:
    """Lines written as `12#|code` (Mercury's optional line numbers) without the numbers."""
    lines = text.split("\n")
    if lines and all(re.match(r"^\d+#\|", l) for l in lines if l):
        return "\n".join(re.sub(r"^\d+#\|", "", l) for l in lines)
    return text


@dataclass
class EditPrompt:
    text: str                          # the current file, tags and cursor marker removed
    offset: int                        # the cursor, a code-point offset into text
    region: tuple[int, int]            # the editable region's lines [start, end) in text
    history: list[tuple[str, str]]     # recent edits, oldest first (model/edits.py's pairs)
    path: str


def read_edit_prompt(content: str) -> EditPrompt:
    """Mercury's next-edit prompt -> the file, the cursor, the region to rewrite, the history."""
    current = _between(content, "current_file_content")
    if current is None:
        raise ValueError("the message has no <|current_file_content|> ... <|/current_file_content|>")
    path = ""
    if current.startswith("current_file_path:"):
        first, _, current = current.partition("\n")
        path = first.split(":", 1)[1].strip()
    if "<|code_to_edit|>" not in current or "<|/code_to_edit|>" not in current:
        raise ValueError("<|current_file_content|> holds no <|code_to_edit|> ... <|/code_to_edit|> region")
    before, _, rest = current.partition("<|code_to_edit|>")
    region, _, after = rest.partition("<|/code_to_edit|>")
    region = region.strip("\n")
    if region.count("<|cursor|>") != 1:
        raise ValueError("<|code_to_edit|> must hold exactly one <|cursor|>")
    before, after = _numbered(before.rstrip("\n")), _numbered(after.lstrip("\n"))
    region = _numbered(region.replace("<|cursor|>", "\x00")).replace("\x00", "<|cursor|>")
    head = before + "\n" if before else ""
    at = len(head) + region.index("<|cursor|>")
    region = region.replace("<|cursor|>", "")
    text = head + region + ("\n" + after if after else "")
    start = head.count("\n")
    history = []
    diffs = _between(content, "edit_diff_history")
    if diffs:
        history = parse_history(diffs + "\n")
    return EditPrompt(text, at, (start, start + region.count("\n") + 1), history, path)


def read_apply_prompt(content: str) -> tuple[str, str]:
    """Mercury's apply prompt -> (the original code, the update snippet)."""
    original, snippet = _between(content, "original_code"), _between(content, "update_snippet")
    if original is None or snippet is None:
        raise ValueError("the message needs <|original_code|> ... <|/original_code|> and "
                         "<|update_snippet|> ... <|/update_snippet|>")
    return original + "\n", snippet + "\n"
