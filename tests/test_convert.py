"""redraft.lsp.convert: LSP positions (UTF-16 by default, also UTF-8 / UTF-32) <-> code-point offsets,
incremental edits, and Completion -> LSP items."""
from __future__ import annotations

import re
import tracemalloc
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st
from lsprotocol import types

from redraft.lsp.convert import LineIndex, apply_change, line_hunks, normalize_encoding, offset_to_position, \
    position_from_json, position_to_offset, split_lines, to_completion_item, to_inline_item, to_workspace_edit

P = types.Position


def units(s: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(s)
    raw = s.encode("utf-8" if encoding == "utf-8" else "utf-16-le", "surrogatepass")
    return len(raw) if encoding == "utf-8" else len(raw) // 2


def reference_lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, by the LSP's rules: \\n, \\r\\n and \\r end a line, nothing else."""
    out, start = [], 0
    for m in re.finditer(r"\r\n|\r|\n", text):
        out.append((start, m.start()))
        start = m.end()
    return out + [(start, len(text))]


# -- explicit cases ------------------------------------------------------------------------------

def test_emoji_is_two_utf16_units_four_utf8_bytes_one_code_point():
    text = "a😀b"
    assert offset_to_position(text, 2) == P(line=0, character=3)
    assert offset_to_position(text, 2, "utf-8") == P(line=0, character=5)
    assert offset_to_position(text, 2, "utf-32") == P(line=0, character=2)
    assert position_to_offset(text, P(line=0, character=3)) == 2
    assert position_to_offset(text, P(line=0, character=5), "utf-8") == 2


def test_a_position_inside_a_character_rounds_down():
    assert position_to_offset("a😀b", P(line=0, character=2)) == 1              # between two surrogates
    assert position_to_offset("a😀b", P(line=0, character=3), "utf-8") == 1     # inside a UTF-8 sequence
    assert position_to_offset("é", P(line=0, character=1), "utf-8") == 0


def test_combining_marks_count_as_their_own_code_points():
    text = "cafe\u0301 = 1"  # e + COMBINING ACUTE ACCENT
    assert offset_to_position(text, 5) == P(line=0, character=5)
    assert position_to_offset(text, P(line=0, character=4)) == 4             # between e and its accent
    assert offset_to_position(text, 5, "utf-8") == P(line=0, character=6)


def test_crlf_and_lone_cr_end_lines():
    text = "ab\r\ncd\ref\n"
    assert offset_to_position(text, 4) == P(line=1, character=0)
    assert offset_to_position(text, 7) == P(line=2, character=0)
    assert offset_to_position(text, 3) == P(line=0, character=2)             # inside the CRLF: end of line 0
    assert position_to_offset(text, P(line=0, character=99)) == 2            # clamps before the \r
    assert position_to_offset(text, P(line=2, character=1)) == 8
    assert position_to_offset(text, P(line=3, character=0)) == len(text)


def test_form_feed_and_unicode_separators_are_not_line_breaks():
    text = "a\fb\u2028c\x85d\vx\ny"                                              # str.splitlines would split 5 times
    assert offset_to_position(text, text.index("y")) == P(line=1, character=0)
    assert position_to_offset(text, P(line=0, character=8)) == text.index("x")


def test_out_of_range_positions_clamp():
    text = "ab\ncd"
    index = LineIndex(text)
    assert index.offset(P(line=0, character=99)) == 2
    assert index.offset(P(line=7, character=0)) == len(text)
    assert not index.has_line(2) and index.has_line(1)
    assert offset_to_position(text, 999) == P(line=1, character=2)
    assert LineIndex("").offset(P(line=0, character=5)) == 0 and LineIndex("").has_line(0)


def test_positions_from_raw_json_clamp_instead_of_failing():
    assert position_from_json({"line": 1, "character": 2}) == P(line=1, character=2)
    assert position_from_json({"line": -1, "character": -5}) == P(line=0, character=0)
    assert position_from_json({}) == P(line=0, character=0)
    assert position_to_offset("ab\ncd", position_from_json({"line": 0, "character": 2**40})) == 2


def test_lone_surrogates_count_as_one_unit():
    text = "a\ud800b"
    assert offset_to_position(text, 2) == P(line=0, character=2)
    assert position_to_offset(text, P(line=0, character=2)) == 2


def test_encodings_are_normalized():
    assert normalize_encoding(types.PositionEncodingKind.Utf8) == "utf-8"
    assert normalize_encoding(None) == "utf-16" and normalize_encoding("latin-1") == "utf-16"


def test_incremental_edits():
    text = "line one\r\nline 😀 two\nend"
    change = types.TextDocumentContentChangePartial(
        range=types.Range(start=P(line=1, character=5), end=P(line=1, character=7)), text="🙂")
    assert apply_change(text, change) == "line one\r\nline 🙂 two\nend"
    assert apply_change(text, types.TextDocumentContentChangeWholeDocument(text="new")) == "new"
    past_end = types.TextDocumentContentChangePartial(
        range=types.Range(start=P(line=9, character=0), end=P(line=9, character=0)), text="!")
    assert apply_change(text, past_end) == text + "!"


def test_big_document_is_cheap():
    # "cheap" = no per-line table or copy of the text: conversions scan the snapshot in place, so
    # they allocate almost nothing. Measured in bytes, not seconds (timings belong to bench/).
    text = "x = 1\n" * 1_700_000  # ~10 MB
    tracemalloc.start()
    try:
        index = LineIndex(text)
        offset = index.offset(P(line=1_600_000, character=3))
        back = index.position(offset)
        past_end = index.offset(P(line=2_000_000, character=0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert offset == 1_600_000 * 6 + 3 and back == P(line=1_600_000, character=3)
    assert past_end == len(text)
    assert peak < 1_000_000, f"{peak} bytes allocated for a {len(text)}-character document"


def _completion(text: str, at: int):
    return SimpleNamespace(text=text, start=at, end=at, plan=SimpleNamespace(scope="line-rest"),
                           forward_passes=3, latency_ms=12.5, confidences=[0.9] * 4)


def test_completion_to_inline_item():
    doc = "s = '😀'\nprint(s.up"
    comp = _completion("per())", len(doc))
    payload = {"id": "x", "forward_passes": 3}
    item = to_inline_item(comp, LineIndex(doc), payload)
    assert item.insert_text == "per())" and item.data == payload
    assert item.range == types.Range(start=P(line=1, character=10), end=P(line=1, character=10))
    assert item.command.command == "redraft.accept" and item.command.arguments == [payload]


def test_completion_to_popup_item_covers_the_typed_word():
    doc = "s = '😀'; s.up"
    comp = _completion("per()", len(doc))
    item = to_completion_item(comp, LineIndex(doc), {"id": "y"})
    cursor = P(line=0, character=len(doc) + 1)  # the emoji is two UTF-16 units
    assert item.text_edit.range == types.Range(start=P(line=0, character=cursor.character - 2), end=cursor)
    assert item.text_edit.new_text == "upper()" and item.label == "upper()"
    assert "3 passes" in item.detail


# -- properties ---------------------------------------------------------------------------------

ALPHABET = st.sampled_from(["a", "_", " ", "\n", "\r", "\r\n", "\t", "é", "e\u0301", "😀", "𝔘", "\f",
                            "\u2028", "\x00", "\ud800"])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)
ENCODINGS = st.sampled_from(["utf-16", "utf-8", "utf-32"])


def _inside_crlf(text: str, offset: int) -> bool:
    return 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data(), ENCODINGS)
def test_offset_position_round_trip(text, data, encoding):
    offset = data.draw(st.integers(0, len(text)))
    index = LineIndex(text, encoding)
    pos = index.position(offset)
    lines = reference_lines(text)
    start, _ = next((s, e) for s, e in reversed(lines) if s <= offset)
    assert pos.line == lines.index(next(ln for ln in reversed(lines) if ln[0] <= offset))
    if not _inside_crlf(text, offset):
        assert pos.character == units(text[start:offset], encoding)
        assert index.offset(pos) == offset


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(0, 12), st.integers(0, 40), ENCODINGS)
def test_any_position_maps_into_its_line_and_clamps(text, line, character, encoding):
    lines = reference_lines(text)
    offset = LineIndex(text, encoding).offset(P(line=line, character=character))
    if line >= len(lines):
        assert offset == len(text)
        return
    start, end = lines[line]
    assert start <= offset <= end
    assert units(text[start:offset], encoding) <= character      # rounds down, never past the position
    if offset < end:
        assert units(text[start:offset + 1], encoding) > character


@settings(max_examples=200, deadline=None)
@given(TEXTS, TEXTS, st.data(), ENCODINGS)
def test_incremental_edit_equals_a_splice(text, new, data, encoding):
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    if _inside_crlf(text, a) or _inside_crlf(text, b):
        return
    index = LineIndex(text, encoding)
    change = types.TextDocumentContentChangePartial(range=index.range(a, b), text=new)
    assert apply_change(text, change, encoding) == text[:a] + new + text[b:]


# -- redraft.applyEdit's edits ------------------------------------------------------------------

def test_hunks_are_per_changed_region_and_trimmed():
    old = "a = 1\nb = 2\nc = 3\nd = 4\n"
    new = "a = 1\nb = 22\nc = 3\nd = 4\ne = 5\n"
    hunks = line_hunks(old, new)
    # a line added at the end goes before the final line break: Neovim has no line 4 to insert at
    assert [(h.start, h.end, h.added, h.text) for h in hunks] == [(1, 2, 1, "2"), (4, 4, 1, "\ne = 5")]
    edit = to_workspace_edit("file:///x.py", 3, old, hunks, "utf-16", False)
    assert edit.document_changes is None
    assert [e.range for e in edit.changes["file:///x.py"]] == [
        types.Range(start=P(line=1, character=5), end=P(line=1, character=5)),
        types.Range(start=P(line=3, character=5), end=P(line=3, character=5))]
    assert line_hunks(old, old) == []
    assert [(h.a, h.text) for h in line_hunks("a\r\n", "a\r\nb\r\n")] == [(1, "\r\nb")]
    assert [(h.a, h.text) for h in line_hunks("", "b\n")] == [(0, "b\n")]


def test_a_hunk_never_starts_or_ends_inside_a_crlf():
    for old, new in [("x\r\ny\r\n", "x\ry\r\n"), ("x\r\n", "x\r\r\n"), ("a\r\nb", "a\r\nc\r\nb")]:
        text = old
        for h in reversed(line_hunks(old, new)):
            assert not _inside_crlf(old, h.a) and not _inside_crlf(old, h.b)
            text = text[:h.a] + h.text + text[h.b:]
        assert text == new


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS, ENCODINGS, st.booleans())
def test_workspace_edit_applied_by_positions_gives_the_new_text(old, new, encoding, document_changes):
    """What a client does with the edit (every range relative to the old text, applied last first)
    gives exactly the new text, in every encoding, with CRLF, lone CR, emoji and combining marks."""
    assert "".join(split_lines(old)) == old
    hunks = line_hunks(old, new)
    edit = to_workspace_edit("file:///x.py", 1, old, hunks, encoding, document_changes)
    edits = edit.document_changes[0].edits if document_changes else edit.changes["file:///x.py"]
    assert len(edits) == len(hunks) and (old == new) == (not edits)
    text = old
    for e in reversed(edits):
        text = apply_change(text, types.TextDocumentContentChangePartial(range=e.range, text=e.new_text), encoding)
    assert text == new
    if document_changes:
        assert edit.document_changes[0].text_document.version == 1
