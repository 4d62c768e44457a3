"""`redraft complete FILE LINE COL [--model DIR] [--effort E] [--json] [--backend KIND ...]`: one
completion through the engine's pipeline, as the language server computes it (LINE and COL 1-based,
COL in characters). With `--backend` (a remote kind) the same plan and post-processing around the
remote model (engine/backends), without loading torch; a backend that fails prints its one-line
reason on stderr and exits 1."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from redraft.engine.backends.config import add_flags, flags_of
    from redraft.engine.settings import EFFORT_NAMES
    ap = argparse.ArgumentParser(prog="redraft complete", description="Print one completion at FILE:LINE:COL.")
    ap.add_argument("file", type=Path)
    ap.add_argument("line", type=int, help="1-based line")
    ap.add_argument("col", type=int, help="1-based column, in characters")
    ap.add_argument("--model", default=None, help="checkpoint directory, or an open-weight model's hub-format "
                    "directory (default: the shipped model)")
    ap.add_argument("--effort", default="low", choices=EFFORT_NAMES)
    ap.add_argument("--json", action="store_true", help="print a JSON record instead of the bare text")
    ap.add_argument("--workspace", type=Path, default=None, metavar="DIR",
                    help="the project the file belongs to: its lines become candidates, as in the editor "
                         "(indexed first; the language server indexes its workspace folder in the background)")
    ap.add_argument("--gate", default="auto", metavar="auto|always|P",
                    help="withhold a completion less likely right than P (the `gate` setting; default auto, "
                         "as the server)")
    add_flags(ap)
    a = ap.parse_args(argv)
    backend, backend_problems = flags_of(a)
    for p in backend_problems:
        print(f"redraft complete: --backend: {p}", file=sys.stderr)
    if backend_problems:
        return 2
    from redraft.engine.settings import gate_value
    try:
        gate = gate_value(a.gate)
    except ValueError as e:
        print(f"redraft complete: --gate {a.gate}: {e}", file=sys.stderr)
        return 2
    if a.workspace is not None and not a.workspace.is_dir():
        print(f"redraft complete: --workspace {a.workspace}: not a directory", file=sys.stderr)
        return 2
    try:
        text = a.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"redraft complete: cannot read {a.file}: {e}", file=sys.stderr)
        return 2
    lines = text.split("\n")
    if not 1 <= a.line <= len(lines) or not 1 <= a.col <= len(lines[a.line - 1]) + 1:
        print(f"redraft complete: {a.line}:{a.col} is outside {a.file} ({len(lines)} lines)", file=sys.stderr)
        return 2
    offset = sum(len(l) + 1 for l in lines[: a.line - 1]) + a.col - 1
    if backend is not None and backend.remote:
        return _remote(a, backend, text, offset)
    from redraft.engine.pipeline import Engine, Request
    from redraft.model.checkpoint import CheckpointError
    from redraft.model.hub import HubError
    try:
        engine = Engine(a.model)
    except (CheckpointError, HubError) as e:
        print(f"redraft complete: cannot load the model: {e}", file=sys.stderr)
        return 2
    index = None
    if a.workspace is not None:
        from redraft.engine.syntax.languages import language_id_for_uri
        from redraft.engine.workspace.index import WorkspaceIndex
        index = WorkspaceIndex([a.workspace], [language_id_for_uri(str(a.file)) or "python"])
        index.start()
        index.wait()
        index.update(a.file.resolve(), text, force=True)   # the file as given, as an editor's open tab
    comp = engine.complete(Request(text=text, offset=offset, uri=a.file.resolve().as_uri(), effort=a.effort,
                                   workspace=index, min_confidence=gate))
    shown = comp is not None and not comp.withheld
    if a.json:
        print(json.dumps(None if comp is None else {
            "text": comp.text if shown else "", "scope": comp.plan.scope, "forward_passes": comp.forward_passes,
            "latency_ms": round(comp.latency_ms, 1), "confidence": comp.confidence, "source": comp.source,
            "withheld": comp.withheld}))
    else:
        print(comp.text if shown else "")
    return 0


def _remote(a, backend, text: str, offset: int) -> int:
    """One completion from a remote backend (no local model unless its fallback is local)."""
    from redraft.engine.backends.remote import RemoteEngine, Request
    from redraft.engine.syntax.languages import language_id_for_uri
    uri = a.file.resolve().as_uri()
    local = None
    if backend.fallback == "local":
        from redraft.engine.pipeline import Engine
        local = Engine(a.model)
    messages: list[str] = []
    engine = RemoteEngine(backend, local, on_event=lambda _level, message, _changed: messages.append(message))
    if engine.key_missing:
        print(f"redraft complete: {backend.api_key_env} (--backend-api-key-env) is not set; sending no key",
              file=sys.stderr)
    comp = engine.complete(Request(text=text, offset=offset, uri=uri, effort=a.effort,
                                   language_id=language_id_for_uri(str(a.file))))
    engine.close()
    error = getattr(comp, "error", None)
    for m in messages:
        print(m, file=sys.stderr)
    if a.json:
        print(json.dumps(None if comp is None else {
            "text": comp.text, "scope": comp.plan.scope, "forward_passes": comp.forward_passes,
            "latency_ms": round(comp.latency_ms, 1), "confidence": comp.confidence, "source": comp.source,
            "withheld": comp.withheld, "backend": backend.kind, "error": error}))
    else:
        print(comp.text if comp is not None else "")
    return 1 if error else 0
