"""`redraft ci propagate`: replay the branch's edits in the server and collect the next edits it
proposes, in the changed files and in the files that still use the names the branch removed.

For each changed file the server is given the file as it was at the base, then the branch's hunks
one at a time, top down, as incremental didChange (what an editor sends while the user types them);
then it is asked for the next edit after the last hunk, and each proposal is accepted (another
didChange) and the next one asked for, until none comes or MAX_PROPOSALS.  Other tracked files that
contain a word the branch's hunks removed are opened and asked at each line holding such a word.
A file's proposals are kept only if the result parses at least as well as the file does
(tree-sitter), and, with `--check CMD`, only if CMD still passes with them applied (in a copy).
"""
from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from redraft.engine.syntax.languages import language_for_uri
from redraft.ci.client import HeadlessClient
from redraft.ci.git import MAX_BYTES, Changed, tracked_files

MAX_PROPOSALS = 50          # per file
MAX_OTHER_FILES = 200       # files opened for the removed names
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
LANGUAGE_IDS = {"python": "python", "javascript": "javascript", "typescript": "typescript", "tsx": "typescriptreact",
                "rust": "rust", "go": "go"}


@dataclass
class Proposal:
    path: str
    line: int                 # 0-based, in the file as it is (before this proposal)
    before: str               # the lines it changes
    after: str
    confidence: float | None


@dataclass
class FileResult:
    path: str
    head: str
    new: str
    proposals: list[Proposal] = field(default_factory=list)


def _language_id(path: str) -> str | None:
    lang = language_for_uri(path)
    return LANGUAGE_IDS.get(lang.name) if lang is not None else None


def _hunks(old: list[str], new: list[str]):
    return [op for op in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes() if op[0] != "equal"]


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(x) + 1 for x in lines[:line]) + col


async def _accept_loop(client: HeadlessClient, path: str, text: str, line: int, col: int, out: FileResult) -> str:
    seen = set()
    for _ in range(MAX_PROPOSALS):
        e = await client.next_edit(path, line, col)
        if e is None:
            break
        lines = text.split("\n")
        a, b = _offset(lines, *e["start"]), _offset(lines, *e["end"])
        key = (a, b, e["text"])
        if key in seen:
            break
        seen.add(key)
        new = text[:a] + e["text"] + text[b:]
        first = e["start"][0]
        last_old = e["end"][0]
        last_new = first + e["text"].count("\n")
        out.proposals.append(Proposal(path, first, "\n".join(lines[first:last_old + 1]),
                                      "\n".join(new.split("\n")[first:last_new + 1]), e["confidence"]))
        client.replace(path, e["start"], e["end"], e["text"])
        text = new
        nl = new.split("\n")
        line, col = last_new, len(nl[last_new]) if last_new < len(nl) else 0
    return text


def _replay(client: HeadlessClient, path: str, cur: list[str], s: int, e: int, lines: list[str]):
    """Lines [s, e) of `cur` become `lines`, sent as one incremental didChange; (the new lines, the
    line the cursor is left on)."""
    if s < e and lines:                                   # replace
        client.replace(path, (s, 0), (e - 1, len(cur[e - 1])), "\n".join(lines))
    elif s < e:                                           # delete, with the line breaks
        if e < len(cur):
            client.replace(path, (s, 0), (e, 0), "")
        else:
            client.replace(path, (s - 1, len(cur[s - 1])), (e - 1, len(cur[e - 1])), "")
    elif s < len(cur):                                    # insert before line s
        client.replace(path, (s, 0), (s, 0), "\n".join(lines) + "\n")
    else:                                                 # append after the last line
        client.replace(path, (s - 1, len(cur[s - 1])), (s - 1, len(cur[s - 1])), "\n" + "\n".join(lines))
    out = cur[:s] + lines + cur[e:]
    return out, min(len(out) - 1, max(0, s + len(lines) - 1))


async def propagate(client: HeadlessClient, root: Path, changed: list[Changed], notes: list[str]) -> list[FileResult]:
    results: dict[str, FileResult] = {}
    removed: set[str] = set()
    for ch in changed:
        lang = _language_id(ch.path)
        if lang is None:
            continue
        old, new = ch.base.split("\n"), ch.head.split("\n")
        client.open(ch.path, ch.base, lang)
        cur = list(old)
        line, col = 0, 0
        for _tag, i1, i2, j1, j2 in _hunks(old, new):
            gone = [w for l in old[i1:i2] for w in _WORD.findall(l)]
            removed |= set(gone) - {w for l in new[j1:j2] for w in _WORD.findall(l)}
            cur, line = _replay(client, ch.path, cur, i1 + len(cur) - len(old), i2 + len(cur) - len(old), new[j1:j2])
            col = len(cur[line]) if line < len(cur) else 0
        res = FileResult(ch.path, ch.head, "")
        text = "\n".join(cur)
        if text != ch.head:
            notes.append(f"{ch.path}: the replayed text differs from the file; its proposals are left out")
            client.close(ch.path)
            continue
        res.new = await _accept_loop(client, ch.path, text, line, col, res)
        results[ch.path] = res
    removed = {w for w in removed if len(w) > 2}
    if removed:
        others = [p for p in tracked_files(root) if p not in results and _language_id(p)][:10_000]
        opened = 0
        for path in others:
            full = root / path
            if not full.is_file() or full.stat().st_size > MAX_BYTES:
                continue
            try:
                text = full.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            hits = [i for i, l in enumerate(text.split("\n")) if removed & set(_WORD.findall(l))]
            if not hits or "\0" in text:
                continue
            opened += 1
            if opened > MAX_OTHER_FILES:
                notes.append(f"more than {MAX_OTHER_FILES} other files use the removed names; the rest are not looked at")
                break
            client.open(path, text, _language_id(path))
            res = FileResult(path, text, text)
            for i in hits:
                cur_lines = res.new.split("\n")
                if i < len(cur_lines) and removed & set(_WORD.findall(cur_lines[i])):
                    res.new = await _accept_loop(client, path, res.new, i, 0, res)
            client.close(path)
            if res.proposals:
                results[path] = res
    return [r for r in results.values() if r.new != r.head]


def parses(path: str, head: str, new: str) -> bool:
    from redraft.engine.apply.definitions import _error_count
    lang = language_for_uri(path)
    return lang is None or _error_count(lang, new) <= _error_count(lang, head)


def passes_check(root: Path, results: list[FileResult], cmd: str) -> bool:
    """CMD passes in a copy of the working tree with these results written (the tree is untouched)."""
    with tempfile.TemporaryDirectory(prefix="redraft-ci-check-") as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        for r in results:
            (copy / r.path).write_text(r.new, encoding="utf-8")
        p = subprocess.run(cmd, shell=True, cwd=copy, capture_output=True, timeout=1800)
        return p.returncode == 0
