"""editors/ci: the GitHub Actions workflow and the GitLab CI job parse, trigger on pull/merge
requests with the full history, and run a `redraft ci` command line that the bot's own parser
accepts, after making the directories its reports go to (the bot refuses a report path whose
directory does not exist, before any work; the reports may be outside the checkout)."""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from unittest import mock

import yaml

from redraft.ci import main as cli

CI = Path(__file__).resolve().parents[1] / "editors" / "ci"


def bot_args(script: str) -> argparse.Namespace:
    """The `redraft ci ...` command in a script, parsed by the bot's own argument parser."""
    line = next(l for l in script.replace("\\\n", " ").split("\n") if l.strip().startswith("redraft ci "))
    words = shlex.split(line.strip())[2:]
    seen = {}
    with mock.patch.object(cli, "repo_root", side_effect=SystemExit(0)):   # stop after parsing
        real = argparse.ArgumentParser.parse_args

        def capture(self, args=None, namespace=None):
            seen["a"] = real(self, args, namespace)
            return seen["a"]
        with mock.patch.object(argparse.ArgumentParser, "parse_args", capture):
            try:
                cli.main(words)
            except SystemExit:
                pass
    return seen["a"]


def made_first(script: str, paths: list[str]) -> bool:
    """Each path's directory is created (`mkdir -p DIR`) in the script before `redraft ci` runs."""
    before = script[:script.index("redraft ci ")]
    made = {w for l in before.split("\n") if l.strip().startswith("mkdir ") for w in shlex.split(l.strip())[1:]
            if not w.startswith("-")}
    return all(str(Path(p).parent) in made for p in paths)


def test_github_workflow():
    wf = yaml.safe_load((CI / "github" / "redraft.yml").read_text())
    on = wf.get("on", wf.get(True))                      # YAML 1.1 reads a bare `on` as True
    assert "pull_request" in on
    job = wf["jobs"]["propagate"]
    steps = job["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    run = next(s["run"] for s in steps if "redraft ci propagate" in s.get("run", ""))
    a = bot_args(run)
    assert a.cmd == "propagate" and a.base == "origin/${{ github.base_ref }}" and a.fail_on_proposals
    assert all(p.startswith("redraft-out/") for p in (a.patch, a.review, a.sarif))
    assert made_first(run, [a.patch, a.review, a.sarif])
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any("gh pr comment" in s.get("run", "") for s in steps)
    assert wf["permissions"]["pull-requests"] == "write" and wf["permissions"]["contents"] == "read"
    install = next(s["run"] for s in steps if "pip install" in s.get("run", ""))
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in install


def test_gitlab_job():
    doc = yaml.safe_load((CI / "gitlab" / "redraft.gitlab-ci.yml").read_text())
    job = doc["redraft"]
    assert job["rules"][0]["if"] == '$CI_PIPELINE_SOURCE == "merge_request_event"'
    assert job["variables"]["GIT_DEPTH"] == "0"
    script = "\n".join(job["script"])
    a = bot_args(script)
    assert a.cmd == "propagate" and a.base == "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
    assert all(p.startswith("redraft-out/") for p in (a.patch, a.review, a.sarif))
    assert made_first(script, [a.patch, a.review, a.sarif])
    assert "redraft-out/" in job["artifacts"]["paths"]
    assert "merge_requests/$CI_MERGE_REQUEST_IID/notes" in script
