"""Completers for the HumanEval harness (lsp_server/evals/evaluate.py): what produces one task's
completion. The baselines (the true line, nothing), the pipeline in process (`Engine.complete`), and
the real server over stdio (`redraft serve`, textDocument/inlineCompletion)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from redraft.evals.humaneval import InfillTask

@dataclass
class Attempt:
    """One completion as the harness sees it. `document` is set only when the client's edit was not
    a plain insertion at the cursor (an LSP item with a range); otherwise the document is
    prefix + text + suffix."""
    text: str
    forward_passes: int | None = None
    tokens: int | None = None             # infill tokens the sampler committed
    latency_ms: float | None = None       # the pipeline's own latency (Completion.latency_ms)
    round_trip_ms: float | None = None    # LSP only: request sent -> response read, as the client sees it
    error: str | None = None              # the completer failed (counts as an empty completion)
    document: str | None = None
    scope: str | None = None              # the pipeline's plan scope (line, line-rest, inline, string, block)


class Completer(Protocol):
    label: str

    def warm_up(self) -> None:
        """One untimed completion before the first task (model load, lazy initialisation)."""

    def __call__(self, task: InfillTask) -> Attempt: ...

    def close(self) -> None: ...


class TruthBaseline:
    """Inserts the removed line: every task must pass (checks tasks, documents and the runner)."""
    label = "baseline:truth"

    def warm_up(self) -> None:
        pass

    def __call__(self, task: InfillTask) -> Attempt:
        return Attempt(task.truth)

    def close(self) -> None:
        pass


class EmptyBaseline:
    """Inserts nothing: passes only where the removed line was not needed by the tests."""
    label = "baseline:empty"

    def warm_up(self) -> None:
        pass

    def __call__(self, task: InfillTask) -> Attempt:
        return Attempt("")

    def close(self) -> None:
        pass


# untimed warm-up request: a fresh indented line in a small function (cursor after the indentation)
WARM_UP_TEXT = "def total(xs):\n    s = 0\n    for x in xs:\n        \n    return s\n"
WARM_UP_OFFSET = WARM_UP_TEXT.index("        \n") + 8


class EngineCompleter:
    """`Engine.complete` in this process; the engine may be shared (e.g. across an effort sweep)."""

    def __init__(self, engine: Any, effort: str, max_tokens: int = 32, syntax_aware: bool = True,
                 oracle_length: bool = False):
        self.engine, self.effort, self.max_tokens, self.syntax_aware = engine, effort, max_tokens, syntax_aware
        self.oracle_length = oracle_length   # the canvas gets the true line's token count (an upper bound on length choice)
        self.label = (f"inprocess:{effort}" + ("" if syntax_aware else ":no-syntax-aware")
                      + (":oracle-length" if oracle_length else ""))

    def warm_up(self) -> None:
        self._complete(WARM_UP_TEXT, WARM_UP_OFFSET, "humaneval/warm-up.py")

    def _complete(self, text: str, offset: int, uri: str, length: int | None = None) -> Any:
        from redraft.engine.pipeline import Request
        try:
            return self.engine.complete(Request(text=text, offset=offset, uri=uri, effort=self.effort,
                                                max_tokens=self.max_tokens, syntax=self.syntax_aware, length=length))
        finally:
            self.engine.forget(uri)

    def true_length(self, task: InfillTask) -> int:
        """The removed line's length in the model's tokens (tokenized on its own)."""
        return len(self.engine.tok.encode(task.truth))

    def __call__(self, task: InfillTask) -> Attempt:
        t0 = time.perf_counter()
        try:
            length = self.true_length(task) if self.oracle_length else None
            comp = self._complete(task.text, task.offset, f"humaneval/{task.task_id}.py", length)
        except Exception as e:  # noqa: BLE001 - a crash on one task is a result, not the end of the run
            return Attempt("", latency_ms=(time.perf_counter() - t0) * 1000, error=f"{type(e).__name__}: {e}")
        if comp is None:  # the planner declined: the editor shows nothing
            return Attempt("", forward_passes=0, tokens=0, latency_ms=(time.perf_counter() - t0) * 1000)
        return Attempt(comp.text, forward_passes=comp.forward_passes, tokens=len(comp.confidences),
                       latency_ms=comp.latency_ms, scope=comp.plan.scope)

    def close(self) -> None:
        pass


def _insert_text(item: dict[str, Any]) -> str:
    text = item.get("insertText", "")
    if isinstance(text, dict):  # StringValue (snippet): drop tab stops, keep the literal text
        import re
        text = re.sub(r"\$\{\d+(?::([^}]*))?\}|\$\d+", lambda m: m.group(1) or "", text.get("value", ""))
        text = text.replace("\\$", "$").replace("\\}", "}").replace("\\\\", "\\")
    return text


def apply_inline_result(task: InfillTask, result: Any, encoding: str = "utf-16") -> Attempt:
    """The document after accepting the first inline completion item of an LSP response."""
    from redraft.lsp.convert import position_from_json, position_to_offset
    items = result.get("items", []) if isinstance(result, dict) else (result or [])
    if not items:
        return Attempt("")
    item = items[0]
    ins = _insert_text(item)
    data = item.get("data") if isinstance(item.get("data"), dict) else {}  # redraft's payload, if any
    att = Attempt(ins, forward_passes=data.get("forward_passes"), tokens=data.get("tokens"),
                  latency_ms=data.get("latency_ms"), scope=data.get("scope"))
    rng = item.get("range")
    if rng:
        text = task.text
        s, e = (position_to_offset(text, position_from_json(rng[k]), encoding) for k in ("start", "end"))
        doc = text[:s] + ins + text[e:]
        n_pre, n_suf = len(task.prefix), len(task.suffix)
        if doc.startswith(task.prefix) and doc.endswith(task.suffix) and len(doc) >= n_pre + n_suf:
            att.text = doc[n_pre: len(doc) - n_suf]
        else:
            att.document = doc
    return att


def _editor_uri(name: str) -> str:
    """A file URI for a document that exists only in the editor (nothing is written)."""
    return (Path.cwd() / "redraft-eval" / name).as_uri()


class LspCompleter:
    """`redraft serve` over stdio: didOpen, textDocument/inlineCompletion, didClose per task.

    The server is started as `python -m redraft serve` with this interpreter (the same entry
    point as the `redraft` console script, without depending on PATH). Settings travel as
    initializationOptions. Forward passes, tokens and the pipeline latency come from the item's
    `data` payload (redraft's server adds it); the client-side round trip is recorded as well.
    An empty answer carries no payload, so model figures over LSP cover non-empty answers only."""

    def __init__(self, effort: str, model_dir: str | None = None, request_timeout_s: float = 120.0,
                 cmd: list[str] | None = None, max_tokens: int = 32, threads: int = 0, syntax_aware: bool = True,
                 precision: str = "auto", gate: str = "always"):
        from redraft.lsp.stdio_client import SERVE_CMD, JsonRpcStdioClient
        if cmd is None:
            cmd = list(SERVE_CMD)
            if model_dir:
                cmd += ["--model", str(model_dir)]
            cmd += ["--effort", effort]
        self.effort, self.label = effort, f"lsp:{effort}" + ("" if syntax_aware else ":no-syntax-aware")
        options: dict[str, Any] = {"effort": effort, "maxTokens": max_tokens, "gate": gate}
        if not syntax_aware:
            options["syntax"] = False
        if threads:
            options["threads"] = threads
        if precision != "auto":
            options["precision"] = precision
        self.client = JsonRpcStdioClient(cmd, timeout=request_timeout_s)
        try:
            self.client.initialize(options)
        except BaseException:
            self.client.close()
            raise

    def warm_up(self) -> None:
        """The server loads the model after `initialized`; the first request waits for the load."""
        self._request(_editor_uri("warm-up.py"), WARM_UP_TEXT, WARM_UP_OFFSET)

    def _request(self, uri: str, text: str, offset: int) -> Any:
        self.client.open_document(uri, text)
        try:
            return self.client.inline_completion(uri, text, offset)
        finally:
            self.client.close_document(uri)

    def __call__(self, task: InfillTask) -> Attempt:
        from redraft.lsp.stdio_client import LspError
        t0 = time.perf_counter()
        try:
            result = self._request(_editor_uri(task.task_id.replace("/", "_") + ".py"), task.text, task.offset)
        except LspError as e:
            if self.client.proc.poll() is not None:
                raise  # the server died: stop the run rather than score every remaining task as empty
            return Attempt("", round_trip_ms=(time.perf_counter() - t0) * 1000, error=str(e))
        att = apply_inline_result(task, result, self.client.position_encoding)
        att.round_trip_ms = (time.perf_counter() - t0) * 1000
        return att

    def close(self) -> None:
        self.client.close()
