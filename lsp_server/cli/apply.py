"""`redraft apply FILE SNIPPET_FILE [--language L] [--in-place] [--diff] [--keep-unmarked]`: the merge on files.

Prints the merged file (exit 0); on refusal prints one line on stderr and nothing on stdout (exit 1);
bad arguments or unreadable files: exit 2.  --in-place writes atomically (a temp file renamed over
FILE, its mode kept) and only after a successful merge.  Every run of original lines the merge
deletes because the snippet omits them without a marker is one line on stderr (`redraft apply:
deleted 12 lines at 40-51 (no marker after the snippet's last line); removed class `Foo` (lines
40-51)`); with --diff they are the diff's `-` lines.  --keep-unmarked keeps every line the snippet
omits (deletion only inside a fragment's region), as before issue 43.
"""
from __future__ import annotations

from redraft.engine.apply import merge


def main(argv: list[str]) -> int:
    import argparse
    import difflib
    import os
    import sys
    import tempfile
    from pathlib import Path

    from redraft.engine.syntax.languages import language_id_for_uri

    ap = argparse.ArgumentParser(prog="redraft apply",
                                 description="Apply a lazy edit snippet (`# ... existing code ...`) to FILE.")
    ap.add_argument("file")
    ap.add_argument("snippet", help="file holding the snippet ('-' for stdin)")
    ap.add_argument("--language", default=None, help="language id (default: from FILE's extension)")
    ap.add_argument("--in-place", action="store_true", help="rewrite FILE (only if the merge succeeds)")
    ap.add_argument("--diff", action="store_true", help="print a unified diff instead of the file")
    ap.add_argument("--keep-unmarked", action="store_true",
                    help="keep the file's lines that the snippet omits without a marker (default: delete them)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    language = a.language or language_id_for_uri(a.file)
    if not language:
        print(f"redraft apply: cannot tell the language of {a.file}; pass --language", file=sys.stderr)
        return 2
    try:
        with open(a.file, "rb") as fh:
            raw = fh.read()
        snip_raw = sys.stdin.buffer.read() if a.snippet == "-" else Path(a.snippet).read_bytes()
    except OSError as e:
        print(f"redraft apply: cannot read: {e}", file=sys.stderr)
        return 2
    try:
        original, snippet = raw.decode("utf-8"), snip_raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"redraft apply: refused: not UTF-8 text ({e.reason})", file=sys.stderr)
        return 1
    res = merge(original, snippet, language, delete_unmarked=not a.keep_unmarked)
    if not res.ok:
        print(f"redraft apply: refused: {res.reason}", file=sys.stderr)
        return 1
    for d in res.deletions:
        print(f"redraft apply: {d.summary()}", file=sys.stderr)
    for w in res.warnings:
        print(f"redraft apply: warning: {w}", file=sys.stderr)
    if a.diff:
        sys.stdout.write("".join(difflib.unified_diff(original.splitlines(True), res.text.splitlines(True),
                                               fromfile=a.file, tofile=a.file)))
    if a.in_place:
        d = os.path.dirname(os.path.abspath(a.file))
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(dir=d, prefix=".redraft-apply-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(res.text.encode("utf-8"))
            os.chmod(tmp, os.stat(a.file).st_mode & 0o7777)
            os.replace(tmp, a.file)
        except OSError as e:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
            print(f"redraft apply: cannot write {a.file}: {e}", file=sys.stderr)
            return 2
    elif not a.diff:
        sys.stdout.flush()
        sys.stdout.buffer.write(res.text.encode("utf-8"))
        sys.stdout.flush()
    return 0
