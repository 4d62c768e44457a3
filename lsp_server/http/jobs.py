"""The engine's work behind the HTTP routes, run on the runner's threads (or, for an apply, in a
child process): an infill between a prefix and a suffix, the next edit inside Mercury's editable
region, a snippet merged into a file."""
from __future__ import annotations

from typing import Any, NamedTuple

from redraft.http.common import ApiError

__all__ = ["Infill", "complete_job", "next_edit_job", "merge_job"]


class Infill(NamedTuple):
    """An infill's job, as the routes read it from a request's body."""
    prefix: str
    suffix: str
    effort: str
    max_tokens: int
    language: str | None
    snippets: tuple[str, ...] = ()   # other files' text the client sent (llama.cpp's input_extra)
    workspace: Any = None            # the server's WorkspaceIndex (--workspace), or None
    gate: float = 0.0                # the gate's threshold for this request (0: always answered)

    def settings(self) -> tuple:
        """What changes the answer besides the text (an answer is typed through only under the same)."""
        return self.effort, self.max_tokens, self.language, self.snippets, id(self.workspace), self.gate


def merge_job(original: str, snippet: str, language: str | None, delete_unmarked: bool):
    """engine.apply.merge with its keyword, as a module-level function (the child process pickles it)."""
    from redraft.engine.apply import merge
    return merge(original, snippet, language, delete_unmarked=delete_unmarked)


def complete_job(engine, job: tuple, should_stop, on_step) -> str | None:
    """The engine's completion between prefix and suffix (`job`: an Infill), as the text to insert there."""
    from redraft.engine.pipeline import Cancelled
    from redraft.engine.pipeline import Request as EngineRequest
    prefix, suffix, effort, max_tokens, language, snippets, workspace, gate = job
    if should_stop is not None and should_stop():   # its client left while it waited for its turn: no work at all
        return None
    text = prefix + suffix
    req = EngineRequest(text=text, offset=len(prefix), uri="redraft-http://completions", effort=effort,
                        max_tokens=max_tokens, language_id=language, snippets=snippets, workspace=workspace,
                        min_confidence=gate)
    try:
        res = engine.complete(req, should_stop=should_stop, on_step=on_step)
    except Cancelled:
        return None
    if res is None or res.withheld:     # withheld by the gate: no suggestion
        return ""
    out = res.text
    head, tail = text[res.start:req.offset], text[req.offset:res.end]
    if head and out.startswith(head):
        out = out[len(head):]
    if tail and out.endswith(tail):
        out = out[:len(out) - len(tail)]
    return out


def next_edit_job(engine, prompt, effort: str, should_stop) -> str:
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


