"""Every conversion between LSP shapes and the pipeline's shapes lives here.

Positions. LSP addresses text as (line, character) where `character` counts code units of the
negotiated position encoding (UTF-16 unless client and server agreed on "utf-8" or "utf-32");
the pipeline addresses it as one code-point offset into the document string. Design decisions:

* Line terminators are exactly "\\n", "\\r\\n" and "\\r" (the LSP spec). Python's `str.splitlines`
  also splits on \\f, \\v, \\x1c-\\x1e, \\x85, \\u2028 and \\u2029, which an editor does not, so it is
  never used for positions: a form feed in a Python file must not shift every later line.
* `character` beyond the end of its line clamps to the line end (the spec: "defaults back to the
  line length"); a `character` that falls inside a character (between the two UTF-16 units of an
  astral-plane character such as an emoji, or inside a UTF-8 sequence) rounds down to its start.
* `line` beyond the last line clamps to the end of the document. Requests that must not act on
  such a position (completion) check `LineIndex.has_line` first and answer an empty result.
* No whole-document line table is built: finding line N counts terminators chunk by chunk with
  `str.count` (C speed, no per-line Python work), so a 10 MB document costs a few milliseconds
  and no extra memory. Offsets and positions are computed on the text snapshot they belong to.
"""
from __future__ import annotations

import difflib
import re
import uuid
from dataclasses import dataclass
from typing import Any

import attrs
from lsprotocol import types

from redraft.engine.text import without_lone_surrogates

__all__ = [
    "ENCODINGS", "LineIndex", "position_to_offset", "offset_to_position", "position_from_json",
    "apply_change", "change_span", "normalize_encoding", "feedback_payload", "to_inline_item", "to_completion_item",
    "InlineCompletionItemWithData", "without_lone_surrogates", "split_lines", "line_hunks", "LineHunk",
    "to_workspace_edit", "plain_json", "next_edit_params", "to_next_edit", "next_edit_region",
]

ENCODINGS = ("utf-16", "utf-8", "utf-32")
_EOL = re.compile(r"\r\n|\r|\n")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")  # one line with its terminator
_CHUNK = 1 << 16
_WORD_BEFORE = re.compile(r"\w+\Z")  # identifier characters right before the cursor
_UINTEGER_MAX = 2**31 - 1


def normalize_encoding(enc: Any) -> str:
    """A PositionEncodingKind (enum or string) -> one of ENCODINGS; anything unknown -> utf-16."""
    value = str(getattr(enc, "value", enc) or "utf-16").lower()
    return value if value in ENCODINGS else "utf-16"


def _units(s: str, encoding: str) -> int:
    """Length of `s` in code units of `encoding`."""
    if encoding == "utf-32" or s.isascii():
        return len(s)
    if encoding == "utf-8":
        return len(without_lone_surrogates(s).encode("utf-8"))
    return len(without_lone_surrogates(s).encode("utf-16-le")) // 2


def _chars_in(line: str, units: int, encoding: str) -> int:
    """How many whole code points of `line` fit in its first `units` code units (rounds down: a
    cut inside a character, "ignore"d by the decoder, falls before it)."""
    head = line[:units]  # n units never hold more than n code points
    if encoding == "utf-32" or head.isascii():
        return len(head)
    if encoding == "utf-8":
        return len(without_lone_surrogates(head).encode("utf-8")[:units].decode("utf-8", "ignore"))
    return len(without_lone_surrogates(head).encode("utf-16-le")[: 2 * units].decode("utf-16-le", "ignore"))


@dataclass(frozen=True)
class LineIndex:
    """Position <-> offset conversions over one immutable text snapshot."""

    text: str
    encoding: str = "utf-16"

    def line_start(self, line: int) -> int | None:
        """Offset where `line` starts, or None when the document has fewer lines."""
        if line <= 0:
            return 0
        text, remaining, pos, n = self.text, line, 0, len(self.text)
        while pos < n:
            end = min(pos + _CHUNK, n)
            if text[end - 1] == "\r" and text.startswith("\n", end):
                end += 1  # never split a CRLF between two chunks
            breaks = text.count("\n", pos, end) + text.count("\r", pos, end) - text.count("\r\n", pos, end)
            if breaks >= remaining:
                for m in _EOL.finditer(text, pos, end):
                    remaining -= 1
                    if remaining == 0:
                        return m.end()
            remaining -= breaks
            pos = end
        return None

    def line_end(self, start: int) -> int:
        """Offset of the terminator of the line that starts at `start` (or the end of the text)."""
        m = _EOL.search(self.text, start)
        return len(self.text) if m is None else m.start()

    def has_line(self, line: int) -> bool:
        return self.line_start(line) is not None

    def offset(self, pos: types.Position) -> int:
        """LSP position -> code-point offset (clamped as described in the module docstring)."""
        start = self.line_start(pos.line)
        if start is None:
            return len(self.text)
        end = self.line_end(start)
        return start + _chars_in(self.text[start:end], max(0, pos.character), self.encoding)

    def position(self, offset: int) -> types.Position:
        """Code-point offset -> LSP position. An offset inside a CRLF maps to the end of its line."""
        text = self.text
        offset = max(0, min(offset, len(text)))
        if offset and text[offset - 1] == "\r" and text.startswith("\n", offset):
            offset -= 1
        line = text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
        start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
        return types.Position(line=line, character=_units(text[start:offset], self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(start=self.position(start), end=self.position(end))


def position_to_offset(text: str, pos: types.Position, encoding: str = "utf-16") -> int:
    return LineIndex(text, encoding).offset(pos)


def offset_to_position(text: str, offset: int, encoding: str = "utf-16") -> types.Position:
    return LineIndex(text, encoding).position(offset)


def position_from_json(obj: Any) -> types.Position:
    """A position as raw JSON carries it ({"line", "character"}, e.g. in a range a client reads from
    a server's answer) -> types.Position. Missing or negative members count as 0 and huge ones as
    the largest uinteger, so that the clamping rules above apply instead of a validation error."""
    def member(name: str) -> int:
        return max(0, min(int(obj.get(name, 0)), _UINTEGER_MAX))
    return types.Position(line=member("line"), character=member("character"))


def change_span(text: str, change: Any, encoding: str = "utf-16") -> tuple[int, int] | None:
    """The code point range [a, b) of text that a ranged change replaces; None for a whole-text change."""
    rng = getattr(change, "range", None)
    if rng is None:
        return None
    index = LineIndex(text, encoding)
    a, b = sorted((index.offset(rng.start), index.offset(rng.end)))
    return a, b


def apply_change(text: str, change: Any, encoding: str = "utf-16") -> str:
    """Apply one TextDocumentContentChangeEvent: a ranged (incremental) edit, or a whole-text one.
    A range whose end precedes its start is treated as the range between the two positions."""
    rng = getattr(change, "range", None)
    if rng is None:
        return change.text
    index = LineIndex(text, encoding)
    a, b = sorted((index.offset(rng.start), index.offset(rng.end)))
    return text[:a] + change.text + text[b:]


# --------------------------------------------------------------------------- completion results

def new_completion_id() -> str:
    return uuid.uuid4().hex[:12]


def feedback_payload(completion: Any, uri: str, completion_id: str, kind: str) -> dict[str, Any]:
    """What travels with an item (`data`, and the argument of its `redraft.accept` command) and what
    accept/reject reports carry back: identifiers and numbers, never document text."""
    return {
        "id": completion_id, "uri": uri, "kind": kind, "scope": completion.plan.scope,
        "chars": len(completion.text), "tokens": len(completion.confidences),
        "forward_passes": completion.forward_passes, "latency_ms": round(completion.latency_ms, 1),
    }


@attrs.define
class InlineCompletionItemWithData(types.InlineCompletionItem):
    """An InlineCompletionItem plus a non-standard `data` member (the payload above), so that tools
    reading the raw JSON (the eval harness, the demo) see forward passes and latency; clients
    ignore unknown members. `protocol.converter_factory` makes the converter emit it."""

    data: Any = None


def _accept_command(payload: dict[str, Any]) -> types.Command:
    return types.Command(title="redraft: completion accepted", command="redraft.accept", arguments=[payload])


def to_inline_item(completion: Any, index: LineIndex, payload: dict[str, Any]) -> types.InlineCompletionItem:
    """Completion -> InlineCompletionItem: the insertion range, and `redraft.accept` as the command
    the client runs once the item is accepted."""
    return InlineCompletionItemWithData(
        insert_text=completion.text, range=index.range(completion.start, completion.end),
        command=_accept_command(payload), data=payload,
    )


def to_completion_item(completion: Any, index: LineIndex, payload: dict[str, Any]) -> types.CompletionItem:
    """Completion -> one popup CompletionItem whose textEdit inserts the same infill (for clients
    without inline completion). The edit replaces the identifier part typed before the cursor with
    itself plus the infill, so that clients which filter items by the word at the cursor (most do)
    keep the item: at `foo.ba|` the item reads `bar()` and replaces `ba`."""
    text, cursor = index.text, completion.start
    word = _WORD_BEFORE.search(text, max(0, cursor - 256), cursor)
    start = word.start() if word else cursor
    new_text = text[start:cursor] + completion.text
    first = new_text.split("\n", 1)[0].strip() or new_text.strip()
    label = first if len(first) <= 60 else first[:59] + "\u2026"
    detail = (f"redraft \u00b7 {completion.plan.scope} \u00b7 {completion.forward_passes} passes"
              f" \u00b7 {completion.latency_ms:.0f} ms")
    return types.CompletionItem(
        label=label, kind=types.CompletionItemKind.Text, detail=detail, sort_text="0",
        insert_text_format=types.InsertTextFormat.PlainText,
        text_edit=types.TextEdit(range=index.range(start, completion.end), new_text=new_text),
        command=_accept_command(payload), data=payload,
    )


# --------------------------------------------------------------------------- edits (redraft.applyEdit)

def split_lines(text: str) -> list[str]:
    """The lines of `text` with their terminators, by the LSP's rules (see the module docstring):
    "".join(split_lines(t)) == t."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class LineHunk:
    """Old lines [start, end) become `added` new lines: the code-point span [a, b) of the old text
    becomes `text` (the lines' common start and end left out, never inside a CRLF)."""

    start: int
    end: int
    added: int
    a: int
    b: int
    text: str


def _trimmed(old: str, a: int, b: int, new: str) -> tuple[int, int, str]:
    """The span [a, b) of `old` replaced by `new`, less their common first and last characters."""
    n = min(b - a, len(new))
    p = 0
    while p < n and old[a + p] == new[p]:
        p += 1
    if p and old[a + p - 1] == "\r" and old.startswith("\n", a + p):
        p -= 1  # a position cannot fall between "\r" and "\n"
    q = 0
    while q < n - p and old[b - 1 - q] == new[-1 - q]:
        q += 1
    if q and old[b - q - 1] == "\r" and old[b - q] == "\n":
        q -= 1
    return a + p, b - q, new[p:len(new) - q]


def line_hunks(old: str, new: str) -> list[LineHunk]:
    """The changed hunks between two texts, line by line (difflib over the lines left once the common
    first and last lines are set aside, so that a local edit in a big file is cheap). Replacing each
    hunk's span [a, b) of `old` with its text gives `new` exactly."""
    olds, news = split_lines(old), split_lines(new)
    head, most = 0, min(len(olds), len(news))
    while head < most and olds[head] == news[head]:
        head += 1
    tail = 0
    while tail < most - head and olds[-1 - tail] == news[-1 - tail]:
        tail += 1
    mid_old, mid_new = olds[head:len(olds) - tail], news[head:len(news) - tail]
    starts = [0]
    for line in olds:
        starts.append(starts[-1] + len(line))
    hunks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, mid_old, mid_new, autojunk=False).get_opcodes():
        if tag != "equal":
            s, e = head + i1, head + i2
            span = _trimmed(old, starts[s], starts[e], "".join(mid_new[j1:j2]))
            hunks.append(LineHunk(s, e, j2 - j1, *_before_final_break(old, olds, *span)))
    return hunks


def _before_final_break(old: str, lines: list[str], a: int, b: int, text: str) -> tuple[int, int, str]:
    """Lines added after the final line break go just before it instead (the same result): the
    position after it is a line that some clients do not have (Neovim appends a blank line there)."""
    eol = _EOL.search(lines[-1]) if lines and a == b == len(old) else None
    if eol is not None and text.endswith(eol.group()):
        n = len(eol.group())
        return a - n, b - n, eol.group() + text[:-n]
    return a, b, text


def to_workspace_edit(uri: str, version: int | None, old: str, hunks: list[LineHunk], encoding: str,
                      document_changes: bool) -> types.WorkspaceEdit:
    """Hunks of `old` -> a WorkspaceEdit, one TextEdit per hunk, positions in `encoding`. With
    `document_changes` (the client's `workspace.workspaceEdit.documentChanges`) a TextDocumentEdit
    for `version`, so that a client whose document moved on refuses it; else plain `changes`."""
    index = LineIndex(old, encoding)
    edits = [types.TextEdit(range=index.range(h.a, h.b), new_text=h.text) for h in hunks]
    if not document_changes:
        return types.WorkspaceEdit(changes={uri: edits})
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=doc, edits=edits)])


# --------------------------------------------------------------------------- next edits

def plain_json(value: Any) -> Any:
    """pygls hands a method lsprotocol has no type for its params as namedtuples (dicts, nested,
    become `Object(...)`): back to dicts and lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: plain_json(v) for k, v in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in value.items()}
    return value


def next_edit_params(params: Any) -> tuple[str, int | None, types.Position]:
    """`{"textDocument": {"uri", "version"?}, "position": {"line", "character"}}` (the params of
    `textDocument/copilotInlineEdit` and `redraft/nextEdit`, which lsprotocol has no type for; as
    JSON or as pygls' namedtuples) -> (uri, version or None, position). ValueError says what is
    wrong."""
    params = plain_json(params)
    if not isinstance(params, dict):
        raise ValueError(f"params must be an object, not {type(params).__name__}")
    doc, pos = params.get("textDocument"), params.get("position")
    if not isinstance(doc, dict) or not isinstance(doc.get("uri"), str):
        raise ValueError("textDocument.uri must be a string")
    version = doc.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise ValueError("textDocument.version must be an integer or null")
    if not isinstance(pos, dict):
        raise ValueError("position must be an object {line, character}")
    for name in ("line", "character"):
        v = pos.get(name)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _UINTEGER_MAX:
            raise ValueError(f"position.{name} must be an integer from 0 to {_UINTEGER_MAX}")
    return doc["uri"], version, types.Position(line=pos["line"], character=pos["character"])


def _range_json(r: types.Range) -> dict[str, Any]:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def to_next_edit(edit: Any, index: LineIndex) -> dict[str, Any]:
    """NextEdit (code-point offsets into index.text) -> `{"range", "text"}` in index's encoding
    (utf-32: code points). An end of the span between the "\\r" and "\\n" of a CRLF (a position
    cannot address it) moves out of the CRLF, the replaced character going into the text."""
    text, a, b, new = index.text, edit.start, edit.end, edit.text
    if 0 < a < len(text) and text[a - 1] == "\r" and text[a] == "\n":
        a, new = a - 1, "\r" + new
    if 0 < b < len(text) and text[b - 1] == "\r" and text[b] == "\n":
        b, new = b + 1, new + "\n"
    return {"range": _range_json(index.range(a, b)), "text": new}


def _newline_line_start(text: str, line: int) -> int | None:
    """Offset where "\\n"-line `line` (the predictor's lines) starts; None past the last line."""
    pos, n = 0, len(text)
    while line > 0 and pos < n:
        end = min(pos + _CHUNK, n)
        k = text.count("\n", pos, end)
        if k >= line:
            for _ in range(line):
                pos = text.index("\n", pos) + 1
            return pos
        line -= k
        pos = end
    return None if line > 0 else pos


def next_edit_region(edit: Any, index: LineIndex) -> dict[str, Any]:
    """The lines the model rewrote, with the line break after them, as `{"range", "text"}`: from
    the region's first line's start to the next line's start (or the text's end), so that applying
    it changes the text exactly as applying the edit does."""
    text = index.text
    a = _newline_line_start(text, edit.region_start_line) or 0
    b = _newline_line_start(text, edit.region_end_line)
    new = edit.new_region if b is None else edit.new_region + "\n"
    return {"range": _range_json(index.range(a, len(text) if b is None else b)), "text": new}


def next_edit_action(edit: Any, index: LineIndex, uri: str, version: int | None) -> types.CodeAction:
    """A next edit as a code action (Helix lists code actions under `space a`): its title names the
    change, its edit is the one `textDocument/copilotInlineEdit` answers, for that version."""
    e = to_next_edit(edit, index)
    rng = types.Range(start=types.Position(**e["range"]["start"]), end=types.Position(**e["range"]["end"]))
    shown = " ".join(edit.text.split())
    title = f"redraft: next edit: {shown[:60]}{'...' if len(shown) > 60 else ''}" if shown else "redraft: next edit (delete)"
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    change = types.TextDocumentEdit(text_document=doc, edits=[types.TextEdit(range=rng, new_text=e["text"])])
    return types.CodeAction(title=title, kind=types.CodeActionKind.RefactorRewrite,
                            edit=types.WorkspaceEdit(document_changes=[change]))
