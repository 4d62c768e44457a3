"""Completion requests: LSP position -> `Engine.complete` in a worker thread -> a result that is
still current, or nothing.

Cancellation and staleness (the design):
* Every request gets a `Ticket` holding a `threading.Event`; `Engine.complete` receives
  `should_stop=ticket.stop.is_set`, which the denoising loop checks between steps.
* The client's `$/cancelRequest`: pygls cancels the asyncio task running the handler, so the
  `await` on the worker raises `CancelledError` here; we set the ticket's event (the worker stops
  at its next step and frees the model) and re-raise, so pygls answers RequestCancelled (-32800).
* All model work runs on the host's one model thread (engine_host.py says why); a request that
  is already stopped when its turn comes returns at once, so it never delays the newest one.
* Newest wins: a new request for the same document and kind (inline / popup) stops the older
  one, which then answers an empty result (its client has moved on already).
* Staleness: the request keeps the `Document` snapshot it started from. A `didChange`/`didClose`
  stops the tickets of that document at once, and before anything is returned the snapshot is
  compared with the store's current document: if the document changed in any way meanwhile, the
  answer is empty. A completion computed for an older version is never returned as current.
* The model sees lone UTF-16 surrogates (which JSON can carry, and the tokenizer rejects) as
  U+FFFD, one code point for one, so offsets stay valid.
* The popup's selection (VS Code's `context.selectedCompletionInfo`): the editor shows ghost text
  only if it agrees with the selected popup item, so the model completes the document as it would
  read with that item accepted, and the answer replaces the item's range with the item's text plus
  the infill (`with_selection`). Without it the popup would always hide the ghost text.
* Anything else that goes wrong (a bad offset, an engine error) is logged and answers empty.
* A remote backend (engine/backends/remote.py, the `backend` setting) runs through the same path:
  its engine takes the same request (its own torch-free twin of `Request`), `should_stop` closes
  the HTTP connection, and a backend that fails answers empty (counted as "backend-error"; the
  engine logged one line and the status says "backend unreachable").
Counters for all of this are kept in `stats` (the `redraft.stats` command returns them), with the
context cache's reuse (`context_reused` of `context_tokens`: the hit rate while typing).
"""
from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types

from redraft.engine.text import without_lone_surrogates
from redraft.lsp.convert import LineIndex, feedback_payload, new_completion_id
from redraft.lsp.documents import Document, DocumentStore
from redraft.engine.host import EngineHost, Reporter
from redraft.engine.settings import Settings

if TYPE_CHECKING:
    from redraft.engine.pipeline import Completion, Engine, Request


@dataclass
class Ticket:
    key: tuple[str, str]                 # (uri, kind): the slot where the newest request wins
    stop: threading.Event = field(default_factory=threading.Event)
    reason: str | None = None
    steps: int = 0                       # denoising steps done (written by the worker)
    stopped_at: int | None = None        # the step at which should_stop stopped it (worker)

    def cancel(self, reason: str) -> None:
        if not self.stop.is_set():
            self.reason = reason
            self.stop.set()


@dataclass
class Outcome:
    completion: "Completion"
    index: LineIndex                     # over the text the completion was computed for
    payload: dict[str, Any]              # id, latency, forward passes: travels with the item


def _denoise(engine: "Engine", req: "Request", ticket: Ticket, delay_s: float,
             before: Callable[[], None]) -> "Completion | None":
    """The model thread. Returns None when stopped (the ticket says why). `before` runs first (the
    host fits the thread count to the machine's load)."""
    from redraft.engine.pipeline import Cancelled

    def on_step(_draft: str, step: int) -> None:
        ticket.steps = step
        if delay_s:
            ticket.stop.wait(delay_s)  # test hook; wakes at once on cancellation

    if ticket.stop.is_set():
        ticket.stopped_at = 0
        return None
    before()
    try:
        return engine.complete(req, should_stop=ticket.stop.is_set, on_step=on_step)
    except Cancelled:
        ticket.stopped_at = ticket.steps
        return None


def with_selection(comp: "Completion", text: str, a: int, b: int, n: int) -> "Completion":
    """A completion of `text` (the document with [a, b) replaced by an n-character popup item) as an
    edit of the document itself: it replaces [a, b), and whatever the infill replaced after the item,
    with the item's text as the infill left it (the infill starts at or after a)."""
    cursor = a + n
    new = text[a:comp.start] + comp.text + text[comp.end:cursor]
    return replace(comp, text=new, start=a, end=b + max(0, comp.end - cursor))


class TicketBoard:
    """The requests in flight of one service, newest per (uri, kind) wins, and its counters: shared
    by completions and next edits (next_edits.py)."""

    def __init__(self, reporter: Reporter) -> None:
        self._reporter = reporter
        self._inflight: dict[tuple[str, str], Ticket] = {}
        self.stats: Counter[str] = Counter()
        self._last_stopped: Ticket | None = None

    def invalidate(self, uri: str, reason: str = "stale") -> None:
        """The document changed or closed: stop its requests now (their results would be stale)."""
        for (u, _), ticket in list(self._inflight.items()):
            if u == uri:
                ticket.cancel(reason)

    def cancel_all(self) -> None:
        for ticket in list(self._inflight.values()):
            ticket.cancel("shutdown")

    @property
    def last_stopped_at_step(self) -> int | None:
        """Denoising steps the last stopped request had run when should_stop stopped it (None: it
        is still on its way to the next check, or none was stopped)."""
        return None if self._last_stopped is None else self._last_stopped.stopped_at

    def _begin(self, uri: str, kind: str) -> Ticket:
        ticket = Ticket((uri, kind))
        older = self._inflight.get(ticket.key)
        if older is not None:
            older.cancel("superseded")
        self._inflight[ticket.key] = ticket
        return ticket

    def _end(self, ticket: Ticket) -> None:
        if self._inflight.get(ticket.key) is ticket:
            del self._inflight[ticket.key]
        if ticket.reason is not None:
            self._last_stopped = ticket

    def _skip(self, why: str, message: str | None = None,
              level: types.MessageType = types.MessageType.Log) -> None:
        self.stats[why] += 1
        if message:
            self._reporter.log(level, message)
        return None


class CompletionService(TicketBoard):
    def __init__(self, host: EngineHost, docs: DocumentStore, reporter: Reporter) -> None:
        super().__init__(reporter)
        self._host, self._docs = host, docs
        self.workspace: Any = None      # the workspace index (lsp/workspace.py), once there is one

    def shutdown(self) -> None:
        self.cancel_all()
        self._host.shutdown()

    async def complete(self, uri: str, position: types.Position, encoding: str, settings: Settings,
                       kind: str, selected: types.SelectedCompletionInfo | None = None) -> Outcome | None:
        self.stats["requests"] += 1
        if not settings.enabled:
            return self._skip("disabled")
        doc = self._docs.get(uri)
        if doc is None:
            return self._skip("unknown-document", f"{kind} completion for {uri}: the document is not open")
        if not settings.language_enabled(doc.language_id):
            return self._skip("language-disabled")
        index = LineIndex(doc.text, encoding)
        if not index.has_line(position.line):
            return self._skip("outside-document", f"{kind} completion at line {position.line} of {uri}: "
                              "the document has fewer lines")
        ticket = self._begin(uri, kind)
        # the index's build pauses from the request's start, not only while the model runs
        paused = self.workspace.serving() if self.workspace is not None else contextlib.nullcontext()
        try:
            with paused:
                if selected is not None:
                    return await self._run_with_selection(doc, index, index.offset(position), selected, settings,
                                                          kind, ticket)
                return await self._run(doc, index, index.offset(position), settings, kind, ticket)
        except asyncio.CancelledError:
            ticket.cancel("cancelled")  # the client's $/cancelRequest: stop the worker, answer -32800
            self.stats["cancelled"] += 1
            raise
        finally:
            self._end(ticket)

    async def _run_with_selection(self, doc: Document, index: LineIndex, offset: int,
                                  selected: types.SelectedCompletionInfo, settings: Settings, kind: str,
                                  ticket: Ticket) -> Outcome | None:
        """Complete the document as it reads with the popup's selected item accepted; the answer
        replaces the item's range with the item's text and the infill."""
        a, b = sorted((index.offset(selected.range.start), index.offset(selected.range.end)))
        if not a <= offset <= b:
            return self._skip("selection-elsewhere", f"{kind} completion: the selected popup item's range "
                              f"does not contain the cursor in {doc.uri}")
        text = doc.text[:a] + selected.text + doc.text[b:]
        out = await self._run(doc, index, a + len(selected.text), settings, kind, ticket, text=text)
        if out is None:
            return None
        return replace(out, completion=with_selection(out.completion, text, a, b, len(selected.text)))

    async def _run(self, doc: Document, index: LineIndex, offset: int, settings: Settings, kind: str,
                   ticket: Ticket, text: str | None = None) -> Outcome | None:
        """`text`: what the model completes instead of the document's text (a popup selection
        applied); the document's own syntax tree is then not used."""
        engine = await self._host.get(settings)
        if engine is None:
            return self._skip("no-model")
        Request = getattr(engine, "Request", None)     # a remote engine's (torch-free)
        if Request is None:
            from redraft.engine.pipeline import Request  # torch is loaded by now (the engine exists)
        req = Request(text=without_lone_surrogates(doc.text if text is None else text), offset=offset,
                      uri=doc.uri, effort=settings.effort, max_tokens=settings.max_tokens,
                      context_tokens=settings.context_tokens, context_refresh=settings.context_refresh,
                      language_id=doc.language_id or None,
                      syntax=settings.syntax, tree=doc.tree if settings.syntax and text is None else None,
                      workspace=self.workspace if settings.workspace_index else None, min_confidence=settings.gate,
                      snippet_tokens=settings.snippet_tokens)
        loop = asyncio.get_running_loop()
        try:
            comp = await loop.run_in_executor(self._host.model_thread, _denoise, engine, req, ticket,
                                              settings.debug_step_delay_ms / 1000, self._host.fit_threads)
        except Exception as e:  # noqa: BLE001 - a failed completion answers empty, the server lives on
            return self._skip("error", f"{kind} completion failed for {doc.uri}: {type(e).__name__}: {e}",
                              types.MessageType.Error)
        if comp is not None:  # the context cache's work: tokens the model needed, and those it reused
            self.stats["context_tokens"] += comp.context_tokens
            self.stats["context_reused"] += comp.context_reused
        if ticket.reason is not None:
            return self._skip(ticket.reason)
        if self._docs.get(doc.uri) is not doc:
            return self._skip("stale")  # the document changed while the model ran
        if comp is None:
            return self._skip("declined")
        if getattr(comp, "error", None):
            return self._skip("backend-error")      # logged by the engine, shown in the status
        if not comp.text:
            return self._skip("empty")
        if comp.withheld:
            return self._skip("withheld")   # the gate: not likely enough to be right (gate.py)
        self.stats["completed"] += 1
        return Outcome(comp, index, feedback_payload(comp, doc.uri, new_completion_id(), kind))
