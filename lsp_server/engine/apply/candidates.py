"""Which of several definitions of a name a snippet's one is (apply's merge, by_name): a method shown
without its class, in a file where several classes have it, goes to the one of its signature, the one
clearly likest it token by token (and by its code alone, and nearer line by line when the margin is
narrow), the one holding nearly all its tokens, the one whose class it names, or the one whose own
lines it shows; else none (refused, the places named)."""
from __future__ import annotations

import difflib
import re
from collections import Counter

from redraft.engine.apply.alike import LIKE, alike
from redraft.engine.apply.definitions import Def
from redraft.engine.apply.lost import code_lines as _code
from redraft.engine.apply.usage import shows

__all__ = ["class_name", "method_alike", "most_alike"]

ALIKE, ALIKE_MARGIN = 0.3, 0.1     # a definition picked by its likeness (token by token) to the snippet's
NEAR, NEAR_MARGIN = 2.0, 0.03      # ... or by a smaller margin when the next one is twice as far from it
FAINT = 0.5                        # ... not when it is likest by less than this (by a margin under twice
#                                    ALIKE_MARGIN) and names another one's class: what it names tells
HELD, HELD_MARGIN = 0.9, 0.25      # ... or as the one that has nearly all the snippet's tokens, far more than the next
SIGNATURE = 15                     # lines of a definition's signature looked at, at most
TWIN = 0.9                         # a line this alike to another (difflib ratio) may be its edit

_SELF = re.compile(r"^\s*(?:async\s+)?def\s+\w+\s*\(\s*(self|cls)\b", re.S)


def method_alike(orig: list[str], o: Def, d: Def) -> bool:
    """A Python method (`self`/`cls` first) is not replaced by a function without them: that is
    more likely a nested function of the same name."""
    def method(lines: list[str]) -> bool:
        at = next((i for i, l in enumerate(lines) if re.match(r"\s*(?:async\s+)?def\s", l)), 0)
        return bool(_SELF.match("\n".join(lines[at:at + 12])))
    return not o.indent_text or not method(orig[o.comment_start:o.end + 1]) or method(d.text)


_TOKEN = re.compile(r"\w+|\S")


def _likeness(orig: list[str], o: Def, d: Def) -> tuple[float, float]:
    """How alike two definitions are, token by token (a short function whose every line changed
    is still most like its old self), and how much of the snippet's definition the original has."""
    return _tokens_alike(orig[o.comment_start:o.end + 1], d.text)


def _tokens_alike(old: list[str], lines: list[str]) -> tuple[float, float]:
    """difflib's ratio of the two texts' tokens, and the share of `lines`' tokens that `old` has."""
    new = _TOKEN.findall("\n".join(lines))
    sm = difflib.SequenceMatcher(None, _TOKEN.findall("\n".join(old)), new, autojunk=False)
    return sm.ratio(), sum(m.size for m in sm.get_matching_blocks()) / max(len(new), 1)


def most_alike(orig: list[str], cands: list[Def], d: Def) -> list[Def]:
    """The one candidate of the snippet's signature (_signed), else the one clearly most like the
    snippet's definition (a method shown without its class, in a file where several classes have it:
    by ALIKE_MARGIN, or NEAR_MARGIN when the next one differs from the snippet twice as much), or the
    one that has nearly all its tokens (HELD, by HELD_MARGIN, none having all: huey's SQLite `incr`,
    its version checks dropped, token by token as like the shorter Postgres one), else all of them;
    not when the snippet's definition is another one with lines left out (as likely a deletion there
    as a rewrite here), nor, unless it is twice as near, when no line of the snippet's is like one of
    it and not of the next one (_evident)."""
    if signed := _signed(orig, cands, d):
        return [signed]
    likeness = [_likeness(orig, o, d) for o in cands]
    scores = sorted(((r, h, i) for i, (r, h) in enumerate(likeness)), reverse=True)
    (best, held, i), (second, _, k) = scores[0], scores[1]
    far, margin = 1 - second >= NEAR * (1 - best), best - second
    wide = margin >= ALIKE_MARGIN     # (else picked by NEAR_MARGIN, far: it must be nearer by lines too)
    if best >= ALIKE and (wide or margin >= NEAR_MARGIN and far and _nearer(orig, d, cands[i], cands[k])) and \
            (held == 1 or all(h < 1 for _, h, _ in scores[1:])) and (far or _evident(orig, cands[i], cands[k], d)):
        named = best < FAINT and margin < 2 * ALIKE_MARGIN and _names_other(orig, cands, d, i)
        return [cands[i]] if _by_code(orig, cands, d, i) and not named else cands
    have = [h for _, h in likeness]   # how much of the snippet's definition each one has
    held = {k for k, h in enumerate(have) if h == 1}
    most = sorted(have, reverse=True)
    if not held and most[0] >= HELD and most[0] - most[1] >= HELD_MARGIN:
        k = have.index(most[0])       # (nearly all of the snippet's tokens are this one's: it rewritten)
        return [cands[k]] if _by_code(orig, cands, d, k) else cands
    return _told(orig, cands, d, held)


def _by_code(orig: list[str], cands: list[Def], d: Def, i: int) -> bool:
    """Candidate `i`, picked by all its tokens, is also likest by its code's alone (comments and
    docstrings aside), when the snippet's definition has both: smolagents' Modal executor's
    `run_code_raise_errors` given a docstring written like the Blaxel one's, whose code is another
    one's, was taken for the Blaxel one (6 lost lines)."""
    mine = _code(d.text)
    if mine is d.text:
        return True
    ratio = [_tokens_alike(_code(orig[o.comment_start:o.end + 1]), mine)[0] for o in cands]
    return ratio[i] >= max(ratio)


_CLASS_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _names_other(orig: list[str], cands: list[Def], d: Def, i: int) -> bool:
    """The snippet's definition names a word of another candidate's class only (a word of its name
    that no other candidate's class name or code has; the picked one's none): strawberry's
    `MaybeFieldError`, whose new `__init__` speaks of `strawberry.Maybe` throughout, was likest token
    by token (0.43, the next 0.32) to `UnsupportedFieldOverrideError`'s (23 lost lines).  Only for a
    faint likeness by a slim margin (FAINT): a method liker than that often names a class it calls
    (pyparsing's, markdown's, voluptuous's; pluggy's `PluginValidationError`, 0.46 by 0.27)."""
    words = [{w.lower() for w in _CLASS_WORD.findall(class_name(c.parent)) if len(w) > 2} if c.parent else set()
             for c in cands]
    texts = ["\n".join(orig[c.start:c.end + 1]).lower() for c in cands]
    mine = "\n".join(d.text).lower()
    named = [k for k, own in enumerate(words) if any(
        w in mine and not any(w in words[j] or w in texts[j] for j in range(len(cands)) if j != k) for w in own)]
    return len(named) == 1 and named[0] != i


def _signed(orig: list[str], cands: list[Def], d: Def) -> Def | None:
    """The one candidate whose signature (its lines up to the one that opens the body) is the snippet's
    as it is, when every other one's is more than one line apart from it: token by token another one
    may be likest only for its length (pyoxigraph's spareval: a new three-line `explain` of
    `PreparedQuery`, whose old body had a hundred lines, shown without its impl, was likest to the
    deprecated `QueryEvaluator.explain` of another signature).  One line apart, the signature may be
    the edit (a return type added, now the same as another candidate's)."""
    def signature(lines: list[str]) -> Counter:
        out = Counter()
        for l in lines[:SIGNATURE]:
            out[l.strip()] += 1
            if l.rstrip().endswith(("{", ":")):
                break
        return out
    mine = signature(d.text[d.start - d.comment_start:])
    apart = [_apart(mine, signature(orig[o.start:o.end + 1])) for o in cands]
    return cands[apart.index(0)] if apart.count(0) == 1 and all(a > 1 for a in apart if a) else None


def _lines(text: list[str]) -> Counter:
    return Counter(l.strip() for l in text if l.strip())


def _apart(mine: Counter, theirs: Counter) -> int:
    """Lines that one of two texts has and the other lacks (of either, the more)."""
    return max(sum((mine - theirs).values()), sum((theirs - mine).values()))


def _nearer(orig: list[str], d: Def, o: Def, other: Def) -> bool:
    """`o` is nearer the snippet's definition than `other` line by line, or `other` has none of the
    snippet's lines that `o` lacks (a narrow pick by tokens must be: cedarpy's `correlation_id`, the
    snippet one's signature and the other one's body, a line from each; as near, with nothing of its
    own, the other one tells nothing: voluptuous's `__ne__`, tomlkit's `__init__`)."""
    mine = _lines(d.text[d.start - d.comment_start:])
    have, theirs = _lines(orig[o.start:o.end + 1]), _lines(orig[other.start:other.end + 1])
    return _apart(mine, have) < _apart(mine, theirs) or not set(mine - have) & set(theirs)


def _evident(orig: list[str], o: Def, other: Def, d: Def) -> bool:
    """A line of the snippet's definition with words has a like line (alike.LIKE) in `o` and none in
    `other`: one likest token by token, though not twice as near as the next one, without such a
    line is likest only for its length or its wording (serpyco-rs's encoders.rs: a `dump` shown
    without its impl, 15 of its 16 lines like lines of either of two impls, 0.82 against 0.72 token
    by token, the other one meant; psqlpy's impls.rs, a `prepare` of three impls)."""
    def lines(x: Def) -> list[str]:
        return [l.strip() for l in orig[x.comment_start:x.end + 1] if re.search(r"\w", l)]
    mine, theirs = lines(o), lines(other)
    return any(any(alike(l.strip(), t, LIKE) for t in mine) and not any(alike(l.strip(), t, LIKE) for t in theirs)
               for l in d.text if re.search(r"\w", l))


def _told(orig: list[str], cands: list[Def], d: Def, held: set[int]) -> list[Def]:
    """The one candidate whose class the snippet names, as that candidate does and no other one
    (`def __iter__(self) -> "_RangeWrapper"` in several classes); else the one whose own lines (lines
    no other candidate has) the snippet shows, when it shows no other's (`test_drop_class` in both
    `TestInclude` and `TestExclude`, the snippet's body calling `exclude`); else all of them.  Not
    when one line tells and it is a small edit of another candidate's line: the snippet's edit may
    have made it (a type renamed in one impl of a trait).  `held`: the candidates that have every
    token of the snippet's definition (it may be one of them with lines deleted): only the one told,
    or, for a method, the one held that is the nearest (_nearest: huey's `group.error`, of three
    `error` methods, shown without the comment it drops)."""
    regions = [orig[o.comment_start:o.end + 1] for o in cands]
    texts = ["\n".join(r) for r in regions]
    classes = [class_name(o.parent) if o.parent else "" for o in cands]
    snippet = "\n".join(d.text)
    named = [k for k, c in enumerate(classes) if c and shows(c, snippet) and shows(c, texts[k])
             and not any(shows(c, t) for j, t in enumerate(texts) if j != k)]
    if len(named) == 1 and held <= set(named):    # the snippet names the class, as only its method does
        return [cands[named[0]]]
    if held:                                      # a method: one holds it all, the nearest by far
        near = _nearest(regions, d, cands) if len(held) == 1 and all(classes) else cands
        return near if len(near) == 1 and cands.index(near[0]) in held else cands
    own = [{l.strip() for l in r if re.search(r"\w", l)} for r in regions]
    others = [set().union(*own[:k], *own[k + 1:]) for k in range(len(cands))]
    shown = {l.strip() for l in d.text}
    telling = [(own[k] - others[k]) & shown for k in range(len(cands))]
    told = [k for k, lines in enumerate(telling) if lines]
    if len(told) != 1:
        return _nearest(regions, d, cands)
    k = told[0]
    if len(telling[k]) == 1:
        line, = telling[k]
        if any(alike(line, x, TWIN) for x in others[k]):
            return _nearest(regions, d, cands)
    return [cands[k]]


def _nearest(regions: list[list[str]], d: Def, cands: list[Def]) -> list[Def]:
    """The one candidate that the snippet's definition is at most half as many line edits from as
    from any other (lines added or dropped, whichever are more; blank ones aside): orjson's thirty
    `serialize` methods, the snippet's `serializer.serialize_bool(self.value)` one of them with an
    attribute changed, each other one with two lines changed; else all of them.  Not one that keeps
    none of the snippet's lines with words but those every candidate has (its signature): nearer
    only for being shorter (rnet's `fn fmt` of two `impl Display`, each body a `write!` of its own)."""
    shown = _lines(d.text)
    have = [_lines(region) for region in regions]
    far = sorted((_apart(shown, r), k) for k, r in enumerate(have))
    (best, k), (second, _) = far[0], far[1]
    common = set.intersection(*(set(r) for r in have))
    own = {t for t in shown if t in have[k] and t not in common and re.search(r"\w", t)}
    return [cands[k]] if 2 * best <= second and best < sum(shown.values()) and own else cands


def class_name(parent: str) -> str:
    """A method's class: the parent's name, the type of a Rust `impl<T> Trait for Type<T>`."""
    if not parent.startswith("impl"):
        return parent
    bare = parent
    while re.search(r"<[^<>]*>", bare):
        bare = re.sub(r"<[^<>]*>", "", bare)
    words = re.findall(r"[A-Za-z_]\w*", bare.split(" for ")[-1])
    return next((w for w in words if w != "impl"), "")
