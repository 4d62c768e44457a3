"""Which files of a workspace the index reads: the enabled languages' source files, minus what
`.gitignore` ignores, vendored and generated trees, minified, binary and oversized files, within a
file-count cap.

Design decisions:
* Inside a git repository, `git ls-files --cached --others --exclude-standard` is the truth about
  `.gitignore` (every nested file, `.git/info/exclude`, the user's global excludes). Elsewhere (or
  when git is missing) a walk reads the `.gitignore` files it meets with the common subset of the
  format: blank lines and `#` comments, `!` negation, a leading `/` anchoring to that directory, a
  trailing `/` for directories only, `*`, `?`, `[...]` and `**`.
* The walk never follows symbolic links to directories (no loops), and neither list nor walk
  returns a path outside the root.
* Skipped whatever git says: directories named as vendored or generated (node_modules, vendor,
  third_party, dist, build, target, site-packages, virtual environments, caches), files over
  `max_bytes`, files with a NUL byte in their first 8 KB (binary), and minified files (a line over
  `MINIFIED_LINE` characters in the first 64 KB, or `.min.` in the name).
"""
from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse


def uri_path(uri: str | None) -> Path | None:
    """A `file:` URI's path; None for any other scheme (untitled:, ...) or none."""
    if not uri or not uri.startswith("file:"):
        return None
    return Path(unquote(urlparse(uri).path))

SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "vendor", "third_party", "third-party", "dist",
                       "build", "target", "site-packages", "__pycache__", ".venv", "venv", ".tox", ".nox",
                       ".mypy_cache", ".pytest_cache", ".eggs", "bower_components", ".next", "out", "coverage"})
MINIFIED_LINE = 1000
SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True)
class Rule:
    base: str           # the directory of the .gitignore, relative to the root ("" for the root)
    regex: re.Pattern
    negate: bool
    dir_only: bool


def _glob_regex(pattern: str) -> str:
    """A gitignore glob (no leading slash) -> a regex over '/'-separated relative paths."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1:j].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse_gitignore(text: str, base: str = "") -> list[Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _glob_regex(line)
        regex = re.compile(("" if anchored else "(?:.*/)?") + body + "$")
        rules.append(Rule(base, regex, negate, dir_only))
    return rules


def ignored(rel: str, is_dir: bool, rules: list[Rule]) -> bool:
    """The last matching rule decides (git's order); `rel` is relative to the root, '/'-separated."""
    verdict = False
    for r in rules:
        if r.base:
            if not rel.startswith(r.base + "/"):
                continue
            sub = rel[len(r.base) + 1:]
        else:
            sub = rel
        if r.dir_only and not is_dir:
            continue
        if r.regex.match(sub):
            verdict = not r.negate
    return verdict


def looks_generated(path: Path, size: int, max_bytes: int) -> str | None:
    """Why a file is not worth indexing (None: it is). Reads at most SNIFF_BYTES."""
    if size > max_bytes:
        return "oversized"
    if ".min." in path.name:
        return "minified"
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return "unreadable"
    if b"\0" in head[:8192]:
        return "binary"
    if any(len(line) > MINIFIED_LINE for line in head.split(b"\n")[:-1]) or (len(head) == size and len(head) > MINIFIED_LINE and b"\n" not in head):
        return "minified"
    return None


def _git_files(root: Path) -> list[str] | None:
    if not (root / ".git").exists():
        return None
    try:
        r = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return [p for p in r.stdout.decode("utf-8", "replace").split("\0") if p]


def _walk(root: Path, limit: int) -> list[str]:
    out: list[str] = []
    rules: list[Rule] = []
    stack = [("", rules)]
    while stack and len(out) < limit:
        rel_dir, inherited = stack.pop()
        here = root / rel_dir if rel_dir else root
        local = list(inherited)
        gi = here / ".gitignore"
        try:
            if gi.is_file():
                local += parse_gitignore(gi.read_text(encoding="utf-8", errors="replace"), rel_dir)
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS and not ignored(rel, True, local):
                        subdirs.append((rel, local))
                elif e.is_file(follow_symlinks=True) and not ignored(rel, False, local):
                    out.append(rel)
            except OSError:
                continue
        stack.extend(reversed(subdirs))
    return out


def list_files(root: Path, extensions: set[str], max_files: int, max_bytes: int) -> tuple[list[Path], dict[str, int]]:
    """The files to index, in a stable order, and counts of what was skipped and why."""
    root = root.resolve()
    skipped: dict[str, int] = {}
    rels = _git_files(root)
    if rels is None:
        rels = _walk(root, max_files * 20)
    out: list[Path] = []
    for rel in rels:
        parts = rel.split("/")
        if any(p in SKIP_DIRS for p in parts[:-1]):
            skipped["vendored"] = skipped.get("vendored", 0) + 1
            continue
        if os.path.splitext(rel)[1].lower() not in extensions:
            continue
        path = root / rel
        try:
            real = path.resolve()
            if not real.is_relative_to(root) or not real.is_file():
                skipped["outside"] = skipped.get("outside", 0) + 1
                continue
            size = real.stat().st_size
        except (OSError, RuntimeError):
            skipped["unreadable"] = skipped.get("unreadable", 0) + 1
            continue
        why = looks_generated(real, size, max_bytes)
        if why:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        if len(out) >= max_files:
            skipped["over_cap"] = skipped.get("over_cap", 0) + 1
            continue
        out.append(path)
    return out, skipped

