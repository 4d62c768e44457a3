"""Real apply-edit cases for bench/apply.py, built from two releases of open-source packages.

Every source file changed between release OLD and release NEW of a package gives cases of four
shapes, each a (file, lazy snippet, truth) triple:

* ``function``: one changed function/method, its complete new version, no markers; truth: the
  old file with that definition (and the comments above it) replaced by the new one.
* ``lazy``: the same change written lazily, as a model writes it: the definition's first line, the
  changed lines with two lines of context, ``... existing code ...`` markers (indented as the code
  they stand for) for the rest of its body and around it; truth as for ``function``.
* ``multi``: up to three hunks of the file's diff (three lines of context each) with markers
  between and around them; truth: the old file with those hunks applied.  A hunk that only deletes
  lines at the very start or end of the file is left out: nothing in a snippet shows such a
  deletion (the merge never deletes by omission).  Nor can a snippet show a deletion next to a
  marker: a hunk whose context next to a deletion also fits inside the deleted lines (they end
  alike) gets the context that tells the places apart (session 34).  A combination whose truth parses
  worse than both releases is left out (session 42), as is one that takes half of a move: its truth
  repeats a run of lines more often than either release does (session 45).
* ``new``: a definition that is new in NEW, shown after the unchanged definition that precedes it,
  between two markers; truth: the old file with the new definition inserted there.

Downloads (sdists from PyPI's simple API, checked against its sha256; tarballs from npm with
`npm pack`) are cached in ~/.cache/redraft-bench/apply.  No case is ever used for training.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import subprocess
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from apply_sources import SOURCES  # noqa: E402,F401  (re-exported: apply_cases.SOURCES)
from redraft.engine.apply.definitions import _error_count, collect_defs
from redraft.engine.apply.indentation import uses_tabs
from redraft.engine.syntax.languages import language_for

CACHE = Path(os.environ.get("REDRAFT_BENCH_CACHE", Path.home() / ".cache" / "redraft-bench" / "apply"))

EXTENSIONS = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
              ".ts": "typescript", ".rs": "rust", ".go": "go"}
MARKER = {"python": "# ... existing code ..."}
MAX_DEF_LINES = 300


@dataclass
class Case:
    id: str
    set: str
    language: str
    shape: str
    path: str
    original: str
    snippet: str
    truth: str
    @cached_property
    def kept(self) -> list[str]:
        """The original's lines that the truth keeps (difflib's equal runs between the two, inside
        the edited regions too: a line a marker stands for); bench/apply.py's lost lines."""
        old, truth = self.original.split("\n"), self.truth.split("\n")
        sm = difflib.SequenceMatcher(None, old, truth, autojunk=False)
        return [l for tag, i1, i2, _, _ in sm.get_opcodes() if tag == "equal" for l in old[i1:i2]]

    @property
    def lines(self) -> int:
        return self.original.count("\n") + 1


# ---------------------------------------------------------------------------------------------
# downloads

def _pypi_sdist(project: str, version: str) -> Path:
    req = urllib.request.Request(f"https://pypi.org/simple/{project}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        files = json.load(r)["files"]
    norm = project.replace("-", "_").lower()
    want = [f for f in files if f["filename"].lower() in (f"{norm}-{version}.tar.gz", f"{project.lower()}-{version}.tar.gz")]
    if not want:
        raise SystemExit(f"no sdist of {project} {version} on PyPI")
    f = want[0]
    dest = CACHE / f["filename"]
    if not dest.exists():
        with urllib.request.urlopen(f["url"], timeout=300) as r:
            data = r.read()
        if hashlib.sha256(data).hexdigest() != f["hashes"]["sha256"]:
            raise SystemExit(f"sha256 mismatch for {f['filename']}")
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}")      # two benches at once: each sees a
        tmp.write_bytes(data)                                    # whole archive or none
        os.replace(tmp, dest)
    return dest


def _npm_tarball(project: str, version: str) -> Path:
    dest = CACHE / f"{project.lstrip('@').replace('/', '-')}-{version}.tgz"   # as `npm pack` names it
    if not dest.exists():
        with tempfile.TemporaryDirectory(dir=CACHE) as tmp:     # packed aside, then moved in whole
            subprocess.run(["npm", "pack", "--silent", "--pack-destination", tmp, f"{project}@{version}"],
                           check=True, stdout=subprocess.DEVNULL, env={**os.environ, "npm_config_yes": "true"})
            os.replace(Path(tmp) / dest.name, dest)
    return dest


def release_files(registry: str, project: str, version: str) -> dict[str, str]:
    """Source files of one release: path without the top directory -> text (UTF-8, LF only)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    tgz = _pypi_sdist(project, version) if registry == "pypi" else _npm_tarball(project, version)
    out: dict[str, str] = {}
    with tarfile.open(tgz) as tf:
        for m in tf.getmembers():
            path = m.name.split("/", 1)[-1]
            ext = os.path.splitext(path)[1]
            if not m.isfile() or ext not in EXTENSIONS or path.endswith(".d.ts") or ".min." in path:
                continue
            try:
                text = tf.extractfile(m).read().decode("utf-8")
            except UnicodeDecodeError:
                continue
            if "\r" not in text and "\x00" not in text:
                out[path] = text
    return out


# ---------------------------------------------------------------------------------------------
# cases

def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _marker(language: str, indent: str = "") -> str:
    return indent + MARKER.get(language, "// ... existing code ...")


def _leaf_defs(lang, lines: list[str], leaves: bool = True) -> dict[str, object]:
    """Functions/methods (definitions without members) by qualified key, unique keys only."""
    seen: dict[str, list] = {}
    for d in collect_defs(lang, lines):
        if not leaves or (d.members is None and d.end - d.start < MAX_DEF_LINES):
            seen.setdefault(f"{d.parent}.{d.key}", []).append(d)
    return {k: v[0] for k, v in seen.items() if len(v) == 1}


def _elided_indent(lines: list[str], lo: int, hi: int) -> str:
    for l in lines[lo:hi]:
        if l.strip():
            return _indent(l)
    return ""


def _function_cases(language, old, new, o, n):
    """(shape, snippet lines, truth lines) for one changed definition."""
    truth = old[:o.comment_start] + new[n.comment_start:n.end + 1] + old[o.end + 1:]
    yield "function", new[n.comment_start:n.end + 1], truth
    A, B = old[o.start:o.end + 1], new[n.start:n.end + 1]
    if old[o.comment_start:o.start] != new[n.comment_start:n.start] or len(B) < 12 or A[0] != B[0]:
        return
    shown = {0} if language == "python" else {0, len(B) - 1}
    for group in difflib.SequenceMatcher(None, A, B, autojunk=False).get_grouped_opcodes(2):
        group = showable(A, group)          # a deletion next to a marker cannot be shown
        if group is None:
            return
        shown.update(range(group[0][3], group[-1][4]))
    ind = _indent(B[0])
    snip = [_marker(language, ind)] if o.comment_start > 0 else []
    prev = -1
    for j in sorted(shown):
        if j > prev + 1:
            snip.append(_marker(language, _elided_indent(B, prev + 1, j)))
        snip.append(B[j])
        prev = j
    if prev < len(B) - 1:
        snip.append(_marker(language, _elided_indent(B, prev + 1, len(B))))
    if o.end < len(old) - 1:
        snip.append(_marker(language, ind))
    yield "lazy", snip, truth


def showable(old: list[str], group: list) -> list | None:
    """The diff group with its context widened until a deletion at its edge is shown, or None.
    The snippet shows the group's context lines, then the lines after the deletion (or before it);
    when the context before a deletion also occurs further on, ending inside the deleted lines (a
    test deleted after another that ends alike: `)` and two blank lines), the snippet reads as
    keeping them, and no snippet with that context can show the deletion.  The context is widened
    until it occurs only where it is (likewise the context after a deletion, which must not also
    start inside the deleted lines); a group whose context would reach past the file's start (end)
    is left out, as a deletion at the very start (end) is."""
    g = list(group)
    if len(g) > 1 and g[-1][0] == "equal" and g[-2][0] == "delete":
        _, a, b = g[-2][:3]
        _, e1, d, f1, _ = g[-1]
        while any(old[p:p + d - b] == old[b:d] for p in range(a, b)):
            d += 1
            if d > len(old):
                return None
        g[-1] = ("equal", e1, d, f1, f1 + d - e1)
    if len(g) > 1 and g[0][0] == "equal" and g[1][0] == "delete":
        _, a, b = g[1][:3]
        _, c, e2, _, f2 = g[0]
        while any(old[p:p + a - c] == old[c:a] for p in range(c + 1, b - (a - c) + 1)):
            c -= 1
            if c < 0:
                return None
        g[0] = ("equal", c, e2, f2 - (e2 - c), f2)
    return g


def _multi_cases(language, old, new, per_case: int = 3):
    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3))
    if groups and groups[0][0][0] == "delete" and groups[0][0][1] == 0:
        groups = groups[1:]           # lines deleted before the first shown line: implicit, not a case
    if groups and groups[-1][-1][0] == "delete" and groups[-1][-1][2] == len(old):
        groups = groups[:-1]          # ... or after the last one
    # session 34: a deletion whose context also fits inside the deleted lines is shown with more
    # context (or left out): such development cases were all refused or wrong, as no snippet shows it
    shown = [showable(old, g) for g in groups]
    groups = [g for i, g in enumerate(shown) if g is not None and
              (i == 0 or shown[i - 1] is None or shown[i - 1][-1][2] <= g[0][1]) and
              (i + 1 == len(shown) or shown[i + 1] is None or g[-1][2] <= shown[i + 1][0][1])]
    for k in range(0, len(groups), per_case):
        chunk = groups[k:k + per_case]
        snip: list[str] = []
        truth: list[str] = []
        pos = 0
        for g in chunk:
            i1, i2, j1, j2 = g[0][1], g[-1][2], g[0][3], g[-1][4]
            if i1 > pos or (not snip and i1 > 0):
                snip.append(_marker(language, _elided_indent(old, pos, i1)))
            truth += old[pos:i1] + new[j1:j2]
            snip += new[j1:j2]
            pos = i2
        if pos < len(old):
            snip.append(_marker(language, _elided_indent(old, pos, len(old))))
        truth += old[pos:]
        yield "multi", snip, truth


def _new_def_cases(language, lang, old, new, olds):
    """A new function right after a definition that is unchanged (only blank lines between)."""
    by_parent: dict[str | None, list] = {}
    old_keys = {f"{d.parent}.{d.key}" for d in collect_defs(lang, old)}
    for d in collect_defs(lang, new):
        by_parent.setdefault(d.parent, []).append(d)
    for sibs in by_parent.values():
        sibs.sort(key=lambda d: d.start)
        for prev, d in zip(sibs, sibs[1:]):
            pk = f"{prev.parent}.{prev.key}"
            if d.members is not None or f"{d.parent}.{d.key}" in old_keys or pk not in olds:
                continue
            o = olds[pk]
            if old[o.comment_start:o.end + 1] != new[prev.comment_start:prev.end + 1] or \
                    any(l.strip() for l in new[prev.end + 1:d.comment_start]):
                continue
            ind = _indent(new[prev.start])
            snip = [_marker(language, ind)] + new[prev.comment_start:d.end + 1] + [_marker(language, ind)]
            truth = old[:o.end + 1] + new[prev.end + 1:d.end + 1] + old[o.end + 1:]
            yield "new", snip, truth


def file_cases(set_name: str, project: str, path: str, old_text: str, new_text: str) -> list[Case]:
    language = EXTENSIONS[os.path.splitext(path)[1]]
    lang = language_for(language)
    old, new = _lines(old_text), _lines(new_text)
    if old == new or not old or _reindented(old, new):
        return []
    olds, news = _leaf_defs(lang, old), _leaf_defs(lang, new)
    raw = []
    for key, o in olds.items():
        n = news.get(key)
        if n is not None and old[o.comment_start:o.end + 1] != new[n.comment_start:n.end + 1]:
            raw.extend(_function_cases(language, old, new, o, n))
    raw.extend(_multi_cases(language, old, new))
    raw.extend(_new_def_cases(language, lang, old, new, _leaf_defs(lang, old, leaves=False)))
    out = []
    errors: dict[str, int] = {}
    runs: dict[str, tuple] = {}
    for i, (shape, snip, truth) in enumerate(raw):
        if truth == old:
            continue
        if shape == "multi" and (_broken(lang, truth, old, new, errors) or _half_move(truth, old, new, runs)):
            continue
        out.append(Case(f"{project}:{path}:{shape}:{i}", set_name, language, shape, path, _text(old),
                        _text(snip), _text(truth)))
    return out


def _reindented(old: list[str], new: list[str]) -> bool:
    """Session 47: the new release indents the file with tabs where the old one used spaces (or the
    reverse; @tanstack/router-core's build switched bundlers).  Every case's truth would be the old
    file with the new release's lines in the other style, mixed; a merge keeps the file's style
    (engine.apply.indentation, whose reading of the style this is), so the file gives no case."""
    a, b = uses_tabs(old), uses_tabs(new)
    return a is not None and b is not None and a != b


def _broken(lang, truth: list[str], old: list[str], new: list[str], errors: dict[str, int]) -> bool:
    """Session 42: hunks taken apart can leave the code broken (a literal opened in one hunk, closed
    in another left out): such a truth parses worse than both releases, a state the code never had
    and no assistant writes; the merge refuses it ("does not parse as well as the original")."""
    for name, lines in (("old", old), ("new", new)):
        if name not in errors:
            errors[name] = _error_count(lang, _text(lines))
    return _error_count(lang, _text(truth)) > max(errors.values())


RUN = 8


def _runs(lines: list[str]) -> dict[tuple[str, ...], int]:
    """How often each run of RUN lines occurs, for runs with words on at least half of their lines."""
    out: dict[tuple[str, ...], int] = {}
    for i in range(len(lines) - RUN + 1):
        run = tuple(lines[i:i + RUN])
        if sum(any(ch.isalnum() for ch in l) for l in run) * 2 >= RUN:
            out[run] = out.get(run, 0) + 1
    return out


def _half_move(truth: list[str], old: list[str], new: list[str], seen: dict) -> bool:
    """Session 45: a release that moves code (a bundle's modules reordered) shows as lines inserted in
    one hunk and deleted in another; a combination that takes the insertion without the deletion has
    the moved code twice, which neither release has and no one asks for (redux-toolkit's bundle:
    517 lines twice).  Such a truth repeats some run of lines more often than either release."""
    if "runs" not in seen:
        seen["runs"] = (_runs(old), _runs(new))
    a, b = seen["runs"]
    return any(k > 1 and k > max(a.get(run, 0), b.get(run, 0)) for run, k in _runs(truth).items())


OMISSION = Path(__file__).resolve().parent.parent / "tests" / "apply_fixtures" / "omission"


def omission_cases(sets: tuple[str, ...] = ("dev",), languages: tuple[str, ...] | None = None,
                   files: tuple[Path, ...] = ()) -> list[Case]:
    """Issue 43's cases (bench/apply_omission.py): deletions shown by omission, new lines at a
    fragment's edge; stored in tests/apply_fixtures/omission/<set>.jsonl (or read from `files`,
    each a set named after the file)."""
    out: list[Case] = []
    for set_name, f in [(s, OMISSION / f"{s}.jsonl") for s in sets] + [(Path(f).stem, Path(f)) for f in files]:
        for line in f.read_text(encoding="utf-8").splitlines() if f.exists() else ():
            c = json.loads(line)
            if languages and c["language"] not in languages:
                continue
            out.append(Case(c["id"], set_name, c["language"], c["shape"], c["path"], c["original"], c["snippet"],
                            c["truth"]))
    return out


def build(sets: tuple[str, ...] = ("dev",), languages: tuple[str, ...] | None = None,
          suite: str = "release") -> list[Case]:
    cases: list[Case] = omission_cases(sets, languages) if suite in ("omission", "all") else []
    if suite == "omission":
        return cases
    for set_name, registry, project, v_old, v_new in SOURCES:
        if set_name not in sets:
            continue
        a, b = release_files(registry, project, v_old), release_files(registry, project, v_new)
        for path in sorted(a.keys() & b.keys()):
            if languages and EXTENSIONS[os.path.splitext(path)[1]] not in languages:
                continue
            cases.extend(file_cases(set_name, project, path, a[path], b[path]))
    return cases
