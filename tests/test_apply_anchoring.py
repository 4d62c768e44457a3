"""Where apply's merge puts a fragment anchored by lines (lsp_server/engine/apply/anchors.py): the choices
that the benchmark's real edits taught it, each on real code (the standard library's modules) or a
module written like the benchmark's failures."""
import argparse
import difflib
import itertools
import random
import textwrap
from pathlib import Path

from redraft.engine.apply import merge
from redraft.engine.apply.alike import worth as _worth
from redraft.engine.apply.heaviest import kept as _kept_from, kept_in as _kept

M = "# ... existing code ..."
TEXTWRAP = Path(textwrap.__file__).read_text(encoding="utf-8").split("\n")
ARGPARSE = Path(argparse.__file__).read_text(encoding="utf-8").split("\n")


def ok(original, snippet, language="python"):
    r = merge(original, snippet, language)
    assert r.ok, r.reason
    return r.text


def at(lines, prefix, start=0):
    return next(i for i in range(start, len(lines)) if lines[i].startswith(prefix))


def test_a_hunk_framed_by_three_lines_deletes_what_it_leaves_out():
    # a unified diff's hunk: three lines of context on each side say exactly what goes between
    s = at(TEXTWRAP, "    def _split_chunks(")
    e = at(TEXTWRAP, "    def wrap(")
    snippet = "\n".join([M] + TEXTWRAP[s - 3:s] + TEXTWRAP[e:e + 3] + [M]) + "\n"
    assert ok("\n".join(TEXTWRAP), snippet) == "\n".join(TEXTWRAP[:s] + TEXTWRAP[e:])


def test_a_method_without_its_class_goes_to_the_one_most_like_it_token_by_token():
    # argparse has many `__call__`s; every line of _CountAction's changed, its tokens still match
    c = at(ARGPARSE, "class _CountAction")
    j = at(ARGPARSE, "    def __call__(", c)
    body = ARGPARSE[j:j + 5]
    assert body[-1].strip().startswith("setattr") and sum(l.startswith("    def __call__(") for l in ARGPARSE) > 5
    new = [l.replace("count", "total") for l in body]
    assert all(a != b for a, b in zip(body[1:], new[1:]))
    out = ok("\n".join(ARGPARSE), "\n".join(new) + "\n")
    assert out == "\n".join(ARGPARSE[:j] + new + ARGPARSE[j + 5:])


SAMPLE = """import { operate } from '../util/lift';
import { noop } from '../util/noop';
import { OperatorSubscriber } from './OperatorSubscriber';
export function sample(notifier) {
    return operate((source, subscriber) => {
        let hasValue = false;
        notifier.subscribe(new OperatorSubscriber(subscriber, () => { hasValue = false; }, noop));
    });
}
"""


def test_lines_added_before_the_first_line_of_the_file():
    snippet = ("import { innerFrom } from '../observable/innerFrom';\n"
               "import { operate } from '../util/lift';\nimport { noop } from '../util/noop';\n"
               "import { createOperatorSubscriber } from './OperatorSubscriber';\n"
               "export function sample(notifier) {\n    // ... existing code ...\n")
    out = ok(SAMPLE, snippet, "javascript")
    assert out == ("import { innerFrom } from '../observable/innerFrom';\n"
                   + SAMPLE.replace("import { OperatorSubscriber }", "import { createOperatorSubscriber }"))


TESTS = '''def test_repeated_ref():
    s = SchemaSerializer(
        core_schema.tuple_schema(
            [
                core_schema.int_schema(ref='foobar'),
                core_schema.int_schema(ref='foobar'),
            ]
        )
    )
    assert s.to_python((1, 2)) == (1, 2)


def test_repeated_ref_in_list():
    s = SchemaSerializer(
        core_schema.tuple_schema(
            [
                core_schema.list_schema(core_schema.int_schema(ref='foobar')),
                core_schema.int_schema(ref='foobar'),
            ]
        )
    )
    assert s.to_python(([1], 2)) == ([1], 2)
'''


def test_a_fragment_after_an_indented_marker_stays_in_that_block():
    # the second test's list is more like the fragment, but the marker says: inside the first test
    snippet = """# ... existing code ...
def test_repeated_ref():
    # ... existing code ...
        core_schema.tuple_schema(
            [
                core_schema.list_schema(core_schema.int_schema(ref='foobar')),
                core_schema.int_schema(ref='foobar'),
            ]
        )
    # ... existing code ...
# ... existing code ...
"""
    out = ok(TESTS, snippet)
    first, second = out.split("\n\n\n")
    assert "list_schema" in first and second == TESTS.split("\n\n\n")[1]


def _heaviest(region, want):
    """Brute force: the heaviest common subsequence's weight."""
    best = {}
    for i, j in itertools.product(range(len(region) + 1), range(len(want) + 1)):
        if i == 0 or j == 0:
            best[i, j] = 0
            continue
        w = best[i - 1, j - 1] + 1 + _worth(region[i - 1]) if region[i - 1] == want[j - 1] else 0
        best[i, j] = max(best[i - 1, j], best[i, j - 1], w)
    return best[len(region), len(want)]


def test_the_agreement_is_an_exact_heaviest_common_subsequence():
    rng = random.Random(23)
    alphabet = ["", "}", "x = 1", "return x", "y = 2", "{"]
    for _ in range(300):
        region = [rng.choice(alphabet) for _ in range(rng.randint(0, 12))]
        want = [rng.choice(alphabet) for _ in range(rng.randint(0, 12))]
        kept = _kept(region, want)
        assert sum(1 + _worth(region[i]) for i in kept) == _heaviest(region, want)
        picked = [region[i] for i in sorted(kept)]      # in order, and a subsequence of `want`
        it = iter(want)
        assert all(any(p == w for w in it) for p in picked)


def test_regions_scored_from_one_pass_per_head_agree_with_a_pass_each():
    """The passes kept per head (heaviest.kept) give every region, asked in any order and with heads
    interleaved, the same lines as a pass over that region alone."""
    rng = random.Random(29)
    alphabet = ["", "}", "x = 1", "return x", "y = 2", "{"]
    for _ in range(60):
        orig = [rng.choice(alphabet) + " " * rng.randint(0, 1) for _ in range(rng.randint(1, 30))]
        want = [rng.choice(alphabet) for _ in range(rng.randint(0, 12))]
        regions = [(a, b) for a in range(len(orig)) for b in range(a, len(orig))]
        rng.shuffle(regions)
        for a, b in regions[:80]:
            assert _kept_from(orig, want, a, b) == _kept([l.strip() for l in orig[a:b + 1]], want)


def test_difflib_greedy_blocks_would_have_chosen_worse():
    # the case that made the merge drop an `if` block: difflib matches the lone `}` first
    region = ["return null;", "}", "", "// If source", "if (", "a &&", ") {", "debug();", "}", "", "return r;"]
    want = ["return null;", "}", "", "const c = m;", "if (!c) {", "return c;", "}", "", "// If source",
            "if (", "debug();", "}", "", "return r;"]
    blocks = difflib.SequenceMatcher(None, region, want, autojunk=False).get_matching_blocks()
    greedy = sum(1 + _worth(region[i]) for m in blocks for i in range(m.a, m.a + m.size))
    assert sum(1 + _worth(region[i]) for i in _kept(region, want)) == _heaviest(region, want) >= greedy


INDENT = '''def indent(text, prefix, predicate=None):
    if predicate is None:
        def predicate(line):
            return line.strip()

    def prefixed_lines():
        for line in text.splitlines(True):
            yield (prefix + line if predicate(line) else line)
    return ''.join(prefixed_lines())
'''


def test_a_function_nested_in_a_body_is_found_by_its_lines():
    # no index of definitions holds `prefixed_lines`: it used to be refused as a new definition
    snippet = """# ... existing code ...
def indent(text, prefix, predicate=None):
    # ... existing code ...
    def prefixed_lines():
        for line in text.splitlines(keepends=True):
            yield (prefix + line if predicate(line) else line)
    # ... existing code ...
"""
    assert ok(INDENT, snippet) == INDENT.replace("splitlines(True)", "splitlines(keepends=True)")


def test_trailing_whitespace_is_the_snippets_on_new_lines_and_never_added_to_repeated_ones():
    original = INDENT.replace("return line.strip()\n", "return line.strip()  \n")
    snippet = """# ... existing code ...
        def predicate(line):
            return line.strip()
    # ... existing code ...
            yield (prefix + line if predicate(line) else line)
    return "".join(prefixed_lines())   \n"""
    out = ok(original, snippet)
    assert "return line.strip()\n" in out                        # stripped where the snippet strips it
    assert out.endswith('return "".join(prefixed_lines())   \n')  # the snippet's, on the line it changes
    assert out.replace("   \n", "\n") == INDENT.replace("''.join", '"".join')
    # a line the snippet repeats with trailing whitespace the file's line lacks keeps the file's
    padded = snippet.replace("def predicate(line):\n", "def predicate(line):  \n")
    assert "def predicate(line):\n" in ok(INDENT, padded)


def test_a_blank_lines_whitespace_is_the_snippets_when_it_repeats_the_line():
    # the file's blank line inside `indent` holds four spaces; a snippet that shows them keeps them
    # (a release that did not touch them), one that shows an empty line strips them (a formatter's)
    original = INDENT.replace("            return line.strip()\n\n", "            return line.strip()\n    \n")
    body = original.split("\n")[1:]
    keeps = ok(original, "\n".join(["def indent(text, prefix, predicate=None):"] + body).replace("''", '""'))
    assert "line.strip()\n    \n" in keeps and '""' in keeps
    strips = ok(original, "\n".join(["def indent(text, prefix, predicate=None):"] + body).replace("''", '""')
                .replace("\n    \n", "\n\n"))
    assert "line.strip()\n\n" in strips and '""' in strips


def test_a_whole_new_file_without_markers_replaces_the_file_when_it_drops_no_definition():
    # the file's last line anchors the end; nothing anchors the start: the snippet is the whole file
    original = SAMPLE + "//# sourceMappingURL=sample.js.map\n"
    rewritten = ("import { exhaustMap } from './exhaustMap';\nexport function sample(notifier) {\n"
                 "    return exhaustMap(notifier);\n}\n//# sourceMappingURL=sample.js.map\n")
    assert ok(original, rewritten, "javascript") == rewritten
    # ... but not when that would drop a definition it never names
    two = original.replace("export function sample", "export function keep() {\n    return 1;\n}\nexport function sample")
    r = merge(two, rewritten, "javascript")
    assert not r.ok and "keep" in r.reason, r.reason


def test_a_docstrings_indented_list_does_not_make_the_snippet_look_2_space_indented():
    original = ('def where(app):\n    """Where the config lives.\n\n    Unix:\n      ``~/.config/app``\n'
                '    Mac:\n      ``~/Library/app``\n    Windows:\n      ``%APPDATA%``\n    """\n'
                '    if WIN:\n        return "a"\n    return "b"\n')
    code = "".join(f"def f{i}(x):\n    if x:\n        return {i}\n    return 0\n\n\n" for i in range(3))
    snippet = original.replace('return "b"', 'return "c"')     # the function alone: its docstring is most of it
    assert ok(code + original, snippet) == code + snippet


def test_a_shorter_new_version_that_ends_like_the_old_one_replaces_it():
    original = ("def test_format():\n    assert fmt(b'a') == 'a'\n    assert fmt('b') == 'b'\n\n"
                "    # windows permits this\n    if not WIN:\n        assert fmt(b'/x/\\xff') == '\\udcff'\n\n\n"
                "def test_other():\n    pass\n")
    snippet = "def test_format():\n    assert fmt(b'a') == 'a'\n    assert fmt('b') == 'b'\n    assert fmt(b'/x/\\xff') == '?'\n"
    out = ok(original, snippet)
    assert out == snippet + "\n\ndef test_other():\n    pass\n"


def test_lines_a_later_fragment_replaces_by_name_are_not_taken_by_an_earlier_one():
    # the first fragment is more like the second test's body, which the snippet's second fragment
    # (a whole definition) replaces: the first goes to the first test instead
    original = TESTS.replace("def test_repeated_ref_in_list", "def test_list")
    snippet = """# ... existing code ...
        core_schema.tuple_schema(
            [
                core_schema.list_schema(core_schema.int_schema(ref='foobar')),
                core_schema.int_schema(ref='foobar'),
            ]
        )
# ... existing code ...
def test_list():
    s = SchemaSerializer(core_schema.int_schema())
    assert s.to_python(1) == 1
"""
    out = ok(original, snippet)
    first, second = out.split("\n\n\n")
    assert "list_schema" in first and second == "def test_list():\n    s = SchemaSerializer(core_schema.int_schema())\n" \
                                                "    assert s.to_python(1) == 1\n"
