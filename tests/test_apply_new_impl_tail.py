"""Issue 43: a new class after a shown one, whose last method ends as an old class's method does.

The shape, from a real release (rpds-py's lib.rs, a development case since session 36): a snippet
shows the end of an impl (a marker for its last method's body), then new structs and impls, then a
marker. The first new struct starts as the old one after the shown impl does (`#[pyclass(...)]`).
The last new impl's last method ends `Ok(HashTrieSetPy { inner })`, `}`, `}`, as the old `impl
HashTrieSetPy` 200 lines further on does. Those three lines framed a region from the shown impl to
the old one, and everything between (two structs and an impl, 196 lines) was replaced without a
word: a frame makes a deletion explicit. A frame whose only line with words lies inside a definition
the fragment brings and the file does not have (at any depth: here the method's name, `union`, is
one the file has, its impl is new) is chance, not a frame, and every region left must pass the
deletion guard. The real case is then refused (each region would delete `KeyIterator`), and so are
these small files, saying why: never a silent deletion. Python is left out: its frames are three lines with words, which
new code repeats far less by chance."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

M = "// ... existing code ..."
FILES = {
    "rust": ("""impl Map {
    fn get(&self) -> i32 {
        self.a
    }

    fn discard(&self, key: i32) -> i32 {
        let x = self.a;
        x + key
    }
}

#[derive(Clone)]
struct Keys {
    inner: Vec<i32>,
}

impl Set {
    fn size(&self) -> usize {
        self.inner.len()
    }

    fn union(&self, other: &Set) -> Set {
        let mut inner = self.inner.clone();
        inner.extend(other.inner.iter());
        Ok(Set { inner })
    }
}

impl List {
    fn first(&self) -> i32 {
        self.inner[0]
    }
}
""", """    fn discard(&self, key: i32) -> i32 {
        // ... existing code ...
}

#[derive(Clone)]
struct ViewIter {
    items: Vec<u8>,
    at: usize,
}

impl View {
    fn union(&self, other: &Set) -> Set {
        let inner = other.inner.clone();
        Ok(Set { inner })
    }
}
"""),
    "javascript": ("""class Map {
  get() {
    return this.a;
  }

  discard(key) {
    const x = this.a;
    return x + key;
  }
}

// the iterator over the items
class Keys {
  constructor() {
    this.inner = [];
  }
}

class Set {
  size() {
    return this.inner.length;
  }

  union(other) {
    const inner = this.inner.concat(other.inner);
    return new Set(inner);
  }
}

class List {
  first() {
    return this.inner[0];
  }
}
""", """  discard(key) {
    // ... existing code ...
}

// the iterator over the items
class ViewIter {
  constructor(items) {
    this.items = items;
    this.at = 0;
  }
}

class View {
  union(other) {
    const inner = other.inner.slice();
    return new Set(inner);
  }
}
"""),
}
FILES["typescript"] = (FILES["javascript"][0].replace("discard(key)", "discard(key: number)")
                       .replace("union(other)", "union(other: Set): Set"),
                       FILES["javascript"][1].replace("discard(key)", "discard(key: number)")
                       .replace("union(other)", "union(other: Set): Set"))


@pytest.mark.parametrize("lang", list(FILES))
def test_new_classes_after_a_shown_one_delete_nothing(lang):
    text, shown = FILES[lang]
    snippet = f"{M}\n{shown}\n{M}\n"
    new = shown.split("}\n\n", 1)[1]                     # the new struct/class and impl/class
    cut = text.index("}\n\n", text.index("discard")) + 2  # after the shown impl/class
    truth = text[:cut] + "\n" + new + text[cut:]
    res = merge(text, snippet, lang)
    if res.ok:                          # (it was merged, with `Keys` and `Set` gone and no deletion reported)
        assert res.text == truth and not res.deletions
    else:                               # the region up to the file's first `}` after it would drop `Keys`
        assert "would delete" in res.reason and "Keys" in text
