"""The next-edit answer's search/replace hunks (model/edits.py's format): made from a region and
its new text (`edit_hunks`), written as tokens (`answer_ids`), read back from the model's tokens
(`parse_answer`, guided by `block_guide`), weighed in training (`changed_tokens`,
`changed_weights`) and applied to the region (`apply_hunks`)."""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:   # type hints only: next edits by analogy import this module without a tokenizer
    from redraft.model.tokenizer import Tokenizer

ANSWER_AFTER = "<|edit_region_end|>"   # the token the answer follows (model/objective.py answer_id)

Hunk = tuple[list[str], list[str]]   # (region lines as they are, the lines they become)


def _occurrences(lines: list[str], block: list[str], start: int = 0) -> list[int]:
    """Where `block` occurs as consecutive lines of `lines`, at or after line `start`."""
    k = len(block)
    return [i for i in range(start, len(lines) - k + 1) if lines[i:i + k] == block]


def edit_hunks(region: str, new_region: str) -> list[Hunk]:
    """The answer's hunks, in order: each a block of the region's lines (whole lines, found exactly
    once in the region) and the lines it becomes, neither side empty. A changed block of lines is
    widened by the unchanged lines around it (below first) until both sides have lines and its own
    are unique in the region, so an added line brings an anchor and a removed one can be said;
    hunks that then touch are merged. [] when nothing changes."""
    old, new = region.split("\n"), new_region.split("\n")
    if old == new:
        return []
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    spans = [[i1, i2] for tag, i1, i2, _, _ in ops if tag != "equal"]

    def new_at(i: int, end: bool) -> int:   # new's line index at old's line boundary i
        for tag, i1, i2, j1, j2 in (reversed(ops) if end else ops):
            if i == (i2 if end else i1):
                return j2 if end else j1
            if tag == "equal" and i1 < i < i2:
                return j1 + i - i1
        raise AssertionError(i)

    changed = True
    while changed:
        changed = False
        for s in spans:
            while (s[0] > 0 or s[1] < len(old)) and (
                    s[0] == s[1] or new_at(s[0], False) == new_at(s[1], True) or len(_occurrences(old, old[s[0]:s[1]])) > 1):
                if s[1] < len(old):
                    s[1] += 1
                else:
                    s[0] -= 1
                for tag, i1, i2, _, _ in ops:   # a boundary inside another changed block: take all of it
                    if tag != "equal" and i1 < s[1] and s[0] < i2:
                        s[0], s[1] = min(s[0], i1), max(s[1], i2)
                changed = True
        merged: list[list[int]] = []
        for s in sorted(spans):
            if merged and s[0] <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], s[1])
                changed = True
            else:
                merged.append(s)
        spans = merged
    return [(old[a:b], new[new_at(a, False):new_at(b, True)]) for a, b in spans]


def answer_ids(tok: Tokenizer, hunks: list[Hunk]) -> list[int]:
    """The answer's tokens: per hunk <|edit_before|> its lines <|edit_after|> their new text (the
    layout of the edit history), then <eom>; <eom> alone is no edit."""
    b_id, a_id = answer_markers(tok)
    out: list[int] = []
    for before, after in hunks:
        out += [b_id, *tok.encode("\n".join(before)), a_id, *tok.encode("\n".join(after))]
    return out + [tok.eom_id]


def answer_markers(tok: Tokenizer) -> tuple[int, int]:
    """The special tokens an answer writes besides <eom> (model/causal.py greedy's `allow`)."""
    return tok.special["<|edit_before|>"], tok.special["<|edit_after|>"]


def _hunk_spans(tok: Tokenizer, ids: list[int], i: int = 0) -> Iterator[tuple[range, range]]:
    """Index ranges (its block's tokens, its new tokens) of each whole hunk in `ids` from `i` on,
    where a hunk opens (answer_ids' layout), until something else comes."""
    b_id, a_id = answer_markers(tok)
    ends = (b_id, a_id, tok.eom_id)
    n = len(ids)
    while i < n and ids[i] == b_id:
        j = i + 1
        while j < n and ids[j] not in ends:
            j += 1
        if j >= n or ids[j] != a_id:
            return
        k = j + 1
        while k < n and ids[k] not in ends:
            k += 1
        if k >= n:
            return
        yield range(i + 1, j), range(j + 1, k)
        i = k


def changed_tokens(tok: Tokenizer, ids: list[int]) -> list[int]:
    """Indices into `ids` (a row; its answer follows ANSWER_AFTER) of the answer tokens where the
    new text leaves a copy of its block: each hunk's new tokens that replace or insert (difflib over
    the two sides' tokens), and for a removal the token written in the removed ones' place (the
    training loss weighs these up: `redraft train --changed-weight`)."""
    end = tok.special[ANSWER_AFTER]
    if end not in ids:
        return []
    out: list[int] = []
    for block, new in _hunk_spans(tok, ids, ids.index(end) + 1):
        before, after = [ids[x] for x in block], [ids[x] for x in new]
        for op, _, _, b0, b1 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if op in ("replace", "insert"):
                out += new[b0:b1]
            elif op == "delete":
                out.append(new.start + b0)   # the token after the removed ones (or the next marker)
    return out


def block_guide(tok: Tokenizer, region: str) -> Callable[[list[int]], set[int] | None]:
    """For model/causal.py greedy's `guide`: inside a hunk's block (after its <|edit_before|>, before
    its <|edit_after|>) the tokens that continue a block of the region's lines (any run of whole
    lines, as answer_ids encodes it), and <|edit_after|> once one is complete; elsewhere no
    constraint. A block the region does not hold is left out by apply_hunks anyway: guided, the
    model names the region line it rates best instead of, say, the history's line as it was."""
    b_id, a_id = answer_markers(tok)
    nxt: dict[tuple[int, ...], set[int]] = {}   # built at the first block (~6 ms; silence needs none)

    def build() -> None:
        lines = region.split("\n")
        for i in range(len(lines)):
            for j in range(i + 1, len(lines) + 1):
                ids = tuple(tok.encode("\n".join(lines[i:j])))
                if not ids:
                    continue
                for k in range(len(ids)):
                    nxt.setdefault(ids[:k], set()).add(ids[k])
                nxt.setdefault(ids, set()).add(a_id)

    def guide(out: list[int]) -> set[int] | None:
        if b_id not in out:
            return None
        if not nxt:
            build()
        at = len(out) - 1 - out[::-1].index(b_id)
        if a_id in out[at:]:
            return None
        return nxt.get(tuple(out[at + 1:]), set())
    return guide


def changed_weights(tok: Tokenizer, tokens, weight: float):
    """(B, T) float weights for a batch's next-token positions: `weight` where the position predicts
    one of its row's changed_tokens, 1 elsewhere (model/objective.py loss_fn's `answer_weights`)."""
    import torch
    w = torch.ones(tokens.shape, dtype=torch.float32)
    for r, row in enumerate(tokens.tolist()):
        at = [i - 1 for i in changed_tokens(tok, row) if i > 0]
        w[r, at] = weight
    return w


def parse_answer(tok: Tokenizer, ids: list[int]) -> list[Hunk]:
    """The hunks an answer's tokens say (answer_ids' inverse); a hunk cut short (no <eom> or next
    <|edit_before|> after its new text) or out of the layout is dropped."""
    b_id, a_id = answer_markers(tok)
    hunks: list[Hunk] = []
    parts: list[list[int]] = []    # tokens since the last marker
    marks: list[int] = []
    for t in ids:
        if t in (b_id, a_id, tok.eom_id):
            if marks[-2:] == [b_id, a_id] and t != a_id:
                before, after = parts[-2], parts[-1]
                hunks.append((tok.decode(before).split("\n"), tok.decode(after).split("\n")))
            if t == tok.eom_id:
                break
            marks.append(t)
            parts.append([])
        elif parts:
            parts[-1].append(t)
    return hunks


def apply_hunks(region: str, hunks: list[Hunk], cursor_line: int = 0) -> str:
    """The region with each hunk's lines replaced by its new lines (edit_hunks' inverse): each
    hunk's block is looked up in the region's lines below the previous hunk's (where it occurs more
    than once, nearest the cursor); a hunk whose block is not there is left out."""
    old = region.split("\n")
    out: list[str] = []
    pos = 0
    for before, after in hunks:
        at = _occurrences(old, before, pos)
        if not at:
            continue
        i = min(at, key=lambda i: (abs(i - cursor_line), i))
        out += old[pos:i] + after
        pos = i + len(before)
    return "\n".join(out + old[pos:])
