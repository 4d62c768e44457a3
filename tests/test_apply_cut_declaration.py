"""Issue 43: a declaration shown by its first line, a marker after it, where the file's declaration
goes on over more lines.  The shape, from a real release (@helia/unixfs's index.ts): a snippet of
the file's imports and types, rewritten, ends its fragment with `export type AddEvents =
PutBlockProgressEvents` and a marker; the file's type goes on with `| ImporterProgressEvents`.  The
line parses alone as a whole definition, so the merge replaced the file's definition, both lines,
with it, silently deleting the union's second member, which the release kept.

A definition outside Python that is the file's definition's first lines, fewer, is cut short by
the marker after it, not shortened (by_name._cut_short): the fragment is placed by its lines, and what
the marker stands for stays.  Shown with the line after it, the declaration is shortened.  (On
9fe1149 TypeScript deleted the declaration's last line; JavaScript's `const`, which the name index
does not hold, was placed by its lines and kept it.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "typescript": ('''import type { GetBlockProgressEvents, PutBlockProgressEvents } from './blocks.js'
import type { ImporterProgressEvents } from './importer.js'

export interface UnixFSComponents {
  blockstore: Blocks
}

export type AddEvents = PutBlockProgressEvents
| ImporterProgressEvents

export interface AddOptions extends AbortOptions, ProgressOptions<AddEvents> {
  shardSplitThresholdBytes: number
}

export type GetEvents = GetBlockProgressEvents
''', "  blockstore: Blocks\n", "  blockstore: Pick<Blockstore, 'get' | 'put'>\n",
        "export type AddEvents = PutBlockProgressEvents\n", "| ImporterProgressEvents\n", "// "),
    "javascript": ('''import { createHandler } from './handler.js'
import { auth, logging } from './middleware.js'

export const options = {
  timeout: 30
}

export const handler = createHandler(options)
  .use(auth)

export function start(server) {
  return server.listen(handler)
}

export const version = '1.0.0'
''', "  timeout: 30\n", "  timeout: 60\n", "export const handler = createHandler(options)\n", "  .use(auth)\n", "// "),
}


def _snippet(lang: str, keep_next: bool) -> tuple[str, str]:
    original, old, new, first, rest, c = CASES[lang]
    head = original[:original.index(first) + len(first)].replace(old, new)
    snippet = head + (rest + f"{c}... existing code ...\n" if keep_next else f"{c}... existing code ...\n")
    return snippet, original.replace(old, new)


@pytest.mark.parametrize("keep_next", [False, True], ids=["cut-short", "shown-whole"])
@pytest.mark.parametrize("lang", sorted(CASES))
def test_declaration_then_a_marker_keeps_its_next_line(lang, keep_next):
    """Cut short by the marker, or shown whole: either way the declaration's next line stays."""
    snippet, truth = _snippet(lang, keep_next)
    r = merge(CASES[lang][0], snippet, lang)
    assert r.ok, r.reason
    assert r.text == truth
    assert CASES[lang][4] in r.text


@pytest.mark.parametrize("lang", sorted(CASES))
def test_declaration_shortened_when_the_line_after_it_is_shown(lang):
    """With the next definition's first line shown right after it, the declaration's last line is
    deleted: the snippet shows the gap."""
    original, old, new, first, rest, c = CASES[lang]
    after = original[original.index(first) + len(first) + len(rest):]
    nxt = after.lstrip("\n").split("\n", 1)[0] + "\n"
    snippet = original[:original.index(first) + len(first)].replace(old, new) + "\n" + nxt + \
        f"{c}... existing code ...\n"
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert rest not in r.text
    assert r.text == original.replace(old, new).replace(rest, "")
    assert any(d.start <= r.text.count("\n") for d in r.deletions)
