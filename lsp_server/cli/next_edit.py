"""`redraft next-edit FILE --line L --col C [--history DIFF_FILE] [--model DIR] [--effort E]`: the
next edit the model predicts at FILE:L:C, the way the server's `redraft/nextEdit` computes it.

Prints `{"edits": [{"range": {"start": {"line", "character"}, "end": {...}}, "text"}]}` (one edit
or none; exit 0). LINE, COL and the ranges are 0-based, columns in code points; lines end at
"\\n", "\\r\\n" or "\\r" (the file is read with universal newlines). The history file holds
unified diffs, oldest first, that turned an earlier version of the file into FILE; each hunk is
one (before, after) edit of whole lines. An unreadable file, a bad diff or a position outside the
file: one line on stderr, exit 2.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_HUNK = re.compile(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def parse_history(diff: str) -> list[tuple[str, str]]:
    """Unified diffs -> [(before, after)], one per hunk, oldest first: the hunk's context and "-"
    lines before, its context and "+" lines after, each joined with "\\n". The `@@` header's counts
    say where a hunk ends (so a removed line that reads "-- x" is no file header); `---`/`+++`,
    `diff`/`index` lines and "\\ No newline at end of file" are skipped. ValueError: a hunk that
    ends early or holds a line of another kind."""
    pairs: list[tuple[str, str]] = []
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text after the last line break is no line
    i = 0
    while i < len(lines):
        m = _HUNK.match(lines[i])
        i += 1
        if m is None:
            continue  # file headers, `diff --git`, `index`, anything between diffs
        old_n = 1 if m.group(1) is None else int(m.group(1))
        new_n = 1 if m.group(2) is None else int(m.group(2))
        before: list[str] = []
        after: list[str] = []
        while len(before) < old_n or len(after) < new_n:
            if i >= len(lines):
                raise ValueError(f"hunk {m.group(0)!r} ends early (expected {old_n} old and {new_n} new lines)")
            line = lines[i]
            i += 1
            kind, body = (line[:1] or " "), line[1:]   # an empty line: a blank context line
            if line.startswith("\\"):
                continue                                # \ No newline at end of file
            if kind not in " -+":
                raise ValueError(f"unexpected line in hunk {m.group(0)!r}: {line[:60]!r}")
            if kind in " -":
                before.append(body)
            if kind in " +":
                after.append(body)
        pairs.append(("\n".join(before), "\n".join(after)))
    return pairs


def main(argv: list[str]) -> int:
    from ..convert import LineIndex, to_next_edit
    from ..settings import EFFORT_NAMES

    ap = argparse.ArgumentParser(prog="redraft next-edit",
                                 description="Print the next edit the model predicts at FILE:LINE:COL as JSON "
                                             '({"edits": [{"range", "text"}]}; no edit: {"edits": []}).')
    ap.add_argument("file", type=Path)
    ap.add_argument("--line", type=int, required=True, help="0-based line")
    ap.add_argument("--col", type=int, required=True, help="0-based column, in characters (code points)")
    ap.add_argument("--history", type=Path, default=None, metavar="DIFF_FILE",
                    help="unified diffs, oldest first, that turned an earlier version into FILE")
    ap.add_argument("--model", default=None, metavar="DIR", help="checkpoint directory (default: the shipped model)")
    ap.add_argument("--effort", default="low", choices=EFFORT_NAMES)
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        text = a.file.read_text(encoding="utf-8")
        history = parse_history(a.history.read_text(encoding="utf-8")) if a.history else []
    except (OSError, UnicodeDecodeError) as e:
        print(f"redraft next-edit: cannot read: {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"redraft next-edit: bad history diff {a.history}: {e}", file=sys.stderr)
        return 2
    lines = text.split("\n")
    if not 0 <= a.line < len(lines) or not 0 <= a.col <= len(lines[a.line]):
        print(f"redraft next-edit: {a.line}:{a.col} is outside {a.file} ({len(lines)} lines; 0-based)",
              file=sys.stderr)
        return 2
    offset = sum(len(l) + 1 for l in lines[:a.line]) + a.col
    from ..next_edits import predict_at
    from ..pipeline import Engine
    try:
        engine = Engine(a.model)
    except Exception as e:  # noqa: BLE001 - a bad checkpoint is a one-line error
        print(f"redraft next-edit: cannot load the model: {e}".split("\n")[0], file=sys.stderr)
        return 2
    edit, _ = predict_at(engine, text, offset, history, str(a.file), a.effort)
    edits = [] if edit is None else [to_next_edit(edit, LineIndex(text, "utf-32"))]
    print(json.dumps({"edits": edits}))
    return 0
