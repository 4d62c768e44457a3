"""What the bot reads from git: the repository's root, the branch's changed files against a base."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

MAX_BYTES = 2 * 1024 * 1024


class CiError(Exception):
    """A one-line reason; the bot exits 2 and changes nothing."""


def git(root: Path, *args: str) -> str:
    try:
        p = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=120)
    except FileNotFoundError:
        raise CiError("git is not installed") from None
    if p.returncode != 0:
        said = (p.stderr or p.stdout).strip().splitlines()
        raise CiError(f"git {' '.join(args)}: {said[-1] if said else 'failed'}")
    return p.stdout


def repo_root(start: Path) -> Path:
    try:
        return Path(git(start, "rev-parse", "--show-toplevel").strip())
    except CiError:
        raise CiError(f"{start} is not inside a git repository") from None


@dataclass
class Changed:
    path: str           # relative to the root, "/"-separated
    base: str           # the text at the base (the merge base of REF and HEAD)
    head: str           # the text in the working tree


def changed_files(root: Path, ref: str, notes: list[str]) -> list[Changed]:
    """Text files changed in the working tree against the merge base of `ref` and HEAD (added,
    deleted, binary and too large files are noted and skipped)."""
    try:
        git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except CiError:
        raise CiError(f"unknown git ref {ref!r}") from None
    base = git(root, "merge-base", ref, "HEAD").strip()
    out = []
    for line in git(root, "diff", "--numstat", "--no-renames", "-z", base, "--").split("\0"):
        if not line.strip():
            continue
        added, removed, path = line.split("\t", 2)
        if added == "-" and removed == "-":
            notes.append(f"{path}: skipped (binary)")
            continue
        full = root / path
        if not full.is_file():
            continue                                    # deleted
        if full.stat().st_size > MAX_BYTES:
            notes.append(f"{path}: skipped (larger than {MAX_BYTES // (1024 * 1024)} MB)")
            continue
        try:
            head = full.read_text(encoding="utf-8")
            old = git(root, "show", f"{base}:{path}")
        except UnicodeDecodeError:
            notes.append(f"{path}: skipped (not UTF-8 text)")
            continue
        except CiError:
            continue                                    # added in the branch: nothing to replay
        if "\0" in head:
            notes.append(f"{path}: skipped (binary)")
            continue
        out.append(Changed(path, old, head))
    return out


def tracked_files(root: Path) -> list[str]:
    return [p for p in git(root, "ls-files", "-z").split("\0") if p]
