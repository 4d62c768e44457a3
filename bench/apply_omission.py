"""Issue 43's cases for bench/apply.py: deletions shown by omission and new lines at a fragment's
edge, cut from real code and written to tests/apply_fixtures/omission/<set>.jsonl (the only copy
the bench reads; a few KB a case).

    .venv/bin/python bench/apply_omission.py DOWNLOAD_DIR     # rebuild the fixtures (needs the archives)
    .venv/bin/python bench/apply_omission.py DOWNLOAD_DIR --every OUT.jsonl   # every dev case: a stress set

DOWNLOAD_DIR holds the archives (fetched with `pip download --no-deps --no-binary :all: P==V`,
`npm pack P@V`, `apt-get download golang-...-dev librust-...-dev`).  Python, JavaScript and
TypeScript cases come from the diff between two releases (SOURCES); Go and Rust from one Debian
release, the edit made from the package's own code (SYNTHETIC): its first import line or header
comment deleted, its last definition deleted, an import deleted between shown lines, and one of
its functions copied under a new name before or after a neighbour.  MORE_SOURCES (TypeScript and
modern JavaScript packages that ship their sources) are read last, so that adding them only appends
cases.  A cut truth that defines a name more often than either release (a hunk of a reordered file
shown alone) is skipped.

Shapes (each snippet written as an assistant writes it, markers in the language's comment syntax):

* ``delete-top``: the snippet starts at the file's new first line, no marker before it, and ends
  with a marker; the file's old first lines are gone.
* ``delete-bottom``: a marker, then the file's new last lines, no marker after; the old tail is gone.
* ``delete-between``: a marker, a hunk that drops lines between two shown lines, a marker.
* ``reorder``: as delete-between, the hunk's changed lines are imports.
* ``new-before``: a marker, a new definition, then the first two lines of the existing one after it, a marker.
* ``new-after``: a marker, the last three lines of an existing definition, a new one, a marker.
* ``method-after-header``: a class header (and docstring) shown, a new first method, a marker.
"""
from __future__ import annotations

import difflib
import json
import os
import re
import sys
import tarfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from apply_cases import showable  # noqa: E402
from redraft.engine.apply.definitions import collect_defs  # noqa: E402
from redraft.engine.syntax.languages import language_for  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "apply_fixtures" / "omission"
EXT = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".ts": "typescript",
       ".go": "go", ".rs": "rust"}
MARK = {"python": "# ... existing code ..."}
MAX_BYTES = 20000         # original files at most this large: the fixtures stay small
PER_SHAPE = 3             # cases of one shape from one package at most

# (set, archive of the old release, archive of the new release)
SOURCES = [
    ("dev", "py/attrs-22.2.0.tar.gz", "py/attrs-23.1.0.tar.gz"),
    ("dev", "py/itsdangerous-2.0.1.tar.gz", "py/itsdangerous-2.1.2.tar.gz"),
    ("dev", "py/packaging-21.3.tar.gz", "py/packaging-23.2.tar.gz"),
    ("dev", "py/pluggy-1.0.0.tar.gz", "py/pluggy-1.3.0.tar.gz"),
    ("dev", "npm/debug-4.3.1.tgz", "npm/debug-4.3.4.tgz"),
    ("dev", "npm/semver-7.3.5.tgz", "npm/semver-7.5.4.tgz"),
    ("dev", "npm/immer-9.0.15.tgz", "npm/immer-9.0.21.tgz"),
    ("heldout", "py/more-itertools-9.0.0.tar.gz", "py/more-itertools-10.1.0.tar.gz"),
    ("heldout", "py/tomli-1.2.3.tar.gz", "py/tomli-2.0.1.tar.gz"),
    ("heldout", "py/idna-3.3.tar.gz", "py/idna-3.7.tar.gz"),
    ("heldout", "py/MarkupSafe-2.0.1.tar.gz", "py/MarkupSafe-2.1.3.tar.gz"),
    ("heldout", "npm/commander-9.0.0.tgz", "npm/commander-9.5.0.tgz"),
    ("heldout", "npm/mobx-6.6.2.tgz", "npm/mobx-6.10.2.tgz"),
]
# (set, Debian archive) of Go and Rust sources, one release each
SYNTHETIC = [
    ("dev", "deb/golang-github-google-uuid-dev_1.3.0-1_all.deb"),
    ("dev", "deb/librust-semver-dev_1.0.14-1_amd64.deb"),
    ("heldout", "deb/golang-github-pkg-errors-dev_0.9.1-2_all.deb"),
    ("heldout", "deb/librust-either-dev_1.6.1-1_amd64.deb"),
]
# more release pairs (TypeScript and modern JavaScript sources shipped in the npm tarball), read after
# SYNTHETIC so that the cases above keep their places: the fixtures only grow at the end
MORE_SOURCES = [
    ("dev", "npm/tanstack-query-core-5.0.0.tgz", "npm/tanstack-query-core-5.17.0.tgz"),
    ("dev", "npm/ajv-8.11.0.tgz", "npm/ajv-8.12.0.tgz"),
    ("dev", "npm/postcss-8.4.21.tgz", "npm/postcss-8.4.31.tgz"),
    ("dev", "npm/tanstack-table-core-8.7.0.tgz", "npm/tanstack-table-core-8.10.7.tgz"),
    ("dev", "npm/trpc-server-10.20.0.tgz", "npm/trpc-server-10.38.0.tgz"),
    # session 32: TypeScript sources of nine more release pairs (an optional fourth element keeps only
    # the paths under it: the @effect packages ship their compiled JavaScript beside src/)
    ("dev", "npm/trpc-client-10.20.0.tgz", "npm/trpc-client-10.38.0.tgz"),
    ("dev", "npm/trpc-react-query-10.20.0.tgz", "npm/trpc-react-query-10.38.0.tgz"),
    ("dev", "npm/tanstack-form-core-0.10.0.tgz", "npm/tanstack-form-core-0.13.0.tgz"),
    ("dev", "npm/tanstack-virtual-core-3.0.0.tgz", "npm/tanstack-virtual-core-3.1.0.tgz"),
    ("dev", "npm/tanstack-vue-query-5.0.0.tgz", "npm/tanstack-vue-query-5.17.0.tgz"),
    ("dev", "npm/effect-2.0.0.tgz", "npm/effect-2.1.0.tgz", "src/"),
    ("dev", "npm/effect-data-0.12.10.tgz", "npm/effect-data-0.17.0.tgz", "src/"),
    ("dev", "npm/effect-io-0.31.3.tgz", "npm/effect-io-0.38.0.tgz", "src/"),
    ("dev", "npm/effect-schema-0.30.0.tgz", "npm/effect-schema-0.33.0.tgz", "src/"),
]


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def _ind(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]


def _marker(language: str, indent: str = "") -> str:
    return indent + MARK.get(language, "// ... existing code ...")


def _tar_files(path: Path) -> dict[str, str]:
    out = {}
    with tarfile.open(path) as tf:
        for m in tf.getmembers():
            p = m.name.split("/", 1)[-1]
            if not m.isfile() or os.path.splitext(p)[1] not in EXT or p.endswith(".d.ts") or ".min." in p \
                    or "/dist/" in f"/{p}" or "/cjs/" in f"/{p}" or "/esm/" in f"/{p}" \
                    or "/build/" in f"/{p}":
                continue
            try:
                t = tf.extractfile(m).read().decode("utf-8")
            except UnicodeDecodeError:
                continue
            if "\r" not in t and len(t.encode()) <= MAX_BYTES:
                out[p] = t
    return out


def _deb_files(path: Path) -> dict[str, str]:
    import subprocess
    import tempfile
    d = tempfile.mkdtemp()
    subprocess.run(["dpkg-deb", "-x", str(path), d], check=True)
    out = {}
    for f in Path(d).rglob("*"):
        if f.suffix in (".go", ".rs") and f.is_file() and "_test" not in f.name and not f.is_symlink():
            t = f.read_text(encoding="utf-8", errors="replace")
            if "\r" not in t and len(t.encode()) <= MAX_BYTES:
                out[str(f.relative_to(d))] = t
    return out


def _defs(lang, lines):
    return collect_defs(lang, lines)


_IMPORT = re.compile(r"^\s*(import\b|from\s+\S+\s+import\b|use\b|const\s+\w+\s*=\s*require\(|\"[\w./-]+\"$|[\w.]+ \"[\w./-]+\"$)")


def diff_cases(language: str, old: list[str], new: list[str]):
    """(shape, snippet, truth) from a real diff."""
    lang = language_for(language)
    groups = list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3))
    for gi, g in enumerate(groups):
        g = showable(old, g)          # session 34: a deletion next to a marker cannot be shown
        if g is None:
            continue
        i1, i2, j1, j2 = g[0][1], g[-1][2], g[0][3], g[-1][4]
        changed = [op for op in g if op[0] != "equal"]
        drops = any(t == "delete" or (t == "replace" and b - a > d - c) for t, a, b, c, d in changed)
        if not drops:
            continue
        truth = old[:i1] + new[j1:j2] + old[i2:]
        if truth == old or not any(l.strip() for l in new[j1:j2]) or _duplicates(lang, old, new, truth):
            continue
        top = changed[0][1] == 0 and i1 == 0 and changed[0][0] in ("delete", "replace")
        bottom = changed[-1][2] == len(old) and i2 == len(old) and changed[-1][0] in ("delete", "replace")
        if top and not bottom:
            yield "delete-top", new[j1:j2] + [_marker(language)], truth
        elif bottom and not top:
            yield "delete-bottom", [_marker(language)] + new[j1:j2], truth
        elif not top and not bottom:
            lines = [l for t, a, b, c, d in changed for l in old[a:b] + new[c:d] if l.strip()]
            shape = "reorder" if lines and all(_IMPORT.match(l) for l in lines) else "delete-between"
            yield shape, [_marker(language, "")] + new[j1:j2] + [_marker(language, "")], truth
    yield from new_def_cases(language, lang, old, new)


def _duplicates(lang, old, new, truth) -> bool:
    """The cut truth defines a name more often than either release does (a hunk of a reordered
    file shown alone keeps the moved definitions twice): not a file anyone would write."""
    def counts(lines):
        return Counter((d.parent, d.key) for d in _defs(lang, lines))     # collect_defs: members included
    co, cn = counts(old), counts(new)
    return any(v > max(co.get(k, 0), cn.get(k, 0)) for k, v in counts(truth).items())


def new_def_cases(language, lang, old, new):
    odefs, ndefs = _defs(lang, old), _defs(lang, new)

    def flat(ds):
        for d in ds:
            yield d
            if d.members:
                yield from flat(d.members)
    okeys = {(d.parent, d.key): d for d in flat(odefs)}
    nall = list(flat(ndefs))
    by_parent: dict = {}
    for d in nall:
        by_parent.setdefault(d.parent, []).append(d)
    for parent, sibs in by_parent.items():
        sibs.sort(key=lambda d: d.start)
        for k, d in enumerate(sibs):
            if (d.parent, d.key) in okeys or d.members:
                continue
            ind = d.indent_text
            nxt = sibs[k + 1] if k + 1 < len(sibs) else None
            prv = sibs[k - 1] if k else None
            # new-before: the existing definition after it shows its first two lines
            if nxt is not None and (nxt.parent, nxt.key) in okeys and nxt.end - nxt.start >= 3:
                o = okeys[(nxt.parent, nxt.key)]
                if old[o.comment_start:o.start + 2] == new[nxt.comment_start:nxt.start + 2] and \
                        (prv is None or (prv.parent, prv.key) in okeys) and \
                        not any(l.strip() for l in new[d.end + 1:nxt.comment_start]):   # (only the new one)
                    body = _ind(new[nxt.start + 1]) if new[nxt.start + 1].strip() else ind
                    snip = [_marker(language, ind)] + new[d.comment_start:nxt.start + 2] + [_marker(language, body)]
                    truth = old[:o.comment_start] + new[d.comment_start:nxt.comment_start] + old[o.comment_start:]
                    yield "new-before", snip, truth
                    continue
            # new-after: the existing definition before it shows its last three lines
            if prv is not None and (prv.parent, prv.key) in okeys and prv.end - prv.start >= 4:
                o = okeys[(prv.parent, prv.key)]
                if old[o.end - 2:o.end + 1] == new[prv.end - 2:prv.end + 1] and \
                        not any(l.strip() for l in new[prv.end + 1:d.comment_start]):
                    snip = [_marker(language, _ind(new[prv.end - 2]))] + new[prv.end - 2:d.end + 1] + \
                        [_marker(language, ind)]
                    truth = old[:o.end + 1] + new[prv.end + 1:d.end + 1] + old[o.end + 1:]
                    yield "new-after", snip, truth
                    continue
            # method-after-header: a new first member of an existing class, after its header
            if parent is not None and prv is None and nxt is not None and (nxt.parent, nxt.key) in okeys:
                cls = next((c for c in nall if c.members and d in c.members), None)
                ocls = next((c for c in flat(odefs) if c.members and c.key == (cls.key if cls else None)
                             and c.parent == (cls.parent if cls else None)), None)
                o = okeys[(nxt.parent, nxt.key)]
                if cls is None or ocls is None or ocls.members[0] is not o:
                    continue
                head = new[cls.start:d.comment_start]
                if head != old[ocls.start:o.comment_start] or cls.start == 0:
                    continue
                snip = [_marker(language)] + new[cls.start:d.end + 1] + [_marker(language, ind)]
                if ocls.end < len(old) - 1 and not lang.indent_blocks:
                    snip += [new[cls.end]] if new[cls.end].strip() in ("}", "};") else []
                if ocls.end < len(old) - 1:
                    snip += [_marker(language)]
                truth = old[:o.comment_start] + new[d.comment_start:nxt.comment_start] + old[o.comment_start:]
                yield "method-after-header", snip, truth


def synthetic_new(language: str, lines: list[str], donor: list[str], rng) -> list[tuple[str, list[str]]]:
    """Edits of one real file from the package's own code: (label, new lines)."""
    lang = language_for(language)
    out = []
    defs = [d for d in _defs(lang, lines) if d.members is None and not d.indent_text]
    # first import line (or the header comment) deleted
    imp = next((i for i, l in enumerate(lines) if _IMPORT.match(l) or l.startswith(("import (", "use "))), None)
    if lines and lines[0].startswith("//"):
        k = 0
        while k < len(lines) and lines[k].startswith("//"):
            k += 1
        if k < len(lines) and not lines[k].strip():
            k += 1
        out.append(("top", lines[k:]))
    if imp is not None and lines[imp].startswith(("import (", "use ")):
        if lines[imp].startswith("import ("):
            j = imp + 1
            if j < len(lines) and lines[j].strip().startswith('"') and lines[j + 1].strip() != ")":
                out.append(("between", lines[:j] + lines[j + 1:]))
        elif imp + 1 < len(lines) and lines[imp + 1].startswith("use "):
            out.append(("between", lines[:imp] + lines[imp + 1:]))
    if len(defs) >= 3:
        d = defs[-1]
        a = d.comment_start
        while a > 0 and not lines[a - 1].strip():
            a -= 1
        if all(not l.strip() for l in lines[d.end + 1:]):
            out.append(("bottom", lines[:a]))
    donors = [d for d in _defs(lang, donor) if d.members is None and not d.indent_text and 3 <= d.end - d.start <= 14
              and donor[d.start].lstrip().startswith(("func ", "fn ", "pub fn "))]
    if donors and len(defs) >= 2:
        src = donors[rng.randrange(len(donors))]
        text = donor[src.comment_start:src.end + 1]
        text = [re.sub(rf"\b{re.escape(src.name)}\b", src.name + ("V2" if language == "go" else "_v2"), l)
                for l in text]
        k = rng.randrange(1, len(defs))
        at = defs[k].comment_start
        out.append(("insert", lines[:at] + text + [""] + lines[at:]))
    return out


def build(root: Path) -> dict[str, list[dict]]:
    sets: dict[str, list[dict]] = {"dev": [], "heldout": []}
    _release_cases(root, SOURCES, sets)
    _synthetic_cases(root, sets)
    _release_cases(root, MORE_SOURCES, sets)
    return sets


def _release_cases(root: Path, sources, sets) -> None:
    for set_name, a, b, *under in sources:
        pkg = Path(a).name.rsplit("-", 1)[0]
        va, vb = Path(a).name.rsplit("-", 1)[1].replace(".tar.gz", "").replace(".tgz", ""), \
            Path(b).name.rsplit("-", 1)[1].replace(".tar.gz", "").replace(".tgz", "")
        fa, fb = _tar_files(root / a), _tar_files(root / b)
        count: dict[str, int] = {}
        for path in sorted(p for p in fa.keys() & fb.keys() if p.startswith(tuple(under) or "")):
            if fa[path] == fb[path]:
                continue
            language = EXT[os.path.splitext(path)[1]]
            old, new = _lines(fa[path]), _lines(fb[path])
            for shape, snip, truth in diff_cases(language, old, new):
                if count.get(shape, 0) >= PER_SHAPE:
                    continue
                count[shape] = count.get(shape, 0) + 1
                sets[set_name].append({"id": f"{pkg}:{path}:{shape}:{count[shape]}", "package": f"{pkg} {va}->{vb}",
                                       "language": language, "shape": shape, "path": path,
                                       "original": _text(old), "snippet": _text(snip), "truth": _text(truth)})


def _synthetic_cases(root: Path, sets) -> None:
    import random
    for set_name, a in SYNTHETIC:
        pkg = Path(a).name.split("_")[0]
        files = _deb_files(root / a)
        rng = random.Random(43)
        count = {}
        paths = sorted(files)
        for path in paths:
            language = EXT[os.path.splitext(path)[1]]
            old = _lines(files[path])
            donor = _lines(files[paths[(paths.index(path) + 1) % len(paths)]])
            for label, new in synthetic_new(language, old, donor, rng):
                for shape, snip, truth in diff_cases(language, old, new):
                    if count.get(shape, 0) >= PER_SHAPE:
                        continue
                    count[shape] = count.get(shape, 0) + 1
                    sets[set_name].append({"id": f"{pkg}:{path}:{shape}:{count[shape]}", "package": pkg + " (Debian, edit "
                                           "from its own code)", "language": language, "shape": shape, "path": path,
                                           "original": _text(old), "snippet": _text(snip), "truth": _text(truth)})


def every(root: Path, out: Path) -> int:
    """The development packages' every case of each shape (no cap of PER_SHAPE, files up to twice
    MAX_BYTES), as a stress set written to `out` (not committed; `bench/apply.py --cases out`)."""
    global PER_SHAPE, MAX_BYTES, SOURCES, SYNTHETIC, MORE_SOURCES
    PER_SHAPE, MAX_BYTES = 10 ** 9, 2 * MAX_BYTES
    SOURCES, SYNTHETIC, MORE_SOURCES = ([s for s in group if s[0] == "dev"] for group in (SOURCES, SYNTHETIC,
                                                                                             MORE_SOURCES))
    cases = build(root)["dev"]
    with open(out, "w", encoding="utf-8") as fh:
        for c in cases:
            fh.write(json.dumps(c) + "\n")
    print(out, len(cases))
    return 0


def main(argv=None) -> int:
    args = argv or sys.argv[1:]
    root = Path(args[0])
    if len(args) == 3 and args[1] == "--every":
        return every(root, Path(args[2]))
    OUT.mkdir(parents=True, exist_ok=True)
    for name, cases in build(root).items():
        with open(OUT / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            for c in cases:
                fh.write(json.dumps(c) + "\n")
        print(name, len(cases), sorted({(c["language"], c["shape"]) for c in cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
