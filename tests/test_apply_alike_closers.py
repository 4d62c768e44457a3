"""Issue 43: a fragment that starts with closing lines (`    }`, `}`) and brings a new block before
a shown definition goes where it deletes nothing, not where it would delete a definition it uses.

The shape, from a real release (minijinja's loader.rs): after a marker, `    }`, `}`, a new
`self_cell! { pub(crate) struct OwnedInstructions { ... } }` and the first lines of `impl fmt::Debug
for LoadedTemplate`.  Two places fit, framed alike by the closing lines: the end of the block right
above the `impl` (deleting nothing), and the end of the `impl` before, which takes in the old
`self_cell! { struct LoadedTemplate ... }` as rewritten lines and deleted it, though the fragment's
own `impl` line names `LoadedTemplate`.  Of places framed only by braces and blank lines, one that
deletes nothing now wins over one that deletes a definition the fragment uses; and a place that
keeps a like line of the new block (`self_cell! {`, once in the file) is not taken for it either
when it deletes such a definition.  Rust and TypeScript (Python's blocks have no closing lines; in
Go a type inside a `type ( ... )` group is not read as a definition's header, so the guard does not
see it: noted, not changed)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

M = "// ... existing code ..."
FILES = {
    "rust": ("""use std::fmt;

pub struct Store {
    a: i32,
    loaded: Vec<Loaded>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for key in self.loaded.iter() {
            f.write_str(key.name())?;
        }
        Ok(())
    }
}

cell! {
    struct Loaded {
        owner: Box<str>,
        #[covariant]
        dependent: Compiled,
    }
}

impl fmt::Debug for Loaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.dependent(), f)
    }
}
""", ("    a: i32,", "    b: i32,"), """cell! {
    pub(crate) struct Owned {
        owner: Box<str>,
        #[covariant]
        dependent: Instructions,
    }
}
""", "impl fmt::Debug for Loaded {", 2),
    "typescript": ("""export class Store {
  a = 1;
  loaded: Loaded[] = [];
}

export class StoreView {
  describe(store: Store): string {
    for (const key of store.loaded) {
      out.push(key.name());
    }
    return out.join();
  }
}

declare module "cells" {
  interface Loaded {
    owner: string;
    covariant: true;
    dependent: Compiled;
  }
}

export class LoadedView {
  describe(loaded: Loaded): string {
    return debug(loaded.dependent);
  }
}
""", ("  a = 1;", "  b = 1;"), """declare module "cells" {
  interface Owned {
    owner: string;
    covariant: true;
    dependent: Instructions;
  }
}
""", "export class LoadedView {", 2),
}


@pytest.mark.parametrize("lang", sorted(FILES))
def test_closing_lines_go_where_nothing_the_fragment_uses_is_deleted(lang):
    text, (old, new), block, shown, body = FILES[lang]
    lines = text.splitlines()
    at = lines.index(shown)
    head = [new if x == old else x for x in lines[lines.index(old) - 1:lines.index(old) + 2]]
    snippet = "\n".join([M, *head, M, *lines[at - 3:at - 1], "", *block.splitlines(), "",
                         *lines[at:at + 1 + body], M]) + "\n"
    truth = text.replace(old, new).replace(shown, block + "\n" + shown)
    res = merge(text, snippet, lang)
    assert res.ok, res.reason
    assert res.text == truth
