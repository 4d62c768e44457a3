"""`:RedraftApplyClipboard` in real Neovim against the real server: a register's lazy snippet merged
into the buffer as one undo step, a refused snippet changing nothing, and the question asked before
lines the snippet omits are deleted."""
from __future__ import annotations

import pytest

from nvim_helpers import NVIM, Nvim, setup_init, wait_for

if not NVIM.exists():
    pytest.fail(f"no Neovim next to the interpreter ({NVIM}): pip install -e '.[editors]' (make test-editors)",
                pytrace=False)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """One Neovim with the plugin set up as a user does, and one server, for the module."""
    nv = Nvim(tmp_path_factory.mktemp("nvim-apply"), setup_init())
    yield nv
    nv.close()


M = "# ... existing code ..."
APPLY_SOURCE = ('import os\n\n\ndef greet(name):\n    return "\U0001F642 hello, " + name\n\n\n'
                'def a():\n    x = 1\n    return x\n\n\ndef b():\n    x = 1\n    return x\n')
# two hunks: ".title()" after an emoji (a UTF-8 column), a new function after the last line
APPLY_SNIPPET = f'{M}\ndef greet(name):\n    return "\U0001F642 hello, " + name.title()\n{M}\n\n\ndef c():\n    return os.sep\n'
NOTES = """_G.redraft_notes = {}
_G.redraft_notify = _G.redraft_notify or vim.notify
vim.notify = function(msg, ...) table.insert(_G.redraft_notes, msg) return _G.redraft_notify(msg, ...) end"""


def test_apply_clipboard_merges_a_register_into_the_buffer(session):
    """:RedraftApplyClipboard {reg} -> redraft.applyEdit -> the server's workspace/applyEdit, which
    Neovim applies: the buffer becomes merge()'s result, one undo step. A refused snippet changes
    nothing and says why; without {reg} and without a clipboard provider the unnamed register is read."""
    from redraft.engine.apply import merge

    nv = session
    nv.edit("apply.py", APPLY_SOURCE)
    nv.wait_attached()
    expected = merge(APPLY_SOURCE, APPLY_SNIPPET, "python")
    assert expected.ok, expected.reason
    buffer = lambda: "\n".join(nv.nv.current.buffer[:]) + "\n"  # noqa: E731 ('eol' is set)
    notes = lambda words: [n for n in nv.lua("return _G.redraft_notes") if words in n]  # noqa: E731
    nv.lua(NOTES)
    try:
        nv.nv.funcs.setreg("a", APPLY_SNIPPET)
        nv.nv.command("RedraftApplyClipboard a")
        wait_for(lambda: buffer() == expected.text, "the buffer to become merge()'s result", 30)
        assert wait_for(lambda: notes("redraft: applied the snippet"), "the summary", 10) == [
            "redraft: applied the snippet: 2 changes, +5 -1 lines"]
        nv.nv.command("undo")                                       # both hunks are one change
        assert buffer() == APPLY_SOURCE
        ambiguous = f"{M}\n    x = 1\n    y = 2\n    return x\n{M}\n"
        nv.nv.funcs.setreg('"', ambiguous)
        no_clipboard = nv.lua('return vim.fn.has("clipboard")') == 0
        nv.nv.command("RedraftApplyClipboard" if no_clipboard else 'RedraftApplyClipboard "')
        refusal = wait_for(lambda: notes("cannot apply"), "the refusal", 30)
        assert refusal == ["redraft: cannot apply the snippet: " + merge(APPLY_SOURCE, ambiguous, "python").reason]
        assert buffer() == APPLY_SOURCE
        nv.nv.funcs.setreg("b", "")
        nv.nv.command("RedraftApplyClipboard b")
        assert notes("register b is empty")
    finally:
        nv.lua("vim.notify = _G.redraft_notify")


DELETING_SOURCE = APPLY_SOURCE + "\n\nclass Old:\n    pass\n"
ASK = """_G.redraft_asked = {}
vim.fn.confirm = function(msg, choices) table.insert(_G.redraft_asked, msg .. '|' .. choices) return _G.redraft_choice end"""


def test_apply_clipboard_asks_before_deleting_unshown_lines(session):
    """Issue 43: a snippet with no marker after its last line deletes the buffer's old tail; the
    summary is shown in confirm() before anything changes (the dialog itself is replaced by a
    recorder: headless Neovim has no one to answer it).  Cancel changes nothing; "Keep those lines"
    applies keeping them; "Apply and delete" applies the deletion."""
    from redraft.engine.apply import merge

    nv = session
    nv.edit("deleting.py", DELETING_SOURCE)
    nv.wait_attached()
    snippet = f"{M}\ndef b():\n    x = 2\n    return x\n"
    deleted = merge(DELETING_SOURCE, snippet, "python")
    assert deleted.ok and [d.summary() for d in deleted.deletions] == [
        "deleted 2 lines at 18-19 (no marker after the snippet's last line); removed class `Old` (lines 18-19)"]
    buffer = lambda: "\n".join(nv.nv.current.buffer[:]) + "\n"  # noqa: E731
    notes = lambda words: [n for n in nv.lua("return _G.redraft_notes") if words in n]  # noqa: E731
    nv.lua(NOTES)
    nv.lua(ASK)
    nv.nv.funcs.setreg("a", snippet)
    for choice, expected, words in ((3, DELETING_SOURCE, "cancelled"),
                                    (2, merge(DELETING_SOURCE, snippet, "python", delete_unmarked=False).text, "+1 -1"),
                                    (1, deleted.text, "removed class `Old`")):
        nv.lua(f"_G.redraft_choice = {choice}")
        asked = len(nv.lua("return _G.redraft_asked"))
        nv.nv.command("RedraftApplyClipboard a")
        wait_for(lambda: notes(words), f"the message after choice {choice}", 30)
        [question] = nv.lua("return _G.redraft_asked")[asked:]
        assert question.startswith("redraft: the snippet deletes 2 lines it does not show:\n  " +
                                   deleted.deletions[0].summary()) and question.endswith("&Cancel")
        wait_for(lambda: buffer() == expected, f"the buffer after choice {choice}", 10)
        if choice == 2:
            nv.nv.command("undo")
    assert buffer() == deleted.text and "class Old" not in buffer()


LEVELS = """_G.redraft_levels = {}
_G.redraft_notify = _G.redraft_notify or vim.notify
vim.notify = function(msg, level, ...) table.insert(_G.redraft_levels, {msg, level}) return _G.redraft_notify(msg, level, ...) end"""


def test_apply_clipboard_warns_of_lines_the_grammar_cannot_read(session):
    """A whole function the snippet writes with Python 3.13's type parameter default, which the
    Python grammar cannot read: merged as written, and the summary is a warning naming the line."""
    from redraft.engine.apply import merge

    nv = session
    source = "def a():\n    return 1\n\n\ndef first(items):\n    return items[0]\n\n\ndef b():\n    return 2\n"
    snippet = (f"{M}\n    return 1\n\n\ndef first[T = int](items: list[T]) -> T:\n    value = items[0]\n"
               f"    return value\n\n\ndef b():\n{M}\n")
    expected = merge(source, snippet, "python")
    assert expected.ok and expected.warnings == [
        "line 5 does not parse (python grammar); merged as the snippet wrote it"], (expected.reason, expected.warnings)
    nv.edit("gaps.py", source)
    nv.wait_attached()
    buffer = lambda: "\n".join(nv.nv.current.buffer[:]) + "\n"  # noqa: E731
    nv.lua(LEVELS)
    try:
        nv.nv.funcs.setreg("a", snippet)
        nv.nv.command("RedraftApplyClipboard a")
        wait_for(lambda: buffer() == expected.text, "the buffer to become merge()'s result", 30)
        shown = lambda: [m for m in nv.lua("return _G.redraft_levels") if "applied the snippet" in m[0]]  # noqa: E731
        [[msg, level]] = wait_for(shown, "the summary", 10)
        assert msg.endswith("; warning: " + expected.warnings[0])
        assert level == nv.lua("return vim.log.levels.WARN")
    finally:
        nv.lua("vim.notify = _G.redraft_notify")
