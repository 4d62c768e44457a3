"""Apply-edit benchmark (issue 23): real edits between two releases of open-source packages.

    .venv/bin/python bench/apply.py [--set SPLIT|all]   (SPLIT: dev, heldout, fresh ... fresh36: apply_sources.SOURCES)
                                    [--suite release|omission|all] [--language L]
                                    [--via merge|cli|oracle] [--failures out.jsonl] [--json out.json]
                                    [--cases every.jsonl] [--engine OTHER_CHECKOUT]

--suite omission: issue 43's cases (bench/apply_omission.py, stored in tests/apply_fixtures/omission):
deletions shown by omission (delete-top, delete-bottom, delete-between, reorder) and new lines at a
fragment's edge (new-before, new-after, method-after-header), from real code of packages the
release suite does not use; --suite all: both.

Cases come from bench/apply_cases.py (shapes: function, lazy, multi, new).  Each case's result is
scored against its truth:

* exact: the merged file equals the truth, byte for byte;
* refused: the merge refused (a one-line reason, nothing written);
* wrong: a merged file that is not the truth;
* lost lines: lines of the original that the truth keeps (difflib's equal runs between the two) and
  the result lacks, counted with repeats (0 over every case); before session 45 only the lines
  outside the edited regions were counted, so a line a marker inside a region stands for was not;
* marker leaks: marker lines in the result that the truth does not have (0 over every case);
* time: wall time of the merge in this process (with --via cli: of the whole `redraft apply`
  process, start-up included); p50 over files of up to 1,500 lines, and characters per second
  (merged file's characters / time).

--engine DIR merges with another checkout's engine (`git worktree add --detach DIR COMMIT`: the
before of a before/after; a benchmark run inside the worktree would import this checkout's).

--via oracle scores the truth itself (the harness's self-check: 100% exact, nothing lost or leaked).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from apply_cases import EXTENSIONS, build, omission_cases  # noqa: E402
from apply_sources import SOURCES  # noqa: E402

from redraft.engine.apply import is_marker, merge  # noqa: E402

SMALL = 1500


def _lost(case, result: str) -> int:
    """Lines the truth keeps from the original (Case.kept) that the result lacks."""
    if result == case.truth:
        return 0
    return sum((Counter(case.kept) - Counter(result.split("\n"))).values())


def _leaks(truth: str, result: str) -> int:
    n = sum(1 for l in result.split("\n") if is_marker(l)) - sum(1 for l in truth.split("\n") if is_marker(l))
    return max(n, 0)


def _run_cli(case, tmp: Path):
    ext = next(e for e, l in EXTENSIONS.items() if l == case.language)
    f, s = tmp / f"file{ext}", tmp / "snippet.txt"
    f.write_text(case.original, encoding="utf-8", newline="")
    s.write_text(case.snippet, encoding="utf-8", newline="")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "redraft", "apply", str(f), str(s)], capture_output=True)
    dt = time.perf_counter() - t0
    if p.returncode == 0:
        return True, p.stdout.decode("utf-8"), "", dt
    if p.returncode == 1 and not p.stdout and p.stderr.count(b"\n") == 1:
        return False, "", p.stderr.decode().strip(), dt
    raise SystemExit(f"{case.id}: redraft apply exit {p.returncode}: {p.stderr.decode()[-300:]}")


def engine_from(checkout: Path):
    """`merge` of another checkout's engine (bench/checkout.py; the cases, fixtures and scoring stay
    this checkout's, already imported)."""
    import importlib

    from checkout import use
    use(checkout)
    return importlib.import_module("redraft.engine.apply").merge


def run(cases, via: str, merge=merge):
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="redraft-apply-bench-"))
    for c in cases:
        if via == "oracle":
            ok, text, reason, dt = True, c.truth, "", 0.0
        elif via == "cli":
            ok, text, reason, dt = _run_cli(c, tmp)
        else:
            t0 = time.perf_counter()
            r = merge(c.original, c.snippet, c.language)
            dt = time.perf_counter() - t0
            ok, text, reason = r.ok, r.text, r.reason
        status = "refused" if not ok else ("exact" if text == c.truth else "wrong")
        rows.append({"id": c.id, "set": c.set, "language": c.language, "shape": c.shape, "lines": c.lines,
                     "status": status, "reason": reason, "seconds": dt, "chars": len(c.truth),
                     "lost": _lost(c, text) if ok else 0, "leaks": _leaks(c.truth, text) if ok else 0})
    return rows


def summarize(rows, label: str) -> str:
    n = len(rows)
    st = Counter(r["status"] for r in rows)
    small = [r for r in rows if r["lines"] <= SMALL and r["status"] != "oracle"]
    times = sorted(r["seconds"] for r in small) or [0.0]
    p50 = statistics.median(times) * 1000
    p90 = times[int(0.9 * (len(times) - 1))] * 1000
    secs = sum(r["seconds"] for r in small)
    cps = f"{sum(r['chars'] for r in small) / secs / 1000:,.0f}k" if secs else "-"
    return (f"| {label} | {n} | {100 * st['exact'] / n:.1f}% | {100 * st['refused'] / n:.1f}% | "
            f"{100 * st['wrong'] / n:.1f}% | {sum(r['lost'] for r in rows)} | {sum(r['leaks'] for r in rows)} | "
            f"{p50:.1f} | {p90:.1f} | {cps} |")


def report(rows) -> str:
    out = ["| cases | n | exact | refused | wrong | lost lines | marker leaks | p50 ms (<=1.5k lines) | "
           "p90 ms | chars/s |", "|---|---|---|---|---|---|---|---|---|---|"]
    out.append(summarize(rows, "**all**"))
    by = defaultdict(list)
    for r in rows:
        by[("set", r["set"])].append(r)
        by[("shape", r["shape"])].append(r)
        by[("language", r["language"])].append(r)
    for key in sorted(by):
        out.append(summarize(by[key], f"{key[0]} {key[1]}"))
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", default="dev",
                    choices=sorted({split for split, *_ in SOURCES}, key=lambda s: (len(s), s)) + ["all"],
                    help="fresh, fresh2 ... fresh10: the release suite's later splits (sessions 34-42; fresh2 "
                    "has been a development split since session 36, fresh3 since session 37, fresh6 since "
                    "session 38, fresh7 since session 39, fresh8 since session 40, fresh9 since session 41, "
                    "fresh10, fresh11 and fresh12 since session 46, each opened after its runs as a held-out "
                    "split, fresh13 and fresh14 since session 47, fresh15 and fresh16 since session 48, fresh16 "
                    "opened after its one run; fresh17 (session 48) is a development split, opened at once; "
                    "fresh18 (session 48's last), fresh19 and fresh20 since session 49, fresh21 and fresh22 "
                    "since session 50, fresh23 since session 51, fresh24 and fresh25 since session 52, fresh26 "
                    "and fresh27 since session 53, fresh28, fresh29 and fresh30 since session 54, fresh31 and "
                    "fresh32 since session 55, fresh33, fresh34 and fresh35 since session 56, each opened "
                    "after its one run as held-out; the release + omission held-out split, heldout, never "
                    "opened but for one case looked at after its run in session 53, express's response.js "
                    "multi:6); all: dev and heldout")
    ap.add_argument("--suite", default="release", choices=["release", "omission", "all"])
    ap.add_argument("--language", action="append")
    ap.add_argument("--via", default="merge", choices=["merge", "cli", "oracle"])
    ap.add_argument("--limit", type=int, default=0, help="at most this many cases (spread over the set)")
    ap.add_argument("--failures", help="write refused and wrong cases (with snippet) as JSON lines here")
    ap.add_argument("--json", help="write per-case rows here")
    ap.add_argument("--cases", action="append", default=[],
                    help="score the omission cases in this JSON-lines file instead (apply_omission.py --every)")
    ap.add_argument("--engine", type=Path, help="merge with the engine of this other checkout (a git worktree)")
    a = ap.parse_args(argv)
    if a.engine and a.via != "merge":
        ap.error("--engine measures merges in process (--via merge)")
    sets = ("dev", "heldout") if a.set == "all" else (a.set,)
    langs = tuple(a.language) if a.language else None
    cases = omission_cases((), langs, tuple(a.cases)) if a.cases else build(sets, langs, a.suite)
    if a.limit and len(cases) > a.limit:
        cases = cases[::len(cases) // a.limit + 1]
    rows = run(cases, a.via, engine_from(a.engine.resolve()) if a.engine else merge)
    print(f"{len(cases)} cases ({', '.join(a.cases) or a.suite}), via {a.via}, {os.cpu_count()} CPUs")
    print(report(rows))
    if a.failures:
        by_id = {c.id: c for c in cases}
        with open(a.failures, "w") as fh:
            for r in rows:
                if r["status"] != "exact":
                    c = by_id[r["id"]]
                    fh.write(json.dumps({**r, "snippet": c.snippet, "truth": c.truth, "original": c.original}) + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps(rows))
    bad = sum(r["lost"] + r["leaks"] for r in rows)
    return 1 if bad or (a.via == "oracle" and any(r["status"] != "exact" for r in rows)) else 0


if __name__ == "__main__":
    sys.exit(main())
