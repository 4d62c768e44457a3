"""The workspace index (lsp_server/engine/workspace): which files it reads (.gitignore, vendored,
minified, binary, oversized, the caps, symbolic-link loops, files that vanish or do not decode),
how it follows edits, and the project's lines it offers as candidates. Real files in tmp dirs,
real git, real tree-sitter grammars."""
from __future__ import annotations

import gc
import os
import subprocess

from redraft.engine.workspace.candidates import (document_names, project_candidates, typed_on_line,
                                                 unknown_names)
from redraft.engine.workspace.files import ignored, list_files, parse_gitignore
from redraft.engine.workspace import index as index_module
from redraft.engine.workspace.index import WorkspaceIndex

PY = {".py"}


def write(root, rel, text, mode="w"):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


def names(paths, root):
    return sorted(str(p.relative_to(root)) for p in paths)


def built(root, **kw) -> WorkspaceIndex:
    ix = WorkspaceIndex([root], ["python"], **kw)
    ix.start()
    assert ix.wait(60)
    return ix


def test_gitignore_rules():
    rules = parse_gitignore("# c\n*.log\n/build_out/\n!keep.log\ndocs/**/gen_*.py\nsecret?.py\n")
    assert ignored("a/b/x.log", False, rules) and not ignored("a/keep.log", False, rules)
    assert ignored("build_out", True, rules) and not ignored("src/build_out", True, rules)
    assert ignored("docs/a/b/gen_x.py", False, rules) and not ignored("docs/a/b/x.py", False, rules)
    assert ignored("secret1.py", False, rules) and not ignored("secret12.py", False, rules)


def test_walk_honours_gitignore_and_skips_junk(tmp_path):
    write(tmp_path, ".gitignore", "generated/\n*_pb2.py\n")
    write(tmp_path, "pkg/a.py", "x = 1\n")
    write(tmp_path, "pkg/sub/.gitignore", "local_*.py\n")
    write(tmp_path, "pkg/sub/b.py", "y = 2\n")
    write(tmp_path, "pkg/sub/local_c.py", "z = 3\n")
    write(tmp_path, "pkg/msg_pb2.py", "proto = 1\n")
    write(tmp_path, "generated/g.py", "g = 1\n")
    write(tmp_path, "node_modules/m/index.py", "m = 1\n")
    write(tmp_path, "pkg/app.min.py", "a=1\n")
    write(tmp_path, "pkg/wide.py", "x = '" + "a" * 3000 + "'\n")
    write(tmp_path, "pkg/blob.py", b"\x00\x01binary", mode="wb")
    write(tmp_path, "pkg/big.py", "v = 1\n" * 40_000)
    write(tmp_path, "pkg/readme.txt", "not code\n")
    files, skipped = list_files(tmp_path, PY, max_files=100, max_bytes=100_000)
    assert names(files, tmp_path) == ["pkg/a.py", "pkg/sub/b.py"]
    assert skipped["minified"] == 2 and skipped["binary"] == 1 and skipped["oversized"] == 1


def test_git_repository_uses_git_ignores(tmp_path):
    write(tmp_path, ".gitignore", "ignored_dir/\n")
    write(tmp_path, "a.py", "a = 1\n")
    write(tmp_path, "ignored_dir/b.py", "b = 1\n")
    write(tmp_path, "untracked.py", "c = 1\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.py", ".gitignore"], check=True)
    write(tmp_path, ".git/info/exclude", "excluded_by_info.py\n")
    write(tmp_path, "excluded_by_info.py", "d = 1\n")
    files, _ = list_files(tmp_path, PY, max_files=100, max_bytes=100_000)
    assert names(files, tmp_path) == ["a.py", "untracked.py"]


def test_caps_and_symlink_loops(tmp_path):
    for i in range(30):
        write(tmp_path, f"m{i:02d}.py", f"value_{i} = compute({i})\n")
    os.symlink(tmp_path, tmp_path / "loop")              # a directory link back to the root
    os.symlink(tmp_path / "nowhere.py", tmp_path / "dangling.py")
    files, skipped = list_files(tmp_path, PY, max_files=10, max_bytes=100_000)
    assert len(files) == 10 and skipped["over_cap"] == 20
    files, _ = list_files(tmp_path, PY, max_files=100, max_bytes=100_000)
    assert len(files) == 30 and not any("loop" in p.relative_to(tmp_path).parts for p in files)


def test_unreadable_and_vanishing_files_are_counted_not_fatal(tmp_path):
    write(tmp_path, "good.py", "result = frobnicate(items)\n")
    write(tmp_path, "latin1.py", "name = 'caf\xe9'\n".encode("latin-1"), mode="wb")
    ix = built(tmp_path)
    assert ix.stats["files"] == 1 and ix.stats["errors"] == 1
    assert ix.refresh(tmp_path / "deleted_meanwhile.py") is False      # listed, then gone
    (tmp_path / "good.py").unlink()
    assert ix.refresh(tmp_path / "good.py") is False and ix.stats["files"] == 0
    assert ix.lines_starting("result = ") == []


def test_lines_by_frequency_and_definitions(tmp_path):
    write(tmp_path, "pkg/a.py", "import logging\nlog = logging.getLogger(__name__)\n\n\n"
                                "def frobnicate(items, factor=2):\n    return [i * factor for i in items]\n")
    write(tmp_path, "pkg/b.py", "import logging\nlog = logging.getLogger(__name__)\nlog = logging.getLogger('x')\n")
    write(tmp_path, "pkg/c.py", "log = logging.getLogger(__name__)\n\n\nclass Widget:\n    def spin(self):\n        pass\n")
    ix = built(tmp_path)
    assert ix.lines_starting("log = logging.")[:2] == [("log = logging.getLogger(__name__)", 3),
                                                       ("log = logging.getLogger('x')", 1)]
    assert [(d.kind, d.signature) for d in ix.definitions_of("frobnicate")] == \
        [("function", "def frobnicate(items, factor=2):")]
    assert {d.name for d in ix.file_definitions(tmp_path / "pkg/c.py")} == {"Widget", "spin"}


def test_follows_edits(tmp_path):
    p = write(tmp_path, "a.py", "total = add_numbers(a, b)\n")
    ix = built(tmp_path)
    assert ix.lines_starting("total = ") == [("total = add_numbers(a, b)", 1)]
    ix.update(p, "total = multiply_numbers(a, b)\n", force=True)          # the editor's text
    assert ix.lines_starting("total = ") == [("total = multiply_numbers(a, b)", 1)]
    p.write_text("total = subtract_numbers(a, b)\n")                       # a watcher event
    ix.refresh(p)
    assert ix.lines_starting("total = ") == [("total = subtract_numbers(a, b)", 1)]
    ix.remove(p)
    assert ix.lines_starting("total = ") == [] and ix.definitions_of("x") == []
    assert ix.update(p, "x = 1\n") is True and ix.update(p, "x = 2\n") is False   # throttled without force


def test_candidates_from_the_document_and_the_project(tmp_path):
    write(tmp_path, "util.py", "def frobnicate_widgets(widgets, factor):\n    return widgets\n")
    write(tmp_path, "other.py", "result = frobnicate_widgets(ws, factor=2.5)\nresult = frobnicate_widgets(ws, factor=2.5)\n")
    ix = built(tmp_path)
    doc = "result = frob_local(1)\n\ndef grow(ws):\n    result = frob\n"
    cur = doc.index("frob\n") + 4
    assert typed_on_line(doc, cur) == ("    ", "result = frob")
    cands = project_candidates(doc, cur, ix)
    assert [(c.text, c.project, c.document) for c in cands] == \
        [("_local(1)", 0, 1), ("nicate_widgets(ws, factor=2.5)", 2, 0)]
    assert project_candidates(doc, cur - 3, ix) == []       # text follows the cursor on its line
    assert project_candidates("r", 1, ix) == []             # too little typed


def test_followers_of_a_line_across_files_and_edits(tmp_path):
    body = "def __init__(self, size):\n    self.size = size\n    self.items = []\n"
    write(tmp_path, "a.py", "class A:\n" + body)
    b = write(tmp_path, "b.py", "class B:\n" + body)
    write(tmp_path, "c.py", "class C:\n    def __init__(self, size):\n        super().__init__()\n")
    ix = built(tmp_path)
    assert ix.followers("def __init__(self, size):") == {"self.size = size": 2, "super().__init__()": 1}
    ix.update(b, "class B:\n    def __init__(self, size):\n        self.size = int(size)\n", force=True)
    assert ix.followers("def __init__(self, size):") == \
        {"self.size = size": 1, "self.size = int(size)": 1, "super().__init__()": 1}
    ix.remove(b)
    assert ix.followers("def __init__(self, size):") == {"self.size = size": 1, "super().__init__()": 1}
    assert ix.followers("never written") == {}


def test_candidates_follow_the_previous_line_before_anything_is_typed(tmp_path):
    body = "    def __init__(self, size):\n        self.size = size\n"
    write(tmp_path, "a.py", "class A:\n" + body)
    write(tmp_path, "b.py", "class B:\n" + body)
    ix = built(tmp_path)
    doc = "class C:\n    def __init__(self, size):\n        "
    cands = project_candidates(doc, len(doc), ix)
    assert [(c.text, c.follows, c.rank) for c in cands] == [("self.size = size", 2, 0)]
    # without an index, the document's own lines: the line after an earlier copy of the previous one
    doc2 = "def f(size):\n    check(size)\n    return size\n\ndef g(size):\n    check(size)\n    re"
    assert [(c.text, c.follows) for c in project_candidates(doc2, len(doc2))] == [("turn size", 1)]


def test_unknown_names_are_those_neither_the_document_nor_the_project_writes(tmp_path):
    write(tmp_path, "util.py", "def frobnicate_widgets(widgets):\n    return widgets\n")
    ix = built(tmp_path)
    doc = "import os\nvalue = 3\nresult = frob"
    names = document_names(doc, len(doc))
    line = "result = frob"
    assert unknown_names(line + "nicate_widgets(value)", len(line), names, ix) == 0
    assert unknown_names(line + "ulate(valeu, len(os))", len(line), names, ix) == 2   # frobulate, valeu
    assert unknown_names(line + "ulate(value)", len(line), names, None) == 1


def test_snippets_sent_with_a_request_are_read_as_project_lines():
    snippets = ["from shapes import Circle\nradius = compute_radius(shape, scale=2)\n",
                "def area(c):\n    radius = compute_radius(c, scale=2)\n    return 3.14 * radius ** 2\n"]
    doc = "def grow(shape):\n    radius = comp"
    cands = project_candidates(doc, len(doc), None, snippets=snippets)
    assert [(c.text, c.project) for c in cands] == [("ute_radius(c, scale=2)", 1), ("ute_radius(shape, scale=2)", 1)]
    doc2 = "def perimeter(c):\n    radius = compute_radius(c, scale=2)\n    "
    assert [(c.text, c.follows) for c in project_candidates(doc2, len(doc2), None, snippets=snippets)] == \
        [("return 3.14 * radius ** 2", 1)]


def _state(pid: int, want: str | None = None) -> str:
    """The process's state letter (T: stopped); with `want`, waits up to 5 s for it (signals land
    asynchronously)."""
    import time
    deadline = time.monotonic() + 5
    while True:
        with open(f"/proc/{pid}/stat") as f:
            st = f.read().rsplit(")", 1)[1].split()[0]
        done = want is None or (st != want[1:] if want.startswith("!") else st == want)
        if done:
            return st
        if time.monotonic() > deadline:
            return st
        time.sleep(0.01)


def test_the_build_child_is_stopped_while_a_request_runs(tmp_path):
    import time
    for i in range(40):
        write(tmp_path, f"m{i}.py", f"def f{i}(x):\n    return x + {i}\n")
    ix = WorkspaceIndex([tmp_path], ["python"], delay_s=0.05)
    ix.start()
    deadline = time.monotonic() + 30
    while ix._scanner is None and time.monotonic() < deadline:
        time.sleep(0.01)
    pid = ix._scanner
    assert pid is not None and ix.stats["state"] == "indexing"
    with ix.serving():
        with ix.serving():                 # nested requests: stopped until the last one ends
            assert _state(pid, "T") == "T"
        assert _state(pid) == "T"
    assert _state(pid, "!T") != "T"
    assert ix.wait(60) and ix.stats["state"] == "ready"
    assert ix.count("return x + 39") == 1 and ix._scanner is None


def test_the_sorted_view_is_rebuilt_in_runs_that_wait_for_requests(tmp_path):
    import random
    import threading
    import time

    from redraft.engine.workspace.scan import Definition

    idx = WorkspaceIndex([tmp_path], ["python"])
    rng = random.Random(5)
    text = list({f"x_{rng.random():.12f} = {i}" for i in range(3 * index_module.SORT_RUN + 17)})
    assert list(idx._sorted_order(text)) == sorted(range(len(text)), key=text.__getitem__)
    done = []
    with idx.serving():                       # a request runs: the rebuild waits for it
        t = threading.Thread(target=lambda: done.append(idx._sorted_order(text)))
        t.start()
        time.sleep(0.3)
        assert not done
    t.join(30)
    assert done and [text[i] for i in done[0]] == sorted(text)
    write(tmp_path, "m.py", "def f():\n    return 1\n\n\nclass K:\n    pass\n")
    idx.start()
    assert idx.wait(30)
    assert gc.get_freeze_count() > 0          # the finished build's tables are out of the full collections
    gc.unfreeze()
    gc.collect()
    stored = [d for lst in idx._defs.values() for d in lst]
    assert len(stored) == 2 and not any(gc.is_tracked(d) for d in stored)   # 100k of them lengthened every full collection
    assert idx.definitions_of("K") == [Definition("K", "class", "class K:", str(tmp_path / "m.py"), 4)]


def test_a_look_up_reads_only_the_newest_lines_added_since_the_sorted_view(tmp_path, monkeypatch):
    """While a large build runs, up to half the lines wait for the next sorted view; a keystroke
    reads only the newest RECENT_SCAN of them (all of them had cost 10-30 ms per keystroke)."""
    monkeypatch.setattr(index_module, "RECENT_SCAN", 2)
    idx = WorkspaceIndex([tmp_path], ["python"])
    idx.update(tmp_path / "a.py", "value_alpha = 1\n")
    idx.update(tmp_path / "b.py", "value_beta = 2\nvalue_gamma = 3\n")
    assert [s for s, _ in idx.lines_starting("value_")] == ["value_beta = 2", "value_gamma = 3"]
    idx._resort()                             # in the sorted view now: every line is found
    assert sorted(s for s, _ in idx.lines_starting("value_")) == ["value_alpha = 1", "value_beta = 2",
                                                                   "value_gamma = 3"]


def test_the_build_moves_its_tables_out_of_the_collector_as_it_goes(tmp_path, monkeypatch):
    monkeypatch.setattr(index_module, "FREEZE_EVERY", 2)
    for i in range(5):
        write(tmp_path, f"m{i}.py", f"def f{i}():\n    return {i}\n")
    gc.unfreeze()
    seen = []
    idx = WorkspaceIndex([tmp_path], ["python"])
    ready = idx._ready
    monkeypatch.setattr(idx, "_ready", lambda t0: (seen.append(gc.get_freeze_count()), ready(t0)))
    idx.start()
    assert idx.wait(30) and idx.stats["files"] == 5
    assert seen and seen[0] > 0               # frozen before the build's end, not only at it
    gc.unfreeze()


def test_a_stopped_index_and_a_reloaded_model_are_not_kept_alive_by_the_freeze(tmp_path):
    import weakref

    from redraft.engine.host import settle_heap

    class Node:
        pass

    def frozen_cycle():
        a, b = Node(), Node()
        a.other, b.other = b, a               # only the cycle collector can free these
        gc.freeze()
        return weakref.ref(a)

    old_model = frozen_cycle()
    settle_heap()                             # as after loading another model
    assert old_model() is None
    write(tmp_path, "m.py", "def f():\n    return 1\n")
    idx = WorkspaceIndex([tmp_path], ["python"])
    idx.start()
    assert idx.wait(30)
    old_tables = frozen_cycle()
    idx.stop()                                # the settings turned the index off or changed it
    gc.collect()
    assert old_tables() is None
    gc.unfreeze()
