"""Silence over junk: how likely a completion is to be exactly what the user types, from the
model's own evidence, and whether to show it.

`choose(options)` ranks the options and gives the winner's confidence: a logistic function of a few features, its weights fitted on the
development split of bench/repo_lines.py (cut lines of real packages' workspaces; the fit and the
trade-off curve are in bench/RESULTS.md): the per-token log-probability of the shown text on the
model's causal path, whether the project writes the whole resulting line and how often, whether
the model's own draft agrees with it, and its margin over the runner-up. A degenerate text (a
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
# default-v9 at low; bench/RESULTS.md has the fit and the curve). RANK scores an option; the
# winner's CONFIDENCE features make a logistic probability that it is exactly right. What the fit
# says: a line the project writes beats the model's own draft (counts dominate the rank, the
# model's scores break ties), and a draft the project does not write is rarely right.
RANK = {"logp_per_token": 0.05, "tail_logp": 0.1, "project": 1.0, "document": 1.0, "draft": 0.5, "tokens": 0.0}
CONFIDENCE = {"bias": 1.311, "logp_per_token": 0.067, "tail_logp_per_token": -0.001, "project": -0.171, "document": -0.094, "draft": -1.817, "agree": 1.704, "margin": 1.103, "tokens": -1.331}
# leave-one-package-out on those cases: at 0.3, 30% shown, 59% of them exactly right, 17.8% of all
# cut lines right (no gate: 92% shown, 28% right)
DEFAULT_THRESHOLD = 0.3

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


def features(o: Option) -> dict[str, float]:
    n = max(o.tokens, 1)
    return {"logp_per_token": max(o.logp / n, -8.0), "tail_logp": max(o.tail_logp, -60.0),
            "tail_logp_per_token": max(o.tail_logp / 8.0, -8.0), "project": math.log1p(o.project),
            "document": math.log1p(o.document), "draft": float(o.draft), "tokens": math.log1p(o.tokens)}


def _dot(w: dict[str, float], f: dict[str, float]) -> float:
    return sum(w[k] * f.get(k, 0.0) for k in w if k != "bias") + w.get("bias", 0.0)


def choose(options: list[Option]) -> tuple[int, float]:
    """(index of the best option by RANK, its confidence). A degenerate option never wins over a
    sound one and scores 0."""
    feats = [features(o) for o in options]
    ranks = [_dot(RANK, f) - (1e3 if degenerate(o.text) else 0.0) for o, f in zip(options, feats)]
    best = max(range(len(options)), key=ranks.__getitem__)
    o = options[best]
    if not o.text.strip() or degenerate(o.text):
        return best, 0.0
    f = dict(feats[best])
    others = [r for i, r in enumerate(ranks) if i != best]
    f["margin"] = min(ranks[best] - max(others), 10.0) if others else 0.0
    f["agree"] = float(o.draft and (o.project > 0 or o.document > 0))
    return best, 1.0 / (1.0 + math.exp(-_dot(CONFIDENCE, f)))
