"""Issue 43: a fragment that opens with a lone `}` after a marker and adds a definition like the
ones before it.  The shape, from a real release (fastexcel's data/mod.rs): in a `macro_rules!`
body, four `impl From<...> for FastExcelSeries` blocks, each with its `fn from`; the snippet shows
a marker, `}`, a fifth `impl From<&[Option<$type>]>` block, then the comment and header of the
`impl` after them, then a marker.  The `}` fits the end of each block: at the last one the
fragment adds the new block; at an earlier one it rewrites the blocks between into it.  The merge
took the rewriting (its new lines are like the ones it would drop), and a block was lost (on
406942d).  A definition between the two places used to make the rewriting the reading (a
definition replaced by a new one, as eslint's rules did with `function remove`); now only one
whose name the file defines once does: one of several alike blocks is as likely added to as
rewritten, so the fragment is refused, naming both places.  Shown with a line with words above
its `}`, it is merged."""
from __future__ import annotations

from redraft.engine.apply import merge


def _impl(ty: str, body: str) -> list[str]:
    return [f"    impl From<{ty}> for Series {{", f"        fn from(a: {ty}) -> Self {{", f"            {body}",
            "        }", "    }"]


BLOCKS = _impl("Vec<T>", "Self::Vec(a)") + [""] + _impl("&[T]", "Self::Vec(a.to_vec())") + [""] + \
    _impl("[T; 3]", "Self::Vec(a.into())") + [""]
AFTER = ["    // Series can be empty", "    impl Series {", "        fn len(&self) -> usize {", "            0",
         "        }", "    }", "}"]
NEW = _impl("&[Option<T>]", "Self::Opt(a.to_vec())")
ORIGINAL = "\n".join(["mod series {"] + BLOCKS + AFTER) + "\n"


def test_a_lone_brace_among_alike_blocks_is_refused():
    snippet = ["mod series {", "    // ... existing code ...", "    }", ""] + NEW + [""] + AFTER[:2] + \
        ["        // ... existing code ...", "    }", "}"]
    r = merge(ORIGINAL, "\n".join(snippet) + "\n", "rust")
    assert not r.ok
    assert "adding lines" in r.reason and "rewriting the lines between" in r.reason


def test_shown_with_the_last_blocks_line_with_words_the_block_is_added():
    snippet = ["mod series {", "    // ... existing code ...", "            Self::Vec(a.into())", "        }", "    }",
               ""] + NEW + [""] + AFTER[:2] + ["        // ... existing code ...", "    }", "}"]
    r = merge(ORIGINAL, "\n".join(snippet) + "\n", "rust")
    assert r.ok, r.reason
    assert r.text == "\n".join(["mod series {"] + BLOCKS + NEW + [""] + AFTER) + "\n"


def test_a_definition_the_file_has_once_is_still_rewritten():
    """The old reading stays for a definition named once in the file: the new block after a lone
    `}` takes the place of the one before it (a definition replaced by a new one)."""
    blocks = _impl("Vec<T>", "Self::Vec(a)") + [""] + \
        ["    fn helper(a: &[T]) -> Series {", "        Series::Vec(a.to_vec())", "    }", ""]
    original = "\n".join(["mod series {"] + blocks + AFTER) + "\n"
    new = ["    fn helper(a: &[Option<T>]) -> Series {", "        Series::Opt(a.to_vec())", "    }"]
    snippet = ["mod series {", "    // ... existing code ...", "    }", ""] + new + [""] + AFTER[:2] + \
        ["        // ... existing code ...", "    }", "}"]
    r = merge(original, "\n".join(snippet) + "\n", "rust")
    assert r.ok, r.reason
    assert r.text == "\n".join(["mod series {"] + _impl("Vec<T>", "Self::Vec(a)") + [""] + new + [""] + AFTER) + "\n"
