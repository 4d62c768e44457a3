"""Another file's snippet in the model's context (issue 42): the scoring and layout shared by training
(model/crossfile.py) and the engine (engine/workspace/snippets.py), the training rows, and a real
completion whose context carries the workspace's snippet."""
import random

from redraft.engine.pipeline import Engine, Request
from redraft.engine.workspace.index import WorkspaceIndex
from redraft.engine.workspace.snippets import SnippetPicker
from redraft.model.crossfile import (best_window, crossfile_stream, head_ids, packages, query_text,
                                     snippet_for, words)
from redraft.model.data import excluded_names, fim_context, held_back

PARSER = '''"""Headers."""


def parse_header_line(line):
    name, _, value = line.partition(":")
    return name.strip().lower(), value.strip()


def format_header_line(name, value):
    return f"{name.title()}: {value}"
'''

UNRELATED = '''import math


def area_of_circle(radius):
    return math.pi * radius * radius


def volume_of_sphere(radius):
    return 4 / 3 * math.pi * radius ** 3
'''


def test_words_split_identifiers_and_drop_keywords():
    assert words("def parseHeaderLine(self, raw_value): return HTTPError") == {
        "parse", "header", "line", "raw", "value", "http", "error"}


def test_the_query_is_the_lines_before_the_cursors_line():
    text = "a = 1\nb = 2\nc = par"
    assert query_text(text) == "a = 1\nb = 2\n"
    assert query_text(text, lines=1) == "b = 2\n"
    assert query_text("typed on the first line") == ""
    assert query_text(text, 8) == "a = 1\n" and query_text("\n\nx", 2) == "\n\n"   # the cursor's line left out
    long = "".join(f"line {i}\n" for i in range(100)) + "now"
    assert query_text(long) == "".join(f"line {i}\n" for i in range(88, 100))


def test_best_window_is_the_most_similar_one():
    q = words("for line in lines:\n    name, value = parse_header_line(line)\n")
    got = best_window(q, [UNRELATED, PARSER])
    assert got is not None and "def parse_header_line(line):" in got[0] and 0 < got[1] <= 1
    assert best_window(words("zzz qqq"), [UNRELATED, PARSER]) is None
    assert best_window(frozenset(), [PARSER]) is None


def test_head_ids_keep_whole_lines_within_the_share(shipped):
    tok = shipped.tokenizer
    head = head_ids(tok, PARSER, 24)
    assert head[0] == head[-1] == tok.file_sep_id and 3 <= len(head) <= 24
    inner = tok.decode(head[1:-1])
    assert PARSER.startswith(inner) and inner.endswith("\n")   # whole lines, from the window's start
    assert head_ids(tok, None) == [] and head_ids(tok, "") == [] and head_ids(tok, PARSER, 4) == []
    ctx = fim_context(tok, [5, 6], [7], head)
    assert ctx[: len(head)] == head and ctx[len(head)] == tok.suffix_id and ctx[-1] == tok.middle_id


def test_packages_group_by_site_packages_directory_and_leave_out_evaluation_code():
    names = excluded_names()
    assert {"toolz", "more_itertools", "tenacity", "glom"} <= names   # dev and held-out packages of the bench
    recs = [{"path": p, "text": p} for p in (
        "site-packages/urllib3/poolmanager.py", "site-packages/urllib3/response.py",
        "python3.11/site-packages/certifi/core.py", "python3.11/json/decoder.py", "python3.11/json/encoder.py",
        "site-packages/requests/api.py", "python3.11/site-packages/attr/_make.py",   # apply benchmark packages
        "site-packages/setuptools/_vendor/more_itertools/more.py",      # vendored: a benchmark package
        "site-packages/pip/_vendor/rich/console.py",                    # vendored copies: never
        "site-packages/toolz/itertoolz.py", "site-packages/more_itertools/recipes.py")]
    assert held_back("site-packages/pip/_vendor/tenacity/__init__.py", names)
    assert not held_back("site-packages/urllib3/poolmanager.py", names)
    groups = sorted(sorted(g) for g in packages(recs, names))
    assert groups == [["python3.11/json/decoder.py", "python3.11/json/encoder.py"],
                      ["python3.11/site-packages/certifi/core.py"],
                      ["site-packages/urllib3/poolmanager.py", "site-packages/urllib3/response.py"]]


def test_training_rows_carry_a_snippet_of_their_own_package(shipped):
    tok = shipped.tokenizer
    rng = random.Random(1)
    assert "parse_header_line" in snippet_for("x = 1\nname = parse_header_line(raw)\n", [UNRELATED, PARSER], rng)
    groups = [[PARSER * 3, PARSER.replace("header", "cookie") * 3], [UNRELATED * 4]]
    stream = crossfile_stream(groups, tok, 384, seed=3, share=1.0)
    with_head = 0
    for _ in range(200):
        ex = next(stream)
        assert len(ex.tokens) <= 384 and ex.n_ctx <= len(ex.tokens)
        if ex.n_ctx and ex.tokens[0] == tok.file_sep_id:
            with_head += 1
            end = ex.tokens.index(tok.file_sep_id, 1)
            assert end <= 129 and ex.tokens[end + 1] == tok.suffix_id
            snippet = tok.decode(ex.tokens[1:end])
            assert "area_of_circle" not in snippet and "radius" not in snippet   # never another package's
    assert with_head > 50


def _workspace(tmp_path):
    (tmp_path / "headers.py").write_text(PARSER)
    (tmp_path / "geometry.py").write_text(UNRELATED)
    doc = "from headers import parse_header_line\n\n\ndef read_all(lines):\n    out = {}\n" \
          "    for line in lines:\n        name, value = parse_header_line(line)\n        out[name] = "
    (tmp_path / "main.py").write_text(doc)
    index = WorkspaceIndex([tmp_path], ["python"])
    index.start()
    assert index.wait(30)
    return index, doc


def test_the_picker_finds_the_defining_files_window_and_keeps_it_while_typing(tmp_path):
    index, doc = _workspace(tmp_path)
    uri = (tmp_path / "main.py").as_uri()
    picker = SnippetPicker()
    got = picker.pick(doc, len(doc), uri, index)
    assert got is not None and "def parse_header_line(line):" in got
    assert picker.pick(doc + "val", len(doc) + 3, uri, index) is got            # the same line: the same snippet
    assert picker.pick(doc, len(doc), "untitled:x", None, [UNRELATED]) is None   # no shared word: nothing
    assert "radius" in picker.pick("r = radius\nvolume = ", 19, "untitled:y", None, [UNRELATED, PARSER])
    own = PARSER + "\n\ndef again(raw):\n    return parse_header_line(raw)\n"
    assert picker.pick(own, len(own), (tmp_path / "headers.py").as_uri(), index) is None   # never the file itself


def test_a_completion_reads_the_snippet_in_its_context(tmp_path):
    index, doc = _workspace(tmp_path)
    eng = Engine(None, threads=1)
    uri = (tmp_path / "main.py").as_uri()
    eng.complete(Request(text=doc, offset=len(doc), uri=uri, workspace=index, snippet_tokens=64))
    ids = eng._caches[uri].ids
    assert ids[0] == eng.tok.file_sep_id
    end = ids.index(eng.tok.file_sep_id, 1)
    assert "def parse_header_line(line):" in eng.tok.decode(ids[1:end]) and end < 64
    assert len(ids) + 32 <= eng.max_seq_len                     # context + canvas within the trained length
    wide = "".join(f"value_{i} = parse_header_line(line_{i}) or format_header_line(name_{i}, value)\n" for i in range(40))
    req = Request(text=doc, offset=len(doc), uri="untitled:w", snippets=(wide,), snippet_tokens=256)
    assert 80 < len(eng._head(req, 300)) <= 100 and len(eng._head(req, 90)) <= 30   # a third of the room at most
    eng.complete(Request(text=doc, offset=len(doc), uri=uri, workspace=index, snippet_tokens=0))
    assert eng._caches[uri].ids[0] == eng.tok.suffix_id         # off: the plain layout
    assert eng.snippet_tokens == eng.loaded.config.snippet_tokens
