"""`RemoteEngine`: the local `Engine`'s interface (`complete`, `next_edit`, `forget`) over a remote
model, so that every front door works unchanged with `backend` set.

The same pipeline around a remote model:
* Plan: `plan_infill` on the document (syntax-aware where the language has a grammar, as locally).
  No plan (inside an identifier): no request. The plan's canvas is the request's token cap, its
  stop rule the request's stops (`"\\n"` for one-line scopes) with the template's and the user's.
* Context: at most `prefixChars` before the cursor, starting on a line whose number is a multiple
  of LINE_SNAP (so the prompt's head stays put while the user types and a server's prompt cache
  keeps hitting; a redraft server's own window snaps on the same lines), and `suffixChars` after
  it, ending at a line end.
* The answer is cut at the first FIM control token (templates.clean) and goes through the same
  `postprocess` as the local model's (the syntax-aware truncation, or the line rules), against
  the whole document's tree; the truncation's check window is parsed while the backend works. A streamed answer to a one-line plan is closed as soon as its first
  line is complete.
* Cancellation: `should_stop` (the server's ticket: `$/cancelRequest`, a newer request, an edit)
  closes the connection within client.WATCH_S; the answer is then None, as the local engine's
  Cancelled.
* Failure (timeout, refused, 4xx/5xx, malformed or oversized answer): one log line, the health
  turns "unreachable" (the status notification says so), and the completion is empty with its
  `error` set, or the local model's with `fallback: "local"`. After BACKOFF_AFTER failures in a row
  no request is sent for a while (doubling, at most BACKOFF_MAX_S); the first success clears it.
* Next edit: analogy first (no model, as `Engine.next_edit`), then the backend's next-edit
  endpoint where it has one (mercury, redraft); the local model otherwise. Apply: the backend's
  apply endpoint where it has one, the local merge otherwise (`apply`).
* The gate: a remote answer has no confidence, so `gate` does not withhold it (it is shown).
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Callable
from urllib.parse import unquote, urlsplit

from redraft.engine.backends import llama_cpp, mercury, ollama, openai_completions
from redraft.engine.backends import redraft as redraft_kind
from redraft.engine.backends.client import BackendError, HttpClient
from redraft.engine.backends.config import BackendConfig, api_key
from redraft.engine.backends.templates import clean, template_stops
from redraft.engine.backends.wire import Infill, Malformed, StreamError
from redraft.engine.infill import plan_infill, postprocess, resolve_tree
from redraft.engine.plan import Plan

log = logging.getLogger("redraft.backend")

__all__ = ["RemoteEngine", "Request", "Completion", "Health", "KIND_MODULES"]

KIND_MODULES = {"redraft": redraft_kind, "mercury": mercury, "openai-completions": openai_completions,
                "llama.cpp": llama_cpp, "ollama": ollama}
EDIT_KINDS = ("redraft", "mercury")          # kinds with next-edit and apply endpoints
LINE_SNAP = 8                                # as window.LINE_SNAP: the window starts on these lines
BACKOFF_AFTER = 3                            # failures in a row before requests pause
BACKOFF_BASE_S = 1.0
BACKOFF_MAX_S = 60.0


class Request:
    """A completion request without importing torch: pipeline.Request's fields as keywords (the
    remote engine reads text, offset, uri, effort, max_tokens, language_id, syntax, tree, snippets;
    a local fallback gets them all). Fields left out have pipeline.Request's defaults where the
    remote engine reads them (tests/test_backend_config.py checks both lists)."""

    DEFAULTS: dict[str, Any] = {"uri": "untitled", "effort": "low", "max_tokens": 32, "language_id": None,
                                "syntax": True, "tree": None, "snippets": ()}

    def __init__(self, text: str, offset: int, **fields: Any) -> None:
        self.text, self.offset = text, offset
        for k, v in {**self.DEFAULTS, **fields}.items():
            setattr(self, k, v)

    def __repr__(self) -> str:
        return f"Request(offset={self.offset}, uri={self.uri!r}, {len(self.text)} characters)"


@dataclass
class Completion:
    """pipeline.Completion's fields, plus `error`: why the backend gave nothing (None: it answered)."""
    text: str
    start: int
    end: int
    plan: Plan
    forward_passes: int = 0
    confidences: list[float] = field(default_factory=list)
    latency_ms: float = 0.0
    context_tokens: int = 0
    context_reused: int = 0
    confidence: float | None = None
    source: str = "remote"
    withheld: bool = False
    error: str | None = None
    backend_ms: float = 0.0          # the HTTP request's own time (connection to last byte read)


class Health:
    """Consecutive failures, the backoff they earned, and what the status says."""

    def __init__(self) -> None:
        self.failures = 0
        self.until = 0.0
        self.last_error: str | None = None
        self.ok = 0
        self.failed = 0
        self._lock = threading.Lock()

    def backing_off(self) -> float:
        """Seconds left of the backoff (0: send)."""
        return max(0.0, self.until - time.monotonic())

    def success(self) -> bool:
        """Returns whether this changed the state (it was unreachable)."""
        with self._lock:
            changed = self.last_error is not None
            self.failures, self.until, self.last_error = 0, 0.0, None
            self.ok += 1
            return changed

    def failure(self, message: str) -> bool:
        with self._lock:
            changed = self.last_error is None
            self.failures += 1
            self.failed += 1
            self.last_error = message
            if self.failures >= BACKOFF_AFTER:
                self.until = time.monotonic() + min(BACKOFF_MAX_S,
                                                    BACKOFF_BASE_S * 2 ** (self.failures - BACKOFF_AFTER))
            return changed

    @property
    def state(self) -> str:
        return "ready" if self.last_error is None else "unreachable"


def _filename(uri: str) -> str:
    try:
        return PurePosixPath(unquote(urlsplit(uri).path)).name
    except ValueError:
        return ""


def _check_window(tree: Any, text: str, offset: int) -> Callable[[], None]:
    def prepare() -> None:
        from redraft.engine.syntax.trees import encode
        from redraft.engine.syntax.truncate import window_tree
        window_tree(tree, len(encode(text[:offset])))
    return prepare


def context_window(text: str, offset: int, prefix_chars: int, suffix_chars: int) -> tuple[int, int]:
    """[lo, hi) of the text sent: lo at a line start whose line number is a multiple of LINE_SNAP
    (the earliest such within `prefix_chars`; else the first line start within them; else exactly
    `prefix_chars` back, inside one long line), hi at the end of the last whole line within
    `suffix_chars` (else exactly there)."""
    lo = max(0, offset - prefix_chars)
    if lo > 0:
        first = text.find("\n", lo - 1, offset)
        if first >= 0:
            start = first + 1
            line = text.count("\n", 0, start)
            at = start
            while at <= offset and line % LINE_SNAP:
                nxt = text.find("\n", at, offset)
                if nxt < 0:
                    break
                at, line = nxt + 1, line + 1
            lo = at if line % LINE_SNAP == 0 and at <= offset else start
    hi = min(len(text), offset + suffix_chars)
    if hi < len(text):
        cut = text.rfind("\n", offset, hi)
        hi = cut if cut > offset else hi
    return lo, hi


class RemoteEngine:
    """A remote model behind the local engine's interface. `local`: the in-process engine answering
    on failure (`fallback: "local"`), or None. `on_event(level, message, status_changed)`: the
    host's hook for log lines and status changes (called from the model thread)."""

    remote = True
    device = "remote"
    precision = None
    cpu = None
    hub = None
    Request = Request

    def __init__(self, cfg: BackendConfig, local: Any = None,
                 on_event: Callable[[str, str, bool], None] | None = None,
                 environ: dict[str, str] | None = None) -> None:
        if not cfg.remote:
            raise ValueError("RemoteEngine needs a remote backend")
        self.cfg = cfg
        self.kind = KIND_MODULES[cfg.kind]
        self.local = local
        self.health = Health()
        self._on_event = on_event
        key = api_key(cfg, environ)
        self.key_missing = bool(cfg.api_key_env) and key is None
        self.client = HttpClient(cfg.url or "", key, cfg.allow_insecure, cfg.max_answer_kb * 1024)
        self.context_tokens = 0
        self.stats = {"requests": 0, "answered": 0, "failed": 0, "cancelled": 0, "backed_off": 0,
                      "fallback": 0, "ended_early": 0}

    def __repr__(self) -> str:
        return f"RemoteEngine({self.cfg.kind} at {self.client.shown})"

    def describe(self) -> str:
        model = f", model {self.cfg.model}" if self.cfg.model else ""
        return f"backend {self.cfg.kind} at {self.client.shown}{model}"

    # ------------------------------------------------------------------ health

    def _event(self, level: str, message: str, changed: bool) -> None:
        if self._on_event is not None:
            try:
                self._on_event(level, message, changed)
            except Exception:  # noqa: BLE001 - reporting must never fail a request
                log.exception("backend event hook failed")
        else:
            log.log(logging.WARNING if level == "warning" else logging.INFO, message)

    def _failed(self, what: str, e: BackendError | Exception) -> str:
        message = e.message if isinstance(e, BackendError) else self.client.redact(str(e))
        changed = self.health.failure(message)
        self.stats["failed"] += 1
        wait = self.health.backing_off()
        more = f"; no requests for {wait:.0f} s" if wait else ""
        self._event("warning", f"redraft: backend unreachable: {what} failed: {message}{more}", changed)
        return message

    def _succeeded(self) -> None:
        self.stats["answered"] += 1
        if self.health.success():
            self._event("info", f"redraft: {self.describe()} answers again", True)

    @property
    def unreachable(self) -> str | None:
        """The status line while the backend fails ("backend unreachable: ..."), else None."""
        if self.health.last_error is None:
            return None
        wait = self.health.backing_off()
        return f"backend unreachable: {self.health.last_error}" + (f" (retrying in {wait:.0f} s)" if wait else "")

    # ------------------------------------------------------------------ completion

    def forget(self, uri: str) -> None:
        if self.local is not None:
            self.local.forget(uri)

    def _stops(self, plan: Plan) -> list[str]:
        out: list[str] = []
        for s in (["\n"] if plan.stop_at_newline else []) + list(template_stops(self.cfg.template)) + list(self.cfg.stop):
            if s not in out:
                out.append(s)
        return out

    def infill(self, req: Any, plan: Plan) -> Infill:
        lo, hi = context_window(req.text, req.offset, self.cfg.prefix_chars, self.cfg.suffix_chars)
        return Infill(prefix=req.text[lo:req.offset], suffix=req.text[req.offset:hi], max_tokens=plan.canvas_len,
                      stops=self._stops(plan), language=req.language_id, filename=_filename(req.uri),
                      effort=req.effort, extra=[{"filename": "", "text": t} for t in getattr(req, "snippets", ())
                                                if isinstance(t, str) and t])

    def complete(self, req: Any, should_stop: Callable[[], bool] | None = None,
                 on_step: Callable[[str, int], None] | None = None) -> Any:
        """The completion at req.offset (None: no plan there, or stopped). A failure gives an empty
        Completion whose `error` says why (or the local model's answer with a local fallback)."""
        t0 = time.perf_counter()
        if not 0 <= req.offset <= len(req.text):
            raise ValueError(f"cursor offset {req.offset} outside the document (length {len(req.text)})")
        tree = resolve_tree(req.text, req.language_id, req.uri, req.tree) if req.syntax else None
        plan = plan_infill(req.text, req.offset, req.max_tokens, syntax_tree=tree)
        if plan is None:
            return None
        if should_stop is not None and should_stop():
            return None
        self.stats["requests"] += 1
        wait = self.health.backing_off()
        if wait:
            self.stats["backed_off"] += 1
            return self._fallback(req, should_stop, on_step) or self._empty(req, plan, t0, self.unreachable or "")
        infill = self.infill(req, plan)
        # the truncation's check window is parsed while the backend works (window_tree memoizes it)
        prepare = _check_window(tree, req.text, req.offset) if tree is not None and plan.syntax else None
        try:
            raw, backend_ms, early = self._fim(infill, plan, should_stop, on_step, prepare)
        except BackendError as e:
            if e.reason == "cancelled" or (should_stop is not None and should_stop()):
                self.stats["cancelled"] += 1
                return None
            message = self._failed("completion", e)
            return self._fallback(req, should_stop, on_step) or self._empty(req, plan, t0, message)
        except Malformed as e:
            message = self._failed("completion", BackendError(
                "malformed", self.client.redact(f"{'the stream reported' if isinstance(e, StreamError) else 'malformed answer'}: {e} ({self.client.shown})")))
            return self._fallback(req, should_stop, on_step) or self._empty(req, plan, t0, message)
        self._succeeded()
        if early:
            self.stats["ended_early"] += 1
        text = postprocess(clean(raw, self.cfg.template), plan, req.text, req.offset, tree, req.syntax)
        return Completion(text=text, start=req.offset, end=req.offset, plan=plan, forward_passes=0,
                          latency_ms=(time.perf_counter() - t0) * 1000, backend_ms=backend_ms)

    def _fim(self, infill: Infill, plan: Plan, should_stop, on_step, prepare=None) -> tuple[str, float, bool]:
        """(the raw answer, the request's ms, whether the stream was closed early). `prepare` runs
        while the backend works (the syntax check window's parse, memoized for postprocess)."""
        stream = self.cfg.stream
        endpoint, body = self.kind.fim_request(self.cfg, infill, stream)
        timeout_s = self.cfg.timeout_ms / 1000
        if not stream:
            ans = self.client.post(endpoint, body, timeout_s, should_stop, while_waiting=prepare)
            text = self.kind.fim_answer(ans.body)
            self._check(text)
            return text, ans.latency_ms, False
        parts: list[str] = []
        one_line = plan.stop_at_newline
        controls = template_stops(self.cfg.template)
        finished = []

        def on_event(event: Any) -> bool:
            delta, done = self.kind.fim_event(event)
            parts.append(delta)
            if on_step is not None and delta:
                on_step("".join(parts), len(parts))
            if done:
                finished.append(True)
                return False            # read on to the stream's end: the connection stays usable
            so_far = "".join(parts)
            if one_line and "\n" in so_far:
                return True            # the first line is complete: the plan keeps no more
            return any(c in so_far for c in controls)

        ans = self.client.post(endpoint, body, timeout_s, should_stop, self.kind.STREAM, on_event, prepare)
        if not (ans.ended_early or finished or ans.done_marker):
            raise BackendError("closed", self.client.redact(f"the streamed answer broke off before its end "
                                                            f"({self.client.shown})"))
        text = "".join(parts)
        self._check(text)
        return text, ans.latency_ms, ans.ended_early

    def _check(self, text: str) -> None:
        if "\x00" in text:
            raise Malformed("the answer holds NUL characters")
        if len(text) > self.cfg.max_answer_kb * 1024:
            raise BackendError("oversized", "the answer is over the size limit")

    def _empty(self, req: Any, plan: Plan, t0: float, error: str) -> Completion:
        return Completion(text="", start=req.offset, end=req.offset, plan=plan,
                          latency_ms=(time.perf_counter() - t0) * 1000, error=error or "backend unreachable")

    def _fallback(self, req: Any, should_stop, on_step) -> Any:
        if self.local is None:
            return None
        self.stats["fallback"] += 1
        import dataclasses

        from redraft.engine.pipeline import Cancelled, Request as LocalRequest
        if isinstance(req, Request):
            known = {f.name for f in dataclasses.fields(LocalRequest)}
            req = LocalRequest(**{k: v for k, v in vars(req).items() if k in known})
        try:
            return self.local.complete(req, should_stop=should_stop, on_step=on_step)
        except Cancelled:
            return None

    # ------------------------------------------------------------------ next edit and apply

    def next_edit(self, text: str, line: int, col: int, history: list[tuple[str, str]], uri: str = "",
                  effort: str = "low", should_stop: Callable[[], bool] | None = None):
        """(NextEdit or None, forward passes): analogy first, then the backend's next-edit endpoint
        (mercury, redraft) or the local model."""
        from redraft.engine.next_edit.predict import Attempt, by_analogy, to_edit
        edit = by_analogy(text, line, col, history)
        if edit is not None:
            return edit, 0
        if self.cfg.kind not in EDIT_KINDS:
            return self.local.next_edit(text, line, col, history, uri, effort, should_stop) if self.local else (None, 0)
        if self.health.backing_off():
            return None, 0
        prompt, a, b = self.kind.edit_prompt(text, line, col, history, _filename(uri) or "untitled")
        endpoint, body = self.kind.edit_request(self.cfg, prompt, effort)
        try:
            ans = self.client.post(endpoint, body, self.cfg.timeout_ms / 1000, should_stop)
            new_region = self.kind.edit_answer(ans.body)
        except BackendError as e:
            if e.reason != "cancelled" and not (should_stop is not None and should_stop()):
                self._failed("next edit", e)
            return None, 0
        except Malformed as e:
            self._failed("next edit", BackendError("malformed", self.client.redact(f"malformed answer: {e}")))
            return None, 0
        self._succeeded()
        lines = text.split("\n")
        old = "\n".join(lines[a:b])
        return to_edit(text, Attempt(a, b, old, new_region, 1.0, 0)), 0

    def apply(self, original: str, snippet: str, language: str | None = None, delete_unmarked: bool = True,
              should_stop: Callable[[], bool] | None = None) -> str:
        """The snippet merged into `original` by the backend's apply endpoint (mercury, redraft), else
        by the local merge. ValueError with the reason when it cannot be applied."""
        if self.cfg.kind not in EDIT_KINDS:
            from redraft.engine.apply import merge
            result = merge(original, snippet, language, delete_unmarked=delete_unmarked)
            if not result.ok:
                raise ValueError(result.reason or "the merge refused the snippet")
            return result.text
        endpoint, body = self.kind.apply_request(self.cfg, original, snippet, language, delete_unmarked)
        try:
            ans = self.client.post(endpoint, body, self.cfg.timeout_ms / 1000, should_stop)
            merged = self.kind.apply_answer(ans.body)
        except BackendError as e:
            if e.reason != "cancelled":
                self._failed("apply", e)
            raise ValueError(e.message) from None
        except Malformed as e:
            message = self._failed("apply", BackendError("malformed", self.client.redact(f"malformed answer: {e}")))
            raise ValueError(message) from None
        self._succeeded()
        return merged if merged.endswith("\n") or not original.endswith("\n") else merged + "\n"

    def close(self) -> None:
        self.client.close()
