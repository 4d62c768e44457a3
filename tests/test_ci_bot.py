"""`redraft ci` on real git repositories made here: the bot starts the real server and proposes the
branch's rename where it is missing; `--check`; `ci apply`; reports written outside the repository
(a CI runner's temporary directory); bad input changes nothing."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
USERS = '''def fetch_user(user_id):
    return {"id": user_id}


def show(user_id):
    print(fetch_user(user_id))


def greet(user_id):
    user = fetch_user(user_id)
    return "hi " + str(user["id"])


def audit(ids):
    return [fetch_user(i) for i in ids]
'''
APP = "from users import fetch_user\n\n\ndef main():\n    print(fetch_user(1))\n"


def sh(cwd: Path, *args: str, env: dict[str, str] | None = None, shell: bool = False) -> subprocess.CompletedProcess:
    """`args` run in `cwd`; with `shell`, joined into one shell line (quoted, but $VARS expand)."""
    cmd = " ".join(a if a.startswith("$") else shlex.quote(a) for a in args) if shell else list(args)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, shell=shell,
                          env={**os.environ, **(env or {})})


def ci_cmd() -> list[str]:
    exe = shutil.which("redraft", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert exe, "redraft is not on PATH next to this interpreter"
    return [exe]


def ci(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`redraft ci` as a CI job runs it: the console script, in the repository."""
    return sh(cwd, *ci_cmd(), "ci", *args)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main: users.py and app.py; branch `rename`: fetch_user renamed at its definition and at one
    of its three call sites in users.py (the other two, and app.py's, not yet)."""
    r = tmp_path / "repo"
    r.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.com"], ["config", "user.name", "t"]):
        sh(r, "git", *args)
    (r / "users.py").write_text(USERS)
    (r / "app.py").write_text(APP)
    (r / "redraft").mkdir()           # a module of the bot's own name in the repository under review
    (r / "redraft" / "__init__.py").write_text("raise SystemExit('the repository code ran')\n")
    sh(r, "git", "add", ".")
    sh(r, "git", "commit", "-qm", "base")
    sh(r, "git", "checkout", "-q", "-b", "rename")
    (r / "users.py").write_text(USERS.replace("def fetch_user", "def load_user")
                                .replace("print(fetch_user(user_id))", "print(load_user(user_id))"))
    sh(r, "git", "commit", "-qam", "rename at the definition and one call")
    return r


def test_the_bot_proposes_the_rename_at_the_other_call_sites_and_its_patch_applies(repo: Path):
    p = ci(repo, "propagate", "--base", "main", "--patch", "out.patch", "--review", "review.md", "--sarif", "out.sarif")
    assert p.returncode == 0, p.stderr
    assert "3 proposals in 2 files" in p.stderr
    assert sh(repo, "git", "status", "--short").stdout.split() == ["??", "out.patch", "??", "out.sarif",
                                                                   "??", "review.md"]   # nothing else touched
    assert sh(repo, "git", "apply", "out.patch").returncode == 0
    assert "fetch_user" not in (repo / "users.py").read_text() + (repo / "app.py").read_text()
    assert (repo / "users.py").read_text() == USERS.replace("fetch_user", "load_user")
    review = (repo / "review.md").read_text()
    assert "3 places" in review and "`users.py` line 10" in review and "+    user = load_user(user_id)" in review
    sarif = json.loads((repo / "out.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    assert sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                   r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in sarif["runs"][0]["results"]) \
        == [("app.py", 1), ("users.py", 10), ("users.py", 15)]


def test_reports_go_outside_the_repository_where_the_user_says(repo: Path, tmp_path: Path):
    """GitHub Actions' $RUNNER_TEMP, GitLab's artifacts folder: outside the checkout; the repository
    stays untouched."""
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    p = sh(repo, *ci_cmd(), "ci", "propagate", "--base", "main", "--patch", "$RUNNER_TEMP/p.diff",
           "--review", "../runner-temp/review.md", "--sarif", str(runner_temp / "out.sarif"),
           env={"RUNNER_TEMP": str(runner_temp)}, shell=True)
    assert p.returncode == 0, p.stderr
    assert "3 proposals in 2 files" in p.stderr
    assert sorted(f.name for f in runner_temp.iterdir()) == ["out.sarif", "p.diff", "review.md"]
    assert sh(repo, "git", "status", "--short").stdout == ""              # nothing written in the checkout
    assert "+    user = load_user(user_id)" in (runner_temp / "review.md").read_text()
    assert json.loads((runner_temp / "out.sarif").read_text())["version"] == "2.1.0"
    assert sh(repo, "git", "apply", str(runner_temp / "p.diff")).returncode == 0
    assert (repo / "users.py").read_text() == USERS.replace("fetch_user", "load_user")


def test_a_failing_check_drops_the_proposals_and_a_passing_one_keeps_them(repo: Path):
    p = ci(repo, "propagate", "--base", "main", "--check", f"{sys.executable} -c 'raise SystemExit(1)'",
           "--patch", "out.patch", "--fail-on-proposals")
    assert p.returncode == 0 and "proposals dropped" in p.stderr and (repo / "out.patch").read_text() == ""
    p = ci(repo, "propagate", "--base", "main", "--check", f"{sys.executable} -c 'import users, app'",
           "--patch", "out.patch", "--fail-on-proposals")
    assert p.returncode == 1 and "3 proposals" in p.stderr          # proposals made: exit 1 as asked
    # the check imports the original tree: with fetch_user renamed at its definition app.py fails,
    # with the proposals applied it passes (so a passing check is what kept them)
    assert sh(repo, sys.executable, "-c", "import app").returncode != 0


def test_nothing_to_propose_exits_0_and_writes_an_empty_patch(repo: Path):
    p = ci(repo, "propagate", "--base", "rename", "--patch", "out.patch", "--fail-on-proposals")
    assert p.returncode == 0 and (repo / "out.patch").read_text() == "" and "0 proposals" in p.stderr


def test_ci_apply_merges_lazy_snippets_through_the_server(repo: Path, tmp_path: Path):
    snippet = tmp_path / "audit.txt"
    snippet.write_text("# ... existing code ...\ndef audit(ids):\n    return sorted(fetch_user(i)['id'] for i in ids)\n")
    artifacts = tmp_path / "artifacts"          # the patch outside the repository, the file inside
    artifacts.mkdir()
    p = ci(repo, "apply", f"users.py={snippet}", "--patch", str(artifacts / "apply.patch"))
    assert p.returncode == 0, p.stderr
    assert "return sorted(fetch_user(i)['id'] for i in ids)" in (repo / "users.py").read_text()
    assert "+    return sorted(fetch_user(i)['id'] for i in ids)" in (artifacts / "apply.patch").read_text()
    assert sh(repo, "git", "status", "--short").stdout.split() == ["M", "users.py"]
    bad = tmp_path / "bad.txt"
    bad.write_text("def nowhere():\n    return 1\n# ... existing code ...\ndef q():\n")
    before = (repo / "users.py").read_text()
    p = ci(repo, "apply", f"users.py={snippet}", f"app.py={bad}")
    assert p.returncode == 2 and "cannot" in p.stderr and p.stderr.count("\n") == 1
    assert (repo / "users.py").read_text() == before          # the good snippet was not written either


def test_bad_input_is_a_clear_error_and_changes_nothing(repo: Path, tmp_path: Path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    p = ci(outside, "propagate", "--base", "main")
    assert p.returncode == 2 and "not inside a git repository" in p.stderr
    p = ci(repo, "propagate", "--base", "no-such-branch")
    assert p.returncode == 2 and "unknown git ref 'no-such-branch'" in p.stderr
    # a report in a directory that does not exist: checked first (before the ref, before any work)
    for flag in ("--patch", "--review", "--sarif"):
        p = ci(repo, "propagate", "--base", "no-such-branch", flag, str(outside / "missing" / "x.out"))
        assert p.returncode == 2 and "no such directory" in p.stderr and p.stderr.count("\n") == 1, p.stderr
        assert not (outside / "missing").exists()
    p = ci(repo, "propagate", "--base", "main", "--patch", str(outside))
    assert p.returncode == 2 and "is a directory" in p.stderr
    p = ci(repo, "apply", f"users.py={repo / 'app.py'}", "--patch", "no-dir/apply.patch")
    assert p.returncode == 2 and "no such directory" in p.stderr
    p = ci(repo, "apply", f"{outside / 'x.py'}={repo / 'app.py'}")   # source files: inside only
    assert p.returncode == 2 and "only inside the repository" in p.stderr
    assert sh(repo, "git", "status", "--short").stdout == ""
    (repo / "blob.bin").write_bytes(bytes(range(256)) * 8)
    (repo / "big.py").write_text("x = 1\n" * (2 * 1024 * 1024))           # 12 MB
    sh(repo, "git", "add", "blob.bin", "big.py")
    sh(repo, "git", "commit", "-qm", "binary and big")
    (repo / "big.py").write_text("y = 2\n" * (2 * 1024 * 1024))
    (repo / "blob.bin").write_bytes(bytes(range(255, -1, -1)) * 8)
    status = sh(repo, "git", "status", "--short").stdout
    p = ci(repo, "propagate", "--base", "HEAD", "--patch", "out.patch")
    assert p.returncode == 0, p.stderr
    assert "blob.bin: skipped (binary)" in p.stderr and "big.py: skipped (larger than 2 MB)" in p.stderr
    assert sh(repo, "git", "status", "--short").stdout == status + "?? out.patch\n"
