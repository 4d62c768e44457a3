"""What every kind shares: the infill a request becomes (`Infill`), and reading OpenAI-shaped
answers (`choices[0].text`, `choices[0].message.content`) strictly: anything else is malformed."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Infill", "Malformed", "StreamError", "choice_text", "choice_content", "stream_delta", "stream_error", "unfence"]


class Malformed(ValueError):
    """An answer that is JSON but not in the backend's documented shape."""


@dataclass
class Infill:
    prefix: str                     # the text before the cursor that is sent (a window, cut at a line start)
    suffix: str                     # the text after the cursor that is sent (cut at a line end)
    max_tokens: int                 # the plan's canvas: the answer's length cap
    stops: list[str]                # the plan's stops, the template's, the user's (deduplicated, in that order)
    language: str | None = None     # the document's languageId
    filename: str = ""              # the document's file name (no directory)
    effort: str = "low"             # redraft's effort dial (sent to a redraft server only)
    extra: list[dict[str, str]] = field(default_factory=list)   # workspace snippets {filename, text}


def _first_choice(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise Malformed("the answer is not a JSON object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise Malformed("the answer has no choices[0]")
    return choices[0]


def choice_text(body: Any) -> str:
    """`choices[0].text` of a completions answer."""
    text = _first_choice(body).get("text")
    if not isinstance(text, str):
        raise Malformed("the answer has no choices[0].text string")
    return text


def choice_content(body: Any) -> str:
    """`choices[0].message.content` of a chat-shaped answer (Mercury's edit and apply)."""
    msg = _first_choice(body).get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, str):
        raise Malformed("the answer has no choices[0].message.content string")
    return content


def stream_delta(event: Any) -> tuple[str, bool]:
    """An OpenAI-shaped stream chunk -> (its text, whether it finished the answer). A chunk without
    choices (the usage chunk) adds nothing."""
    stream_error(event)
    if not isinstance(event, dict):
        raise Malformed("a streamed chunk is not a JSON object")
    choices = event.get("choices")
    if choices == [] or (choices is None and "usage" in event):
        return "", False
    first = _first_choice(event)
    text = first.get("text")
    if text is None and isinstance(first.get("delta"), dict):
        text = first["delta"].get("content")
    if not isinstance(text, str):
        raise Malformed("a streamed chunk has no choices[0].text string")
    return text, bool(first.get("finish_reason"))


def stream_error(event: Any) -> None:
    """An error sent inside a stream (`{"error": ...}`) raises Malformed with its message."""
    if isinstance(event, dict) and event.get("error"):
        err = event["error"]
        msg = err.get("message") if isinstance(err, dict) else err
        raise StreamError(str(msg or "error")[:160])


class StreamError(Malformed):
    """The backend reported an error in the middle of its stream."""


def unfence(text: str) -> str:
    """The code inside a ``` fence when the whole answer is one (Mercury's edit answer), else the text."""
    s = text.strip("\n")
    if s.startswith("```") and s.rstrip().endswith("```") and "\n" in s:
        body = s.split("\n", 1)[1]
        return body[: body.rstrip().rfind("```")].rstrip("\n") if body.rstrip().endswith("```") else body
    return text
