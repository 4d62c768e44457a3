"""How alike two lines are, character by character (difflib's ratio), for the merge's rules on
rewritten lines.  The ratio is quadratic in a line's length: a minified bundle's 44,000-character
line took three minutes per merge (fresh2's @tanstack production builds).  Lines longer than LONG
are compared by their first and last HALF characters, where a changed minified line still agrees
with its old self; the cheap upper bounds come first."""
from __future__ import annotations

import difflib

LONG = 4000
HALF = 1000


def _window(line: str) -> str:
    return line if len(line) <= LONG else line[:HALF] + line[-HALF:]


def alike(a: str, b: str, least: float) -> bool:
    """difflib.SequenceMatcher(None, a, b).ratio() >= least (over _window of each)."""
    sm = difflib.SequenceMatcher(None, _window(a), _window(b), autojunk=False)
    return sm.real_quick_ratio() >= least and sm.quick_ratio() >= least and sm.ratio() >= least
