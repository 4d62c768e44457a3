"""`redraft.applyEdit` against the real server over stdio: it merges a lazy edit snippet into the open
document (redraft.engine.apply.merge) and sends the client a `workspace/applyEdit` with one TextEdit per
changed hunk for the version it merged; bad arguments, stale versions and refused merges are errors
and send nothing. The test client answers `workspace/applyEdit` itself and records what it got."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient

from lsp_helpers import CAPABILITIES, SERVE, configure, insert, open_doc, raw_session, start, stats
from redraft.engine.apply import merge
from redraft.lsp.convert import apply_change

pytestmark = pytest.mark.asyncio(loop_scope="module")

M = "# ... existing code ..."
ORIGINAL = '''import os


def greet(name):
    """Say hello. \U0001F642"""
    return "\U0001F642\U0001F642 hello, " + name


def area(w, h):
    return w * h


def main():
    print(greet("world"), area(2, 3))
'''
# two hunks: an insertion after two emoji on the `return` line, a new line at the end
SNIPPET = f'''{M}
def greet(name):
    """Say hello. \U0001F642"""
    return "\U0001F642\U0001F642 hello, " + name.title()
{M}
def main():
    print(greet("world"), area(2, 3))
    print(os.sep)
'''
AMBIGUOUS = "def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n"
RETURN_LINE = '    return "\U0001F642\U0001F642 hello, " + name'
# a big file: its merge takes ~0.2 s, time enough for an edit to arrive while it runs
BIG = "".join(f"def f{i}(a, b):\n    '''doc {i}'''\n    x = a + b * {i}\n    if x > {i}:\n        return x\n"
              f"    return -x\n\n\n" for i in range(3000))


def capabilities(document_changes: bool, encodings: list[str]) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings),
        workspace=types.WorkspaceClientCapabilities(
            apply_edit=True, workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes)),
        text_document=CAPABILITIES.text_document)


class EditRecorder:
    """Answers the server's workspace/applyEdit with `answer`, records the params. (An exception
    raised here would fail the test: pytest-lsp treats it as the test's own.)"""

    def __init__(self) -> None:
        self.received: list[types.ApplyWorkspaceEditParams] = []
        self.answer: Any = types.ApplyWorkspaceEditResult(applied=True)

    def __call__(self, params: types.ApplyWorkspaceEditParams):
        self.received.append(params)
        return self.answer


async def serve(client: LanguageClient, caps: types.ClientCapabilities) -> EditRecorder:
    recorder = EditRecorder()
    client.feature(types.WORKSPACE_APPLY_EDIT)(recorder)
    # the merge needs no model: one torch thread and completions off keep the cores for the tests
    client.init_result = await start(client, {"enabled": False}, capabilities=caps)
    client.recorder = recorder
    return recorder


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def client(lsp_client: LanguageClient):
    """Like VS Code: UTF-16 positions, documentChanges."""
    await serve(lsp_client, capabilities(True, ["utf-16"]))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVE))
async def utf8_client(lsp_client: LanguageClient):
    """Like Neovim: UTF-8 positions first, no documentChanges."""
    await serve(lsp_client, capabilities(False, ["utf-8", "utf-16"]))
    yield
    await lsp_client.shutdown_session()


async def apply_edit(client: LanguageClient, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="redraft.applyEdit", arguments=list(arguments)))


async def refused(client: LanguageClient, *arguments: Any) -> JsonRpcException:
    """The error the command answers; no workspace/applyEdit reached the client meanwhile (the
    server would have sent it before its answer)."""
    before = len(client.recorder.received)
    with pytest.raises(JsonRpcException) as err:
        await apply_edit(client, *arguments)
    assert len(client.recorder.received) == before
    assert "\n" not in err.value.message
    return err.value


def applied(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """The edits (all relative to `text`, as the LSP says) applied the way a client does."""
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    for e in ordered:
        text = apply_change(text, types.TextDocumentContentChangePartial(range=e.range, text=e.new_text), encoding)
    return text


def units(s: str, encoding: str) -> int:
    return len(s.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(s.encode("utf-8"))


async def test_command_is_advertised(client: LanguageClient):
    commands = client.init_result.capabilities.execute_command_provider.commands
    assert "redraft.applyEdit" in commands and "redraft.stats" in commands


async def test_edit_is_merge_result_in_hunks_for_the_version_utf16(client: LanguageClient):
    uri = "file:///greet.py"
    open_doc(client, uri, ORIGINAL, version=7)
    expected = merge(ORIGINAL, SNIPPET, "python")
    assert expected.ok, expected.reason
    summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 7})
    assert summary == {"applied": True, "version": 7, "hunks": 2, "linesAdded": 2, "linesRemoved": 1,
                       "deletions": [], "warnings": []}
    params = client.recorder.received[-1]
    assert params.label == "redraft: apply edit"
    assert params.edit.changes is None and len(params.edit.document_changes) == 1
    doc_edit = params.edit.document_changes[0]
    assert doc_edit.text_document.uri == uri and doc_edit.text_document.version == 7
    edits = doc_edit.edits
    assert len(edits) == 2                                         # one per hunk, not the whole file
    assert applied(ORIGINAL, edits, "utf-16") == expected.text
    # the first inserts ".title()" after two emoji on the return line: UTF-16 code units
    at = types.Position(line=5, character=units(RETURN_LINE, "utf-16"))
    assert edits[0].range == types.Range(start=at, end=at) and edits[0].new_text == ".title()"
    assert at.character == len(RETURN_LINE) + 2


DEPRECATED = ORIGINAL + "\n\nclass Old:\n    def main(self):\n        pass\n"


async def test_deletions_are_in_the_answer_and_the_setting_keeps_them(client: LanguageClient):
    """Issue 43: a snippet that ends at the file's new last line (no marker after it) deletes the
    old tail; the answer lists the deletion with the class it removes.  `apply.deleteUnmarked:
    false` keeps it (and the answer lists nothing)."""
    uri = "file:///deprecated.py"
    open_doc(client, uri, DEPRECATED, version=1)
    expected = merge(DEPRECATED, SNIPPET, "python")
    assert expected.ok and len(expected.deletions) == 1
    summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 1})
    assert summary["applied"] and summary["linesRemoved"] >= 5
    [d] = summary["deletions"]
    assert (d["start"], d["end"], d["lines"]) == (17, 19, 3)
    assert d["why"] == "no marker after the snippet's last line"
    assert d["definitions"] == ["class `Old` (lines 17-19)"]
    assert d["summary"] == "deleted 3 lines at 17-19 (no marker after the snippet's last line); " \
                           "removed class `Old` (lines 17-19)"
    edit = client.recorder.received[-1].edit.document_changes[0]
    assert applied(DEPRECATED, edit.edits, "utf-16") == expected.text and "class Old" not in expected.text
    configure(client, {"redraft": {"apply.deleteUnmarked": False}})
    try:
        open_doc(client, "file:///deprecated2.py", DEPRECATED, version=1)
        summary = await apply_edit(client, {"uri": "file:///deprecated2.py", "snippet": SNIPPET, "version": 1})
        assert summary["deletions"] == [] and summary["linesRemoved"] == 1
        edit = client.recorder.received[-1].edit.document_changes[0]
        assert applied(DEPRECATED, edit.edits, "utf-16") == merge(DEPRECATED, SNIPPET, "python",
                                                                    delete_unmarked=False).text
        assert "class Old" in applied(DEPRECATED, edit.edits, "utf-16")
    finally:
        configure(client, {"redraft": {"apply": {"deleteUnmarked": True}}})


async def test_deletions_wait_for_the_editors_confirmation(client: LanguageClient):
    """`confirmDeletions`: a merge that deletes unshown lines sends nothing and answers
    needsConfirmation with the deletions; the same request without it applies them, and
    `deleteUnmarked: false` in the request keeps them.  A merge that deletes nothing applies at once."""
    uri = "file:///confirm.py"
    open_doc(client, uri, DEPRECATED, version=1)
    sent = len(client.recorder.received)
    summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 1, "confirmDeletions": True})
    assert summary["applied"] is False and summary["needsConfirmation"] is True
    assert [d["summary"] for d in summary["deletions"]] == [
        "deleted 3 lines at 17-19 (no marker after the snippet's last line); removed class `Old` (lines 17-19)"]
    assert len(client.recorder.received) == sent                    # nothing sent to the editor
    kept = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 1, "deleteUnmarked": False})
    assert kept["applied"] and kept["deletions"] == [] and "needsConfirmation" not in kept
    edit = client.recorder.received[-1].edit.document_changes[0]
    assert applied(DEPRECATED, edit.edits, "utf-16") == merge(DEPRECATED, SNIPPET, "python", delete_unmarked=False).text
    open_doc(client, "file:///confirm2.py", DEPRECATED, version=1)
    done = await apply_edit(client, {"uri": "file:///confirm2.py", "snippet": SNIPPET, "version": 1})
    assert done["applied"] and len(done["deletions"]) == 1
    open_doc(client, "file:///confirm3.py", ORIGINAL, version=1)
    plain = await apply_edit(client, {"uri": "file:///confirm3.py", "snippet": SNIPPET, "version": 1,
                                      "confirmDeletions": True})
    assert plain["applied"] and plain["deletions"] == [] and "needsConfirmation" not in plain


async def test_without_version_the_current_one_is_used(client: LanguageClient):
    uri = "file:///noversion.py"
    open_doc(client, uri, ORIGINAL, version=3)
    insert(client, uri, 4, types.Position(line=0, character=0), "import sys\n")
    summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET})
    assert summary["applied"] and summary["version"] == 4
    edit = client.recorder.received[-1].edit.document_changes[0]
    assert edit.text_document.version == 4
    current = "import sys\n" + ORIGINAL
    assert applied(current, edit.edits, "utf-16") == merge(current, SNIPPET, "python").text


async def test_stale_version_is_refused_and_nothing_is_sent(client: LanguageClient):
    uri = "file:///stale.py"
    open_doc(client, uri, ORIGINAL, version=1)
    insert(client, uri, 2, types.Position(line=0, character=0), "# edited\n")
    err = await refused(client, {"uri": uri, "snippet": SNIPPET, "version": 1})
    assert err.code == types.LSPErrorCodes.ContentModified
    assert "stale" in err.message and "version 1" in err.message and "version 2" in err.message


async def test_a_change_while_merging_is_refused_as_stale(client: LanguageClient):
    uri = "file:///big.py"
    open_doc(client, uri, BIG, version=1)
    snippet = "def f1500(a, b):\n    '''doc'''\n    return 0\n"
    pending = asyncio.wrap_future(client.workspace_execute_command(types.ExecuteCommandParams(  # sent now
        command="redraft.applyEdit", arguments=[{"uri": uri, "snippet": snippet}])))
    insert(client, uri, 2, types.Position(line=0, character=0), "# typed meanwhile\n")
    before = len(client.recorder.received)
    with pytest.raises(JsonRpcException) as err:
        await pending
    assert err.value.code == types.LSPErrorCodes.ContentModified
    assert "changed while the snippet was merged" in err.value.message
    assert len(client.recorder.received) == before
    summary = await apply_edit(client, {"uri": uri, "snippet": snippet, "version": 2})  # the retry works
    assert summary["applied"] and summary["hunks"] == 1 and summary["version"] == 2


async def test_merge_refusal_is_an_error_with_the_reason(client: LanguageClient):
    uri = "file:///ambiguous.py"
    open_doc(client, uri, AMBIGUOUS)
    err = await refused(client, {"uri": uri, "snippet": f"{M}\n    x = 1\n    y = 2\n    return x\n{M}\n"})
    assert err.code == types.LSPErrorCodes.RequestFailed
    reason = merge(AMBIGUOUS, f"{M}\n    x = 1\n    y = 2\n    return x\n{M}\n", "python").reason
    assert err.message == f"cannot apply the snippet: {reason}" and "more than one place" in reason
    err = await refused(client, {"uri": uri, "snippet": "   \n"})
    assert err.code == types.LSPErrorCodes.RequestFailed and "empty snippet" in err.message


@pytest.mark.parametrize("arguments, words", [
    ((), "expected one argument"),
    (("file:///greet.py",), "expected one argument"),
    (({"uri": "file:///greet.py", "snippet": "x"}, {"extra": 1}), "expected one argument"),
    (({"snippet": "x = 1\n"},), '"uri"'),
    (({"uri": 42, "snippet": "x = 1\n"},), '"uri"'),
    (({"uri": "file:///greet.py"},), '"snippet"'),
    (({"uri": "file:///greet.py", "snippet": ["x"]},), '"snippet"'),
    (({"uri": "file:///greet.py", "snippet": "x", "version": "7"},), '"version"'),
    (({"uri": "file:///greet.py", "snippet": "x", "version": True},), '"version"'),
    (({"uri": "file:///greet.py", "snippet": "x", "confirmDeletions": 1},), '"confirmDeletions"'),
    (({"uri": "file:///greet.py", "snippet": "x", "deleteUnmarked": "no"},), '"deleteUnmarked"'),
    (({"uri": "file:///never-opened.py", "snippet": "x = 1\n"},), "is not open"),
    (({"uri": "file:///greet.py", "snippet": "x" * (2 * 1024 * 1024 + 1)},), "larger than 2 MB"),
])
async def test_bad_arguments_are_invalid_params(client: LanguageClient, arguments, words):
    err = await refused(client, *arguments)
    assert err.code == types.ErrorCodes.InvalidParams
    assert err.message.startswith("Invalid params for redraft.applyEdit: ") and words in err.message


async def test_client_that_does_not_apply_is_reported(client: LanguageClient):
    uri = "file:///declined.py"
    open_doc(client, uri, ORIGINAL, version=5)
    client.recorder.answer = types.ApplyWorkspaceEditResult(applied=False, failure_reason="the user said no")
    try:
        summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 5})
        assert summary == {"applied": False, "version": 5, "hunks": 2, "linesAdded": 2, "linesRemoved": 1,
                           "deletions": [], "warnings": [], "failureReason": "the user said no"}
        client.recorder.answer = {"status": "done"}                  # no ApplyWorkspaceEditResult
        summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 5})
        assert summary["applied"] is False
        assert summary["failureReason"].startswith("workspace/applyEdit failed: cannot read the client's answer")
    finally:
        client.recorder.answer = types.ApplyWorkspaceEditResult(applied=True)


async def test_snippet_that_changes_nothing_sends_nothing(client: LanguageClient):
    uri = "file:///same.py"
    open_doc(client, uri, ORIGINAL)
    before = len(client.recorder.received)
    snippet = f'{M}\ndef area(w, h):\n    return w * h\n{M}\n'
    assert merge(ORIGINAL, snippet, "python").text == ORIGINAL
    summary = await apply_edit(client, {"uri": uri, "snippet": snippet})
    assert summary == {"applied": True, "version": 1, "hunks": 0, "linesAdded": 0, "linesRemoved": 0, "deletions": [], "warnings": []}
    assert len(client.recorder.received) == before


async def test_still_serving_after_the_errors(client: LanguageClient):
    assert (await stats(client))["documents"] >= 1
    uri = "file:///after.py"
    open_doc(client, uri, ORIGINAL)
    assert (await apply_edit(client, {"uri": uri, "snippet": SNIPPET}))["applied"] is True


async def test_utf8_positions_and_plain_changes_without_document_changes(utf8_client: LanguageClient):
    client = utf8_client
    uri = "file:///greet8.py"
    open_doc(client, uri, ORIGINAL, version=2)
    summary = await apply_edit(client, {"uri": uri, "snippet": SNIPPET, "version": 2})
    assert summary["applied"] and summary["hunks"] == 2
    params = client.recorder.received[-1]
    assert params.edit.document_changes is None and list(params.edit.changes) == [uri]
    edits = params.edit.changes[uri]
    assert applied(ORIGINAL, edits, "utf-8") == merge(ORIGINAL, SNIPPET, "python").text
    assert edits[0].range.start == types.Position(line=5, character=units(RETURN_LINE, "utf-8"))
    assert edits[0].range.start.character == len(RETURN_LINE) + 6   # two emoji: 4 bytes each


async def test_client_without_apply_edit_capability_is_refused():
    c = raw_session("file:///plain.py", ORIGINAL)
    try:
        c.send({"jsonrpc": "2.0", "id": 99, "method": "workspace/executeCommand", "params": {
            "command": "redraft.applyEdit", "arguments": [{"uri": "file:///plain.py", "snippet": SNIPPET}]}})
        error = c.wait(99)["error"]
        assert error["code"] == types.LSPErrorCodes.RequestFailed and "workspace/applyEdit" in error["message"]
    finally:
        assert c.close() == 0


@pytest.mark.parametrize("lang", ["python", "javascript", "typescript", "go", "rust"])
async def test_deletion_summary_in_the_answer_in_each_language(client: LanguageClient, lang):
    """The LSP answer's deletions are merge()'s, in each of the five languages (a snippet ending at
    the file's new last line, or skipping a class between shown lines in JavaScript)."""
    from test_apply_omission import EXT, OLD, SRC, deletion_snippet
    snippet = deletion_snippet(lang)
    uri = f"file:///each/store{EXT[lang]}"
    open_doc(client, uri, SRC[lang], language=lang, version=1)
    expected = merge(SRC[lang], snippet, lang)
    summary = await apply_edit(client, {"uri": uri, "snippet": snippet, "version": 1})
    assert summary["applied"] and summary["deletions"] == [d.as_json() for d in expected.deletions]
    assert f"removed {OLD[lang][1]} `{OLD[lang][0]}`" in summary["deletions"][0]["summary"]
    edit = client.recorder.received[-1].edit.document_changes[0]
    assert applied(SRC[lang], edit.edits, "utf-16") == expected.text


async def test_lines_the_grammar_cannot_read_are_warnings_in_the_answer(client: LanguageClient):
    """A whole function with Python 3.13's type parameter default (the Python grammar reads an
    ERROR there) is merged as written, and the answer's `warnings` name the line, as merge()'s do."""
    from test_apply_grammar_gaps import GAPS, _snippet
    marker, before, old, new, after, gap = GAPS["python"]
    text, snippet = before + gap + old + gap + after, _snippet(marker, before, new, after, gap)
    uri = "file:///gaps/first.py"
    open_doc(client, uri, text, language="python", version=1)
    expected = merge(text, snippet, "python")
    assert expected.ok and expected.warnings == ["line 5 does not parse (python grammar); merged as the snippet wrote it"]
    summary = await apply_edit(client, {"uri": uri, "snippet": snippet, "version": 1})
    assert summary["applied"] and summary["warnings"] == expected.warnings
    edit = client.recorder.received[-1].edit.document_changes[0]
    assert applied(text, edit.edits, "utf-16") == expected.text
