"""Next edits in a real Neovim 0.11.4 (editors/nvim/lua/redraft/nextedit.lua), driven through pynvim.

The shipped model is not trained for next edits, so its edits are arbitrary: the client is tested
with hand-made edits given to the module's own functions (`show`, `on_tab`) in a buffer the real
`redraft serve` is attached to, with the scripted in-process server of nvim_helpers (automatic
requests, staleness, the capability), and with one real round trip that must end in a shown edit
or a clean "no edit"."""
from __future__ import annotations

import time

import pytest

from nvim_helpers import NVIM, Nvim, fake_init, setup_init, wait_for

if not NVIM.exists():
    pytest.fail(f"no Neovim next to the interpreter ({NVIM}): pip install -e '.[editors]' (make test-editors)",
                pytrace=False)

NE = 'require("redraft.nextedit")'
LINE1 = '    s = "数据🙂" + nme'          # the edit replaces "nme": byte, UTF-16 and UTF-8 columns differ
TEXT = f'def greet(name):\n{LINE1}\n    return s\n\n\nprint(greet("x"))\n'
START_B, START_U16 = len(LINE1[:-3].encode()), len(LINE1[:-3]) + 1  # the emoji is 2 UTF-16 units
STATS = 'return vim.lsp.get_clients({name = "redraft"})[1]:request_sync("workspace/executeCommand", ' \
        '{command = "redraft.stats"}, 5000).result'
NOTES = """_G.redraft_notes = {}
vim.notify = function(msg) table.insert(_G.redraft_notes, msg) end"""


def rng(l0: int, c0: int, l1: int, c1: int) -> dict:
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}


def marks(nv: Nvim) -> list:
    return nv.lua(f"return vim.api.nvim_buf_get_extmarks(0, {NE}.ns, 0, -1, {{details = true}})")


def by_group(nv: Nvim) -> dict[str, tuple[int, int, dict]]:
    """The edit's extmarks by highlight group: (row, col, details)."""
    out = {}
    for _, row, col, d in marks(nv):
        group = d.get("hl_group") or (d.get("virt_text") or d["virt_lines"][0])[0][1]
        out[group] = (row, col, d)
    return out


def show(nv: Nvim, edit: dict, opts: dict | None = None) -> list:
    return nv.lua(f"local ok, why = {NE}.show(...) return {{ ok, why }}", edit, opts or {})


def buffer(nv: Nvim) -> str:
    return "\n".join(nv.nv.current.buffer[:]) + "\n"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """The real server; automatic next edits off, so that only the test's edits are shown."""
    nv = Nvim(tmp_path_factory.mktemp("nvim-ne"), setup_init(options="next_edit = { enabled = false },"))
    yield nv
    nv.close()


def open_text(nv: Nvim, name: str) -> None:
    nv.edit(name, TEXT)
    nv.wait_attached()
    nv.nv.current.window.cursor = (6, 0)


def test_show_jump_apply_in_normal_mode(real):
    nv = real
    open_text(nv, "normal.py")
    assert nv.lua(f"return {NE}.supported(vim.lsp.get_clients({{bufnr = 0}})[1])") is True
    edit = {"range": rng(1, START_U16, 1, START_U16 + 3), "text": "name"}
    assert show(nv, edit, {"encoding": "utf-16"}) == [True]
    g = by_group(nv)
    assert g["RedraftNextEditDelete"][:2] == (1, START_B)
    assert (g["RedraftNextEditDelete"][2]["end_row"], g["RedraftNextEditDelete"][2]["end_col"]) == (1, START_B + 3)
    row, col, d = g["RedraftNextEdit"]
    assert (row, col, d["virt_text"], d["virt_text_pos"]) == (1, START_B + 3, [["name", "RedraftNextEdit"]], "inline")
    row, _, d = g["RedraftNextEditHint"]
    assert row == 5 and d["virt_text"] == [["  Tab: jump to edit (line 2)", "RedraftNextEditHint"]]
    assert d["virt_text_pos"] == "eol"
    assert nv.lua('return vim.fn.maparg("<Tab>", "n", false, true).buffer') == 1  # only while shown
    assert buffer(nv) == TEXT  # nothing changed yet

    nv.nv.input("<Tab>")
    wait_for(lambda: nv.cursor() == (1, START_B), "Tab to jump to the edit", 10)
    hint = by_group(nv)["RedraftNextEditHint"]
    assert hint[0] == 1 and hint[2]["virt_text"][0][0] == "  Tab: apply edit"
    nv.nv.input("<Tab>")
    wait_for(lambda: not marks(nv), "Tab to apply the edit", 10)
    assert buffer(nv) == TEXT.replace("+ nme", "+ name")
    assert nv.cursor() == (1, START_B + 3)  # the last character of "name" (Normal mode)
    assert nv.nv.call("maparg", "<Tab>", "n") == ""
    nv.nv.command("undo")  # one change
    assert buffer(nv) == TEXT
    nv.nv.input("<C-o>")  # the jump is in the jumplist
    wait_for(lambda: nv.cursor()[0] == 5, "CTRL-O back to where the jump started", 10)


def test_insert_mode_tab_multiline_and_dismissal(real):
    nv = real
    open_text(nv, "insert.py")
    nv.nv.input("ggI")
    wait_for(lambda: nv.mode() == "i", "insert mode", 10)
    # "return s" -> "log(s)\n    return s" (the client's UTF-8 columns)
    edit = {"range": rng(2, 4, 2, 12), "text": "log(s)\n\treturn s", "textDocument": {
        "uri": nv.lua("return vim.uri_from_bufnr(0)"), "version": nv.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")}}
    assert show(nv, edit) == [True]
    g = by_group(nv)
    assert g["RedraftNextEdit"][2]["virt_text"] == [["log(s)", "RedraftNextEdit"]]
    tabstop = nv.nv.eval("&tabstop")
    assert g["RedraftNextEdit"][2]["virt_lines"] == [[[" " * tabstop + "return s", "RedraftNextEdit"]]]
    nv.nv.input("<Tab>")
    wait_for(lambda: nv.cursor() == (2, 4), "Tab to jump in insert mode", 10)
    nv.nv.input("<Tab>")
    wait_for(lambda: nv.nv.current.buffer[2] == "    log(s)", "Tab to apply in insert mode", 10)
    assert nv.nv.current.buffer[3] == "\treturn s" and nv.mode() == "i"
    assert nv.cursor() == (3, len("\treturn s"))

    for key, why in (("<C-]>", "CTRL-]"), ("z", "typing"), ("<Up>", "moving away")):
        nv.nv.input("<Esc>")
        wait_for(lambda: nv.mode() == "n", "normal mode", 10)
        nv.nv.current.window.cursor = (6, 2)
        nv.nv.input("i")
        wait_for(lambda: nv.mode() == "i", "insert mode", 10)
        before = buffer(nv)
        assert show(nv, {"range": rng(0, 4, 0, 9), "text": "hello"}) == [True]
        nv.nv.input(key)
        wait_for(lambda: not marks(nv), f"{why} to dismiss the edit", 10)
        assert nv.mode() == "i" and (buffer(nv) == before) == (key != "z"), why
    assert show(nv, {"range": rng(0, 4, 0, 9), "text": "hello"}) == [True]
    nv.nv.input("<Esc>")  # leaving insert mode dismisses it too
    wait_for(lambda: not marks(nv), "Esc to dismiss the edit", 10)


def test_stale_and_invalid_edits_are_not_shown(real):
    nv = real
    open_text(nv, "stale.py")
    good = {"range": rng(1, START_B, 1, START_B + 3), "text": "name"}
    version = nv.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")
    uri = nv.lua("return vim.uri_from_bufnr(0)")
    tick = nv.lua("return vim.b.changedtick")
    cases = [
        ({**good, "textDocument": {"uri": uri, "version": version - 1}}, {}, "stale"),
        ({**good, "textDocument": {"uri": uri + "x", "version": version}}, {}, "stale"),
        (good, {"tick": tick - 1}, "stale"),
        ({**good, "range": rng(40, 0, 40, 1)}, {}, "invalid"),
        ({**good, "range": rng(1, 5, 1, 2)}, {}, "invalid"),
        ({"range": good["range"]}, {}, "invalid"),
        ({"range": rng(1, 3, 1, 3), "text": ""}, {}, "empty"),
    ]
    for edit, opts, why in cases:
        assert show(nv, edit, opts) == [False, why], edit
        assert not marks(nv)
    # shown, then the buffer changes (Normal mode): gone, and Tab no longer applies it
    assert show(nv, good) == [True]
    nv.nv.input("x")
    wait_for(lambda: not marks(nv), "a change to dismiss the edit", 10)
    assert nv.lua(f"return {NE}.on_tab()") is False
    assert show(nv, good) == [True]
    nv.nv.input("gg")  # moving away (Normal mode)
    wait_for(lambda: not marks(nv), "moving away to dismiss the edit", 10)
    nv.nv.current.window.cursor = (6, 0)
    assert show(nv, good) == [True]
    nv.nv.input("<Esc>")  # Esc in Normal mode, only while an edit is shown
    wait_for(lambda: not marks(nv), "Esc to dismiss the edit", 10)
    assert nv.nv.call("maparg", "<Esc>", "n") == ""


def test_real_server_round_trip(real):
    """:RedraftNextEdit against the real model: a shown edit or a clean "no edit", no error."""
    nv = real
    open_text(nv, "round.py")
    nv.nv.input("ggjA")  # an edit the server records, then the request from Normal mode
    nv.nv.input("e<Esc>")
    wait_for(lambda: nv.mode() == "n", "normal mode", 10)
    nv.lua(NOTES)
    nv.nv.command("RedraftNextEdit")
    state = wait_for(lambda: (s := nv.lua(f"return {NE}.state()"))["last"] not in ("pending", None) and s,
                     "the answer to redraft/nextEdit")
    assert state["last"] in ("shown", "none"), state
    notes = nv.lua("return _G.redraft_notes")
    if state["last"] == "none":
        assert notes == ["redraft: no next edit here"] and not marks(nv)
    else:
        assert notes == [] and "RedraftNextEditHint" in by_group(nv)
        assert nv.lua(f"return {NE}.on_tab()") in ("jump", "apply")
    assert nv.nv.vvars["errmsg"] == ""
    stats = nv.lua(STATS)["nextEdit"]
    assert stats["requests"] >= 1 and not stats.get("error") and not stats.get("version-mismatch")


# -- the scripted server: automatic requests, versions, staleness, the capability

EDIT_LUA = ('return { edits = { { range = { start = { line = 1, character = %d }, ["end"] = { line = 1, '
            'character = %d } }, text = "name" .. (n > 1 and n or ""), textDocument = params.textDocument } } }'
            % (START_U16, START_U16 + 3))


@pytest.fixture
def fake(tmp_path):
    nv = Nvim(tmp_path, fake_init(options="next_edit = { enabled = true, debounce_ms = 100 }"))
    yield nv
    nv.close()


def sent(nv: Nvim, method: str = "redraft/nextEdit") -> list[dict]:
    return nv.lua("local m = ... return vim.tbl_filter(function(e) return e.method == m end, fake.log)", method)


def test_automatic_request_after_typing_then_tab_tab(fake):
    nv = fake
    nv.edit("auto.py", TEXT)
    nv.wait_attached()
    nv.lua(f"fake.next_edit = function(params, n) if n > 1 then return {{ edits = {{}} }} end {EDIT_LUA} end")
    nv.nv.input("GA#")
    wait_for(lambda: marks(nv), "the next edit", 10)
    [req] = sent(nv)
    assert req["params"]["position"] == {"line": 5, "character": len('print(greet("x"))#')}
    assert req["params"]["textDocument"]["version"] == nv.lua("return vim.lsp.util.buf_versions[vim.api.nvim_get_current_buf()]")
    assert by_group(nv)["RedraftNextEditDelete"][:2] == (1, START_B)  # UTF-16 from this server
    nv.nv.input("<Tab>")
    wait_for(lambda: nv.cursor() == (1, START_B), "the jump", 10)
    nv.nv.input("<Tab>")
    wait_for(lambda: nv.nv.current.buffer[1] == LINE1.replace("nme", "name"), "the applied edit", 10)
    assert nv.nv.current.buffer[5] == 'print(greet("x"))#'
    nv.nv.input("<Esc>")
    wait_for(lambda: nv.mode() == "n", "normal mode", 10)
    n = len(sent(nv))
    time.sleep(0.4)
    assert len(sent(nv)) == n  # leaving insert mode after typing asks nothing
    nv.nv.input("x")  # a Normal mode change asks
    wait_for(lambda: len(sent(nv)) == n + 1, "a request after a Normal mode change", 10)


def test_an_answer_for_an_older_text_is_dropped(fake):
    nv = fake
    nv.edit("late.py", TEXT)
    nv.wait_attached()
    nv.lua(f"fake.next_delay = 800; fake.ignore_cancel = true; fake.next_edit = function(params, n) {EDIT_LUA} end")
    nv.nv.input("GA#")
    first = wait_for(lambda: sent(nv), "the first request", 10)[0]
    nv.nv.input("y")  # before its answer
    wait_for(lambda: len(sent(nv)) == 2, "the second request", 10)
    assert {"method": "$/cancelRequest", "params": {"id": first["id"]}} in sent(nv, "$/cancelRequest")
    wait_for(lambda: marks(nv), "the second answer", 10)
    assert by_group(nv)["RedraftNextEdit"][2]["virt_text"] == [["name2", "RedraftNextEdit"]]


def test_ghost_text_first_and_no_request_without_the_capability(tmp_path):
    nv = Nvim(tmp_path, fake_init("fake.experimental = vim.empty_dict()", "next_edit = { enabled = true, debounce_ms = 50, bogus = 1 }"))
    try:
        assert "ignoring unknown setup() options next_edit.bogus" in nv.nv.command_output("messages")
        nv.edit("nocap.py", TEXT)
        nv.wait_attached()
        nv.nv.input("GA#")
        wait_for(lambda: sent(nv, "textDocument/inlineCompletion"), "a ghost text request", 10)
        time.sleep(0.5)
        assert sent(nv) == []
        nv.lua(NOTES)
        nv.nv.command("RedraftNextEdit")
        assert nv.lua("return _G.redraft_notes") == [
            "redraft: this server does not offer next edits (experimental.redraftNextEdit)"]
    finally:
        nv.close()
    nv = Nvim(tmp_path, fake_init(options="next_edit = { enabled = true, debounce_ms = 50 }"))
    try:
        nv.edit("ghost.py", TEXT)
        nv.wait_attached()
        nv.lua('fake.reply = function() return { items = { { insertText = "42" } } } end')
        nv.nv.input("GA#")
        nv.wait_ghost(10)
        time.sleep(0.5)
        assert sent(nv) == []  # ghost text on screen: no next edit asked for
        nv.nv.input("<C-]>")
        wait_for(lambda: not nv.ghost(), "the ghost text to go", 10)
        time.sleep(0.4)
        assert sent(nv) == []  # CTRL-] dismissed both
    finally:
        nv.close()
