"""`redraft ci apply FILE=SNIPPET...`: each snippet merged into its file through the server
(`redraft.applyEdit`; the server sends the edit back as workspace/applyEdit, which this client
applies to the file), then the changes as a patch.  A refused snippet is an error: nothing of any
snippet is written (the files are restored)."""
from __future__ import annotations

import difflib
import sys
from pathlib import Path

from urllib.parse import unquote, urlparse

from lsprotocol import types

from redraft.ci.git import MAX_BYTES, CiError


def _apply_edit(root: Path, texts: dict[str, str], edit: types.WorkspaceEdit) -> bool:
    """The server's workspace/applyEdit on the in-memory texts (`changes` or `documentChanges`)."""
    pairs = list((edit.changes or {}).items())
    for ch in edit.document_changes or []:
        if not isinstance(ch, types.TextDocumentEdit):
            return False
        pairs.append((ch.text_document.uri, ch.edits))
    for uri, edits in pairs:
        path = Path(unquote(urlparse(uri).path))
        rel = path.resolve().relative_to(root.resolve()).as_posix()
        if rel not in texts:
            return False
        text = texts[rel]
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            lines = text.split("\n")
            a = sum(len(x) + 1 for x in lines[:e.range.start.line]) + e.range.start.character
            b = sum(len(x) + 1 for x in lines[:e.range.end.line]) + e.range.end.character
            text = text[:a] + e.new_text + text[b:]
        texts[rel] = text
    return True


async def apply_snippets(a, root: Path, inside, output) -> int:
    """`inside(root, path)`: a target file, refused outside the repository; `output(path)`: the
    --patch report, anywhere (redraft.ci.main)."""
    from redraft.ci.client import HeadlessClient
    from redraft.ci.propagate import _language_id
    out = output(a.patch)
    jobs = []
    for spec in a.snippets:
        target, sep, snippet = spec.partition("=")
        if not sep:
            raise CiError(f"{spec!r}: expected FILE=SNIPPET")
        t, s = inside(root, target), Path(snippet)
        if not t.is_file():
            raise CiError(f"{target}: no such file")
        if t.stat().st_size > MAX_BYTES:
            raise CiError(f"{target}: larger than {MAX_BYTES // (1024 * 1024)} MB")
        try:
            jobs.append((t.relative_to(root.resolve()).as_posix(), t.read_text(encoding="utf-8"),
                         s.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as e:
            raise CiError(f"cannot read {target} or {snippet}: {e}") from None
    texts = {rel: text for rel, text, _ in jobs}
    heads = dict(texts)
    client = HeadlessClient(root, on_apply=lambda edit: _apply_edit(root, texts, edit))
    await client.start(a.model)
    try:
        for rel, text, snippet in jobs:
            lang = _language_id(rel)
            if lang is None:
                raise CiError(f"{rel}: no grammar for this file's language")
            client.open(rel, texts[rel], lang)
            try:
                await client.apply_snippet(rel, snippet)
            except Exception as e:  # noqa: BLE001 - the server's refusal, one line
                raise CiError(f"{rel}: {getattr(e, 'message', None) or e}".split("\n")[0]) from None
            client.close(rel)
    finally:
        await client.stop()
    for rel, text in texts.items():
        if text != heads[rel]:
            (root / rel).write_text(text, encoding="utf-8")
    diff = "".join(l for rel in sorted(texts) for l in difflib.unified_diff(
        heads[rel].splitlines(True), texts[rel].splitlines(True), f"a/{rel}", f"b/{rel}"))
    if out:
        out.write_text(diff, encoding="utf-8")
    print(f"redraft ci: applied {len(jobs)} snippet{'s' if len(jobs) != 1 else ''}", file=sys.stderr)
    return 0
