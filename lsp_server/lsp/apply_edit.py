"""`redraft.applyEdit`: merge a lazy edit snippet into an open document and have the client apply it.

`workspace/executeCommand` `redraft.applyEdit` with `[{"uri": U, "snippet": S, "version"?: V,
"confirmDeletions"?: bool, "deleteUnmarked"?: bool}]`:

* Bad arguments, a document the server does not have open, a snippet over `MAX_SNIPPET_BYTES`:
  InvalidParams (-32602). A `version` other than the document's current one: ContentModified
  (-32801), "stale". A snippet that `redraft.engine.apply.merge` refuses: RequestFailed (-32803) with
  the merge's one-line reason. In each case nothing is sent to the client.
* The merge and the line diff run on one worker thread of their own (`redraft-apply`), not on the
  event loop (20-50 ms on a 2k-line file) and not on the model thread (a denoising must not delay
  it, nor it a denoising). tree-sitter parsers are per thread (syntax/languages.py), so this is safe.
* The merge works on the server's snapshot of the document (text, version, languageId). When it is
  done, the document must still be that snapshot (no didChange, no close): else ContentModified.
* The client gets one `workspace/applyEdit` (label "redraft: apply edit"): a TextDocumentEdit for
  the snapshot's version with one TextEdit per changed hunk (convert.line_hunks / to_workspace_edit,
  positions in the negotiated encoding), or plain `changes` for a client without
  `workspace.workspaceEdit.documentChanges`. A result equal to the document sends nothing.
* The merge deletes the document's lines that the snippet omits without a marker (at its start or
  end, or between two lines it shows) unless the setting `apply.deleteUnmarked` is false; each
  deletion is in the answer's `deletions`: {"start", "end" (1-based lines of the snapshot), "lines",
  "why", "definitions" (e.g. "class `Foo` (lines 80-112)"), "summary" (one line)}.
  `"deleteUnmarked"` in the arguments overrides the setting for this request.
* `"confirmDeletions": true` (the editors' apply commands): when the merge deletes such lines,
  nothing is sent to the client and the answer is {"applied": false, "needsConfirmation": true,
  ..., "deletions"}: the editor shows the deletions and, if the user keeps them, sends the request
  again with `confirmDeletions` false (the same version: a document changed meanwhile is stale).
* The answer: {"applied", "version", "hunks", "linesAdded", "linesRemoved", "deletions",
  "failureReason"?}, with
  `applied` as the client said (false, with a reason, if it answered an error, an answer that is no
  ApplyWorkspaceEditResult, or nothing within CLIENT_TIMEOUT_S).
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from redraft.lsp.convert import line_hunks, to_workspace_edit
from redraft.lsp.documents import Document, DocumentStore

__all__ = ["ApplyService", "ApplyArgs", "parse_args", "MAX_SNIPPET_BYTES", "LABEL"]

COMMAND = "redraft.applyEdit"
LABEL = "redraft: apply edit"
MAX_SNIPPET_BYTES = 2 * 1024 * 1024   # as redraft.engine.apply refuses larger ones
CLIENT_TIMEOUT_S = 60.0               # for the client's answer to workspace/applyEdit


@dataclass(frozen=True)
class ApplyArgs:
    uri: str
    snippet: str
    version: int | None
    confirm_deletions: bool = False
    delete_unmarked: bool | None = None   # None: the setting's


@dataclass(frozen=True)
class Plan:
    """What the worker thread computed: the edit to send, or the merge's refusal."""

    reason: str = ""
    edit: types.WorkspaceEdit | None = None
    hunks: int = 0
    added: int = 0
    removed: int = 0
    deletions: tuple = ()             # the merge's deletions, as JSON objects
    warnings: tuple = ()              # the snippet's own lines the grammar cannot read (merged as written)


def _invalid(problem: str) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(f"Invalid params for {COMMAND}: {problem}")


def _failed(code: int, message: str) -> JsonRpcException:
    return JsonRpcException(message=message, code=code)


def parse_args(args: tuple[Any, ...]) -> ApplyArgs:
    """The command's arguments, or JsonRpcInvalidParams saying what is wrong with them."""
    if len(args) != 1 or not isinstance(args[0], dict):
        raise _invalid('expected one argument {"uri", "snippet", "version"?}')
    arg = args[0]
    uri, snippet, version = arg.get("uri"), arg.get("snippet"), arg.get("version")
    if not isinstance(uri, str) or not uri:
        raise _invalid('"uri" must be a non-empty string')
    if not isinstance(snippet, str):
        raise _invalid('"snippet" must be a string')
    if len(snippet) > MAX_SNIPPET_BYTES or len(snippet.encode("utf-8", "surrogatepass")) > MAX_SNIPPET_BYTES:
        raise _invalid(f"the snippet is larger than {MAX_SNIPPET_BYTES // (1024 * 1024)} MB")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise _invalid('"version" must be an integer')
    confirm, delete = arg.get("confirmDeletions", False), arg.get("deleteUnmarked")
    if not isinstance(confirm, bool):
        raise _invalid('"confirmDeletions" must be a boolean')
    if delete is not None and not isinstance(delete, bool):
        raise _invalid('"deleteUnmarked" must be a boolean')
    return ApplyArgs(uri, snippet, version, confirm, delete)


def _language(doc: Document) -> str:
    """The document's languageId when it names a grammar, else the one its extension names."""
    from redraft.engine.syntax.languages import language_for, language_id_for_uri
    if language_for(doc.language_id) is None:
        return language_id_for_uri(doc.uri) or doc.language_id
    return doc.language_id


def plan(doc: Document, snippet: str, encoding: str, document_changes: bool,
         delete_unmarked: bool = True) -> Plan:
    """On the worker thread: merge, then diff the result against the snapshot by lines."""
    from redraft.engine.apply import merge
    result = merge(doc.text, snippet, _language(doc), delete_unmarked=delete_unmarked)
    if not result.ok:
        return Plan(reason=result.reason or "the merge gave no reason")
    hunks = line_hunks(doc.text, result.text)
    if not hunks:
        return Plan()
    edit = to_workspace_edit(doc.uri, doc.version, doc.text, hunks, encoding, document_changes)
    return Plan(edit=edit, hunks=len(hunks), added=sum(h.added for h in hunks),
                removed=sum(h.end - h.start for h in hunks),
                deletions=tuple(d.as_json() for d in result.deletions), warnings=tuple(result.warnings))


class ApplyService:
    def __init__(self, docs: DocumentStore) -> None:
        self.docs = docs
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="redraft-apply")

    def shutdown(self) -> None:
        self.worker.shutdown(wait=False, cancel_futures=True)

    def _snapshot(self, a: ApplyArgs) -> Document:
        doc = self.docs.get(a.uri)
        if doc is None:
            raise _invalid(f"{a.uri} is not open in the server (open it first)")
        if a.version is not None and a.version != doc.version:
            raise _failed(types.LSPErrorCodes.ContentModified, f"refused as stale: the snippet is for version "
                          f"{a.version} of {a.uri}, the document is at version {doc.version}; try again")
        return doc

    async def run(self, ls: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        """The command: `ls` is the server (client capabilities, encoding, workspace/applyEdit)."""
        a = parse_args(args)
        doc = self._snapshot(a)
        caps = ls.client_capabilities
        if not get_capability(caps, "workspace.apply_edit", False):
            raise _failed(types.LSPErrorCodes.RequestFailed, "the client does not support workspace/applyEdit")
        document_changes = bool(get_capability(caps, "workspace.workspace_edit.document_changes", False))
        loop = asyncio.get_running_loop()
        settings = getattr(ls, "settings", None)
        delete = getattr(settings, "apply_delete_unmarked", True) if a.delete_unmarked is None else a.delete_unmarked
        p = await loop.run_in_executor(self.worker, plan, doc, a.snippet, ls.encoding, document_changes, delete)
        if p.reason:
            raise _failed(types.LSPErrorCodes.RequestFailed, f"cannot apply the snippet: {p.reason}")
        if self.docs.get(a.uri) is not doc:
            raise _failed(types.LSPErrorCodes.ContentModified,
                          f"refused as stale: {a.uri} changed while the snippet was merged; try again")
        out: dict[str, Any] = {"applied": True, "version": doc.version, "hunks": p.hunks,
                               "linesAdded": p.added, "linesRemoved": p.removed, "deletions": list(p.deletions),
                               "warnings": list(p.warnings)}
        if p.edit is None:
            return out  # the snippet changes nothing: nothing to send
        if a.confirm_deletions and p.deletions:
            return {**out, "applied": False, "needsConfirmation": True}   # the editor asks the user first
        params = types.ApplyWorkspaceEditParams(edit=p.edit, label=LABEL)
        try:
            answer = await asyncio.wait_for(ls.workspace_apply_edit_async(params), CLIENT_TIMEOUT_S)
        except asyncio.TimeoutError:
            return {**out, "applied": False,
                    "failureReason": f"the client did not answer workspace/applyEdit within {CLIENT_TIMEOUT_S:.0f} s"}
        except JsonRpcException as e:
            return {**out, "applied": False, "failureReason": f"workspace/applyEdit failed: {e.message}"}
        out["applied"] = bool(getattr(answer, "applied", False))
        reason = getattr(answer, "failure_reason", None)
        if reason:
            out["failureReason"] = reason
        return out
