"""The bot's outputs: a unified diff `git apply` takes, a Markdown review, a SARIF log."""
from __future__ import annotations

import difflib
import json

from redraft.ci.propagate import FileResult


def patch(results: list[FileResult]) -> str:
    out = []
    for r in sorted(results, key=lambda r: r.path):
        out += difflib.unified_diff(r.head.splitlines(True), r.new.splitlines(True), f"a/{r.path}", f"b/{r.path}")
    text = "".join(out)
    return text if not text or text.endswith("\n") else text + "\n"


def markdown(results: list[FileResult], base: str, notes: list[str]) -> str:
    n = sum(len(r.proposals) for r in results)
    lines = [f"## redraft: {n} place{'s' if n != 1 else ''} where the branch's edit seems missing" if n else
             "## redraft: no place found where the branch's edit seems missing", "",
             f"Compared with `{base}`. Each proposal carries one of the branch's edits to another place "
             "(redraft's next-edit prediction); apply them all with the attached patch (`git apply`).", ""]
    for r in sorted(results, key=lambda r: r.path):
        for p in r.proposals:
            sure = "" if p.confidence is None else f" (confidence {p.confidence:.1f})"
            lines += [f"### `{r.path}` line {p.line + 1}{sure}", "", "```diff"]
            lines += ["-" + l for l in p.before.split("\n")] + ["+" + l for l in p.after.split("\n")]
            lines += ["```", ""]
    if notes:
        lines += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]
    return "\n".join(lines)


def sarif(results: list[FileResult]) -> str:
    runs_results = []
    for r in sorted(results, key=lambda r: r.path):
        for p in r.proposals:
            runs_results.append({
                "ruleId": "redraft/missing-edit", "level": "note",
                "message": {"text": f"The branch's edit seems missing here: {p.before.strip()!r} -> {p.after.strip()!r}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": r.path},
                                                    "region": {"startLine": p.line + 1,
                                                               "endLine": p.line + 1 + p.before.count("\n")}}}]})
    log = {"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
           "runs": [{"tool": {"driver": {"name": "redraft", "informationUri": "https://github.com/redraft",
                                         "rules": [{"id": "redraft/missing-edit",
                                                    "shortDescription": {"text": "An edit the branch made elsewhere seems missing here"}}]}},
                     "results": runs_results}]}
    return json.dumps(log, indent=2) + "\n"
