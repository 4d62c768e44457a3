"""Another checkout's redraft (a git worktree of an older commit) run with this checkout's virtual
environment: its editable install maps the package names to this checkout's folders whatever the
working directory, so a benchmark run inside the worktree would measure this checkout's code.
`use(dir)` points them at the other one; modules imported before keep this checkout's."""
from __future__ import annotations

import sys
from pathlib import Path

FOLDERS = {"redraft": "lsp_server", "redraft.kernels": "kernels", "redraft.model": "model"}


def use(checkout: str | Path) -> None:
    import __editable___redraft_0_1_0_finder as finder
    for name in [m for m in sys.modules if m == "redraft" or m.startswith("redraft.")]:
        del sys.modules[name]
    finder.MAPPING.update({name: str(Path(checkout) / folder) for name, folder in FOLDERS.items()})
