"""Next-edit requests (`textDocument/copilotInlineEdit`, `redraft/nextEdit`): LSP position + the
document's recent edits -> `Engine.next_edit` on the model thread -> an edit that is still current,
or nothing.

The design is completions.py's (read it first): a `Ticket` per request, newest per document wins;
the client's `$/cancelRequest` sets the ticket (the worker stops at its next check) and re-raises,
so pygls answers RequestCancelled; didChange/didClose stop the document's tickets (`invalidate`);
the `Document` snapshot is compared before anything is returned; all model work runs on the host's
one model thread; anything that goes wrong is logged and answers empty. Specific to next edits:
* A request may name the version it was made for: another version answers empty at once.
* The history is the recent edits of every open document (`EditHistory.pairs`, oldest first, at most
  HISTORY), read with the snapshot, when the request starts.
* A window: the predictor splits its text into lines and scans them all for jump targets, so it
  gets only the whole lines within WINDOW_CHARS of the cursor (engine/next_edit/window.py): a 10 MB
  document costs what a small one does. A cursor line longer than MAX_LINE_CHARS (more than any
  canvas holds) answers empty without the model.
* `should_stop` is checked once before the engine starts (a request overtaken while it waited
  for the model thread returns at once) and by the sampler before every denoising step;
  `debugStepDelayMs` (the test hook) pauses at every check. A region the model agrees with (no
  edit) takes one forward pass and no check in between.
* Analogy first, without the model (engine/next_edit/window.py analogy_at, on a worker thread
  that is not the model thread): a request analogy answers never waits for the model to load nor
  for a completion on the model thread, and a server that only answers next edits by analogy (the
  CI bot's) never needs the engine. Only when analogy has nothing and the model directory's
  config.json says a model trained for next edits is there (predict.model_may_answer) does the
  request await the engine and run `Engine.next_edit` on the model thread. The answers are
  `Engine.next_edit`'s: it asks analogy first too.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types

from redraft.lsp.completions import Ticket, TicketBoard
from redraft.engine.backends.remote import EDIT_KINDS
from redraft.engine.next_edit.predict import model_may_answer
from redraft.engine.next_edit.window import analogy_at, predict_at, window
from redraft.lsp.convert import LineIndex
from redraft.lsp.documents import Document, DocumentStore
from redraft.engine.host import EngineHost, ModelKey, Reporter
from redraft.engine.next_edit.history import EditHistory
from redraft.engine.settings import Settings

if TYPE_CHECKING:
    from redraft.engine.next_edit.predict import NextEdit
    from redraft.engine.pipeline import Engine

KIND = "next-edit"
HISTORY = 5                 # edits shown to the model at most (model/edits.py MAX_HISTORY)


@dataclass
class Outcome:
    edit: "NextEdit | None"     # in document terms (offsets, "\n"-lines); None: the model sees no edit
    index: LineIndex            # over the text the edit was computed for
    uri: str
    version: int | None
    forward_passes: int


def _checker(ticket: Ticket, delay_s: float) -> Callable[[], bool]:
    def should_stop() -> bool:
        if delay_s:
            ticket.stop.wait(delay_s)  # test hook; wakes at once on cancellation
        if ticket.stop.is_set():
            return True
        ticket.steps += 1
        return False
    return should_stop


def _by_analogy(text: str, offset: int, history: list[tuple[str, str]], key: ModelKey, ticket: Ticket,
                delay_s: float) -> tuple["NextEdit | None", bool]:
    """A worker thread, not the model thread (it reads files): (analogy's edit, whether the model
    must still be asked: a local next-edit model, or a backend with a next-edit endpoint); (None,
    False) when stopped."""
    if ticket.stop.is_set() or _checker(ticket, delay_s)():
        ticket.stopped_at = ticket.steps
        return None, False
    final, edit = analogy_at(text, offset, history)
    if final:
        return edit, False
    return edit, key.backend.kind in EDIT_KINDS if key.remote else model_may_answer(key.model_dir)


def _predict(engine: "Engine", text: str, offset: int, history: list[tuple[str, str]], uri: str, effort: str,
             ticket: Ticket, delay_s: float, before: Callable[[], None]) -> tuple["NextEdit | None", int]:
    """The model thread. (None, 0) when stopped (the ticket says why and at which check)."""
    from redraft.engine.pipeline import Cancelled

    should_stop = _checker(ticket, delay_s)
    ticket.steps = 0   # the model's checks (0: it never ran)
    if ticket.stop.is_set():
        ticket.stopped_at = 0
        return None, 0
    before()
    try:
        if should_stop():
            raise Cancelled()
        return predict_at(engine, text, offset, history, uri, effort, should_stop)
    except Cancelled:
        ticket.stopped_at = ticket.steps
        return None, 0


class NextEditService(TicketBoard):
    def __init__(self, host: EngineHost, docs: DocumentStore, history: EditHistory, reporter: Reporter) -> None:
        super().__init__(reporter)
        self._host, self._docs, self._history = host, docs, history

    def shutdown(self) -> None:
        self.cancel_all()

    async def predict(self, uri: str, position: types.Position, encoding: str, settings: Settings,
                      version: int | None = None, kind: str = KIND) -> Outcome | None:
        """`kind`: requests of one kind per document supersede each other (code actions, which
        editors ask for as the cursor moves, do not stop a next-edit request)."""
        self.stats["requests"] += 1
        if not settings.enabled:
            return self._skip("disabled")
        doc = self._docs.get(uri)
        if doc is None:
            return self._skip("unknown-document", f"next edit for {uri}: the document is not open")
        if version is not None and version != doc.version:
            return self._skip("version-mismatch", f"next edit for version {version} of {uri}, "
                              f"which is at version {doc.version}: answered empty")
        if not settings.language_enabled(doc.language_id):
            return self._skip("language-disabled")
        index = LineIndex(doc.text, encoding)
        if not index.has_line(position.line):
            return self._skip("outside-document", f"next edit at line {position.line} of {uri}: "
                              "the document has fewer lines")
        offset = index.offset(position)
        if window(doc.text, offset) is None:
            return self._skip("line-too-long")
        history = self._history.pairs(None, HISTORY)   # across documents: a rename in one file, its uses in others
        ticket = self._begin(uri, kind)
        try:
            return await self._run(doc, index, offset, history, settings, ticket)
        except asyncio.CancelledError:
            ticket.cancel("cancelled")  # the client's $/cancelRequest: stop the worker, answer -32800
            self.stats["cancelled"] += 1
            raise
        finally:
            self._end(ticket)

    async def _run(self, doc: Document, index: LineIndex, offset: int, history: list[tuple[str, str]],
                   settings: Settings, ticket: Ticket) -> Outcome | None:
        loop = asyncio.get_running_loop()
        delay_s = settings.debug_step_delay_ms / 1000
        try:
            key = self._host.key_of(settings)
            edit, ask_model = await loop.run_in_executor(None, _by_analogy, doc.text, offset, history, key,
                                                         ticket, delay_s)
            passes = 0
            if ask_model and ticket.reason is None:
                engine = await self._host.get(settings)
                if engine is None:
                    return self._skip("no-model")
                edit, passes = await loop.run_in_executor(
                    self._host.model_thread, _predict, engine, doc.text, offset, history, doc.uri, settings.effort,
                    ticket, delay_s, self._host.fit_threads)
        except Exception as e:  # noqa: BLE001 - a failed prediction answers empty, the server lives on
            return self._skip("error", f"next edit failed for {doc.uri}: {type(e).__name__}: {e}",
                              types.MessageType.Error)
        self.stats["forward_passes"] += passes
        if ticket.reason is not None:
            return self._skip(ticket.reason)
        if self._docs.get(doc.uri) is not doc:
            return self._skip("stale")  # the document changed while the model ran
        self.stats["completed" if edit is not None else "no-edit"] += 1
        return Outcome(edit, index, doc.uri, doc.version, passes)


def stats_of(service: NextEditService) -> dict[str, Any]:
    """What `redraft.stats` shows under "nextEdit"."""
    return {**service.stats, "lastStoppedAtStep": service.last_stopped_at_step}
