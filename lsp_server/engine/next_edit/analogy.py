"""The next edit by analogy: the user's last edit, read as a rule, carried to the places it fits.

Most next edits repeat the one just made: a rename carried to the next uses, a literal changed on
every line that has it, an argument added at each call of the function, the same wrapper put
around parallel values, a decorator added above the next definitions.  This module reads the last
edit (history's newest (before, after) pair, oldest ones when it gives nothing) as one `Rule` and
finds the lines where it applies; it answers in milliseconds and stays silent when no rule or no
place fits, which is most of the time.  The model (predict.py) is only asked where this has
nothing to say.

Rules (tokens: numbers, strings, words, runs of spaces, single marks; comments are left alone):
- word: one token replaced by another (a name, a number, a string): every other use of it;
- span: other tokens replaced, inserted or removed: the same change where the same tokens stand
  between the same neighbours;
- call: tokens inserted before the closing bracket of a call (`f(a)` -> `f(a, b=1)`): the same
  insertion in every other call of `f`;
- wrap: a value wrapped (`x = a` -> `x = int(a)`): the values after the same neighbour on lines of
  the same indentation;
- decorator: a line `@d` added above a definition: above the other definitions of that
  indentation that lack it.

Guards (each from a wrong proposal on real releases' edits, bench/next_edit_real.py's dev set): a
line the recent edits wrote is never edited again (`made_lines`: no insertion made twice, no name
the user kept renamed after all); an insertion is not made where it already stands; an edit that
adds or removes unbalanced brackets (`});` -> `}`) is a restructuring, not a rule; an argument
added to a method call goes to calls of that method (`ctx.report(`), not to a function of the
same name nor to definitions; a line is finished (`fill`) only by inserting at the cursor.
"""
from __future__ import annotations

import difflib
import keyword
import re
from dataclasses import dataclass

__all__ = ["Rule", "rule_from", "apply_rule", "fill", "propose", "rewrite"]

TOKEN = re.compile(r"""\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\w+|\s+|[^\w\s]""")
CLOSE = {")": "(", "]": "[", "}": "{"}
END = "\n"            # span: the line's end as the right neighbour
WINDOW = 150          # lines around the cursor where a rule is carried
CONFIRMED, UNCONFIRMED = 1.0, 0.5   # a proposal's confidence (newest_rule)
MAX_SITES = 40        # a rule that fits more lines than this is too loose to trust
_DEF = re.compile(r"\s*(?:async\s+def|def|class)\s")
_DEFINES = re.compile(r"\s*(?:(?:pub(?:\([^)]*\))?|export|async|static|unsafe|const|default)\s+)*(?:def|fn|function|func)\b")


@dataclass(frozen=True)
class Rule:
    kind: str                  # "word" | "span" | "call" | "wrap" | "decorator"
    old: tuple[str, ...]       # tokens replaced (word, span), the callee (call), the neighbour (wrap)
    new: tuple[str, ...]       # tokens put in their place / inserted / the wrapper's head
    left: tuple[str, ...] = ()  # span: the tokens before; wrap: the wrapper's tail
    right: tuple[str, ...] = ()  # span: the tokens after
    line: str = ""             # decorator: the line added
    shape: str = ""            # wrap, loose spans: the shape the example line had (see _shape)
    dot: bool = False          # word, call: the example's word followed a `.` (an attribute, a method), or not
    defines: bool = False      # call: the example was a definition's line (a parameter added), not a call


def tokens(line: str) -> list[str]:
    return TOKEN.findall(line)


def _code(toks: list[str]) -> int:
    """How many of the line's tokens are code (a `#` or `//` starts a comment)."""
    for i, t in enumerate(toks):
        if t == "#" or (t == "/" and i + 1 < len(toks) and toks[i + 1] == "/"):
            return i
    return len(toks)


def shape(toks: list[str]) -> str:
    """A line's tokens by kind: w (word), n (number), s (string), marks as they are; no spaces."""
    out = []
    for t in toks:
        if t.isspace():
            continue
        c = t[0]
        out.append("n" if c.isdigit() else "s" if c in "\"'" else "w" if c.isalnum() or c == "_" else t)
    return " ".join(out)


def _solid(toks: list[str], i: int, step: int) -> int | None:
    """The index of the next token from i (in direction step) that is not spaces, or None."""
    while 0 <= i < len(toks):
        if not toks[i].isspace():
            return i
        i += step
    return None


_KEYWORDS = set(keyword.kwlist) | {"true", "false", "null", "nil", "undefined", "this", "self", "let", "const", "var",
                                    "function", "return", "fn", "mut", "pub", "impl", "func", "new", "typeof"}


def _distinctive(tok: str) -> bool:
    """A token worth carrying elsewhere: a name of 2+ characters that is not a keyword, a number of
    2+ digits or with a point, a string with 3+ characters."""
    if tok[0] in "\"'":
        return len(tok) >= 5
    if tok[0].isdigit():
        return len(tok.replace(".", "")) >= 2 or "." in tok
    return len(tok) >= 2 and tok not in _KEYWORDS


def _line_rule(before: str, after: str) -> Rule | None:
    tb, ta = tokens(before), tokens(after)
    ops = [o for o in difflib.SequenceMatcher(None, tb, ta, autojunk=False).get_opcodes() if o[0] != "equal"]
    code = _code(tb)
    if not ops or (code < len(tb) and any(o[1] >= code for o in ops)):
        return None                                   # nothing changed, or a comment did
    if len(ops) > 1 and all(o[0] == "replace" for o in ops) and \
            len({(tuple(tb[o[1]:o[2]]), tuple(ta[o[3]:o[4]])) for o in ops}) == 1:
        ops = ops[:1]                                 # the same word replaced twice on the line
    if len(ops) == 2 and ops[0][0] == ops[1][0] == "insert":
        head, tail = "".join(ta[ops[0][3]:ops[0][4]]), "".join(ta[ops[1][3]:ops[1][4]])
        l = _solid(tb, ops[0][1] - 1, -1)
        if head.endswith(("(", "[")) and tail.rstrip().endswith((")", "]")) and l is not None:
            return Rule("wrap", (tb[l],), tuple(ta[ops[0][3]:ops[0][4]]), tuple(ta[ops[1][3]:ops[1][4]]),
                        shape=shape(tb))
    if len(ops) != 1:
        return None
    tag, i1, i2, j1, j2 = ops[0]
    old, new = tuple(tb[i1:i2]), tuple(ta[j1:j2])
    if tag == "replace" and len(old) == 1 and not old[0].isspace() and (old[0][0].isalnum() or old[0][0] in "_\"'"):
        if not _distinctive(old[0]):
            return None                               # `1` -> `0`, `x` -> `y`, `if` -> `elif`: too common to carry
        p = _solid(tb, i1 - 1, -1)
        return Rule("word", old, new, dot=p is not None and tb[p] == ".")
    if tag == "insert":
        r = _solid(tb, i1, 1)
        if r is not None and tb[r] in CLOSE:
            o = _opener(tb, r)
            f = _solid(tb, o - 1, -1) if o is not None else None
            if f is not None and (tb[f][0].isalpha() or tb[f][0] == "_"):
                d = _solid(tb, f - 1, -1)
                return Rule("call", (tb[f],), new, dot=d is not None and tb[d] == ".",
                            defines=bool(_DEFINES.match(before)))
    l, r = _solid(tb, i1 - 1, -1), _solid(tb, i2, 1)
    left = tuple(tb[l:i1]) if l is not None else ()
    right = tuple(tb[i2:r + 1]) if r is not None else (END,)
    if not left and right == (END,):
        return None
    if _brackets(old) != _brackets(new):
        return None                                   # `});` -> `}`: code restructured, not a pattern
    loose = not any(t[0].isalnum() or t[0] == "_" for t in left + right if t != END and not t.isspace())
    return Rule("span", old, new, left, right, shape=shape(tb) if loose else "")


def _brackets(toks) -> tuple[int, int, int]:
    """Openers minus closers of each kind of bracket among the tokens."""
    return tuple(sum((t == o) - (t == c) for t in toks) for o, c in ("()", "[]", "{}"))


def _opener(toks: list[str], close: int) -> int | None:
    depth = 0
    for i in range(close, -1, -1):
        if toks[i] in CLOSE:
            depth += 1
        elif toks[i] in CLOSE.values():
            depth -= 1
            if depth == 0:
                return i
    return None


def _closer(toks: list[str], open_: int) -> int | None:
    depth = 0
    for i in range(open_, len(toks)):
        if toks[i] in CLOSE.values():
            depth += 1
        elif toks[i] in CLOSE:
            depth -= 1
            if depth == 0:
                return i
    return None


def rule_from(before: str, after: str) -> Rule | None:
    """The rule one edit (whole lines before and after) follows, or None."""
    b, a = before.split("\n"), after.split("\n")
    if len(a) == len(b) + 1:
        for k in range(len(a)):
            if b[:k] == a[:k] and b[k:] == a[k + 1:]:
                new = a[k]
                nxt = a[k + 1] if k + 1 < len(a) else ""
                if new.strip().startswith("@") and _DEF.match(nxt) and len(new) - len(new.lstrip()) == \
                        len(nxt) - len(nxt.lstrip()):
                    return Rule("decorator", (), (), line=new.strip())
                return None
        return None
    if len(a) != len(b):
        return None
    changed = [(x, y) for x, y in zip(b, a) if x != y]
    rules = {_line_rule(x, y) for x, y in changed}
    return rules.pop() if len(rules) == 1 else None


def _apply_line(rule: Rule, line: str) -> str:
    toks = tokens(line)
    code = _code(toks)
    if rule.shape and shape(toks) != rule.shape:
        return line                                   # a loose rule fits only lines shaped like its example
    if rule.kind == "word":
        out = list(toks)
        for i in range(code):
            if toks[i] == rule.old[0]:
                p = _solid(toks, i - 1, -1)
                if (p is not None and toks[p] == ".") == rule.dot:
                    out[i] = "".join(rule.new)
        return "".join(out)
    if rule.kind == "span":
        end = rule.right == (END,)
        body = list(toks[:code])
        while end and body and body[-1].isspace():
            body.pop()
        pat = rule.left + rule.old + (() if end else rule.right)
        out, i = [], 0
        n_left = len(rule.left)
        while i < len(body):
            if not rule.old and tuple(body[i:i + n_left + len(rule.new)]) == rule.left + rule.new:
                out += body[i:i + n_left + len(rule.new)]     # the insertion is already there
                i += n_left + len(rule.new)
            elif tuple(body[i:i + len(pat)]) == pat and (not end or i + len(pat) == len(body)):
                out += list(rule.left) + list(rule.new) + ([] if end else list(rule.right))
                i += len(pat)
            else:
                out.append(body[i])
                i += 1
        return "".join(out + toks[len(body):])
    if rule.kind == "call":
        out = list(toks)
        if _DEFINES.match(line) and not rule.defines:
            return line                               # an argument added to a call is not a parameter
        for f in [i for i in range(code - 1) if toks[i] == rule.old[0]][::-1]:
            o = _solid(toks, f + 1, 1)
            d = _solid(toks, f - 1, -1)
            if o is None or toks[o] != "(" or (not rule.defines and (d is not None and toks[d] == ".") != rule.dot):
                continue
            c = _closer(toks, o)
            if c is None or c > code:
                continue
            new = list(rule.new)
            inner = "".join(toks[o + 1:c]).strip()
            if not inner and new and new[0] == ",":
                new = new[1:]
                while new and new[0].isspace():
                    new = new[1:]
            if "".join(toks[c - len(rule.new):c]) == "".join(rule.new):
                continue                                  # already there
            out = out[:c] + new + out[c:]
        return "".join(out)
    if rule.kind == "wrap":
        l = next((i for i in range(code) if toks[i] == rule.old[0]), None)
        if l is None:
            return line
        s = _solid(toks, l + 1, 1)
        if s is None or s >= code:
            return line
        head, tail = "".join(rule.new), "".join(rule.left)
        if "".join(toks[s:]).startswith(head):
            return line
        e = code
        while e > s and toks[e - 1].isspace():
            e -= 1
        if tail.startswith(")") and e > s and toks[e - 1] in (",", ";", ":"):
            e -= 1
        return "".join(toks[:s]) + head + "".join(toks[s:e]) + tail + "".join(toks[e:])
    return line


def apply_rule(rule: Rule, lines: list[str], start: int, end: int, ref_indent: int | None = None,
               keep: frozenset[str] = frozenset()) -> list[str]:
    """Lines [start, end) of `lines` with the rule applied where it fits; lines whose text is in
    `keep` (what the recent edits made, `made_lines`) stay as they are."""
    out: list[str] = []
    for i in range(start, end):
        line = lines[i]
        if line in keep:
            out.append(line)
            continue
        if rule.kind == "decorator":
            ind = len(line) - len(line.lstrip())
            prev = lines[i - 1].strip() if i > 0 else ""
            if _DEF.match(line) and ind == ref_indent and prev != rule.line:
                out.append(" " * ind + rule.line)
            out.append(line)
            continue
        if rule.kind == "wrap" and ref_indent is not None and len(line) - len(line.lstrip()) != ref_indent:
            out.append(line)
            continue
        out.append(_apply_line(rule, line))
    return out


def made_lines(history: list[tuple[str, str]]) -> frozenset[str]:
    """The lines the recent edits wrote (their new lines that were not there before): a rule is
    never carried back onto them, since the user has just written what they should say (a name
    kept on purpose beside the renamed one, an insertion already made)."""
    out: set[str] = set()
    for before, after in history[-4:]:
        old = set(before.split("\n"))
        out.update(l for l in after.split("\n") if l.strip() and l not in old)
    return frozenset(out)


def _indent(text: str) -> int:
    line = next((l for l in text.split("\n") if l.strip()), "")
    return len(line) - len(line.lstrip())


def _alike(r: Rule, q: Rule | None) -> bool:
    """The same rule (a call's insertion counts as the same for the same callee)."""
    if q is None or q.kind != r.kind:
        return False
    return q.old == r.old if r.kind == "call" else q == r


def _bound(rule: Rule, before: str) -> bool:
    """The edit renamed a name where it is bound (a definition, an assignment's target, a
    parameter, an attribute set on self/this): its other uses must follow."""
    if rule.kind != "word" or not (rule.old[0][0].isalpha() or rule.old[0][0] == "_"):
        return False
    w = re.escape(rule.old[0])
    return bool(re.search(rf"\b(?:def|class|function|fn|let|const|var|type|struct|enum|interface|trait)\s+{w}\b", before)
                or re.search(rf"^\s*(?:self\.|this\.)?{w}\s*(?::[^=\n]*)?=(?!=)", before, re.M)
                or re.search(rf"^\s*(?:async\s+)?(?:def|function|fn)\b[^\n(]*\([^\n]*\b{w}\b", before, re.M))


def newest_rule(history: list[tuple[str, str]]) -> tuple[Rule, int, bool] | None:
    """(rule, indentation of its example, confirmed) from the newest edit that has one (of the last
    two).  Confirmed: the user has shown the rule is meant to spread (the same rule on two lines of
    the recent edits, or a name renamed where it is bound).  Unconfirmed rules are proposed too,
    with less confidence: on real releases' edits they are right about half as often
    (bench/RESULTS.md, next edit on real edits)."""
    recent = history[-4:]
    for k in (1, 2):
        if len(history) < k:
            break
        before, after = history[-k]
        rule = rule_from(before, after)
        if rule is None:
            continue
        uses = 0
        for b, a in recent:
            bl, al = b.split("\n"), a.split("\n")
            if len(bl) == len(al):
                uses += sum(_alike(rule, _line_rule(x, y)) for x, y in zip(bl, al) if x != y)
            else:
                uses += _alike(rule, rule_from(b, a))
        return rule, _indent(after), uses >= 2 or _bound(rule, before)
    return None


def sites(rule: Rule, lines: list[str], lo: int, hi: int, ref_indent: int | None,
          keep: frozenset[str] = frozenset()) -> list[int]:
    """Lines in [lo, hi) that the rule changes."""
    out = []
    for i in range(lo, hi):
        new = apply_rule(rule, lines, i, i + 1, ref_indent, keep)
        if new != [lines[i]]:
            out.append(i)
    return out


def _typed_at(typed: str, col: int, done: str) -> bool:
    """`done` is `typed` with text inserted at the cursor: the user is part way through typing it
    there (a finished line, `new X(` made `createX(` with the cursor at its end, is not completed
    into something else)."""
    return len(done) > len(typed) and done.startswith(typed[:col]) and done.endswith(typed[col:])


def fill(lines: list[str], line: int, history: list[tuple[str, str]], col: int | None = None) -> tuple[Rule, str] | None:
    """The user is part way through the next use of a rule: the cursor line is the newest edit's
    partly typed version of a line that a rule from the recent edits changes, and that rule's
    result is the line with text inserted at the cursor (`col`; None: the line's end).
    (rule, the finished line)."""
    if not history or not 0 <= line < len(lines):
        return None
    b, a = history[-1][0].split("\n"), history[-1][1].split("\n")
    if len(a) != len(b):
        return None
    pairs = [(x, y) for x, y in zip(b, a) if x != y]
    typed = [x for x, y in pairs if y == lines[line]]
    if not typed:
        return None
    original = typed[0]
    rules = [_line_rule(x, y) for x, y in pairs if y != lines[line]]
    for before, after in reversed(history[-3:-1]):
        rules.append(rule_from(before, after))
    for rule in rules:
        if rule is None or rule.kind == "decorator":
            continue
        done = _apply_line(rule, original)
        if done != original and _typed_at(lines[line], len(lines[line]) if col is None else col, done):
            return rule, done
    return None


def propose(text: str, line: int, history: list[tuple[str, str]], size: int = 10, col: int | None = None):
    """(start_line, end_line, new lines, confidence) for the region around the nearest place where
    the newest usable rule of the history applies (the cursor's region first), or None: silence.
    Confidence: CONFIRMED for a line being finished (fill) or a confirmed rule, else UNCONFIRMED."""
    from redraft.model.edits import region_lines
    lines = text.split("\n")
    keep = made_lines(history)
    done = fill(lines, line, history, col)
    if done is not None:
        a, b = region_lines(len(lines), line, size)
        out = apply_rule(done[0], lines, a, b, None, keep)
        out[line - a] = done[1]
        return a, b, out, CONFIRMED
    found = newest_rule(history)
    if found is None:
        return None
    rule, ref, sure = found
    lo, hi = max(0, line - WINDOW), min(len(lines), line + WINDOW)
    hits = sites(rule, lines, lo, hi, ref, keep)
    if not hits or len(hits) > MAX_SITES:
        return None
    a, b = region_lines(len(lines), line, size)
    if not any(a <= h < b for h in hits):
        near = min(hits, key=lambda h: (abs(h - line), h))
        a, b = region_lines(len(lines), near, size)
    return a, b, apply_rule(rule, lines, a, b, ref, keep), CONFIRMED if sure else UNCONFIRMED


def rewrite(task) -> str:
    """A model/edits.py EditTask's region with the newest usable rule applied (the finished line
    first when the user is part way through one): the region unchanged means no edit."""
    lines = task.text.split("\n")
    line, col = task.position()
    a = task.start_line()
    b = a + task.region.count("\n") + 1
    keep = made_lines(task.history)
    done = fill(lines, line, task.history, col)
    if done is not None:
        out = apply_rule(done[0], lines, a, b, None, keep)
        out[line - a] = done[1]
        return "\n".join(out)
    found = newest_rule(task.history)
    if found is None:
        return task.region
    return "\n".join(apply_rule(found[0], lines, a, b, found[1], keep))
