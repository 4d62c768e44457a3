"""Silence over junk: how likely a completion is to be exactly what the user types, from the
model's own evidence, and whether to show it.

`choose(options)` ranks the options and gives the winner's confidence: a logistic function of a
few features, its weights fitted on the development split of bench/repo_lines.py (cut lines of
real packages' workspaces; the fit and the trade-off curve are in bench/RESULTS.md): the
per-token log-probability of the shown text on the model's causal path, whether the project
writes the whole resulting line and how often, whether it follows the cursor's previous line
elsewhere in the project, how much was typed and how many project lines continue it, names in it
that the project never writes, whether the model's own draft agrees, and the margin over the
runner-up. A degenerate text (a
piece repeated three times or more, a punctuation run) scores 0.

The threshold is a setting (`gate`: a number from 0 to 1, or "always"/0 to show everything, as
before the gate); `redraft.stats` counts what was shown and withheld.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

# Fitted by bench/fit_gate.py on the development packages of bench/repo_lines.py (562 cut lines of
# 12 PyPI packages: 320 cut by fit_gate's own rule in 8 of them, 242 as repo_lines cuts them;
# default-v9 at low, kept for default-v10: the same 242 lines shown and right; bench/RESULTS.md has
# the fit and the curve). RANK scores an option; the winner's CONFIDENCE features make a logistic
# probability that it is exactly right. What the fit says: the project's first candidate (a line
# that follows the cursor's previous line elsewhere, else the most written continuation of the typed
# line) usually wins; the model's scores break ties; a line that follows the previous line
# elsewhere, a long typed prefix and few rival lines make it likely right; names the project does
# not write and a draft it does not write make it unlikely.
RANK = {"logp_per_token": 0.05, "tail_logp": 0.25, "project": 1.0, "document": 1.0, "draft": 1.0, "tokens": -1.0,
        "typed": 0.0, "pool": 0.0, "first": 2.0, "unique": 0.0, "unknown": 0.0, "follows": 0.0}
CONFIDENCE = {"bias": -1.457, "logp_per_token": 0.058, "tail_logp_per_token": -0.056, "project": 0.59,
              "document": 0.093, "draft": -1.191, "agree": 1.257, "margin": 0.258, "tokens": -0.869,
              "typed": 0.616, "pool": -0.766, "first": 0.195, "unique": 0.745, "unknown": -1.769, "follows": 2.319}
# leave-one-package-out on those cases: at 0.3, 33% shown, 63% of them exactly right, 20.8% of all
# cut lines right (repo_lines' own cuts: 19.4% right, 60% precision; no gate: 94% shown, 28% right)
DEFAULT_THRESHOLD = 0.3
# Where the gate is on, a draft whose first denoising step averages a log-probability below this
# over the line it picks is finished in that one step (model/sampler.py `hurry_below`), and is no
# rival for the winner's margin. On the 562 development cut lines (bench/fit_gate.py's cases, in
# process): 117 exactly right and shown instead of 119, at 63.6% precision instead of 62.0%
# (repo_lines' 242 cuts: 19.0% right either way, 58.2% precision instead of 56.1%), 2.6 forward
# passes a request instead of 5.0; typing (bench/latency.py's lines, in process) p50 104 -> 54 ms,
# p95 148 -> 89 ms. At -2.3: no line lost, p95 122 ms (bench/RESULTS.md, issue 42, session 28).
HURRY_BELOW = -1.8

_REPEAT = re.compile(r"(.{2,}?)\1{2,}")          # a piece of 2+ characters three times in a row
_PUNCT_RUN = re.compile(r"[^\w\s]{5,}")           # five punctuation characters in a row


def degenerate(text: str) -> bool:
    """Junk no user types: a piece that is not a list of numbers repeated three times in a row
    (`widthwidthwidth`, `":":":"`, `()()()`), or a run of five punctuation characters."""
    t = text.strip()
    if not t:
        return False
    for m in _REPEAT.finditer(t):
        if re.search(r"[^\d\s,.]", m.group(1)):
            return True
    return bool(_PUNCT_RUN.search(t.replace("...", "").replace("**", "").replace("()", "")))


@dataclass(frozen=True)
class Option:
    """One answer the model scored: its draft, or a line the project writes."""
    text: str                  # what would be inserted (the rest of the line)
    line: str                  # the whole resulting line, stripped
    logp: float                # sum of log p of the text's tokens on the causal path
    tail_logp: float           # sum of log p of the rest of the line and the next line after it
    tokens: int                # the text's tokens
    project: int = 0           # times the workspace writes `line`
    document: int = 0          # times the document writes `line` elsewhere
    draft: bool = False        # the model's own draft (the canvas's answer)
    typed: int = 0             # characters of the line's code typed before the cursor
    pool: int = 0              # distinct project lines that continue the typed line (candidates.POOL_CAP at most)
    rank: int = -1             # its place among those lines by how often they are written (-1: not one of them)
    follows: int = 0           # times the project writes `line` right after the cursor's previous code line
    unknown: int = 0           # names in it that neither the document nor the project writes (candidates.unknown_names)
    hurried: bool = False      # the draft, finished in its first step (HURRY_BELOW): no rival for the margin


def features(o: Option) -> dict[str, float]:
    n = max(o.tokens, 1)
    return {"logp_per_token": max(o.logp / n, -8.0), "tail_logp": max(o.tail_logp, -60.0),
            "tail_logp_per_token": max(o.tail_logp / 8.0, -8.0), "project": math.log1p(o.project),
            "document": math.log1p(o.document), "draft": float(o.draft), "tokens": math.log1p(o.tokens),
            "typed": math.log1p(o.typed), "pool": math.log1p(o.pool), "first": float(o.rank == 0),
            "unique": float(o.pool == 1 and o.rank == 0), "unknown": math.log1p(o.unknown),
            "follows": math.log1p(o.follows)}


def _dot(w: dict[str, float], f: dict[str, float]) -> float:
    return sum(w[k] * f.get(k, 0.0) for k in w if k != "bias") + w.get("bias", 0.0)


def choose(options: list[Option]) -> tuple[int, float]:
    """(index of the best option by RANK, its confidence). A degenerate option never wins over a
    sound one and scores 0."""
    feats = [features(o) for o in options]
    junk = [degenerate(o.text) for o in options]
    ranks = [_dot(RANK, f) - (1e3 if j else 0.0) for f, j in zip(feats, junk)]
    best = max(range(len(options)), key=ranks.__getitem__)
    o = options[best]
    if not o.text.strip() or junk[best]:
        return best, 0.0
    f = dict(feats[best])
    # the margin is over real rivals: a degenerate option or a draft finished in one step (junk
    # ranked low) would make any winner look sure; with none, as when alone
    others = [r for i, (r, x) in enumerate(zip(ranks, options)) if i != best and not x.hurried and not junk[i]]
    f["margin"] = min(ranks[best] - max(others), 10.0) if others else 0.0
    f["agree"] = float(o.draft and (o.project > 0 or o.document > 0))
    return best, 1.0 / (1.0 + math.exp(-_dot(CONFIDENCE, f)))
