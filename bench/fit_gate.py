"""Fit the chooser and the gate (lsp_server/engine/gate.py: RANK and CONFIDENCE) on the development
split of bench/repo_lines.py, in process, and print the trade-off curve.

    .venv/bin/python bench/fit_gate.py --workspaces data/repo_bench/dev/python [--per-package 25] [--json F]

For every case (a line of a package of the development split cut at a seeded point after its
indentation, the file on disk holding the cut line, as bench/repo_lines.py lays it out), the engine completes
the cut with the workspace index of the package and keeps every option it scored
(`Request.keep_options`): its draft and the project's lines, with their features. Then:
* RANK: the weights that make the highest-ranked option the true line most often (coordinate
  search over a small grid, the current weights as the start);
* CONFIDENCE: a logistic regression of "the chosen option is the true line" on the chosen
  option's features (numpy, L2, Newton steps);
* the curve: for each threshold, the share of cases shown and the precision of what is shown.
Never run on the held-out split.

The shipped weights (session 27): `--workspaces data/fit_dev/python --per-package 40
--collect-candidates 6` over 8 of the development packages (toolz, boltons, tomlkit, marshmallow,
cachetools, humanize, inflect, more-itertools; F1) and `--bench-cases --collect-candidates 6`
(the 12 development packages as repo_lines cuts them, F2), then `--cases U --candidates 3` over
the union of F1's and F2's cases (3, 4 and 6 candidates scored alike; 3 is what the server hands
the model).
"""
from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from redraft.engine import gate  # noqa: E402


CODE_LINE = re.compile(r"^\s*[^\s#/*\"']")
SKIP_PARTS = {"tests", "test", "testing", "docs", "doc", "examples", "vendor", "_vendor", "benchmarks"}


def workspaces(root: Path) -> list[Path]:
    """The package workspaces under `root` (one directory each)."""
    return sorted(p.resolve() for p in root.iterdir() if p.is_dir())


def cut_cases(ws: Path, n: int, rng: random.Random, ext: str = ".py") -> list[dict]:
    """n lines of the package's own modules, cut at a seeded point after their indentation (what is
    typed so far stays, the rest of the line is gone): the same rule as bench/repo_lines.py."""
    files = [p for p in sorted(ws.rglob("*" + ext)) if not (set(p.relative_to(ws).parts[:-1]) & SKIP_PARTS)
             and not p.name.startswith("test")]
    lines = []
    for p in files:
        try:
            text = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for i, line in enumerate(text.split("\n")):
            code = line.strip()
            if len(code) >= 6 and CODE_LINE.match(line) and len(line) <= 200:
                lines.append((p, i))
    rng.shuffle(lines)
    out = []
    for p, i in lines[:n]:
        text = p.read_text(encoding="utf-8")
        rows = text.split("\n")
        line = rows[i]
        indent = len(line) - len(line.lstrip())
        col = rng.randint(indent, len(line.rstrip()) - 1)
        rows[i] = line[:col]
        offset = sum(len(r) + 1 for r in rows[:i]) + col
        out.append({"path": p, "truth": line, "cut_text": "\n".join(rows), "offset": offset, "original": text})
    return out


def bench_cases(per_package: int, seed: int) -> list[tuple[Path, list[dict]]]:
    """The development split's Python cases exactly as bench/repo_lines.py draws them."""
    import repo_cases
    out = []
    for pkg in repo_cases.read_packages():
        if pkg.split != "dev" or pkg.lang != "python":
            continue
        ws = pkg.path().resolve()
        cases = []
        for c in repo_cases.make_cases(pkg, ws, per_package, seed):
            path = ws / c.path
            original = path.read_text(encoding="utf-8")
            cut = repo_cases.cut_doc(original, c)
            offset = sum(len(r) + 1 for r in cut.split("\n")[:c.row]) + c.col
            cases.append({"path": path, "truth": c.truth, "cut_text": cut, "offset": offset, "original": original})
        out.append((ws, cases))
    return out


def collect(root: Path | None, per_package: int, seed: int) -> list[dict]:
    """Every case's options, as dicts: the features, whether it is the draft, whether it is right."""
    from redraft.engine.pipeline import Engine, Request
    from redraft.engine.workspace.index import WorkspaceIndex
    engine = Engine(None, threads=2)
    out = []
    sets = bench_cases(per_package, seed) if root is None else \
        [(ws, cut_cases(ws, per_package, random.Random(f"{seed}:{ws.name}"))) for ws in workspaces(root)]
    for ws, cases in sets:
        index = WorkspaceIndex([ws], ["python"])
        index.start()
        index.wait()
        for case in cases:
            path = case["path"]
            # the index holds the cut line, as when the file on disk does (then the original again)
            index.update(path, case["cut_text"], force=True)
            try:
                t0 = time.perf_counter()
                engine.last_options = []
                comp = engine.complete(Request(text=case["cut_text"], offset=case["offset"], uri=path.as_uri(),
                                               workspace=index, keep_options=True))
                ms = (time.perf_counter() - t0) * 1000
            finally:
                index.update(path, case["original"], force=True)
            truth = case["truth"].strip()
            opts = [{"f": gate.features(o), "draft": o.draft, "right": o.line == truth, "text": o.text,
                     "degenerate": gate.degenerate(o.text), "rank": o.rank} for o in engine.last_options]
            out.append({"package": ws.name, "truth": truth, "shown": comp.text if comp else "", "options": opts,
                        "ms": ms})
    return out


def pick(case: dict, w: dict) -> int | None:
    opts = case["options"]
    if not opts:
        return None
    ranks = [sum(w[k] * o["f"][k] for k in w) - (1e3 if o["degenerate"] else 0) for o in opts]
    return max(range(len(opts)), key=ranks.__getitem__)


def exact(cases: list[dict], w: dict) -> int:
    n = 0
    for c in cases:
        i = pick(c, w)
        n += i is not None and c["options"][i]["right"]
    return n


def fit_rank(cases: list[dict], start: dict) -> dict:
    w = dict(start)
    grid = [-1.0, -0.5, -0.25, -0.1, 0.0, 0.05, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]
    best = exact(cases, w)
    for _ in range(3):
        for k in w:
            for v in grid:
                trial = dict(w, **{k: v})
                e = exact(cases, trial)
                if e > best:
                    best, w = e, trial
    return w


def conf_rows(cases: list[dict], w: dict) -> tuple[np.ndarray, np.ndarray, list[str]]:
    keys = [k for k in gate.CONFIDENCE if k != "bias"]
    X, y = [], []
    for c in cases:
        i = pick(c, w)
        if i is None:
            continue
        o = c["options"][i]
        if o["degenerate"] or not o["text"].strip():
            continue
        ranks = [sum(w[k] * p["f"][k] for k in w) for p in c["options"]]
        others = [r for j, r in enumerate(ranks) if j != i]
        f = dict(o["f"], margin=min(ranks[i] - max(others), 10.0) if others else 0.0,
                 agree=float(o["draft"] and (o["f"]["project"] > 0 or o["f"]["document"] > 0)))
        X.append([f[k] for k in keys])
        y.append(float(o["right"]))
    return np.array(X), np.array(y), keys


def logistic(X: np.ndarray, y: np.ndarray, l2: float = 1.0) -> np.ndarray:
    A = np.hstack([np.ones((len(X), 1)), X])
    beta = np.zeros(A.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-A @ beta))
        g = A.T @ (p - y) + l2 * np.r_[0, beta[1:]]
        H = (A * (p * (1 - p))[:, None]).T @ A + l2 * np.diag(np.r_[0, np.ones(len(beta) - 1)])
        beta -= np.linalg.solve(H, g)
    return beta


def curve(cases: list[dict], w_rank: dict, w_conf: dict) -> list[dict]:
    scored = []
    for c in cases:
        i = pick(c, w_rank)
        if i is None:
            scored.append((0.0, False))
            continue
        o = c["options"][i]
        ranks = [sum(w_rank[k] * p["f"][k] for k in w_rank) for p in c["options"]]
        others = [r for j, r in enumerate(ranks) if j != i]
        f = dict(o["f"], margin=min(ranks[i] - max(others), 10.0) if others else 0.0,
                 agree=float(o["draft"] and (o["f"]["project"] > 0 or o["f"]["document"] > 0)))
        z = w_conf["bias"] + sum(w_conf[k] * f[k] for k in w_conf if k != "bias")
        conf = 0.0 if (o["degenerate"] or not o["text"].strip()) else 1 / (1 + math.exp(-z))
        scored.append((conf, o["right"]))
    rows = []
    for t in [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]:
        shown = [r for cf, r in scored if cf >= t and (t > 0 or cf > 0)]
        rows.append({"threshold": t, "shown": len(shown) / max(len(scored), 1),
                     "precision": sum(shown) / max(len(shown), 1), "exact": sum(shown) / max(len(scored), 1)})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workspaces", type=Path, default=Path("data/repo_bench/dev/python"),
                    help="a folder of unpacked packages of the development split, one folder each")
    ap.add_argument("--bench-cases", action="store_true",
                    help="the development split's Python cases as bench/repo_lines.py draws them (its packages)")
    ap.add_argument("--per-package", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cases", type=Path, default=None, help="reuse collected options (JSON) instead of running")
    ap.add_argument("--collect-candidates", type=int, default=None,
                    help="collect with this many project lines per case (candidates.MAX_CANDIDATES)")
    ap.add_argument("--candidates", type=int, default=None,
                    help="fit and score as if only this many project lines were handed to the model")
    ap.add_argument("--json", type=Path, default=None, help="write the collected options and the fit here")
    a = ap.parse_args()
    if a.collect_candidates:
        from redraft.engine.workspace import candidates
        candidates.MAX_CANDIDATES = a.collect_candidates
    cases = json.loads(a.cases.read_text())["cases"] if a.cases else \
        collect(None if a.bench_cases else a.workspaces, a.per_package, a.seed)
    if a.candidates is not None:
        cases = [dict(c, options=[o for o in c["options"] if o.get("rank", -1) < a.candidates]) for c in cases]
    n = len(cases)
    print(f"{n} cases; the true line among the options in {sum(any(o['right'] for o in c['options']) for c in cases)}")
    print(f"current RANK: exact {exact(cases, gate.RANK)}/{n}")
    w_rank = fit_rank(cases, gate.RANK)
    print(f"fitted RANK {w_rank}: exact {exact(cases, w_rank)}/{n}")
    X, y, keys = conf_rows(cases, w_rank)
    beta = logistic(X, y)
    w_conf = {"bias": float(beta[0]), **{k: float(b) for k, b in zip(keys, beta[1:])}}
    print("fitted CONFIDENCE", {k: round(v, 3) for k, v in w_conf.items()})
    # out of sample: each package scored by weights fitted on the others
    held = []
    for pkg in sorted({c["package"] for c in cases}):
        train = [c for c in cases if c["package"] != pkg]
        test = [c for c in cases if c["package"] == pkg]
        wr = fit_rank(train, gate.RANK)
        Xt, yt, _ = conf_rows(train, wr)
        bt = logistic(Xt, yt)
        wc = {"bias": float(bt[0]), **{k: float(b) for k, b in zip(keys, bt[1:])}}
        held.append((test, wr, wc))
    print("leave-one-package-out (each package by weights fitted on the others):")
    for t in (0.0, 0.2, 0.3, 0.4, 0.5):
        shown = right = total = 0
        for test, wr, wc in held:
            r = [row for row in curve(test, wr, wc) if abs(row["threshold"] - t) < 1e-9][0]
            total += len(test)
            shown += r["shown"] * len(test)
            right += r["exact"] * len(test)
        print(f"  threshold {t:.1f}: shown {shown / total:.1%}, precision {right / max(shown, 1):.1%}, "
              f"exact {right / total:.1%}")
    rows = curve(cases, w_rank, w_conf)
    for r in rows:
        print(f"  threshold {r['threshold']:.1f}: shown {r['shown']:.1%}, precision {r['precision']:.1%}, "
              f"exact {r['exact']:.1%}")
    if a.json:
        a.json.write_text(json.dumps({"cases": cases, "rank": w_rank, "confidence": w_conf, "curve": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
