"""`redraft next-edit FILE --line L --col C [--history DIFF_FILE] [--model DIR] [--effort E]`: the
next edit the model predicts at FILE:L:C, the way the server's `redraft/nextEdit` computes it.

Prints `{"edits": [{"range": {"start": {"line", "character"}, "end": {...}}, "text"}]}` (one edit
or none; exit 0). LINE, COL and the ranges are 0-based, columns in code points; lines end at
"\\n", "\\r\\n" or "\\r" (the file is read with universal newlines). The history file holds
unified diffs, oldest first, that turned an earlier version of the file into FILE; each hunk is
one (before, after) edit of whole lines. An unreadable file, a bad diff or a position outside the
file: one line on stderr, exit 2.

Analogy answers first, without a model (window.analogy_at: no Engine, no torch, ~0.1 s a call
with the interpreter's start); the model is loaded only when analogy has nothing and the model
directory's config.json says a model trained for next edits is there (predict.model_may_answer).
A `--model` directory without a config.json is refused either way.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from redraft.engine.next_edit.history import parse_history


def _position(text: str, offset: int) -> dict[str, int]:
    """A code-point offset into `text` ("\\n" lines: the file was read with universal newlines) ->
    a 0-based {line, character} in code points."""
    return {"line": text.count("\n", 0, offset), "character": offset - (text.rfind("\n", 0, offset) + 1)}


def main(argv: list[str]) -> int:
    from redraft.engine.settings import EFFORT_NAMES

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
    from redraft.engine.next_edit.predict import model_may_answer
    from redraft.engine.next_edit.window import analogy_at, predict_at
    if a.model is not None and not (Path(a.model).expanduser() / "config.json").is_file():
        print(f"redraft next-edit: cannot load the model: no config.json in {a.model}", file=sys.stderr)
        return 2
    final, edit = analogy_at(text, offset, history)
    if not final and model_may_answer(a.model):
        from redraft.engine.pipeline import Engine
        try:
            engine = Engine(a.model)
        except Exception as e:  # noqa: BLE001 - a bad checkpoint is a one-line error
            print(f"redraft next-edit: cannot load the model: {e}".split("\n")[0], file=sys.stderr)
            return 2
        edit, _ = predict_at(engine, text, offset, history, str(a.file), a.effort)
    edits = [] if edit is None else [{"range": {"start": _position(text, edit.start), "end": _position(text, edit.end)},
                                      "text": edit.text}]
    print(json.dumps({"edits": edits}))
    return 0
