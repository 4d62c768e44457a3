"""How useful inline completions are in real repositories (issue 42): lines of real packages that the
shipped model was not trained on, cut where a programmer is typing them, completed by the real
server (`redraft serve` over stdio) with the package as its workspace, as an editor drives it.

    .venv/bin/python bench/repo_lines.py [--split dev|heldout] [--langs python,javascript,typescript,go,rust]
                                         [--per-package N] [--seed 0] [--conditions alone,tabs]
                                         [--limit N] [--server-cmd CMD] [--effort low] [--json OUT]
                                         [--root data/repo_bench] [--packages a,b]

The packages (bench/repo_packages.txt, pinned; two splits by package: `dev` for tuning, `heldout`
run once at the end) are fetched by bench/repo_fetch.sh into data/repo_bench/SPLIT/LANG/NAME.

Cases. In each package, code lines of its own source files (not tests, docs, examples, benchmarks,
vendored, built or generated files; at least 6 non-space characters, not blank or comment-only,
not inside a multi-line string or block comment, at most 200 characters) are drawn with the
seed (at most 3 per file), and each is cut at a seeded column from right after its indentation to
before its last character: the text after the cursor on that line is gone, as while it is typed.

Running. The package is copied to a work folder; a round of cases (at most one per file) writes
each case's cut file into the copy (the file on disk holds the cut line, as unsaved typing would,
so an index never sees the answer), then starts the server with the copy as its root as editors
start it (`initialize` with rootUri, rootPath, workspaceFolders and VS Code's capabilities, the
server's requests answered), waits for the model (and for the workspace index, where the server
reports one), and for each case: (`tabs` only) didOpen the package modules the file imports, as
open tabs (their text as on disk), then didOpen the file (its cut text), `textDocument/inlineCompletion`
at the cut (trigger kind automatic), the first item applied as an editor applies it (its range
replaced by its insertText, in the negotiated position encoding), didClose everything. After the
round the server is shut down and the original files are restored. `alone` opens the file only.

Metrics, per language and condition and overall:
  exact       the applied line equals the original line (trailing whitespace ignored)
  edit sim    1 - Levenshtein / max length, the original rest of the line (after the cursor) vs what
              the applied line holds after the cursor (an empty suggestion scores 0 against the truth)
  shown       a non-empty item came back;  precision = exact among shown
  xfile       exact on the lines whose rest uses an identifier defined in another file of the
              package and not in this one (per-language definition regexes)
  p50/p95 ms  every request;  first ms: the first request of each server session (median)
  index       build time and memory where `redraft.stats` reports a `workspace`/`index` entry
  baselines   `verbatim`: the line occurs verbatim (stripped) elsewhere in its package;
              `common`: the most common line of the package that starts with what was typed is
              the line (exact rate)
"""
from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from redraft.lsp.convert import offset_to_position, position_to_offset  # noqa: E402
from redraft.lsp.stdio_client import JsonRpcStdioClient, LspError  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from repo_cases import (DATA, DEFAULT_PER_PACKAGE, LANGS, PACKAGES_FILE, Case, Package, cut_doc,  # noqa: E402
                        make_cases, module_paths, read, read_packages, rounds_of, source_files)

# -- the editor ----------------------------------------------------------------------------------

LANGUAGE_ID = {"python": "python", "javascript": "javascript", "typescript": "typescript", "go": "go", "rust": "rust"}


def language_id(lang: str, path: str) -> str:
    if path.endswith(".tsx"):
        return "typescriptreact"
    if path.endswith(".jsx"):
        return "javascriptreact"
    return LANGUAGE_ID[lang]


# what VS Code 1.9x sends (the parts that matter here)
VSCODE_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"], "staleRequestSupport": {"cancel": True, "retryOnContentModified": []}},
    "window": {"workDoneProgress": True, "showMessage": {"messageActionItem": {"additionalPropertiesSupport": True}}},
    "workspace": {"applyEdit": True, "configuration": True, "workspaceFolders": True,
                  "didChangeConfiguration": {"dynamicRegistration": True},
                  "didChangeWatchedFiles": {"dynamicRegistration": True, "relativePatternSupport": True},
                  "executeCommand": {"dynamicRegistration": True}},
    "textDocument": {
        "synchronization": {"dynamicRegistration": True, "willSave": True, "willSaveWaitUntil": True, "didSave": True},
        "completion": {"dynamicRegistration": True, "contextSupport": True,
                       "completionItem": {"snippetSupport": True, "insertReplaceSupport": True}},
        "inlineCompletion": {"dynamicRegistration": True},
    },
}


class EditorClient(JsonRpcStdioClient):
    """JsonRpcStdioClient that also records the server's own requests (registerCapability etc.)."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        self.server_requests: list[dict[str, Any]] = []
        super().__init__(*a, **kw)

    def _answer_server_request(self, msg: dict[str, Any]) -> None:
        self.server_requests.append(msg)
        super()._answer_server_request(msg)


def rss_mib(pid: int) -> dict[str, float]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = round(int(v.split()[0]) / 1024, 1)
    except OSError:
        pass
    return out


def apply_item(text: str, offset: int, item: dict[str, Any] | None, encoding: str) -> str:
    """The document after the editor applies `item` (its range, or the cursor, replaced by insertText)."""
    if not item:
        return text
    ins = item.get("insertText", "")
    if isinstance(ins, dict):           # a StringValue (snippet): take its text, placeholders unexpanded
        ins = re.sub(r"\$\{\d+:?([^}]*)\}|\$\d+", r"\1", ins.get("value", ""))
    rng = item.get("range")
    if rng:
        from lsprotocol import types
        a = position_to_offset(text, types.Position(**rng["start"]), encoding)
        b = position_to_offset(text, types.Position(**rng["end"]), encoding)
    else:
        a = b = offset
    return text[:a] + ins + text[b:]


def first_item(result: Any) -> dict[str, Any] | None:
    items = result.get("items", []) if isinstance(result, dict) else (result or [])
    return items[0] if items else None


def stats_extra(stats: dict[str, Any]) -> dict[str, Any]:
    ws = stats.get("workspace") or stats.get("index")
    return ws if isinstance(ws, dict) else {}


def _wait_ready(client: EditorClient, timeout: float = 300) -> dict[str, Any]:
    """Wait for the model (and the workspace index, where reported) to be ready; the last stats."""
    deadline = time.monotonic() + timeout
    while True:
        st = client.request("workspace/executeCommand", {"command": "redraft.stats", "arguments": []})
        model = (st.get("model") or {}).get("state")
        ws = stats_extra(st)
        if model == "failed":
            raise LspError(f"the model failed to load: {(st.get('model') or {}).get('error')}")
        if model == "ready" and (not ws or ws.get("state") not in ("indexing", "idle")):
            return st
        if time.monotonic() > deadline:
            return st
        time.sleep(0.2)


def run_session(pkg: Package, work: Path, cases: list[Case], condition: str, server_cmd: list[str],
                options: dict[str, Any], texts: dict[str, str], timeout: float = 120,
                records: list[dict] | None = None, session: dict[str, Any] | None = None) -> tuple[list[dict], dict]:
    """One server session over `work` (the cut files already on disk): each case's completion
    (appended to `records` as it comes, so that a server that dies keeps what it answered)."""
    root = work.resolve()
    client = EditorClient(server_cmd, configuration={"redraft": options}, cwd=str(root), timeout=timeout)
    records = [] if records is None else records
    session = {} if session is None else session
    try:
        t0 = time.perf_counter()
        result = client.request("initialize", {
            "processId": os.getpid(), "clientInfo": {"name": "Visual Studio Code", "version": "1.96.0"},
            "rootUri": root.as_uri(), "rootPath": str(root), "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": options, "capabilities": VSCODE_CAPABILITIES, "trace": "off", "locale": "en"})
        from redraft.lsp.convert import normalize_encoding
        client.position_encoding = normalize_encoding(((result or {}).get("capabilities") or {}).get("positionEncoding"))
        client.notify("initialized", {})
        client.notify("workspace/didChangeConfiguration", {"settings": {"redraft": options}})
        st = _wait_ready(client)
        session["ready_s"] = round(time.perf_counter() - t0, 2)
        session["position_encoding"] = client.position_encoding
        version = 0
        all_files = source_files(root, pkg.lang, for_cases=False)
        for n, c in enumerate(cases):
            path = root / c.path
            uri = path.as_uri()
            doc = texts[c.path]
            offset = sum(len(x) + 1 for x in doc.split("\n")[:c.row]) + c.col
            tabs = module_paths(root, path, doc, pkg.lang, all_files) if condition == "tabs" else []
            opened = []
            for t in tabs:
                tt = read(t)
                if tt is None:
                    continue
                version += 1
                client.open_document(t.as_uri(), tt, language_id(pkg.lang, t.name), version)
                opened.append(t.as_uri())
            version += 1
            client.open_document(uri, doc, language_id(pkg.lang, c.path), version)
            pos = offset_to_position(doc, offset, client.position_encoding)
            t1 = time.perf_counter()
            err = None
            try:
                res = client.request("textDocument/inlineCompletion", {
                    "textDocument": {"uri": uri}, "position": {"line": pos.line, "character": pos.character},
                    "context": {"triggerKind": 2}})
            except LspError as e:
                res, err = None, str(e)[:300]
            ms = (time.perf_counter() - t1) * 1000
            item = first_item(res)
            applied = apply_item(doc, offset, item, client.position_encoding)
            for u in [uri, *opened]:
                client.close_document(u)
            records.append(score(c, applied, item, ms, condition, first=n == 0, tabs=len(opened), error=err))
        st = client.request("workspace/executeCommand", {"command": "redraft.stats", "arguments": []})
        session["rss_mib"] = rss_mib(client.proc.pid)
        ws = stats_extra(st)
        session["workspace"] = {k: v for k, v in ws.items() if not isinstance(v, (list, dict)) or k in ("skipped",)}
        session["precision"] = (st.get("model") or {}).get("precision")
        session["requests"] = st.get("requests")
        session["server_requests"] = sorted({m.get("method", "") for m in client.server_requests})
    finally:
        client.close()
    return records, session


# -- scoring -------------------------------------------------------------------------------------

def levenshtein(a: str, b: str) -> int:
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def edit_sim(truth: str, got: str) -> float:
    m = max(len(truth), len(got))
    return 1.0 if m == 0 else 1 - levenshtein(truth, got) / m


def score(c: Case, applied_doc: str, item: dict | None, ms: float, condition: str, first: bool = False,
          tabs: int = 0, error: str | None = None) -> dict[str, Any]:
    rows = applied_doc.split("\n")
    applied_line = rows[c.row] if c.row < len(rows) else ""
    ins = (item or {}).get("insertText", "")
    ins = ins.get("value", "") if isinstance(ins, dict) else ins
    shown = bool(ins and ins.strip())
    if applied_line.startswith(c.typed):
        got_rest = applied_line[c.col:]
    else:                                  # the item rewrote what was typed: compare the lines' code
        got_rest = applied_line
    truth_rest = c.rest if applied_line.startswith(c.typed) else c.truth
    return {"package": c.package, "lang": c.lang, "condition": condition, "path": c.path, "line": c.row + 1,
            "col": c.col, "typed": c.typed, "truth": c.truth, "applied": applied_line, "insert_text": ins,
            "shown": shown, "exact": applied_line.rstrip() == c.truth.rstrip(),
            "edit_sim": round(edit_sim(truth_rest.rstrip(), got_rest.rstrip()), 4),
            "cross_file": c.cross_file, "cross_idents": c.cross_idents, "verbatim_elsewhere": c.verbatim_elsewhere,
            "common_line": c.common_line, "common_exact": c.common_line == c.truth.strip(),
            "ms": round(ms, 1), "first_in_session": first, "tabs": tabs, "error": error}


def summarise(recs: list[dict]) -> dict[str, Any]:
    n = len(recs)
    if not n:
        return {"n": 0}
    shown = [r for r in recs if r["shown"]]
    xf = [r for r in recs if r["cross_file"]]
    ms = sorted(r["ms"] for r in recs if not r["error"]) or [float("nan")]
    firsts = [r["ms"] for r in recs if r["first_in_session"] and not r["error"]]

    def q(p: float) -> float:
        return ms[min(len(ms) - 1, int(round(p * (len(ms) - 1))))]
    return {"n": n, "exact": round(sum(r["exact"] for r in recs) / n, 4),
            "edit_sim": round(statistics.mean(r["edit_sim"] for r in recs), 4),
            "shown": round(len(shown) / n, 4),
            "precision": round(sum(r["exact"] for r in shown) / len(shown), 4) if shown else None,
            "xfile_n": len(xf), "xfile_exact": round(sum(r["exact"] for r in xf) / len(xf), 4) if xf else None,
            "p50_ms": round(q(0.5), 1), "p95_ms": round(q(0.95), 1),
            "first_ms": round(statistics.median(firsts), 1) if firsts else None,
            "verbatim": round(sum(r["verbatim_elsewhere"] for r in recs) / n, 4),
            "common_exact": round(sum(r["common_exact"] for r in recs) / n, 4),
            "errors": sum(1 for r in recs if r["error"])}


def summary_table(records: list[dict], sessions: list[dict]) -> tuple[dict, str]:
    groups: dict[str, dict[str, list]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in records:
        groups[r["condition"]][r["lang"]].append(r)
        groups[r["condition"]]["all"].append(r)
    out: dict[str, Any] = {}
    lines = ["| condition | lang | n | exact | edit sim | shown | precision | xfile n | xfile exact | p50 ms | p95 ms "
             "| first ms | verbatim | common exact | errors |", "|" + "---|" * 15]
    fmt = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    for cond, by_lang in groups.items():
        out[cond] = {}
        for lang in [*(x for x in LANGS if x in by_lang), "all"]:
            s = summarise(by_lang[lang])
            out[cond][lang] = s
            lines.append(f"| {cond} | {lang} | " + " | ".join(fmt(s[k]) for k in (
                "n", "exact", "edit_sim", "shown", "precision", "xfile_n", "xfile_exact", "p50_ms", "p95_ms",
                "first_ms", "verbatim", "common_exact", "errors")) + " |")
    by_pkg: dict[str, dict[str, list]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in records:
        by_pkg[r["condition"]][r["package"]].append(r)
    out["by_package"] = {cond: {pkg: {k: v for k, v in summarise(rs).items() if k in ("n", "exact", "edit_sim", "shown",
                                      "precision", "xfile_n", "xfile_exact", "p50_ms", "verbatim", "common_exact")}
                                for pkg, rs in d.items()} for cond, d in by_pkg.items()}
    # index build / memory, where the server reports them
    idx = [s for s in sessions if s.get("workspace")]
    if idx:
        builds = [s["workspace"].get("build_s") for s in idx if isinstance(s["workspace"].get("build_s"), (int, float))]
        mem_keys = sorted({k for s in idx for k in s["workspace"] if re.search(r"mem|bytes|mib|mb", k, re.I)})
        out["index"] = {"sessions": len(idx), "build_s_median": statistics.median(builds) if builds else None,
                        "build_s_max": max(builds) if builds else None,
                        "memory": {k: max(s["workspace"][k] for s in idx if isinstance(s["workspace"].get(k), (int, float)))
                                   for k in mem_keys if any(isinstance(s["workspace"].get(k), (int, float)) for s in idx)}}
        lines.append(f"\nindex (server-reported): build_s median {out['index']['build_s_median']} max "
                     f"{out['index']['build_s_max']}; memory {out['index']['memory'] or 'not reported'}")
    else:
        out["index"] = None
        lines.append("\nindex: the server reports none")
    rss = [s["rss_mib"].get("VmHWM") for s in sessions if s.get("rss_mib")]
    if rss:
        lines.append(f"server peak RSS (MiB): median {round(statistics.median(rss), 1)}, max {max(rss)}")
        out["server_peak_rss_mib"] = {"median": round(statistics.median(rss), 1), "max": max(rss)}
    return out, "\n".join(lines)


# -- the run -------------------------------------------------------------------------------------

def run_package(pkg: Package, ws: Path, cases: list[Case], conditions: list[str], server_cmd: list[str],
                options: dict[str, Any], log=print) -> tuple[list[dict], list[dict]]:
    records, sessions = [], []
    with tempfile.TemporaryDirectory(prefix=f"repo_lines_{pkg.name}_") as tmp:
        work = Path(tmp) / pkg.name
        shutil.copytree(ws, work, symlinks=True)
        for cond in conditions:
            for k, rnd in enumerate(rounds_of(cases)):
                originals = {c.path: (work / c.path).read_text(encoding="utf-8") for c in rnd}
                texts = {c.path: cut_doc(originals[c.path], c) for c in rnd}
                try:
                    for c in rnd:                                   # the file on disk holds the cut line
                        (work / c.path).write_text(texts[c.path], encoding="utf-8")
                    recs, sess = [], {}
                    try:
                        run_session(pkg, work, rnd, cond, server_cmd, options, texts, records=recs, session=sess)
                    except (LspError, OSError) as e:     # the server died or did not answer: the rest are errors
                        sess["error"] = str(e)[:500]
                        for c in rnd[len(recs):]:
                            recs.append(score(c, texts[c.path], None, 0.0, cond, first=not recs, error=sess["error"]))
                        log(f"  {pkg.name} {cond} round {k}: the session failed: {sess['error'][:200]}", file=sys.stderr)
                finally:
                    for c in rnd:
                        (work / c.path).write_text(originals[c.path], encoding="utf-8")
                sess.update(package=pkg.name, lang=pkg.lang, condition=cond, round=k, cases=len(rnd))
                records += recs
                sessions.append(sess)
                ex = sum(r["exact"] for r in recs)
                log(f"  {pkg.name} {cond} round {k}: {len(rnd)} cases, {ex} exact, "
                    f"{sum(r['shown'] for r in recs)} shown, ready {sess.get('ready_s')} s", file=sys.stderr)
    return records, sessions


def machine() -> dict[str, Any]:
    out: dict[str, Any] = {}
    try:
        out["cpu"] = next((l.split(":", 1)[1].strip() for l in subprocess.run(
            ["lscpu"], capture_output=True, text=True).stdout.splitlines() if l.startswith("Model name")), None)
        flags = Path("/proc/cpuinfo").read_text()
        out["bf16_flags"] = sorted(set(re.findall(r"\b(avx512_bf16|amx_bf16)\b", flags)))
        out["cores"] = os.cpu_count()
    except OSError:
        pass
    try:
        out["commit"] = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                                       text=True).stdout.strip()
        out["dirty"] = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "lsp_server",
                                            "model", "kernels"], capture_output=True, text=True).stdout.strip())
    except OSError:
        pass
    out["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return out


def default_server_cmd() -> list[str]:
    """The .venv's `redraft serve`, as editors start it (the console script: the workspace folder,
    the server's cwd, is not on its import path)."""
    exe = Path(sys.executable).with_name("redraft")
    return [str(exe), "serve"] if exe.exists() else [sys.executable, "-m", "redraft", "serve"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="dev", choices=("dev", "heldout"))
    ap.add_argument("--langs", default=",".join(LANGS))
    ap.add_argument("--packages", default=None, help="only these packages (comma-separated names)")
    ap.add_argument("--per-package", type=int, default=None,
                    help="cases per package (default: 25 for Python, 18 for the others)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--conditions", default="alone,tabs")
    ap.add_argument("--limit", type=int, default=None, help="at most this many cases in all (smoke runs)")
    ap.add_argument("--server-cmd", default=None, help="the server's command line (default: this .venv's "
                                                       "`python -m redraft serve`)")
    ap.add_argument("--effort", default=None, help="default: the server's own")
    ap.add_argument("--threads", type=int, default=None, help="the server's torch threads (default: its own)")
    ap.add_argument("--setting", action="append", default=[], metavar="KEY=JSON",
                    help="another server setting (initializationOptions), e.g. gate=\"always\"")
    ap.add_argument("--root", type=Path, default=DATA, help="where repo_fetch.sh put the packages")
    ap.add_argument("--packages-file", type=Path, default=PACKAGES_FILE)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--label", default=None, help="what is measured (e.g. the server's commit), kept in the JSON")
    a = ap.parse_args(argv)

    langs = [x for x in a.langs.split(",") if x]
    conditions = [x for x in a.conditions.split(",") if x]
    assert all(c in ("alone", "tabs") for c in conditions), "conditions: alone, tabs"
    server_cmd = shlex.split(a.server_cmd) if a.server_cmd else default_server_cmd()
    options: dict[str, Any] = {"enabledLanguages": ["python", "javascript", "javascriptreact", "typescript",
                                                    "typescriptreact", "go", "rust"]}
    if a.effort:
        options["effort"] = a.effort
    if a.threads is not None:
        options["threads"] = a.threads
    for kv in a.setting:
        k, _, v = kv.partition("=")
        options[k] = json.loads(v)
    pkgs = [p for p in read_packages(a.packages_file) if p.split == a.split and p.lang in langs
            and (not a.packages or p.name in a.packages.split(","))]
    plan = []
    for p in pkgs:
        ws = p.path(a.root)
        if not ws.is_dir():
            print(f"missing {ws}: run bench/repo_fetch.sh --split {a.split}", file=sys.stderr)
            return 2
        cases = make_cases(p, ws, a.per_package or DEFAULT_PER_PACKAGE[p.lang], a.seed)
        plan.append((p, ws, cases))
    if a.limit is not None:
        left = a.limit
        for i, (p, ws, cases) in enumerate(plan):
            plan[i] = (p, ws, cases[:max(0, left)])
            left -= len(plan[i][2])
        plan = [x for x in plan if x[2]]
    records, sessions = [], []
    t0 = time.time()
    for p, ws, cases in plan:
        print(f"{p.lang} {p.name} {p.version}: {len(cases)} cases", file=sys.stderr)
        recs, sess = run_package(p, ws, cases, conditions, server_cmd, options)
        records += recs
        sessions += sess
    summary, table = summary_table(records, sessions)
    info = {"machine": machine(), "command": shlex.join([sys.argv[0], *(argv if argv is not None else sys.argv[1:])]),
            "label": a.label, "split": a.split, "seed": a.seed, "conditions": conditions, "server_cmd": server_cmd, "options": options,
            "packages": [asdict(p) | {"cases": len(c)} for p, _, c in plan], "wall_s": round(time.time() - t0, 1)}
    print(f"{info['machine']} split={a.split} seed={a.seed} server={' '.join(server_cmd)} options={options}")
    print(table)
    print("exact: applied line == original (trailing space ignored); edit sim: of the rest after the cursor; "
          "precision: exact among shown; xfile: lines whose rest uses a name defined only in another file of "
          "the package; first ms: median of each server session's first request; verbatim / common exact: "
          "the baselines (the line occurs elsewhere in its package / the package's most common line starting "
          "with what was typed is right)")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({**info, "summary": summary, "sessions": sessions, "records": records}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
