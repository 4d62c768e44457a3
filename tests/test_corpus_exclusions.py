"""The apply benchmarks' packages are evaluation code, kept out of training (found in session 33: the
corpus of this machine's site-packages and the pinned npm and Debian sources held many of them).
bench/apply_packages.txt names every package both case builders read, and model/data.py's
held_back leaves their files out however the corpus lays them out: a module under site-packages,
an npm or Debian directory with its version, a Go import path; others of the same short name stay."""
from __future__ import annotations

import sys
from pathlib import Path

from redraft.model.data import excluded_names, held_back

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import apply_cases  # noqa: E402
import apply_omission  # noqa: E402


def _listed() -> set[str]:
    rows = [l.split() for l in (BENCH / "apply_packages.txt").read_text().splitlines() if l and not l.startswith("#")]
    return {r[3] for r in rows}


def test_every_apply_source_is_listed():
    listed = _listed()
    projects = {s[2] for s in apply_cases.SOURCES}
    archives = {s[1].rsplit("-", 1)[0] if s[1].startswith(("py/", "npm/")) else s[1].split("_")[0]
                for s in apply_omission.SOURCES + apply_omission.SYNTHETIC + apply_omission.MORE_SOURCES}
    assert projects <= listed, projects - listed
    assert archives <= listed, archives - listed


def test_their_files_are_held_back_wherever_the_corpus_has_them():
    names = excluded_names()
    for path in ("python3.11/site-packages/werkzeug/routing/rules.py", "site-packages/attr/_make.py",
                 "site-packages/markupsafe/__init__.py", "js/rxjs-7.8.2/dist/cjs/index.js",
                 "js/debug-4.4.3/src/index.js", "js/tanstack-query-core-5.17.0/src/query.ts",
                 "go/usr/share/gocode/src/github.com/google/uuid/uuid.go",
                 "rust/usr/share/cargo/registry/semver-1.0.14/src/lib.rs",
                 "site-packages/ray/_private/runtime_env/agent/thirdparty_files/idna/core.py"):
        assert held_back(path, names), path
    for path in ("js/react-19.3.1/index.js", "js/uuid-14.0.3/dist/index.js", "js/webpack-5.112.2/lib/debug/x.js",
                 "site-packages/urllib3/util/retry.py", "python3.11/json/decoder.py",
                 "go/usr/share/gocode/src/github.com/pkg/sftp/client.go"):
        assert not held_back(path, names), path


def test_the_tokenizer_texts_leave_them_out_too(tmp_path):
    import gzip
    import json

    from redraft.model.corpus import texts_by_language
    rows = [{"path": "js/rxjs-7.8.2/dist/index.js", "text": "export const rx = 1;\n", "lang": "javascript"},
            {"path": "js/react-19.3.1/index.js", "text": "export const react = 1;\n", "lang": "javascript"},
            {"path": "site-packages/jinja2/nodes.py", "text": "class Node:\n    pass\n"}]
    with gzip.open(tmp_path / "train.jsonl.gz", "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    assert texts_by_language(tmp_path, "train") == {"javascript": ["export const react = 1;\n"]}
