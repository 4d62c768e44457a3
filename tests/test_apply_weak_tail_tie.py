"""Issue 43: a fragment that ends with lines without words (`/**`, `}`, `},`) before a marker, after
new lines that add a member, a match arm or an item like the next one.  The shape, from real
releases: ethers' errors.ts (a new documented `shortMessage` field after `code`, the fragment ending
at the next field's `/**`), orjson's and ormsgpack's numpy.rs (a new `ItemType::F16` arm after the
`F32` one, ending at its `}`).

The weak last line fits the nearer place (the new lines are added, nothing dropped) and the next
one (the new lines rewrite the next member, alike to them, which the marker may stand for).  The
farther place won on the rewrite credit and on its longer trailing run, so the next member was
deleted, silently (`info`: 4 lost lines; `U64`: 6).  The merge now refuses the tie, naming both
places (places.weak_tie, the mirror of the weak first line's rule), when the nearer place drops
nothing and, without those credits, keeps as much, the lines between define no function or type
(a definition replaced by a new one is a rewrite: eslint's rules) and the farther place does not
continue the fragment's own lines past the weak one.  With a line with words below the weak one,
the snippet merges, adding the new lines.  (On d06ea26 every language deleted the next member.)  Since
session 53 the nearer place is taken when the rewrite would delete a member the snippet's code never
names (TypeScript's `info` field: ethers' truth), since session 56 also when it would delete a
match arm whose variant the snippet never names (Rust's `U64`)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, snippet, the lines with words to show below the weak one, the lines the merge adds before
# the weak one's place there) per language
LANGS = {
    "typescript": ('''export interface AppError extends Error {
    /**
     *  The error code.
     */
    code: ErrorCode;

    /**
     *  Additional info regarding the error.
     */
    info?: Record<string, any>;

    /**
     *  The error that caused this one.
     */
    cause?: Error;
}
''', '''export interface AppError extends Error {
    // ... existing code ...
     */
    code: ErrorCode;

    /**
     *  A short message describing the error.
     */
    shortMessage: string;

    /**
    // ... existing code ...
}
''', "     *  Additional info regarding the error.", '''    /**
     *  A short message describing the error.
     */
    shortMessage: string;

'''),
    "javascript": ('''export class AppError extends Error {
    /**
     *  The error code.
     */
    code = "UNKNOWN";

    /**
     *  Additional info regarding the error.
     */
    info = null;

    /**
     *  The error that caused this one.
     */
    cause = null;
}
''', '''export class AppError extends Error {
    // ... existing code ...
     */
    code = "UNKNOWN";

    /**
     *  A short message describing the error.
     */
    shortMessage = "";

    /**
    // ... existing code ...
}
''', "     *  Additional info regarding the error.", '''    /**
     *  A short message describing the error.
     */
    shortMessage = "";

'''),
    "rust": ('''fn serialize_items(kind: ItemType, data: &[u8], seq: &mut Seq) {
    match kind {
        ItemType::F64 => {
            let slice: &[f64] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeF64 { obj: each });
            }
        }
        ItemType::F32 => {
            let slice: &[f32] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeF32 { obj: each });
            }
        }
        ItemType::U64 => {
            let slice: &[u64] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeU64 { obj: each });
            }
        }
    }
}
''', '''fn serialize_items(kind: ItemType, data: &[u8], seq: &mut Seq) {
    // ... existing code ...
        ItemType::F32 => {
            let slice: &[f32] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeF32 { obj: each });
            }
        }
        ItemType::F16 => {
            let slice: &[u16] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeF16 { obj: each });
            }
        }
        // ... existing code ...
    }
}
''', "        ItemType::U64 => {", '''        }
        ItemType::F16 => {
            let slice: &[u16] = cast(data);
            for &each in slice.iter() {
                seq.push(DataTypeF16 { obj: each });
            }
'''),
    "python": ('''DIAGNOSTICS = [
    Diagnostic(
        severity="error",
        message="first",
    ),
    Diagnostic(
        severity="information",
        message="second",
    ),
    Diagnostic(
        severity="warning",
        message="third",
    ),
]
''', '''# ... existing code ...
        message="first",
    ),
    Diagnostic(
        severity="error",
        message="added",
    ),
    # ... existing code ...
]
''', '    Diagnostic(\n        severity="information",', '''    ),
    Diagnostic(
        severity="error",
        message="added",
'''),
    "go": ('''package cases

var cases = []testCase{
\t{
\t\tname: "f64",
\t\tkind: F64,
\t},
\t{
\t\tname: "f32",
\t\tkind: F32,
\t},
\t{
\t\tname: "u64",
\t\tkind: U64,
\t},
}
''', '''// ... existing code ...
\t\tkind: F32,
\t},
\t{
\t\tname: "f16",
\t\tkind: F16,
\t},
\t// ... existing code ...
}
''', '\t{\n\t\tname: "u64",', '''\t},
\t{
\t\tname: "f16",
\t\tkind: F16,
'''),
}


@pytest.mark.parametrize("lang", sorted(set(LANGS) - {"typescript", "rust"}))
def test_a_weak_last_line_that_adds_or_rewrites_is_refused(lang):
    original, snippet, _, _ = LANGS[lang]
    r = merge(original, snippet, lang)
    assert not r.ok, r.text
    assert "its last line, without words, fits at line" in r.reason and "show a line with words below it" in r.reason


def test_a_rewrite_that_would_delete_a_field_never_shown_is_an_addition():
    """TypeScript's interface: the rewrite would delete `info?: Record<string, any>;`, a field the
    snippet never names, so the nearer place, which adds, is taken (lost.drops_unshown; JavaScript's
    class fields, `code = "UNKNOWN";`, are assignments, and the tie stays)."""
    original, snippet, words, added = LANGS["typescript"]
    r = merge(original, snippet, "typescript")
    assert r.ok, r.reason
    nxt = f"    /**\n{words}\n"
    assert original.count(nxt) == 1 and r.text == original.replace(nxt, added + nxt)


def test_a_rewrite_that_would_delete_a_match_arm_never_named_is_an_addition():
    """Rust's match: the rewrite would delete the `ItemType::U64 => {` arm, a variant the snippet never
    names, so it gets no credit for rewriting it (lost.drops_unnamed, since session 56) and the nearer
    place, which adds the `F16` arm after `F32` (orjson's and ormsgpack's truth), is taken."""
    original, snippet, words, added = LANGS["rust"]
    r = merge(original, snippet, "rust")
    assert r.ok, r.reason
    nxt = f"        }}\n{words}\n"
    assert original.count(nxt) == 1 and r.text == original.replace(nxt, added + nxt)


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_with_a_line_with_words_below_it_the_new_lines_are_added(lang):
    original, snippet, words, added = LANGS[lang]
    snip = snippet.splitlines()
    marker = max(i for i, l in enumerate(snip) if "... existing code ..." in l)
    r = merge(original, "\n".join(snip[:marker] + [words] + snip[marker:]) + "\n", lang)
    assert r.ok, r.reason
    nxt = f"{snip[marker - 1]}\n{words}\n"    # the weak line and the next lines, where the file has them
    assert original.count(nxt) == 1 and r.text == original.replace(nxt, added + nxt)
