"""Syntax-aware post-processing of a sampled candidate.

`finish` applies, in order:
1. the scope's boundary: single-line scopes end at the first newline; a string scope also at the
   string's closing delimiter (the suffix closes the string already: quote balance); a block scope
   keeps the lines of the new body (until a line dedented to the opener's depth or less; in the
   brace languages also until the line that closes the block, which is dropped when the suffix
   closes the block already), at most MAX_BLOCK_LINES lines;
2. bracket balance against the suffix (`balance_brackets`): the candidate may close at most as many
   brackets as the document leaves unclosed; a closer beyond that (one the suffix closes already)
   ends the candidate;
3. duplicate-suffix removal: a tail that the rest of the line starts with is dropped;
4. syntax-aware truncation (in the spirit of SAFIM's): among cut points of the candidate (line ends
   for a block, token ends within a line; the whole candidate first) keep the longest prefix whose
   insertion puts no parse error (ERROR/MISSING node) inside the inserted text and leaves the fewest
   errors in the document of all cut points, provided that is no more than the document had
   without it; otherwise nothing. The checks parse only the top-level construct(s) around the
   cursor (`check_window`), incrementally (an insertion edit on the window's tree): a candidate
   whose error recovery would run through the rest of a large file costs the window, not the file.
   A "header" boundary (a missing block header) keeps only prefixes that end with the block opener.
   Python: a cut that would be kept is also compiled with the window (CPython is stricter than
   tree-sitter's grammar), at most MAX_COMPILES times per candidate, and refused if the window
   compiled without it and not with it.

A hole (`broken_at`: the document is broken at the cursor, e.g. part of a line or several lines
missing) is filled across lines: `span_choose` keeps the prefix of a candidate, cut anywhere
(token ends, line ends, after a line's indentation), that leaves the check window with the fewest
errors (CPython's verdict counted too); among those, the cut after which the candidate goes on as
the suffix does (a left-to-right continuation that wrote the fill and then the suffix's start), then
the longest.
"""
from __future__ import annotations

import ast
import bisect
import re
from collections import OrderedDict
from functools import lru_cache

from redraft.engine.plan import Plan, drop_duplicate_tail
from redraft.engine.syntax.languages import COMMENT_TYPES
from redraft.engine.syntax.trees import SyntaxTree, encode

__all__ = ["finish", "insertion_errors", "window_tree", "balance_brackets", "bracket_scan", "syntax_truncate",
           "block_lines", "broken_at", "span_choose", "span_truncate", "MAX_BLOCK_LINES"]

MAX_BLOCK_LINES = 12
MAX_CUTS = 24           # parses per candidate at most
MAX_COMPILES = 4        # Python: CPython compiles of the window per candidate at most
WINDOW_MAX = 64_000     # a check window larger than this (bytes) gets LARGE_CUTS parses at most
LARGE_CUTS = 4
SPAN_CUTS = 48          # a hole's candidate: parses at most
MIN_OVERLAP = 3         # a hole's candidate: characters of the suffix its rest must repeat to count
SCAN_CHARS = 20_000     # bracket balance looks this far either way
_OPEN, _CLOSE = "([{", ")]}"
_TOKEN = re.compile(r"\w+|\S")


def bracket_scan(s: str, line_comment: str | None = "#") -> tuple[list[str], list[int]]:
    """(unclosed openers, indices of unmatched closers) of s, skipping string literals (one line for
    ' " `, several for triple quotes) and line comments."""
    stack: list[str] = []
    unmatched: list[int] = []
    i, n = 0, len(s)
    comments = ("#", "//") if line_comment is None else (line_comment,)
    while i < n:
        ch = s[i]
        if ch in "\"'`":
            q = s[i:i + 3] if s[i:i + 3] in ('"""', "'''") else ch
            j = i + len(q)
            while j < n:
                if s[j] == "\\":
                    j += 2
                    continue
                if s.startswith(q, j):
                    j += len(q)
                    break
                if s[j] == "\n" and len(q) == 1 and q != "`":
                    break
                j += 1
            i = j
            continue
        if any(s.startswith(c, i) for c in comments):
            nl = s.find("\n", i)
            i = n if nl < 0 else nl
            continue
        if ch in _OPEN:
            stack.append(ch)
        elif ch in _CLOSE:
            if stack and stack[-1] == _OPEN[_CLOSE.index(ch)]:
                stack.pop()
            elif stack:
                stack.pop()  # mismatched: count it as closing the innermost opener
            else:
                unmatched.append(i)
        i += 1
    return stack, unmatched


def balance_brackets(completion: str, text: str, offset: int, line_comment: str | None = None) -> str:
    """Cut the candidate at the first closer that the document does not need: the prefix's unclosed
    brackets minus those the suffix closes is how many the candidate may close."""
    _, closers = bracket_scan(completion, line_comment)
    if not closers:
        return completion
    pre = text[max(0, offset - SCAN_CHARS): offset]
    lo = pre.find("\n")  # start the windows on line boundaries
    pre = pre[lo + 1:] if offset > SCAN_CHARS and lo >= 0 else pre
    suf = text[offset: offset + SCAN_CHARS]
    open_before, _ = bracket_scan(pre, line_comment)
    _, close_after = bracket_scan(suf, line_comment)
    allowed = max(0, len(open_before) - len(close_after))
    if len(closers) <= allowed:
        return completion
    return completion[: closers[allowed]].rstrip()


def _width(indent: str) -> int:
    return len(indent.expandtabs(8))


def block_lines(completion: str, plan: Plan, text: str, offset: int, indent_blocks: bool,
                line_comment: str) -> str:
    """The lines of a new block body (see the module docstring)."""
    lines = completion.split("\n")
    keep: list[str] = []
    depth = 0
    rest = text[offset:]
    suffix_closes = rest.split("\n", 1)[1].lstrip().startswith("}") if "\n" in rest else rest.lstrip().startswith("}")
    for k, line in enumerate(lines[:MAX_BLOCK_LINES]):
        body = line.rstrip()
        if not indent_blocks:
            opened, closers = bracket_scan(body, line_comment)
            if closers and depth - len(closers) < 0 and body.lstrip()[:1] in _CLOSE:
                if not suffix_closes:
                    keep.append(body)  # the block's closer, which the document does not have yet
                break
            depth += len(opened) - len(closers)
        if k and body.strip() and _width(body[: len(body) - len(body.lstrip())]) <= _width(plan.indent):
            break  # back at the opener's depth: the block has ended
        keep.append(body)
    while keep and not keep[-1].strip():
        keep.pop()
    return "\n".join(keep)


def _cut_points(candidate: str, multiline: bool) -> list[int]:
    """Candidate prefix lengths to try, in order."""
    if multiline and "\n" in candidate:
        cuts, pos = [], 0
        for line in candidate.split("\n"):
            pos += len(line)
            if line.strip():
                cuts.append(pos)
            pos += 1
        cuts = sorted(set(cuts), reverse=True)
        first = candidate.find("\n")
        return cuts + [c for c in _cut_points(candidate[:first], False) if c != first]
    ends = sorted({m.end() for m in _TOKEN.finditer(candidate)} | {len(candidate.rstrip())}, reverse=True)
    # prefixes that leave no bracket of their own open first (only those can be clean when the
    # suffix closes nothing), each group longest first
    return sorted((e for e in ends if e > 0), key=lambda e: (bool(bracket_scan(candidate[:e])[0]), -e))


def _introduced(errors: list[tuple[int, int, bool]], lo: int, hi: int) -> bool:
    """Does an error lie inside the inserted bytes [lo, hi)? An ERROR node within them, or a MISSING
    node strictly between their ends (one at the end is the suffix's business: a `;` still to type)."""
    for start, end, missing in errors:
        if missing and lo < start < hi:
            return True
        if not missing and lo <= start and end <= hi and end > start:
            return True
    return False


def check_window(st: SyntaxTree, b: int) -> tuple[int, int]:
    """Bytes [lo, hi) of the document that a candidate at byte b is checked in: the top-level
    construct(s) around the cursor (the one containing it, or the ones either side of a cursor
    between them). Top-level definitions parse independently, and a candidate's errors (an unclosed
    bracket swallowing the rest of a file ...) then cost the window's parse, not the document's."""
    root = st.root
    node = root.descendant_for_byte_range(max(0, b - 1), b)
    top = None
    while node is not None and node.parent is not None:
        top, node = node, node.parent
    if top is not None and top.start_byte <= b <= top.end_byte:
        lo, hi = top.start_byte, top.end_byte
    else:
        kids = root.children
        k = bisect.bisect_left([c.end_byte for c in kids], b + 1)  # the first child ending after b
        after = kids[k] if k < len(kids) else None
        before = kids[k - 1] if k > 0 else None
        lo = before.start_byte if before is not None else 0
        hi = after.end_byte if after is not None else len(st.source)
    lo = min(lo, b)
    lo = st.source.rfind(b"\n", 0, lo) + 1   # whole lines (keeps the first line's indentation)
    return lo, max(hi, b)


_WINDOWS: "OrderedDict[tuple[int, int], tuple[SyntaxTree, tuple[SyntaxTree, int, int]]]" = OrderedDict()


def window_tree(st: SyntaxTree, offset_byte: int) -> tuple[SyntaxTree, int, int]:
    """(tree of the check window around offset_byte, the offset inside it, the window's size in
    bytes); the document's own tree when the window is all of it. Memoized for the last few
    (tree, offset) pairs: one request checks many candidates at one cursor (trees are immutable)."""
    key = (id(st), offset_byte)
    hit = _WINDOWS.get(key)
    if hit is not None and hit[0] is st:
        return hit[1]
    lo, hi = check_window(st, offset_byte)
    if (lo, hi) != (0, len(st.source)):
        out = SyntaxTree.from_bytes(st.lang, st.source[lo:hi]), offset_byte - lo, hi - lo
    else:
        out = st, offset_byte, hi - lo
    _WINDOWS[key] = (st, out)  # holds st, so its id cannot be reused while the entry lives
    while len(_WINDOWS) > 8:
        _WINDOWS.popitem(last=False)
    return out


def insertion_errors(st: SyntaxTree, offset_byte: int, piece: str) -> int:
    """Parse errors in the check window around offset_byte once `piece` is inserted there. Python
    windows are also compiled (tree-sitter's grammar is lenient where CPython is not, e.g. a `try:`
    with no `except`): a SyntaxError counts as one more error. Checking several pieces at one place:
    pass the `window_tree` once, it is its own window."""
    return _inserted(st, offset_byte, piece)[1]


def _inserted(st: SyntaxTree, offset_byte: int, piece: str) -> tuple[SyntaxTree, int]:
    """(the window's tree with `piece` inserted, insertion_errors)."""
    st, offset_byte, _ = window_tree(st, offset_byte)
    inserted = st.insertion(offset_byte, piece)
    n = len(inserted.errors())
    if st.lang.indent_blocks and not _compiles(inserted.source):
        n += 1
    return inserted, n


def _fill_errors(st: SyntaxTree, offset_byte: int, piece: str) -> int | None:
    """insertion_errors of a hole's fill; None where the fill ends inside a comment that runs on into
    the suffix (a `#` that turns the rest of the line into a comment parses, and loses that code)."""
    inserted, n = _inserted(st, offset_byte, piece)
    end = offset_byte + len(encode(piece))
    node = inserted.root.descendant_for_byte_range(end - 1, end)
    while node is not None:
        if (node.type in COMMENT_TYPES or node.type.endswith("comment")) and node.end_byte > end:
            return None
        node = node.parent
    return n


def syntax_truncate(candidate: str, st: SyntaxTree, offset_byte: int, multiline: bool = False,
                    must_end_with: str | None = None) -> str:
    """The longest prefix at a cut point that puts no parse error inside the inserted text and leaves
    the document with the fewest errors (no more than it had without the insertion); with
    `must_end_with`, only prefixes ending with it (a block header's ":"); else ""."""
    if not candidate.strip():
        return ""
    st, offset_byte, size = window_tree(st, offset_byte)
    max_cuts = LARGE_CUTS if size > WINDOW_MAX else MAX_CUTS
    base = st.error_count()
    best_len, best_err = 0, base
    cuts = _cut_points(candidate, multiline)
    if must_end_with:
        cuts = [c for c in cuts if candidate[:c].rstrip().endswith(must_end_with)]
    base_compiles = None  # Python: does the window compile without the insertion (asked lazily)
    compiles_left = MAX_COMPILES
    for n, cut in enumerate(cuts):
        if n >= max_cuts:
            break
        piece = candidate[:cut]
        inserted = st.insertion(offset_byte, piece)
        errors = inserted.errors()
        if _introduced(errors, offset_byte, offset_byte + len(encode(piece))):
            continue
        if len(errors) < best_err or (len(errors) == best_err and best_len == 0):
            if st.lang.indent_blocks:
                # tree-sitter's Python grammar accepts what CPython rejects (`x =` before a statement,
                # `else:` with no block after it): a cut that breaks a window that compiled is refused
                if base_compiles is None:
                    base_compiles = _compiles(st.source)
                if base_compiles:
                    if compiles_left == 0:
                        break
                    compiles_left -= 1
                    if not _compiles(inserted.source):
                        continue
            best_len, best_err = cut, len(errors)
        if not errors:
            break  # nothing shorter can be better
    return candidate[:best_len].rstrip()


def broken_at(st: SyntaxTree, offset_byte: int) -> bool:
    """Is the document broken at the cursor: a parse error (ERROR or MISSING node) that touches the
    cursor's line or the next one, or (Python) a check window that CPython does not compile?"""
    src = st.source
    lo = src.rfind(b"\n", 0, offset_byte) + 1
    hi = src.find(b"\n", offset_byte)
    hi = len(src) if hi < 0 else src.find(b"\n", hi + 1)
    hi = len(src) if hi < 0 else hi
    if any(start <= hi and end >= lo for start, end, _ in st.errors()):
        return True
    if not st.lang.indent_blocks:
        return False
    win, _, _ = window_tree(st, offset_byte)
    return not _compiles(win.source)


def _span_cuts(candidate: str) -> set[int]:
    """Where a hole's candidate may end: token ends, line ends and the ends of lines' indentation
    (the hole may end just before the suffix's text on a new line); span_choose orders them."""
    ends = {m.end() for m in _TOKEN.finditer(candidate)} | {len(candidate)}
    pos = 0
    for line in candidate.split("\n")[:-1]:
        pos += len(line) + 1
        ends.add(pos - 1)
        ends.add(pos + len(candidate[pos:]) - len(candidate[pos:].lstrip(" \t")))
    return {e for e in ends if 0 < e <= len(candidate)}


def _overlap(rest: str, suffix: str) -> int:
    """How far `rest` (a candidate's text after a cut) repeats the start of `suffix`, in characters."""
    n = 0
    for a, b in zip(rest, suffix):
        if a != b:
            break
        n += 1
    return n


def span_choose(candidates: list[str], st: SyntaxTree, offset_byte: int, suffix: str = "") -> tuple[str, int]:
    """(fill, errors it leaves in the check window) for a hole at offset_byte. The fill is a prefix
    of one of the candidates, cut at a `_span_cuts` cut or anywhere (mid-word too) where the rest
    repeats the suffix; the one that leaves the fewest errors (`_fill_errors`) wins; among those,
    the one whose rest repeats the most of `suffix` (the text after the cursor: a left-to-right
    continuation that wrote the fill and went on into the suffix says where the fill ends; from
    MIN_OVERLAP characters on), then the earlier candidate, then the longer cut. ("", errors
    without an insertion) when no cut does better than nothing. At most SPAN_CUTS parses per
    candidate, the likeliest cuts (by overlap, then length) first."""
    win, at, _ = window_tree(st, offset_byte)
    base = insertion_errors(win, at, "")
    best_key, best = (base, 0, 0, 0), ""
    for rank, cand in enumerate(candidates):
        cuts = []
        ends = _span_cuts(cand)
        for cut in range(len(cand), 0, -1):   # token ends, and any place the rest repeats the suffix
            lap = _overlap(cand[cut:], suffix)
            if (cut in ends or lap >= MIN_OVERLAP) and cand[:cut].strip():
                cuts.append((lap if lap >= MIN_OVERLAP else 0, cut))
        for lap, cut in sorted(cuts, reverse=True)[:SPAN_CUTS]:
            if (best_key[0], best_key[1]) <= (0, -lap):
                break   # nothing later in this order can beat what is kept
            errors = _fill_errors(win, at, cand[:cut])
            key = (errors, -lap, rank, -cut)
            if errors is not None and errors < base and key < best_key:
                best_key, best = key, cand[:cut]
    return best, best_key[0]


def span_truncate(candidate: str, st: SyntaxTree, offset_byte: int, suffix: str = "") -> tuple[str, int]:
    """span_choose for one candidate."""
    return span_choose([candidate], st, offset_byte, suffix)


@lru_cache(maxsize=32)
def _compiles(src: bytes) -> bool:
    """Does CPython compile this Python window? Memoized: the truncation and the pipeline's repair
    ask about the same windows (with and without the same piece) in one request."""
    try:
        compile(src, "<window>", "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError):
        return False
    return True


def finish(completion: str, plan: Plan, text: str, offset: int, st: SyntaxTree) -> str:
    lang = st.lang
    if plan.scope == "span":   # a hole: across lines, trailing whitespace kept (the suffix may need it)
        completion = balance_brackets(completion, text, offset, lang.spec.line_comment)
        return span_truncate(completion, st, len(encode(text[:offset])), text[offset: offset + SCAN_CHARS])[0]
    if plan.scope == "block":
        completion = block_lines(completion, plan, text, offset, lang.indent_blocks, lang.spec.line_comment)
    else:
        completion = completion.split("\n", 1)[0]
    if plan.quote:
        i = 0
        while True:
            j = completion.find(plan.quote, i)
            if j < 0:
                break
            if j > 0 and completion[j - 1] == "\\" and not completion[:j].endswith("\\\\"):
                i = j + 1
                continue
            completion = completion[:j]
            break
    completion = completion.rstrip()
    if plan.scope != "string":
        completion = balance_brackets(completion, text, offset, lang.spec.line_comment)
    completion = drop_duplicate_tail(completion, text, offset)
    if not completion.strip():
        return ""
    return syntax_truncate(completion, st, len(encode(text[:offset])), multiline=plan.scope == "block",
                           must_end_with=st.lang.block_opener if plan.boundary == "header" else None)
