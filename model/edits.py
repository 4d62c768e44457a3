"""Next-edit prediction (issue 24): the task's format, shared by training and inference, and its data.

The user has just made some edits; the model rewrites a small *region* of lines around the cursor
into what it will look like after the user's next edit, or leaves it unchanged when no edit is due
there ("no edit" is the region unchanged, which is what the model must answer most of the time).

One row is `[context | answer | canvas]`; the answer is read on the model's causal path:

    <|edit_history|> (<|edit_before|> before <|edit_after|> after)*      recent edits, oldest first
    <|fim_suffix|> suffix-head                                           the file after the region
    <|fim_prefix|> prefix-tail                                           the file before the region
    <|edit_region|> region[:cursor] <|cursor|> region[cursor:] <|edit_region_end|>
    answer: (<|edit_before|> region lines <|edit_after|> their new text)* <|eom|>   (<= EDIT_ANSWER tokens)
    [canvas: one <|eom|>]

Design decision: the answer is a list of search/replace hunks in the edit history's own layout
(model/hunks.py `edit_hunks`): a block of the region's lines as they are, then the lines it becomes; "no edit"
is an answer of <|eom|> alone. Each block is found exactly once in the region (a changed block is
widened by its unchanged neighbours until it is, and until neither side is empty), so
`apply_hunks` makes the edit exactly, and an added or removed line can be said like any other.
Why: the previous answer, the changed lines' new text alone (runs/nc3, bench/RESULTS.md), left
the place of each line to a similarity match, which put the right line over the wrong one or
beside it, and could not say a removed line; here the model first names the line (a copy of a
region line, which a causal decoder does well), then rewrites it with the history's edits, which
read the same way, just above it. The price is the old lines in the answer: 35 tokens at the
median of the training split's edits, where the new lines alone took 12. A whole new region
(runs/ne2) copied its first lines and garbled the rest, and rarely stayed silent, because every
one of a hundred copied tokens had to be right.

Design decision: the answer is written left to right on the causal path (the context's next-token
head, model/causal.py `greedy`), not on a diffusion canvas. An edit is mostly a copy of a region
line with a word changed, and copying is what a causal decoder does well: each token follows the
one before it in the line it copies. The same lines on a 64-token diffusion canvas (runs/ne3,
runs/ne4, bench/RESULTS.md) came out garbled (`show_text data))))`: 0 of 240 edits exact at the
default effort), since positions committed in parallel do not agree on where in the line they are;
on the causal path silence costs one forward pass of one token and a 35-token answer 35, with
the context's keys/values cached. In training, the answer tokens get a weight of their own in the
next-token term (model/objective.py `answer_id`); the one-token canvas keeps the row's layout that
of every other row.

Design decision: the file around the region is laid out like the FIM context the model was
pretrained on (suffix first, then prefix, each behind its FIM sentinel); the region as it is
comes right before the answer, which mostly copies from it. `<|edit_history|>` opens every row,
so a next-edit row never looks like a FIM row (those open with `<|fim_suffix|>`).

Design decision: the region is small, REGION_LINES (10) lines: 3 above the cursor line, the cursor
line and 6 below, clipped at the file's ends. A row is at most 384 tokens and the answer at
most EDIT_ANSWER: the region's changed lines appear up to three times (in the region, and before
and after in the answer), so a 20-line region (~200 tokens of Python) would leave no room for
the file around it or for the edits; examples whose answer exceeds EDIT_ANSWER tokens are
skipped. The context's budget is the
same for every row (`context_budget`), so what fits tells the model nothing that inference would
not know.

Budget: the region (with its cursor) is never trimmed (None if it alone does not fit); then the
history gets at most half of what is left, newest edits first (the oldest are dropped, at most
MAX_HISTORY); the prefix then gets 60% of the rest and the suffix the remainder (each giving the
other what it does not use), trimmed at line boundaries: the prefix from its start, the suffix
from its end. Special-token strings inside the text stay text (the tokenizer never emits them).

The synthetic edit sequences are in model/edit_data.py, whose `edit_stream` turns them into training rows
(`redraft train --edit-share S` mixes them with FIM rows), bench/next_edit.py scores predictors on
the held-out split.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from redraft.model.hunks import answer_ids, edit_hunks

if TYPE_CHECKING:   # not at run time: next edits by analogy import this module, and neither is needed
    from redraft.model.data import Example
    from redraft.model.tokenizer import Tokenizer

REGION_LINES = 10      # lines in the region (see the module docstring: 384-token rows)
MAX_HISTORY = 5        # edits shown at most (newest kept)
HISTORY_SHARE = 0.5    # of the budget left after the region
PREFIX_SHARE = 0.6     # of the budget left after the history
FORMAT = "search-replace-causal"   # ModelConfig.next_edit of a checkpoint trained on these rows
EDIT_ANSWER = 96       # answer tokens at most: the hunks, then <|eom|>

Step = tuple[str, str, int]   # (text before the edit, text after it, cursor offset after it); before == after: the user moved


@dataclass
class EditTask:
    history: list[tuple[str, str]]   # recent edits, oldest first: (before, after) text of whole lines
    prefix: str                      # file text before the region ("" or ending with "\n")
    region: str                      # the region's current text: whole lines, without the last newline
    cursor: int                      # character offset of the cursor inside `region`
    suffix: str                      # file text after the region ("" or starting with "\n")

    @property
    def text(self) -> str:
        return self.prefix + self.region + self.suffix

    def start_line(self) -> int:
        return self.prefix.count("\n")

    def position(self) -> tuple[int, int]:
        """(line, column) of the cursor in the file."""
        before = self.region[:self.cursor]
        line = self.start_line() + before.count("\n")
        return line, len(before) - (before.rfind("\n") + 1)


@dataclass
class EditCase:
    category: str              # "below" | "above" | "cursor" (fill-in) | "jump" | "noise"
    task: EditTask             # at the cursor
    target_region: str         # the cursor's region after the next edit (jump: the region at target_line)
    target_line: int | None    # first line the next edit changes (current text's lines); None: no edit due
    file_id: str
    kind: str = ""             # the generator (model/edit_data.py KINDS)


def region_lines(n_lines: int, cursor_line: int, size: int = REGION_LINES) -> tuple[int, int]:
    """[start, end) line indices of the region around cursor_line: (size-1)//3 lines above it (3 for
    10), the rest below; shifted to stay `size` lines long at the file's ends where possible."""
    n_lines = max(1, n_lines)
    cursor_line = min(max(0, cursor_line), n_lines - 1)
    start = max(0, cursor_line - (size - 1) // 3)
    end = min(n_lines, start + size)
    return max(0, end - size), end


def task_for(text: str, line: int, col: int, history: list[tuple[str, str]], size: int = REGION_LINES) -> EditTask:
    """The task at (line, col) of `text` (col clipped to the line): text == prefix + region + suffix."""
    lines = text.split("\n")
    line = min(max(0, line), len(lines) - 1)
    a, b = region_lines(len(lines), line, size)
    prefix = "\n".join(lines[:a]) + ("\n" if a else "")
    suffix = ("\n" if b < len(lines) else "") + "\n".join(lines[b:])
    cursor = sum(len(x) + 1 for x in lines[a:line]) + min(max(0, col), len(lines[line]))
    return EditTask(list(history), prefix, "\n".join(lines[a:b]), cursor, suffix)


def _fit_lines(tok: Tokenizer, lines: list[str], budget: int, from_end: bool, join) -> list[int]:
    """Tokens of the most whole lines of `lines` (the last ones if from_end, else the first ones)
    whose text, join(kept), encodes within budget."""
    if budget <= 0 or not lines:
        return []
    order = lines[::-1] if from_end else lines
    m, used, full = 0, 0, False
    while not full and m < len(order):  # per-line counts, a dozen lines at a time
        for n in (len(x) + 1 for x in tok.encode_batch(order[m:m + 12])):  # + the newline
            if used + n > budget:
                full = True
                break
            used += n
            m += 1
    while m > 0:  # per-line counts approximate the whole; check the whole
        kept = order[:m][::-1] if from_end else order[:m]
        ids = tok.encode(join(kept))
        if len(ids) <= budget:
            return ids
        m -= 1
    return []


def edit_context(tok: Tokenizer, task: EditTask, budget: int) -> list[int] | None:
    """The context tokens for `task` within `budget` tokens (layout and budget rules: module
    docstring), or None when the region alone does not fit."""
    sp = tok.special
    region = tok.encode(task.region[:task.cursor]) + [sp["<|cursor|>"]] + tok.encode(task.region[task.cursor:])
    fixed = 5 + len(region)  # edit_history, fim_suffix, fim_prefix, edit_region, edit_region_end
    if fixed > budget:
        return None
    left = budget - fixed
    hist: list[int] = []
    cap = int(left * HISTORY_SHARE)
    for before, after in reversed(task.history[-MAX_HISTORY:]):
        h = [sp["<|edit_before|>"], *tok.encode(before), sp["<|edit_after|>"], *tok.encode(after)]
        if len(hist) + len(h) > cap:
            break
        hist = h + hist
    left -= len(hist)
    pre_lines = task.prefix.split("\n")[:-1] if task.prefix else []          # prefix ends with "\n"
    suf_lines = task.suffix.split("\n")[1:] if task.suffix else []           # suffix starts with "\n"
    pre_join = lambda ls: "\n".join(ls) + "\n"
    suf_join = lambda ls: "\n" + "\n".join(ls)
    pre = _fit_lines(tok, pre_lines, int(left * PREFIX_SHARE), True, pre_join)
    suf = _fit_lines(tok, suf_lines, left - len(pre), False, suf_join)
    if len(pre) + len(suf) < left and len(pre) < len(task.prefix):  # the suffix left room: the prefix takes it
        pre = _fit_lines(tok, pre_lines, left - len(suf), True, pre_join)
    return [sp["<|edit_history|>"], *hist, tok.suffix_id, *suf, tok.prefix_id, *pre,
            sp["<|edit_region|>"], *region, sp["<|edit_region_end|>"]]


def context_budget(seq_len: int) -> int:
    """The context's tokens at most, in training and inference alike: the row less the longest
    answer and the one-token canvas."""
    return seq_len - EDIT_ANSWER - 1


def edit_example(tok: Tokenizer, task: EditTask, new_region: str, rng: random.Random, seq_len: int) -> Example | None:
    """A training row: the context, the answer (answer_ids of edit_hunks), the one-<eom> canvas.
    None when the answer exceeds EDIT_ANSWER or the region does not fit the row."""
    answer = answer_ids(tok, edit_hunks(task.region, new_region))
    if len(answer) > EDIT_ANSWER:
        return None
    ctx = edit_context(tok, task, context_budget(seq_len))
    if ctx is None:
        return None
    from redraft.model.data import Example
    return Example(ctx + answer + [tok.eom_id], len(ctx) + len(answer))


# ----------------------------------------------------------------------------- steps -> case

def line_hunk(before: str, after: str) -> tuple[int, int, list[str]]:
    """The changed lines: before's lines [i0, i1) became the returned lines."""
    a, b = before.split("\n"), after.split("\n")
    n, p, s = min(len(a), len(b)), 0, 0
    while p < n and a[p] == b[p]:
        p += 1
    while s < n - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, len(a) - s, b[p:len(b) - s]


def history_pair(before: str, after: str) -> tuple[str, str]:
    """One edit as (before, after) whole lines; an insertion or deletion carries the line after it
    (else the one before) on both sides, so neither side is empty."""
    a = before.split("\n")
    i0, i1, new = line_hunk(before, after)
    old = a[i0:i1]
    if not old or not new:
        if i1 < len(a):
            old, new = old + [a[i1]], new + [a[i1]]
        elif i0 > 0:
            old, new = [a[i0 - 1]] + old, [a[i0 - 1]] + new
    return "\n".join(old), "\n".join(new)


def history_of(steps: list[Step]) -> list[tuple[str, str]]:
    """The steps' edits as the server records them (lsp_server/engine/next_edit/history.py): an edit whose
    old lines overlap or touch the previous edit's new lines merges into it (a word typed, then the
    next line: one hunk from the earlier before to the text now); a merged edit that undid itself
    goes. Moves are skipped."""
    groups: list[list] = []   # [text before the group, text after it, first new line, end of new lines]
    for before, after, _ in steps:
        if before == after:
            continue
        i0, i1, new = line_hunk(before, after)
        g = groups[-1] if groups else None
        if g is not None and g[1] == before and i0 <= g[3] and g[2] <= i1:
            q0, _, qnew = line_hunk(g[0], after)
            g[1:] = [after, q0, q0 + len(qnew)]
        else:
            groups.append([before, after, i0, i0 + len(new)])
    return [history_pair(b, a) for b, a, _, _ in groups if b != a]


def _line_col(text: str, offset: int) -> tuple[int, int]:
    head = text[:offset]
    return head.count("\n"), offset - (head.rfind("\n") + 1)


def _pending(steps: list[Step], k: int, text: str, a: int, b: int) -> tuple[str, int | None, int | None]:
    """Lines [a, b) of `text` (= steps[k-1]'s result) after every later edit that lies inside them,
    in whatever order the user makes them; edits elsewhere only shift the region (an edit across
    its border ends the sequence there). Returns (the region's new text, the first such edit's
    line range [i0, i1) in `text`'s lines, or None, None)."""
    a0, first = a, None
    for before, after, _ in steps[k:]:
        if before == after:
            continue
        i0, i1, new = line_hunk(before, after)
        d = len(new) - (i1 - i0)
        if a <= i0 and i1 <= b and i0 < b:
            first = first or (i0 - (a - a0), i1 - (a - a0))
            b += d
        elif i1 <= a:  # above the region (an insertion at its very start counts as inside)
            a, b = a + d, b + d
        elif i0 < b:  # across the border
            break
        text = after
    lines = text.split("\n")
    return "\n".join(lines[a:b]), first[0] if first else None, first[1] if first else None


def case_from_steps(steps: list[Step], k: int, file_id: str = "", kind: str = "",
                    size: int = REGION_LINES) -> EditCase | None:
    """The case after the first k steps: history = their edits (history_of), the cursor where steps[k-1] left
    it, target = the cursor's region after every later edit that lies in it (`_pending`: all the
    edits due there, not only the very next one). No later edit at all: "noise"; none in the
    region: "jump" (target_line is the next edit's first line, target_region the region around it
    after the edits due there); else "below", "above" or "cursor" by where the first edit due in
    the region is relative to the cursor line (a replaced range holding the cursor line: "cursor",
    a fill-in)."""
    if not 1 <= k <= len(steps):
        return None
    history = history_of(steps[:k])
    text, off = steps[k - 1][1], steps[k - 1][2]
    line, col = _line_col(text, off)
    task = task_for(text, line, col, history, size)
    a = task.start_line()
    target, i0, i1 = _pending(steps, k, text, a, a + task.region.count("\n") + 1)
    if i0 is not None:
        cat = "cursor" if i0 <= line < i1 else ("below" if i0 > line else "above")
        return EditCase(cat, task, target, i0, file_id, kind)
    nxt = next((s for s in steps[k:] if s[0] != s[1]), None)
    if nxt is None:
        return EditCase("noise", task, task.region, None, file_id, kind)
    t_line = line_hunk(nxt[0], nxt[1])[0]
    ta, tb = region_lines(text.count("\n") + 1, t_line, size)
    target, i0, _ = _pending(steps, k, text, ta, tb)
    if i0 is None:
        return None
    return EditCase("jump", task, target, t_line, file_id, kind)


def case_examples(tok: Tokenizer, case: EditCase, rng: random.Random, seq_len: int) -> Example | None:
    """A training row for a case. A jump is trained half the time as silence at the cursor's
    region (a region-only model's right answer there) and half the time as the edit in the region
    around target_line with the cursor at that line's start (where a predictor looks next)."""
    if case.category == "jump" and rng.random() < 0.5:
        text = case.task.text
        return edit_example(tok, task_for(text, case.target_line, 0, case.task.history), case.target_region, rng, seq_len)
    target = case.task.region if case.category == "jump" else case.target_region
    return edit_example(tok, case.task, target, rng, seq_len)
