"""Issue 43: a snippet without a marker before its first line that starts with the file's imports
in a new order, then shows the code after them, with a marker inside that code only.  The shape,
from a real release (redux-toolkit's buildSelectors.ts, whose imports were sorted): the snippet's
first line is one of the file's later imports, and every import the file has before it is shown
again further down the snippet's import block.

The merge took the snippet for a local edit (no marker at the top level, and its first line is in
the file), so the imports before that line stayed, and the snippet brought them a second time.
Now a first edit that brings again every line the file has before it deletes them there: they
moved, nothing is lost; the deletion is reported as one before the snippet's first line.  The same
holds at the file's end.  Lines before the snippet's first line that it does not show again stay
(a local edit, as before).  On 7e51329, at the top, Python, JavaScript, TypeScript and Rust kept the imports
twice; Go's case, whose package clause stays above the snippet, was already right: a guard."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge
from redraft.engine.apply.markers import is_marker

# (file, snippet) per language: the imports sorted, a top-level line after them edited
LANGS = {
"python": ('''from ._state import State
from ._types import (
    MutationState,
    QueryState,
    RootState,
)
from .tags import expand_tags
from .args import serialize_args
from .slice import mutation_key


SKIP = object()


def build_selectors(serialize, reducer_path):
    select_skipped = lambda state: DEFAULT_STATE
    return select_skipped
''', '''from .args import serialize_args
from .tags import expand_tags
from ._types import (
    MutationState,
    QueryState,
    RootState,
)
from .slice import mutation_key
from ._state import State


SKIP = object()


def build_selectors(serialize, reducer_path):
    # ... existing code ...
'''),
"javascript": ('''import { createNextState } from './rtkImports'
import {
  MutationSubState,
  QuerySubState,
  RootState,
} from './apiState'
import { expandTagDescription } from '../endpointDefinitions'
import { serializeQueryArgs } from '../defaultSerializeQueryArgs'
import { getMutationCacheKey } from './buildSlice'

export const skipToken = Symbol.for('RTKQ/skipToken')

export function buildSelectors({ serializeQueryArgs, reducerPath }) {
  const selectSkippedQuery = (state) => defaultQuerySubState
  return { selectSkippedQuery }
}
''', '''import { serializeQueryArgs } from '../defaultSerializeQueryArgs'
import { expandTagDescription } from '../endpointDefinitions'
import {
  MutationSubState,
  QuerySubState,
  RootState,
} from './apiState'
import { getMutationCacheKey } from './buildSlice'
import { createNextState } from './rtkImports'

export const skipToken = /* @__PURE__ */ Symbol.for('RTKQ/skipToken')

export function buildSelectors({ serializeQueryArgs, reducerPath }) {
  // ... existing code ...
'''),
"typescript": ('''import { createNextState } from './rtkImports'
import type {
  MutationSubState,
  QuerySubState,
  RootState,
} from './apiState'
import { expandTagDescription } from '../endpointDefinitions'
import type { InternalSerializeQueryArgs } from '../defaultSerializeQueryArgs'
import { getMutationCacheKey } from './buildSlice'

export type SkipToken = typeof skipToken
export const skipToken = Symbol.for('RTKQ/skipToken')

export function buildSelectors({ serializeQueryArgs, reducerPath }: Options) {
  const selectSkippedQuery = (state: RootState) => defaultQuerySubState
  return { selectSkippedQuery }
}
''', '''import type { InternalSerializeQueryArgs } from '../defaultSerializeQueryArgs'
import { expandTagDescription } from '../endpointDefinitions'
import type {
  MutationSubState,
  QuerySubState,
  RootState,
} from './apiState'
import { getMutationCacheKey } from './buildSlice'
import { createNextState } from './rtkImports'

export type SkipToken = typeof skipToken
export const skipToken = /* @__PURE__ */ Symbol.for('RTKQ/skipToken')

export function buildSelectors({ serializeQueryArgs, reducerPath }: Options) {
  // ... existing code ...
'''),
"go": ('''// Package selectors builds the API's selectors.
package selectors

import "github.com/acme/rtk/state"
import (
	"fmt"
	"strings"
)
import "github.com/acme/rtk/tags"

var skipToken = state.Symbol("RTKQ/skipToken")

func BuildSelectors(reducerPath string) Selectors {
	selectSkipped := func(s state.Root) state.Sub { return state.Default }
	return Selectors{selectSkipped, fmt.Sprint(strings.ToUpper(reducerPath)), tags.Expand}
}
''', '''import (
	"fmt"
	"strings"
)
import "github.com/acme/rtk/state"
import "github.com/acme/rtk/tags"

var skipToken = state.NewSymbol("RTKQ/skipToken")

func BuildSelectors(reducerPath string) Selectors {
	// ... existing code ...
'''),
"rust": ('''use crate::state::State;
use crate::api_state::{
    MutationSubState,
    QuerySubState,
    RootState,
};
use crate::tags::expand_tag_description;
use crate::args::serialize_query_args;
use crate::slice::mutation_cache_key;

pub static SKIP_TOKEN: &str = "RTKQ/skipToken";

pub fn build_selectors(reducer_path: &str) -> Selectors {
    let select_skipped = |state: &RootState| State::default();
    Selectors::new(reducer_path, select_skipped)
}
''', '''use crate::args::serialize_query_args;
use crate::tags::expand_tag_description;
use crate::api_state::{
    MutationSubState,
    QuerySubState,
    RootState,
};
use crate::slice::mutation_cache_key;
use crate::state::State;

pub static SKIP_TOKEN: &str = "RTKQ/skip-token";

pub fn build_selectors(reducer_path: &str) -> Selectors {
    // ... existing code ...
'''),
}


# (file, snippet) per language: declarations after the last function reordered, the function shown
# around a marker
END = {
"python": ('''import os


def build(reducer_path):
    selectors = make_selectors(reducer_path)
    return selectors


from .state import State
from .tags import expand_tags
from ._types import (
    MutationState,
    QueryState,
)
''', '''def build(reducer_path):
    selectors = make_selectors(reducer_path)
    # ... existing code ...


from ._types import (
    MutationState,
    QueryState,
)
from .state import State
from .tags import expand_tags
'''),
"javascript": ('''import { makeSelectors } from './make'

export function build(reducerPath) {
  const selectors = makeSelectors(reducerPath)
  return selectors
}

export { State } from './state'
export { expandTags } from './tags'
export {
  MutationState,
  QueryState,
} from './types'
''', '''export function build(reducerPath) {
  const selectors = makeSelectors(reducerPath)
  // ... existing code ...
}

export {
  MutationState,
  QueryState,
} from './types'
export { State } from './state'
export { expandTags } from './tags'
'''),
"typescript": ('''import { makeSelectors } from './make'

export function build(reducerPath: string): Selectors {
  const selectors = makeSelectors(reducerPath)
  return selectors
}

export type { State } from './state'
export { expandTags } from './tags'
export type {
  MutationState,
  QueryState,
} from './types'
''', '''export function build(reducerPath: string): Selectors {
  const selectors = makeSelectors(reducerPath)
  // ... existing code ...
}

export type {
  MutationState,
  QueryState,
} from './types'
export type { State } from './state'
export { expandTags } from './tags'
'''),
"go": ('''package selectors

func Build(reducerPath string) Selectors {
	selectors := makeSelectors(reducerPath)
	return selectors
}

var State = state.New
var ExpandTags = tags.Expand
var (
	MutationState = types.Mutation
	QueryState    = types.Query
)
''', '''func Build(reducerPath string) Selectors {
	selectors := makeSelectors(reducerPath)
	// ... existing code ...
}

var (
	MutationState = types.Mutation
	QueryState    = types.Query
)
var State = state.New
var ExpandTags = tags.Expand
'''),
"rust": ('''use crate::make::make_selectors;

pub fn build(reducer_path: &str) -> Selectors {
    let selectors = make_selectors(reducer_path);
    selectors
}

pub use crate::state::State;
pub use crate::tags::expand_tags;
pub use crate::types::{
    MutationState,
    QueryState,
};
''', '''pub fn build(reducer_path: &str) -> Selectors {
    let selectors = make_selectors(reducer_path);
    // ... existing code ...
}

pub use crate::types::{
    MutationState,
    QueryState,
};
pub use crate::state::State;
pub use crate::tags::expand_tags;
'''),
}


def _truth(original: str, snippet: str) -> str:
    """The file's lines above the snippet's first line (none, or Go's package clause), the
    snippet's lines, then the file's lines after the function header the snippet ends with."""
    orig, snip = original.splitlines(), [l for l in snippet.splitlines() if not is_marker(l)]
    above = orig[:orig.index("") + 1] if snip[0].startswith("import (") else []
    return "\n".join(above + snip + orig[orig.index(snip[-1]) + 1:]) + "\n"


@pytest.mark.parametrize("language", sorted(LANGS))
def test_imports_moved_at_the_top_are_not_kept_twice(language):
    original, snippet = LANGS[language]
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    assert r.text == _truth(original, snippet)
    if language != "go":                      # the old places of the moved imports, reported
        assert [(d.start, d.end) for d in r.deletions] == [(1, 6)]


@pytest.mark.parametrize("language", sorted(LANGS))
def test_a_line_above_that_the_snippet_does_not_show_again_stays(language):
    """A comment above the imports that the snippet leaves out: nothing before the snippet's first
    line is deleted by this rule, the comment least of all."""
    original, snippet = LANGS[language]
    note = "# generated by hand" if language == "python" else "// generated by hand"
    r = merge(note + "\n" + original, snippet, language)
    assert r.ok, r.reason
    assert r.text.startswith(note + "\n")
    assert not any(d.start == 1 for d in r.deletions)


def _end_truth(original: str, snippet: str) -> str:
    """The file up to its first declaration that the snippet moves, then the snippet's lines after
    its last blank line, in the snippet's order."""
    orig, snip = original.splitlines(), snippet.splitlines()
    moved = snip[max(i for i, l in enumerate(snip) if not l.strip()) + 1:]
    start = next(i for i, l in enumerate(orig) if l in moved)
    return "\n".join(orig[:start] + moved) + "\n"


@pytest.mark.parametrize("language", sorted(END))
def test_declarations_moved_at_the_end_are_not_kept_twice(language):
    """The mirror shape at the file's end: no marker after the snippet's last line, the last edit
    brings again every line the file has after it.  (On 7e51329 four languages kept them twice and
    Rust was refused; Python's case was already right.)"""
    original, snippet = END[language]
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    assert r.text == _end_truth(original, snippet)


# an import the snippet shows again edited: the line before its first line is not brought again as is
EDITED = {"python": ("from ._state import State", "from ._state import State, Status"),
          "javascript": ("import { createNextState } from './rtkImports'", "import { createNextState } from './immer'"),
          "typescript": ("import { createNextState } from './rtkImports'", "import { createNextState } from './immer'"),
          "go": ('import "github.com/acme/rtk/state"', 'import "github.com/acme/rtk/v2/state"'),
          "rust": ("use crate::state::State;", "use crate::state::{State, Status};")}


@pytest.mark.parametrize("language", sorted(LANGS))
def test_imports_above_the_first_line_are_gone_when_it_is_an_import(language):
    """redux-toolkit's endpointDefinitions.ts: the sorted imports also changed one path, so not every
    line above the snippet's first one is brought again as it is.  A snippet whose first line is an
    import, with no marker before it, starts at the file's import block: when the file has only
    imports (and blank lines) above that line, they are gone.  Go's package clause is not an
    import: it stays, and so does the old import below it (a guard; Go's snippets start with the
    package clause).  (On 7e51329 every language kept the old imports.)"""
    original, snippet = LANGS[language]
    old, new = EDITED[language]
    snippet = snippet.replace(old, new)
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    if language == "go":
        assert r.text.startswith(original[:original.index("import")]) and old in r.text.splitlines()
    else:
        assert r.text == _truth(original, snippet)
        assert old not in r.text.splitlines()
        assert [(d.start, d.end) for d in r.deletions] == [(1, 6)]


SPLIT = {   # the import list cut by a marker; the lines moved from above shown in the next fragment
    "python": ('''import collections
import copy

try:
    from enum import Enum
except ImportError:
    Enum = None
import sys

from voluptuous import (ALLOW_EXTRA, All, Any,
                        Clamp, Coerce, Contains,
                        Date, Datetime, Email,
                        Optional, Required, Schema)
from voluptuous.humanize import humanize_error


def test_new_required_test():
    schema = Schema({'my_key': All(int)}, required=True)
    assert schema.required
''', '''from voluptuous.humanize import humanize_error
from voluptuous import (ALLOW_EXTRA, All, Any,
                        Clamp, Coerce, Contains,
                        # ... existing code ...
                        Optional, Required, Schema)
import sys
import collections
import copy
import typing

try:
    from enum import Enum
except ImportError:
    Enum = None


def test_new_required_test():
    # ... existing code ...
'''),
    "typescript": ('''import { inspect } from 'node:util'
import assert from 'node:assert'

import {
  ALLOW_EXTRA, all, any,
  clamp, coerce, contains,
  date, datetime, email,
  optional, required, schema,
} from 'voluptuous'
import { humanizeError } from 'voluptuous/humanize'

export function testNewRequired(): void {
  const s = schema({ myKey: all(Number) }, { required: true })
  assert.ok(s.required, inspect(s))
}
''', '''import { humanizeError } from 'voluptuous/humanize'
import {
  ALLOW_EXTRA, all, any,
  clamp, coerce, contains,
  // ... existing code ...
  optional, required, schema,
} from 'voluptuous'
import assert from 'node:assert'
import { inspect } from 'node:util'

export function testNewRequired(): void {
  // ... existing code ...
'''),
}


@pytest.mark.parametrize("language", sorted(SPLIT))
def test_moved_lines_shown_in_a_later_fragment_are_not_kept_twice(language):
    """voluptuous's tests.py: the snippet's first fragment ends at a marker inside the import list,
    and the imports moved from above the snippet's first line come in the next fragment.  They are
    brought again by the edits as a whole, so their old places go.  (On 7e51329 both kept them.)"""
    original, snippet = SPLIT[language]
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    orig = original.splitlines()
    head = snippet.splitlines()
    cut = head.index(next(l for l in head if "... existing code ..." in l))
    opened = orig.index(head[cut - 1])
    body = next(i for i, l in enumerate(orig) if l.startswith(("def ", "export function")))
    want = head[:cut] + orig[opened + 1:orig.index(head[cut + 1])] + head[cut + 1:-1] + orig[body + 1:]
    assert r.text.splitlines() == want


def test_a_function_whose_header_says_from_is_not_an_import():
    """tiptap's getMarksBetween.ts: a function written out whole, `export function
    getMarksBetween(from: number, ...)`, below the file's imports.  Its first line is not an export
    from a module, so the imports above it stay (a first version of the rule deleted them)."""
    original = ("import { Node as ProseMirrorNode } from '@tiptap/pm/model'\n\n"
                "import { MarkRange } from '../types.js'\n\n"
                "export function getMarksBetween(from: number, to: number, doc: ProseMirrorNode): MarkRange[] {\n"
                "  const marks: MarkRange[] = []\n  doc.nodesBetween(from, to, (node, pos) => {\n"
                "    marks.push(...node.marks)\n  })\n  return marks\n}\n")
    snippet = ("export function getMarksBetween(from: number, to: number, doc: ProseMirrorNode): MarkRange[] {\n"
               "  const marks: MarkRange[] = []\n  doc.nodesBetween(from, to, (node, pos) => {\n"
               "    if (!node) {\n      return\n    }\n    marks.push(...node.marks)\n  })\n  return marks\n}\n")
    r = merge(original, snippet, "typescript")
    assert r.ok, r.reason
    assert r.text == original[:original.index("export function")] + snippet
