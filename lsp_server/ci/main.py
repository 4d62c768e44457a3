"""`redraft ci propagate --base REF` and `redraft ci apply SNIPPET...` (see editors/ci/README.md).

Exit codes: 0 nothing to propose (or proposals made without --fail-on-proposals), 1 proposals made
with --fail-on-proposals, 2 an error (one line on stderr; nothing written).  The bot writes only the
files it is asked for and never commits or pushes: the reports (--patch, --review, --sarif) where
the user says, inside the repository or not (a CI job writes them to $RUNNER_TEMP or an artifacts
folder); the source files that `apply`'s snippets target only inside the repository.  Every path is
checked before any work: a report's directory must exist."""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from redraft.ci.git import CiError, changed_files, repo_root


def _inside(root: Path, path: str | None) -> Path | None:
    """A source file the bot changes (`apply`'s targets): only inside the repository."""
    if path is None:
        return None
    p = (Path.cwd() / path).resolve()
    if not p.is_relative_to(root.resolve()):
        raise CiError(f"{path}: the bot changes source files only inside the repository ({root})")
    return p


def _output(path: str | None) -> Path | None:
    """A report the user names (--patch, --review, --sarif): anywhere, relative to the working
    directory; its directory must exist and the path must not be a directory."""
    if path is None:
        return None
    p = (Path.cwd() / path).expanduser().resolve()
    if p.is_dir():
        raise CiError(f"{path}: is a directory (name a file to write)")
    if not p.parent.is_dir():
        raise CiError(f"{path}: no such directory {p.parent} (create it first)")
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise CiError(f"{path}: not writable")
    return p


async def _propagate(a, root: Path) -> int:
    from redraft.ci.client import HeadlessClient
    from redraft.ci.propagate import parses, passes_check, propagate
    from redraft.ci.report import markdown, patch, sarif
    outs = {k: _output(getattr(a, k)) for k in ("patch", "review", "sarif")}
    notes: list[str] = []
    changed = changed_files(root, a.base, notes)
    client = HeadlessClient(root)
    await client.start(a.model)
    try:
        results = await propagate(client, root, changed, notes)
    finally:
        await client.stop()
    kept = []
    for r in results:
        if parses(r.path, r.head, r.new):
            kept.append(r)
        else:
            notes.append(f"{r.path}: proposals dropped (the result would not parse as well as the file)")
    if a.check and kept and not passes_check(root, kept, a.check):
        # all of them together fail: keep each file's proposals only if the check passes with them alone
        alone = [r for r in kept if passes_check(root, [r], a.check)]
        notes += [f"{r.path}: proposals dropped (`{a.check}` fails with them)" for r in kept if r not in alone]
        kept = alone
    for n in notes:
        print(f"redraft ci: {n}", file=sys.stderr)
    if outs["patch"]:
        outs["patch"].write_text(patch(kept), encoding="utf-8")
    if outs["review"]:
        outs["review"].write_text(markdown(kept, a.base, notes), encoding="utf-8")
    if outs["sarif"]:
        outs["sarif"].write_text(sarif(kept), encoding="utf-8")
    n = sum(len(r.proposals) for r in kept)
    print(f"redraft ci: {n} proposal{'s' if n != 1 else ''} in {len(kept)} file{'s' if len(kept) != 1 else ''}",
          file=sys.stderr)
    return 1 if n and a.fail_on_proposals else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="redraft ci", description="The CI refactor bot (editors/ci/README.md).")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("propagate", help="propose the branch's edits where they seem missing")
    p.add_argument("--base", required=True, help="the ref the branch is compared with (its merge base)")
    p.add_argument("--check", help="a shell command that must still pass with the proposals applied")
    p.add_argument("--patch", help="write the proposals as a unified diff here (git apply)")
    p.add_argument("--review", help="write a Markdown review here")
    p.add_argument("--sarif", help="write a SARIF 2.1.0 log here (code-scanning UIs)")
    p.add_argument("--fail-on-proposals", action="store_true", help="exit 1 when anything is proposed")
    p.add_argument("--model", help="checkpoint directory (default: the shipped model)")
    q = sub.add_parser("apply", help="apply lazy edit snippets to the working tree through the server")
    q.add_argument("snippets", nargs="+", metavar="FILE=SNIPPET",
                   help="a target file and the snippet to merge into it")
    q.add_argument("--patch", help="write the changes as a unified diff here")
    q.add_argument("--model", help="checkpoint directory (default: the shipped model)")
    a = ap.parse_args(argv)
    try:
        root = repo_root(Path.cwd())
        if a.cmd == "propagate":
            return asyncio.run(_propagate(a, root))
        from redraft.ci.apply import apply_snippets
        return asyncio.run(apply_snippets(a, root, _inside, _output))
    except CiError as e:
        print(f"redraft ci: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001 - one line, exit 2
        print(f"redraft ci: {type(e).__name__}: {e}".split("\n")[0], file=sys.stderr)
        return 2
