"""Issue 43: a fragment whose last lines are closing braces, framed by them only at a later copy of
them than its own, is not taken to reach there, deleting what lies between, when a place from the
same first line to a nearer copy of its last line drops nothing: the frame was found by chance
(llguidance's numeric.rs: a new `if num.integer {...}` check after the last one, read as rewriting the
next `if let` block, 56 lost lines).  Unless that region would delete a definition (then the guard
decides: anchors._chance_frame).  A real deletion between braces that frame nothing closer is unchanged.
First lines that are closing braces are not read so (tried: 5 exact cases turned wrong, session 55)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

RUST = """pub fn check_bounds(num: &Schema) -> Result<(), String> {
    let minimum = num.minimum;
    if let (Some(min), Some(max)) = (minimum, num.maximum) {
        if min > max {
            return Err(format!(
                "minimum ({min}) is greater than maximum ({max})"
            ));
        }
        if min == max && num.exclusive {
            return Err(format!(
                "minimum ({min}) is equal to maximum ({max})"
            ));
        }
    }
    if let Some(d) = num.multiple_of.as_ref() {
        if d.coef == 0 {
            if let Some(min) = minimum {
                if min > 0.0 {
                    return Err(format!(
                        "minimum ({min}) is greater than 0"
                    ));
                }
            }
        }
    }
    Ok(())
}
"""

RUST_NEW = """        if num.integer {
            let lo = min.ceil();
            if lo > max.floor() {
                return Err(format!(
                    "interval [{min}, {max}] contains no integer"
                ));
            }
        }
"""

RUST_SNIPPET = """// ... existing code ...
pub fn check_bounds(num: &Schema) -> Result<(), String> {
    // ... existing code ...
                "minimum ({min}) is equal to maximum ({max})"
            ));
        }
""" + RUST_NEW + """    }
    // ... existing code ...
}
"""


JS = """function checkBounds(num) {
\tconst minimum = num.minimum;
\tif (minimum !== undefined && num.maximum !== undefined) {
\t\tif (minimum > num.maximum) {
\t\t\tthrow new Error(
\t\t\t\t`minimum ${minimum} is greater than maximum ${num.maximum}`
\t\t\t);
\t\t}
\t\tif (minimum === num.maximum && num.exclusive) {
\t\t\tthrow new Error(
\t\t\t\t`minimum ${minimum} is equal to maximum ${num.maximum}`
\t\t\t);
\t\t}
\t}
\tif (num.multipleOf !== undefined) {
\t\tif (num.multipleOf === 0) {
\t\t\tif (minimum !== undefined) {
\t\t\t\tif (minimum > 0) {
\t\t\t\t\tthrow new Error(
\t\t\t\t\t\t`minimum ${minimum} is greater than 0`
\t\t\t\t\t);
\t\t\t\t}
\t\t\t}
\t\t}
\t}
\treturn true;
}
"""

JS_NEW = """\t\tif (num.integer) {
\t\t\tconst low = Math.ceil(minimum);
\t\t\tif (low > Math.floor(num.maximum)) {
\t\t\t\tthrow new Error(
\t\t\t\t\t`interval [${minimum}, ${num.maximum}] contains no integer`
\t\t\t\t);
\t\t\t}
\t\t}
"""

JS_SNIPPET = """// ... existing code ...
function checkBounds(num) {
\t// ... existing code ...
\t\t\t\t`minimum ${minimum} is equal to maximum ${num.maximum}`
\t\t\t);
\t\t}
""" + JS_NEW + """\t}
\t// ... existing code ...
}
"""


# per language: the file, the new lines, the snippet, the line the new ones go before
CASES = {"rust": (RUST, RUST_NEW, RUST_SNIPPET, "    }\n    if let Some(d)"),
         "javascript": (JS, JS_NEW, JS_SNIPPET, "\t}\n\tif (num.multipleOf")}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_new_lines_after_the_last_check_keep_the_next_block(lang):
    original, new, snippet, before = CASES[lang]
    at = original.index(before)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == original[:at] + new + original[at:]
    assert not r.deletions


def test_a_block_between_closing_braces_shown_by_omission_is_still_deleted():
    """The same Rust fragment without the new check, its last lines the `}`s that close the function's
    last block: the `if let Some(d)` block it omits between them is deleted (nothing closer drops nothing)."""
    snippet = """// ... existing code ...
pub fn check_bounds(num: &Schema) -> Result<(), String> {
    // ... existing code ...
                "minimum ({min}) is equal to maximum ({max})"
            ));
        }
    }
    Ok(())
}
"""
    start, end = RUST.index("    if let Some(d)"), RUST.index("    Ok(())")
    r = merge(RUST, snippet, "rust")
    assert r.ok, r.reason
    assert r.text == RUST[:start] + RUST[end:]
    assert r.deletions

