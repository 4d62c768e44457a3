"""`redraft next-edit` latency on the command line, process start included (issue 44: p50 <= 300 ms).

    .venv/bin/python bench/next_edit_cli.py [--n 20] [--exe .venv/bin/redraft] [--json out.json]

Runs the real console script N times on a real file with a history diff: a copy of the standard
library's shlex.py in which `self.whitespace_split` was renamed `self.split_ws` at its first use
(the history holds that edit as a unified diff), the cursor on the renamed line; analogy carries
the rename to the next use.  Every run must exit 0 and print the same edit.  Prints
{"n", "p50_ms", "p95_ms", "max_ms", "edits", "cpu", "date"} as JSON (wall time per call).
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def case(tmp: Path) -> tuple[Path, Path, int, int]:
    """(the file, the history diff, the cursor's 0-based line and column)."""
    before = Path(shlex.__file__).read_text(encoding="utf-8")
    after = before.replace("self.whitespace_split", "self.split_ws", 1)
    src, diff = tmp / "shlex.py", tmp / "edits.diff"
    src.write_text(after, encoding="utf-8")
    diff.write_text("".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                                 "a/shlex.py", "b/shlex.py")), encoding="utf-8")
    lines = after.split("\n")
    line = next(i for i, l in enumerate(lines) if "self.split_ws" in l)
    return src, diff, line, lines[line].index("split_ws") + len("split_ws")


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def cpu() -> str:
    try:
        for l in Path("/proc/cpuinfo").read_text().splitlines():
            if l.startswith("model name"):
                return l.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--exe", default=str(Path(sys.executable).parent / "redraft"), help="the console script")
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="redraft-bench-") as d:
        src, diff, line, col = case(Path(d))
        cmd = [a.exe, "next-edit", str(src), "--line", str(line), "--col", str(col), "--history", str(diff)]
        times, outs = [], set()
        for _ in range(a.n):
            t0 = time.perf_counter()
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=d, env=os.environ.copy())
            times.append((time.perf_counter() - t0) * 1000)
            if p.returncode != 0:
                raise SystemExit(f"exit {p.returncode}: {p.stderr.strip()}")
            outs.add(p.stdout.strip())
    if len(outs) != 1:
        raise SystemExit(f"the runs printed different answers: {sorted(outs)}")
    res = {"n": a.n, "p50_ms": round(statistics.median(times), 1), "p95_ms": round(pct(times, 0.95), 1),
           "max_ms": round(max(times), 1), "edits": json.loads(outs.pop())["edits"], "cpu": cpu(),
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps(res))
    if a.json:
        a.json.write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
