"""bench/repo_lines.py end to end on a tiny package built here (no network): the cut file on disk and
in the editor, the original restored, the metrics and the record fields. A small stand-in language
server (written below, run as a subprocess) records what it sees and answers each file in a known
way: `app.py` with the true rest of the line (as a range over the whole line, as some servers
answer), `util.py` with a wrong rest, `helpers.py` with nothing. One case also goes through the
real `redraft serve`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import repo_cases as C  # noqa: E402
import repo_lines as R  # noqa: E402

UTIL = '''"""Helpers for the totals."""


def compute_total(items):
    subtotal = sum(item.price for item in items)
    return round(subtotal * TAX_RATE, 2)


TAX_RATE = 1.25
'''

APP = '''from .util import compute_total


def checkout(cart):
    return {"total": compute_total(cart.items)}
'''

HELPERS = '''def shout(text):
    return text.upper() + "!"
'''

FAKE_SERVER = r'''
import json, sys, pathlib
from urllib.parse import urlparse, unquote
log_path, originals = sys.argv[1], json.load(open(sys.argv[2]))
root, docs, seen = None, {}, []
def read():
    n = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        k, _, v = line.decode().partition(":")
        if k.lower() == "content-length":
            n = int(v)
    return json.loads(sys.stdin.buffer.read(n))
def send(msg):
    b = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
    sys.stdout.buffer.flush()
def path_of(uri):
    return pathlib.Path(unquote(urlparse(uri).path))
while True:
    m = read()
    meth, mid, p = m.get("method"), m.get("id"), m.get("params") or {}
    if meth == "initialize":
        root = path_of(p["rootUri"])
        disk = {str(f.relative_to(root)): f.read_text() for f in sorted(root.rglob("*.py"))}
        seen.append({"event": "initialize", "rootPath": p.get("rootPath"), "folders": p.get("workspaceFolders"),
                     "watch": p["capabilities"]["workspace"]["didChangeWatchedFiles"], "disk": disk,
                     "enabled": p["initializationOptions"].get("enabledLanguages")})
        send({"jsonrpc": "2.0", "id": mid, "result": {"capabilities": {"positionEncoding": "utf-16",
              "inlineCompletionProvider": True}}})
        send({"jsonrpc": "2.0", "id": 9001, "method": "client/registerCapability", "params": {"registrations": []}})
    elif meth == "textDocument/didOpen":
        docs[p["textDocument"]["uri"]] = p["textDocument"]["text"]
        seen.append({"event": "open", "path": str(path_of(p["textDocument"]["uri"]).relative_to(root)),
                     "text": p["textDocument"]["text"]})
    elif meth == "textDocument/didClose":
        docs.pop(p["textDocument"]["uri"], None)
    elif meth == "textDocument/inlineCompletion":
        uri = p["textDocument"]["uri"]
        rel = str(path_of(uri).relative_to(root))
        line, ch = p["position"]["line"], p["position"]["character"]
        truth = originals[rel].split("\n")[line]
        seen.append({"event": "complete", "path": rel, "line": line, "character": ch,
                     "kind": p["context"]["triggerKind"], "disk": (root / rel).read_text()})
        if rel.endswith("app.py"):    # the whole line, replacing what was typed
            items = [{"insertText": truth, "range": {"start": {"line": line, "character": 0},
                                                     "end": {"line": line, "character": ch}}}]
        elif rel.endswith("util.py"):
            items = [{"insertText": "zzz_wrong"}]
        else:
            items = []
        send({"jsonrpc": "2.0", "id": mid, "result": {"items": items}})
    elif meth == "workspace/executeCommand":
        send({"jsonrpc": "2.0", "id": mid, "result": {"model": {"state": "ready", "precision": "fp32"},
              "workspace": {"state": "ready", "build_s": 0.01, "index_bytes": 1234}, "requests": {}}})
    elif meth == "shutdown":
        json.dump(seen, open(log_path, "a"))
        open(log_path, "a").write("\n")
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif meth == "exit":
        sys.exit(0)
    elif mid is not None and meth:
        send({"jsonrpc": "2.0", "id": mid, "result": None})
'''


@pytest.fixture()
def package(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "data" / "dev" / "python" / "shop"
    (ws / "shop").mkdir(parents=True)
    (ws / "shop" / "__init__.py").write_text("")
    (ws / "shop" / "util.py").write_text(UTIL)
    (ws / "shop" / "app.py").write_text(APP)
    (ws / "shop" / "helpers.py").write_text(HELPERS)
    (ws / "tests").mkdir()
    (ws / "tests" / "test_shop.py").write_text("def test_total():\n    assert compute_total([]) == 0\n")
    pk = tmp_path / "packages.txt"
    pk.write_text("dev python shop 1.0\n")
    return ws, pk


def run(ws: Path, pk: Path, tmp_path: Path, server: list[str], *extra: str) -> dict:
    out = tmp_path / "out.json"
    assert R.main(["--root", str(tmp_path / "data"), "--packages-file", str(pk), "--per-package", "20",
                   "--server-cmd", " ".join(server), "--json", str(out), *extra]) == 0
    return json.loads(out.read_text())


def test_runner_with_a_recording_server(package, tmp_path):
    ws, pk = package
    originals = {str(p.relative_to(ws)): p.read_text() for p in ws.rglob("*.py")}
    (tmp_path / "originals.json").write_text(json.dumps(originals))
    (tmp_path / "fake.py").write_text(FAKE_SERVER)
    log = tmp_path / "seen.jsonl"
    res = run(ws, pk, tmp_path, [sys.executable, str(tmp_path / "fake.py"), str(log), str(tmp_path / "originals.json")])

    # the package itself is untouched; the cases are lines of its code, not of its tests
    assert {str(p.relative_to(ws)): p.read_text() for p in ws.rglob("*.py")} == originals
    recs = res["records"]
    assert recs and all(r["path"].startswith("shop/") for r in recs)
    assert {r["path"] for r in recs} == {"shop/util.py", "shop/app.py", "shop/helpers.py"}
    assert all(not r["truth"].lstrip().startswith(('"""', "#")) for r in recs)

    sessions = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    assert len(sessions) == len(res["sessions"]) >= 2
    for seen in sessions:
        init = seen[0]
        assert init["event"] == "initialize" and init["watch"]["dynamicRegistration"] is True
        assert init["folders"] and init["rootPath"] and "python" in init["enabled"]
        completes = [e for e in seen if e["event"] == "complete"]
        cut_now = {e["path"] for e in completes}
        for rel, disk in init["disk"].items():
            if rel not in cut_now:           # restored after the last round, cut only in its own
                assert disk == originals[rel], rel
        opens = [e for e in seen if e["event"] == "open"]
        for e in completes:
            own = [o for o in opens if o["path"] == e["path"]][-1]
            row = own["text"].split("\n")[e["line"]]
            truth = originals[e["path"]].split("\n")[e["line"]]
            # the editor holds the cut line, the disk too, before the server started
            assert own["text"] == e["disk"] == init["disk"][e["path"]]
            assert len(row) == e["character"] < len(truth.rstrip()) and truth.startswith(row)
            assert row.strip() == "" or len(row) > len(truth) - len(truth.lstrip())
            assert e["kind"] == 2

    by = {(r["condition"], r["path"], r["line"]): r for r in recs}
    assert {c for c, _, _ in by} == {"alone", "tabs"}
    for r in recs:
        for k in ("package", "lang", "condition", "path", "line", "col", "typed", "truth", "applied", "insert_text",
                  "shown", "exact", "edit_sim", "cross_file", "verbatim_elsewhere", "common_exact", "ms",
                  "first_in_session", "tabs", "error"):
            assert k in r, k
        assert r["error"] is None and r["ms"] > 0
        if r["path"] == "shop/app.py":        # right, through a range over the typed text
            assert r["shown"] and r["exact"] and r["edit_sim"] == 1.0 and r["applied"] == r["truth"]
            assert r["tabs"] == (1 if r["condition"] == "tabs" else 0)   # util.py opened as a tab
        elif r["path"] == "shop/util.py":
            assert r["shown"] and not r["exact"] and r["applied"] == r["typed"] + "zzz_wrong"
            assert r["edit_sim"] < 0.5
        else:
            assert not r["shown"] and not r["exact"] and r["edit_sim"] == 0.0
    # the tab is opened before the file itself
    for seen in sessions:
        paths = [e["path"] for e in seen if e["event"] in ("open", "complete")]
        for i, p in enumerate(paths):
            if p == "shop/app.py" and i + 1 < len(paths) and paths[i + 1] == "shop/app.py" and i > 0:
                assert paths[i - 1] in ("shop/util.py", "shop/app.py", "shop/helpers.py")

    # cross-file: app.py's line using compute_total (defined in util.py, not in app.py) where the
    # rest holds the name; util.py's own use of TAX_RATE is not cross-file
    for r in recs:
        line, col = r["truth"], r["col"]
        start = col
        while start and (line[start - 1].isalnum() or line[start - 1] == "_"):
            start -= 1
        want = r["path"] == "shop/app.py" and "compute_total" in line[start:]
        assert r["cross_file"] == want, r
    s = res["summary"]
    for cond in ("alone", "tabs"):
        a = s[cond]["all"]
        n_app = sum(1 for r in recs if r["condition"] == cond and r["path"] == "shop/app.py")
        n_util = sum(1 for r in recs if r["condition"] == cond and r["path"] == "shop/util.py")
        assert a["n"] == sum(1 for r in recs if r["condition"] == cond)
        assert a["exact"] == round(n_app / a["n"], 4)
        assert a["shown"] == round((n_app + n_util) / a["n"], 4)
        assert a["precision"] == round(n_app / (n_app + n_util), 4)
    assert s["index"]["build_s_median"] == 0.01 and s["index"]["memory"] == {"index_bytes": 1234}


def test_cross_file_and_baselines(package):
    ws, _ = package
    pkg = C.Package("dev", "python", "shop", "1.0")
    cases = C.make_cases(pkg, ws, 20, seed=3)
    assert {(c.path, c.row) for c in cases} >= {("shop/app.py", 4), ("shop/util.py", 4), ("shop/helpers.py", 1)}
    files = C.source_files(ws, "python")
    assert (ws / "tests" / "test_shop.py") not in files
    defs = {p.name: C.definitions(p.read_text(), "python") for p in files}
    assert defs["util.py"] >= {"compute_total", "TAX_RATE"} and "compute_total" not in defs["app.py"]
    others = defs["util.py"] | defs["helpers.py"]
    line = '    return {"total": compute_total(cart.items)}'
    assert C.cross_file_idents(line, 4, defs["app.py"], others) == ["compute_total"]
    assert C.cross_file_idents(line, 26, defs["app.py"], others) == ["compute_total"]   # the cut splits it
    assert C.cross_file_idents(line, 38, defs["app.py"], others) == []                  # after it
    # util.py's own TAX_RATE is defined in util.py: not cross-file
    assert C.cross_file_idents("    return round(subtotal * TAX_RATE, 2)", 4, defs["util.py"],
                               defs["app.py"] | defs["helpers.py"]) == []
    # the tabs of app.py: the module it imports
    assert (ws / "shop" / "util.py").resolve() in C.module_paths(ws, ws / "shop" / "app.py", APP, "python",
                                                                 C.source_files(ws, "python", False))
    assert R.edit_sim("abc", "") == 0.0 and R.edit_sim("abc", "abd") == pytest.approx(2 / 3)
    # the common-line baseline: the line being typed does not count itself
    import collections
    counts = collections.Counter(["x = 1", "x = 1", "x = 2", "y = 3"])
    assert C.most_common_line(counts, "    x = 2", 5) == "x = 1"
    assert C.most_common_line(counts, "    x = 1", 7) == "x = 1"
    assert C.most_common_line(counts, "    y = 3", 5) is None


def test_one_case_through_the_real_server(package, tmp_path):
    ws, pk = package
    before = {p: p.read_text() for p in ws.rglob("*.py")}
    res = run(ws, pk, tmp_path, R.default_server_cmd(), "--limit", "1", "--conditions", "alone",
              "--threads", "1")
    (r,) = res["records"]
    assert r["error"] is None and r["ms"] > 0 and r["condition"] == "alone"
    assert r["applied"].startswith(r["typed"])
    assert res["sessions"][0]["position_encoding"] in ("utf-16", "utf-8", "utf-32")
    assert {p: p.read_text() for p in ws.rglob("*.py")} == before
