"""Issue 43: closing lines that end a fragment's new block are not a frame for a place whose
closing lines end another block.  The shape, from a real release (svgo's convertPathData.js: a new
`if (params.convertToQ ...) { ... }` block shown after the end of the block before it, then a
marker): the new block's last three lines (`}` three times) are also the last three lines of the
next block in the file, so the region to there was taken as framed by the fragment's own lines,
and the lines between (102 of them in svgo) were deleted.  Lines without a word frame a place only
when the block they close opens with the same line there as in the fragment.  In the four brace
languages and in Python (closing brackets of a call)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (the file's first lines, block A, block B (to keep), block C, the new block, the file's last lines,
#  marker)
SHAPES = {
    "javascript": (
        ["function run(items, params) {", "  for (const item of items) {", "    let data = item.data;"],
        ["    if (params.a) {", "      if (data.length > 2) {", "        data = data.slice(-2);",
         "      } else if (data.length === 1) {", "        data = [];", "      }", "    }"],
        ["    if (params.b) {", "      const head = data[0];", "      total += head;", "      seen.add(item.name);",
         "      names.push(item.name);", "      sizes.push(data.length);", "      last = item;",
         "      kinds.add(item.kind);", "      owners.add(item.owner);", "      stamp = Date.now();",
         "      log.debug(item.name, data.length);", "      total -= data.length;",
         "      while (data.length > 4) {", "        if (data[0] > 0) {", "          emit(data.shift());",
         "          count += 1;", "        }", "      }", "    }"],
        ["    if (params.c) {", "      while (data.length > 8) {", "        if (data[1] < 0) {",
         "          emit(data.pop());", "        }", "      }", "    }"],
        ["    if (verbose) {", "      for (const y of data) {", "        if (y === 0) {",
         "          console.log('zero at', item.name);", "        }", "      }", "    }"],
        ["    emit(data);", "  }", "}"],
        "//"),
    "rust": (
        ["fn run(items: &[Item], params: &Params) {", "    for item in items {", "        let mut data = item.data();"],
        ["        if params.a {", "            if data.len() > 2 {", "                data.drain(..2);",
         "            } else if data.len() == 1 {", "                data.clear();", "            }", "        }"],
        ["        if params.b {", "            let head = data[0];", "            total += head;",
         "            seen.insert(item.name());", "            names.push(item.name());",
         "            sizes.push(data.len());", "            last = Some(item);", "            while data.len() > 4 {",
         "                if data[0] > 0 {", "                    emit(data.remove(0));",
         "                    count += 1;",
         "                }", "            }", "        }"],
        ["        if params.c {", "            while data.len() > 8 {", "                if data[1] < 0 {",
         "                    emit(data.pop());", "                }", "            }", "        }"],
        ["        if verbose {", "            for y in &data {", "                if *y == 0 {",
         "                    println!(\"zero at {}\", item.name());", "                }", "            }",
         "        }"],
        ["        emit_all(data);", "    }", "}"],
        "//"),
    "go": (
        ["func run(items []Item, params Params) {", "\tfor _, item := range items {", "\t\tdata := item.Data()"],
        ["\t\tif params.A {", "\t\t\tif len(data) > 2 {", "\t\t\t\tdata = data[len(data)-2:]",
         "\t\t\t} else if len(data) == 1 {", "\t\t\t\tdata = nil", "\t\t\t}", "\t\t}"],
        ["\t\tif params.B {", "\t\t\thead := data[0]", "\t\t\ttotal += head", "\t\t\tseen[item.Name] = true",
         "\t\t\tnames = append(names, item.Name)", "\t\t\tsizes = append(sizes, len(data))", "\t\t\tlast = item",
         "\t\t\tfor len(data) > 4 {", "\t\t\t\tif data[0] > 0 {", "\t\t\t\t\temit(data[0])",
         "\t\t\t\t\tdata = data[1:]",
         "\t\t\t\t}", "\t\t\t}", "\t\t}"],
        ["\t\tif params.C {", "\t\t\tfor len(data) > 8 {", "\t\t\t\tif data[1] < 0 {",
         "\t\t\t\t\tdata = data[:len(data)-1]", "\t\t\t\t}", "\t\t\t}", "\t\t}"],
        ["\t\tif verbose {", "\t\t\tfor _, y := range data {", "\t\t\t\tif y == 0 {",
         "\t\t\t\t\tfmt.Println(\"zero at\", item.Name)", "\t\t\t\t}", "\t\t\t}", "\t\t}"],
        ["\t\temitAll(data)", "\t}", "}"],
        "//"),
    "python": (
        ["def setup(app, item):", "    handlers = []"],
        ["    handlers.append(", "        Handler(", "            \"a\",", "            level=1,", "        ),",
         "    )"],
        ["    handlers.extend(", "        [", "            Handler(", "                \"b\",",
         "                level=2,",
         "                name=item.name,", "                size=item.size,", "                owner=item.owner,",
         "                tags=item.tags,", "                timeout=30,", "                retries=3,",
         "                backoff=1.5,", "                enabled=item.enabled,", "            ),", "        ]",
         "    )"],
        ["    handlers.extend(", "        [", "            Handler(", "                \"c\",", "            ),",
         "        ]",
         "    )"],
        ["    registry.register_many(", "        [", "            Endpoint(", "                \"/zero\",",
         "                item.name,",
         "            ),", "        ]", "    )"],
        ["    return handlers"],
        "#"),
}
SHAPES["typescript"] = tuple(
    [l.replace("function run(items, params)", "function run(items: Item[], params: Params): void") for l in part]
    if isinstance(part, list) else part for part in SHAPES["javascript"])


def _file(first, *blocks_and_last) -> str:
    *blocks, last = blocks_and_last
    lines = list(first)
    for block in blocks:
        lines += block + [""]
    return "\n".join(lines[:-1] + last) + "\n"


@pytest.mark.parametrize("lang", sorted(SHAPES))
def test_closing_lines_of_a_new_block_do_not_frame_the_next_blocks_end(lang):
    first, a, b, c, new, last, comment = SHAPES[lang]
    indent = a[0][:len(a[0]) - len(a[0].lstrip())]
    marker = f"{comment} ... existing code ..."
    snippet = "\n".join([marker] + a[-4:] + [""] + new + ["", indent + marker]) + "\n"
    r = merge(_file(first, a, b, c, last), snippet, lang)
    assert r.ok, r.reason
    assert r.text == _file(first, a, new, b, c, last)       # block B kept: the new block goes before it
    assert not r.deletions

