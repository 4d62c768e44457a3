"""The one completion pipeline: document + cursor -> context window -> infill plan -> denoising ->
post-processing. The LSP server, `redraft complete`, the eval harness and the CI bot all call
`Engine.complete`.

Planning and post-processing live in infill.py: syntax-aware (lsp_server/engine/syntax, tree-sitter) for
languages with a grammar unless `Request.syntax` is false, the plain line rules otherwise. The
language comes from `Request.language_id`, else from the uri's extension; `Request.tree` lets the
server hand over the document's incrementally maintained tree instead of a fresh parse.
"""
from __future__ import annotations

import functools
import logging
import math
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from redraft.model import causal, checkpoint, hub_adapter, hub_sampler
from redraft.model import precision as precisions
from redraft.model.crossfile import head_ids
from redraft.model.data import fim_context
from redraft.model.sampler import EFFORTS, Cancelled, ContextCache, SampleResult, check_cancelled, generate

from redraft.engine import gate, type_through
from redraft.engine.infill import plan_infill, postprocess, resolve_tree
from redraft.engine.plan import Plan
from redraft.engine.window import window
from redraft.engine.lint import flaws
from redraft.engine.syntax.constraints import HEADER_LENGTHS, header_masks
from redraft.engine.syntax.trees import encode
from redraft.engine.syntax.truncate import broken_at, insertion_errors, span_choose, window_tree
from redraft.engine.workspace.snippets import SnippetPicker
from redraft.engine.workspace.candidates import (Candidate, document_names, project_candidates, typed_on_line,
                                                 unknown_names)

log = logging.getLogger(__name__)

__all__ = ["Engine", "Request", "Completion", "Plan", "plan_infill", "Cancelled"]

EFFORT_ORDER = list(EFFORTS)   # instant < low < medium < high < max
REPAIR_LENGTHS = (2, 4, 7, 11)  # candidate lengths (tokens) for a statement the document is missing
SAMPLE_TEMPERATURE = 0.8  # causal candidates (rows 1..k-1; row 0 is greedy); 0.8 beat 1.0 on the dev set
TAIL_CHARS = 240  # the rerank's tail: the text after the cursor up to the end of the next line, at most this
SPAN_TOKENS = 32  # a hole in a broken document: the causal continuations' length (Engine._span)
# where a hole is filled: text follows the cursor on its line, the cursor is inside a word, or on a
# fresh line (lines gone: a body left without its header). Not at the end of a typed line: the
# document is broken while a line is typed, and the span pass there made typing's p95 latency 8x
# worse (bench/RESULTS.md)
HOLE_SCOPES = ("inline", "span", "line")


@dataclass
class Request:
    text: str                    # the whole document
    offset: int                  # cursor, as a character (code point) offset into text
    uri: str = "untitled"        # cache key: one context cache per document
    effort: str = "low"
    max_tokens: int = 32         # canvas cap for single-line scopes
    context_tokens: int = 0      # prefix + suffix token budget; 0: the model's own (Engine.context_tokens)
    suffix_share: float = 0.3    # fixed share of the budget for the suffix (stable while typing)
    seed: int = 0
    min_tokens: int = 1          # never an empty infill from the model (post-processing may still cut it)
    language_id: str | None = None  # LSP languageId; None: guessed from the uri's extension
    syntax: bool = True          # syntax-aware planning and truncation where the language has a grammar
    tree: Any = None             # syntax.SyntaxTree / TreeHandle of exactly `text` (the server's), optional
    context_refresh: int = hub_sampler.REFRESH  # hub models: context keys/values recomputed every this many steps (1: exact)
    length: int | None = None    # the infill's length in tokens, fixed in advance (evaluation's oracle-length runs); None: the model decides
    workspace: Any = None        # workspace.index.WorkspaceIndex: the project's lines as candidates; None: the document's only
    min_confidence: float = 0.0  # the gate (gate.py): a completion less likely right than this is withheld; 0: always shown
    keep_options: bool = False   # evaluation: score the options even without candidates, keep them in Engine.last_options
    snippets: tuple[str, ...] = ()  # other files' text sent with the request (HTTP input_extra, ...): their lines as candidates
    snippet_tokens: int = -1     # the context's share for another file's snippet (workspace/snippets.py); -1: the model's own, 0: none


@dataclass
class Completion:
    text: str                   # text to insert at the cursor
    start: int                  # replaced range [start, end) in code points (an insertion: start == end)
    end: int
    plan: Plan
    forward_passes: int
    confidences: list[float] = field(default_factory=list)
    latency_ms: float = 0.0
    context_tokens: int = 0
    context_reused: int = 0
    confidence: float | None = None  # gate.confidence of the text (None: not judged, e.g. hub models)
    source: str = "model"            # "model" (its draft) or "project" (a line the project writes)
    withheld: bool = False           # below the request's min_confidence: the front door shows nothing


def _score(res: SampleResult) -> float:
    """Mean log-probability of a candidate's committed tokens (higher is better)."""
    c = res.confidences
    return sum(math.log(max(x, 1e-9)) for x in c) / max(len(c), 1)


class Engine:
    """One model, loaded once, shared by every request; a context cache per document."""

    def __init__(self, model_dir: str | Path | None = None, device: str = "auto", threads: int = 0,
                 precision: str = "auto"):
        """`precision`: auto | fp32 | bf16 | int8 (model/precision.py: auto is bf16 only where the
        CPU computes it natively)."""
        if threads:
            torch.set_num_threads(threads)
        dev = "cuda" if device == "auto" and torch.cuda.is_available() else ("cpu" if device == "auto" else device)
        self.device = dev
        self.cpu = precisions.cpu_info()
        self.precision = precisions.choose(precision, dev, self.cpu.flags)
        # a hub-format directory (config.json with a model_type) is an open-weight model (issue 26,
        # model/hub.py): its own sampler (model/hub_sampler.py), no causal rerank or repair passes
        self.hub: tuple | None = None
        if model_dir is not None and hub_adapter.is_hub_dir(model_dir):
            if self.precision == "int8":      # dynamic quantization is the shipped model's: what auto picks
                self.precision = precisions.choose("auto", dev, self.cpu.flags)
            self.hub = hub_adapter.open_model(model_dir, dev, "bfloat16" if self.precision == "bf16" else "float32")
            self.loaded, self.model, self.tok = None, None, self.hub[1].tok
            self.max_seq_len = self.hub[0].model.config.max_position_embeddings
        else:
            self.loaded = checkpoint.load(model_dir, device=dev)
            self.loaded.model = precisions.apply(self.loaded.model, self.precision)
            self.model, self.tok = self.loaded.model, self.loaded.tokenizer
            self.max_seq_len = self.loaded.config.max_seq_len
        # the context a request gets unless it asks for another: the trained length less a typical
        # canvas (320 tokens for the shipped model, trained at 384; 1,088 for one trained at 1,152);
        # an open-weight model's window is far longer than a CPU can encode while typing: 320 there
        self.context_tokens = 320 if self.hub is not None else max(16, self.max_seq_len - 64)
        self._caches: dict[str, ContextCache] = {}
        self._shown: dict[str, type_through.Shown | None] = {}   # per document: what typing may go through
        self._next_edit: tuple | None | bool = False   # next_edit_model's answer (False: not looked up yet)
        # another file's snippet before the context: for a model trained with them (its config says
        # how long), from the workspace and the request's snippets
        self.snippet_tokens = 0 if self.hub is not None else self.loaded.config.snippet_tokens
        self._snippets = SnippetPicker()
        self._lock = threading.Lock()  # one denoising loop at a time (the model is not re-entrant)

    def _head(self, req: Request, room: int) -> list[int]:
        """The context's head: the snippet of another file nearest the lines before the cursor, as
        ids (model/crossfile.py), or none (no workspace or snippets, a model not trained with them);
        at most a third of the `room` left beside the canvas."""
        n = min(self.snippet_tokens if req.snippet_tokens < 0 else req.snippet_tokens, room // 3)
        if n <= 0 or (req.workspace is None and not req.snippets):
            return []
        return head_ids(self.tok, self._snippets.pick(req.text, req.offset, req.uri, req.workspace, req.snippets), n)

    def _repair(self, req: Request, plan: Plan, tree, ctx: list[int], cache, should_stop, free: str = ""):
        """The document is broken at the cursor without an insertion (a missing block header, the
        only statement of a block, ...) and the free answer (`free`, post-processed) does not repair
        it: sample fixed-length candidates at medium effort or more (a parallel low-effort pass
        writes `if i in in in:` for a short line the model is unsure of; one more step per token
        mostly fixes it), a missing Python header constrained to start with a compound-statement
        keyword and end with ':'. The candidate that survives truncation and leaves the fewest parse
        errors around the cursor (fewer than no insertion; then the best score) wins, else nothing.
        Lengths are tried shortest first, and the first candidate that leaves no error at all ends
        the search (trying every length cost ~40 forward passes per missing header on HumanEval).
        Returns (the winning sample or None, its text or "", forward passes spent)."""
        header = plan.boundary == "header"
        if plan.scope not in ("line", "block"):
            return None, "", 0  # mid-line the document is broken while it is being typed: no repair
        if free and plan.scope != "block" and not header and not tree.root.has_error:
            return None, "", 0  # an answer, and tree-sitter sees no error anywhere: skip the compile
        # (a block just opened is checked anyway: tree-sitter accepts a block whose only line is a comment)
        win, at, _ = window_tree(tree, len(encode(req.text[: req.offset])))  # parsed once for all candidates
        base = insertion_errors(win, at, "")
        if base == 0 or (free and insertion_errors(win, at, free) < base):
            return None, "", 0  # nothing to repair, or the free answer repairs it already
        allow = dict(zip((0, -1), header_masks(self.tok))) if header else None
        effort = max(req.effort, "medium", key=EFFORT_ORDER.index)
        best, passes = None, 0
        for n in (HEADER_LENGTHS if header else REPAIR_LENGTHS):
            if n > plan.canvas_len:
                break
            res = generate(self.model, self.tok, [], [], canvas_len=plan.canvas_len, effort=effort, context=ctx,
                           seed=req.seed, cache=cache, should_stop=should_stop, length=n, allow=allow)
            passes += res.forward_passes
            text = postprocess(res.text, plan, req.text, req.offset, tree, req.syntax)
            if text:
                key = (insertion_errors(win, at, text), -_score(res))
                if key[0] < base and (best is None or key < best[0]):
                    best = (key, res, text)
                if key[0] == 0:
                    break  # the shortest candidate that leaves the window error-free: stop paying for more
        if best is None:
            return None, "", passes
        return best[1], best[2], passes

    def _span(self, req: Request, plan: Plan, tree, cache: ContextCache, should_stop, text: str):
        """In a hole's scope (HOLE_SCOPES: not at the end of a typed line), where the document is
        broken (truncate.py `broken_at`: part of a line or lines gone) and the answer so far
        (`text`) leaves the check window with errors: the effort's `fills` continuations of
        SPAN_TOKENS tokens on the causal path (row 0 greedy, model/causal.py draw), free to run
        across lines, each cut where it leaves the fewest errors and goes on as the suffix does
        (truncate.py `span_choose`). The fill wins only if it leaves no error (a fill that merely
        has fewer, such as `def .` on a fresh line, was junk). Returns (the fill or "", its
        per-token probabilities, forward passes)."""
        rows = EFFORTS[req.effort].fills
        if plan.scope not in HOLE_SCOPES or not rows:
            return "", [], 0
        b = len(encode(req.text[: req.offset]))
        if not broken_at(tree, b):
            return "", [], 0
        win, at, _ = window_tree(tree, b)
        if insertion_errors(win, at, text) == 0:
            return "", [], 0   # the answer so far mends it already
        ctx, kv = cache.ids, cache.kv   # generate() left exactly this request's context in the cache
        gen = torch.Generator().manual_seed(req.seed)
        seqs, passes = causal.draw(self.model, self.tok, ctx, kv, rows, SPAN_TOKENS, SAMPLE_TEMPERATURE, gen,
                                   torch.zeros_like(self._newlines), should_stop)
        after = req.text[req.offset: req.offset + 8 * SPAN_TOKENS]
        fill, errors = span_choose([self.tok.decode(q) for q in seqs], tree, b, after)
        if not fill or errors > 0:   # a fill that leaves the code broken is no answer to a hole
            return "", [], passes
        _, probs = causal.score(self.model, self.tok, ctx, kv, [fill], "")
        return fill, probs[0], passes + 1

    @functools.cached_property
    def _newlines(self) -> torch.Tensor:
        """Tokens that end a causal candidate; built on the first rerank, not at start-up (~20 ms)."""
        return causal.newline_ids(self.tok, self.model.cfg.vocab_size)

    @staticmethod
    def _hurry(req: Request, plan: Plan) -> float | None:
        """Where a gate judges a single line (`min_confidence` > 0), a draft the first step is very
        unsure of is finished in that step (sampler.generate's `hurry_below`, gate.HURRY_BELOW):
        the gate withholds nearly all of them, and the project's lines are still scored."""
        if req.min_confidence <= 0 or not plan.stop_at_newline or req.length is not None or req.effort == "instant":
            return None      # (at instant no gate judges the draft: it is shown as it is)
        return gate.HURRY_BELOW

    def _one_line(self, req: Request, plan: Plan) -> dict[int, torch.Tensor] | None:
        """A fixed-length line (an oracle-length run: the true line's token count) holds no line break,
        so that the model spends the length on the line rather than on the next ones."""
        if req.length is None or not plan.stop_at_newline:
            return None
        ok = ~self._newlines
        return {i: ok for i in range(min(req.length, plan.canvas_len))}

    def _rerank(self, req: Request, plan: Plan, tree, cache: ContextCache, should_stop, text: str,
                conf: list[float], k: int) -> tuple[str, list[float], int]:
        """A single-line answer chosen among the canvas's (`text`) and k causal candidates by
        log p(candidate + tail) on the causal path (model/causal.py): the higher efforts' extra
        compute. Every candidate is post-processed first, so the score judges what the editor would
        insert; an empty one is never chosen over a non-empty one. In Python, candidates that leave
        fewer undefined or unused names (lint.py) come first. Returns (text, its per-token
        probabilities, forward passes spent)."""
        ctx, kv = cache.ids, cache.kv   # generate() left exactly this request's context in the cache
        gen = torch.Generator().manual_seed(req.seed)
        seqs, passes = causal.draw(self.model, self.tok, ctx, kv, k, plan.canvas_len, SAMPLE_TEMPERATURE, gen,
                                   self._newlines, should_stop)
        found = (postprocess(self.tok.decode(s), plan, req.text, req.offset, tree, req.syntax) for s in seqs)
        cands = [c for c in dict.fromkeys([text, *found]) if c]  # the canvas's answer first, no repeats
        if not cands:
            return text, conf, passes
        rest = req.text[req.offset: req.offset + TAIL_CHARS]
        end = rest.find("\n", rest.find("\n") + 1) if "\n" in rest else -1
        tail = rest if end < 0 else rest[: end + 1]
        sums, probs = causal.score(self.model, self.tok, ctx, kv, cands, tail)
        check_cancelled(should_stop)  # the lint below can take a few hundred ms on a long function
        # Python: fewer undefined/unused names first (lint.py), the score breaks ties
        found = flaws(tree, req.text, req.offset, cands)
        best = max(range(len(cands)), key=lambda i: (-found[i], sums[i]))
        if cands[best] == text:
            return text, conf, passes + 1
        return cands[best], probs[best], passes + 1

    def _choose(self, req: Request, plan: Plan, tree, cache: ContextCache, text: str,
                conf: list[float], hurried: bool = False) -> tuple[str, list[float], tuple[float, str] | None, int]:
        """The draft (`text`) and the project's lines that continue the typed line
        (workspace/candidates.py), each post-processed as the editor would get it, scored together
        on the causal path (one forward pass: log p of the option, and of the rest of the line and
        the next line after it); gate.rank picks the winner from the scores and how often the
        project writes the resulting line, gate.confidence judges it. Returns (text, its per-token
        probabilities, (confidence, source) or None when nothing was scored, forward passes).
        `hurried`: the draft was finished in its first step (gate.HURRY_BELOW)."""
        cands = project_candidates(req.text, req.offset, req.workspace, snippets=req.snippets)
        if not cands and req.min_confidence <= 0 and not req.keep_options:
            return text, conf, None, 0
        typed = typed_on_line(req.text, req.offset)
        prefix = typed[1] if typed else ""
        found: dict[str, Candidate | None] = {}
        if text:
            found[text] = None
        for c in cands:
            t = postprocess(c.text, plan, req.text, req.offset, tree, req.syntax)
            if t and (t not in found or found[t] is None):
                found[t] = c if t == c.text else Candidate(t, c.project, c.document, c.rank, c.pool, c.follows)
        if not found:
            return text, conf, None, 0
        rest = req.text[req.offset: req.offset + TAIL_CHARS]
        end = rest.find("\n", rest.find("\n") + 1) if "\n" in rest else -1
        tail = rest if end < 0 else rest[: end + 1]
        keys = list(found)
        sums, probs = causal.score(self.model, self.tok, cache.ids, cache.kv, keys, tail)
        names = document_names(req.text, req.offset)
        options = []
        for k, total, p in zip(keys, sums, probs):
            own = sum(math.log(max(x, 1e-9)) for x in p)
            line = (prefix + k).strip()
            c = found[k]
            project = max(req.workspace.count(line) if req.workspace is not None else 0, c.project if c else 0)
            options.append(gate.Option(text=k, line=line, logp=own, tail_logp=total - own, tokens=len(p),
                                       project=project, document=c.document if c else 0, draft=k == text,
                                       typed=len(prefix), pool=cands[0].pool if cands else 0,
                                       rank=c.rank if c else -1, follows=c.follows if c else 0,
                                       unknown=unknown_names(prefix + k, len(prefix), names, req.workspace),
                                       hurried=hurried and k == text))
        best, confidence = gate.choose(options)
        if req.keep_options:
            self.last_options = options
        chosen = options[best]
        source = "model" if chosen.draft else "project"
        return chosen.text, (conf if chosen.draft else probs[best]), (confidence, source), 1

    def forget(self, uri: str) -> None:
        self._caches.pop(uri, None)
        self._snippets.forget(uri)
        self._shown.pop(uri, None)
        self._caches.pop(uri + "#next-edit", None)

    def next_edit(self, text: str, line: int, col: int, history: list[tuple[str, str]], uri: str = "",
                  effort: str = "low", should_stop: Callable[[], bool] | None = None):
        """The next edit near (line, col) given the recent edits (lsp_server/engine/next_edit/predict.py):
        (NextEdit or None, forward passes). Its own context cache per document (the layout differs
        from completion's, so sharing one would only evict)."""
        from redraft.engine.next_edit.predict import next_edit
        if effort not in EFFORTS:
            raise ValueError(f"unknown effort {effort!r}; choose from {list(EFFORTS)}")
        with self._lock:
            found = self.next_edit_model()
            if found is None:   # analogy alone
                return next_edit(None, None, 0, text, line, col, history, None, should_stop)
            cache = self._caches.setdefault(uri + "#next-edit", ContextCache())
            return next_edit(*found, text, line, col, history, cache, should_stop)

    def next_edit_model(self) -> tuple | None:
        """(model, tokenizer, max_seq_len) that answers next edits, or None (analogy alone): this
        model or its next-edit companion (next_edit/predict.py next_edit_dir), read at the first
        next-edit request. A companion that does not load leaves analogy alone, with a warning."""
        if self._next_edit is False:
            from redraft.engine.next_edit.predict import next_edit_dir
            d = next_edit_dir(self.loaded.path) if self.hub is None else None
            self._next_edit = None
            if d is not None and d.resolve() == self.loaded.path.resolve():
                self._next_edit = (self.model, self.tok, self.max_seq_len)
            elif d is not None:
                try:
                    c = checkpoint.load(d, device=self.device)
                    self._next_edit = (precisions.apply(c.model, self.precision), c.tokenizer, c.config.max_seq_len)
                except Exception as e:   # CheckpointError, or weights safetensors cannot read
                    log.warning("next edits by analogy alone: %s does not load: %s", d, e)
        return self._next_edit

    def complete(self, req: Request, should_stop: Callable[[], bool] | None = None,
                 on_step: Callable[[str, int], None] | None = None) -> Completion | None:
        hit = type_through.typed_through(self._shown.get(req.uri), req)
        if hit is not None:         # the user typed the suggestion's first characters: its rest
            self._shown[req.uri] = type_through.remember(req, hit)
            return hit
        if req.workspace is not None:
            with req.workspace.serving():     # the index's background build pauses meanwhile
                out = self._complete(req, should_stop, on_step)
        else:
            out = self._complete(req, should_stop, on_step)
        self._shown[req.uri] = type_through.remember(req, out)
        return out

    def _complete(self, req: Request, should_stop: Callable[[], bool] | None = None,
                  on_step: Callable[[str, int], None] | None = None) -> Completion | None:
        if req.effort not in EFFORTS:
            raise ValueError(f"unknown effort {req.effort!r}; choose from {list(EFFORTS)}")
        if not 0 <= req.offset <= len(req.text):
            raise ValueError(f"cursor offset {req.offset} outside the document (length {len(req.text)})")
        t0 = time.perf_counter()
        tree = resolve_tree(req.text, req.language_id, req.uri, req.tree) if req.syntax else None
        plan = plan_infill(req.text, req.offset, req.max_tokens, syntax_tree=tree)
        if plan is None:
            return None
        with self._lock:
            # context + canvas stay within the length the model was trained at (3 sentinel tokens)
            room = self.max_seq_len - plan.canvas_len - 3
            head = self._head(req, room) if self.hub is None else []
            budget = min(req.context_tokens or self.context_tokens, room - len(head))
            pre, suf = window(self.tok, req.text, req.offset, budget, req.suffix_share)
            if self.hub is not None:
                if req.length is not None:
                    raise ValueError("a fixed infill length is not supported for hub models")
                res = hub_sampler.generate(*self.hub, pre, suf, canvas_len=plan.canvas_len, effort=req.effort,
                                           refresh=req.context_refresh, min_tokens=req.min_tokens,
                                           should_stop=should_stop, on_step=on_step)
                return self._completion(req, plan, res, postprocess(res.text, plan, req.text, req.offset, tree,
                                                                   req.syntax), res.forward_passes, t0)
            cache = self._caches.setdefault(req.uri, ContextCache())
            ctx = fim_context(self.tok, pre, suf, head)
            res = generate(self.model, self.tok, pre, suf, canvas_len=plan.canvas_len, effort=req.effort,
                           context=ctx, seed=req.seed, cache=cache, should_stop=should_stop, on_step=on_step,
                           min_tokens=req.min_tokens, length=req.length, allow=self._one_line(req, plan),
                           hurry_below=self._hurry(req, plan))
            text = drafted = postprocess(res.text, plan, req.text, req.offset, tree, req.syntax)
            passes = res.forward_passes
            conf = res.confidences[: len(res.token_ids)]
            samples = EFFORTS[req.effort].samples
            if samples and plan.stop_at_newline:
                text, conf, extra = self._rerank(req, plan, tree, cache, should_stop, text, conf, samples)
                passes += extra
            verdict = None
            if plan.stop_at_newline and req.length is None and (req.effort != "instant" or req.keep_options):
                hurried = res.hurried and text == drafted   # not replaced by a causal candidate
                text, conf, verdict, extra = self._choose(req, plan, tree, cache, text, conf, hurried)   # not at instant: the draft alone
                passes += extra
            if tree is not None and plan.syntax and req.length is None:   # a fixed length is kept
                fixed, fix_text, extra = self._repair(req, plan, tree, ctx, cache, should_stop, text)
                passes += extra
                if fixed is not None:
                    res, text = fixed, fix_text
                    conf = res.confidences[: len(res.token_ids)]
                fill, fill_conf, extra = self._span(req, plan, tree, cache, should_stop, text)
                passes += extra
                if fill:
                    text, conf, verdict = fill, fill_conf, None
        out = self._completion(req, plan, res, text, passes, t0, conf)
        if verdict is not None:
            out.confidence, out.source = verdict
            out.withheld = bool(text) and out.confidence < req.min_confidence
        return out

    @staticmethod
    def _completion(req: Request, plan: Plan, res: SampleResult, text: str, passes: int, t0: float,
                    conf: list[float] | None = None) -> Completion:
        return Completion(text=text, start=req.offset, end=req.offset, plan=plan, forward_passes=passes,
                          confidences=res.confidences[: len(res.token_ids)] if conf is None else conf,
                          latency_ms=(time.perf_counter() - t0) * 1000, context_tokens=res.context_tokens,
                          context_reused=res.context_reused)
