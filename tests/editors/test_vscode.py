"""editors/vscode in a real VS Code: the packaged .vsix in code-server 4.100.3 (VS Code 1.100.3),
driven through headless Chromium by editors/vscode/test/e2e/run.mjs with the real `redraft serve`.
Run by `make test-editors`; needs Node.js 20 and npm (the machine's own).

Builds the .vsix once per session (`npm ci` when node_modules is older than the lock file, then
`npm run package`), runs test/e2e/setup.sh (idempotent, cached in ~/.cache/redraft-editors), then
the driver. Screenshots, the driver's output and timings.json go to build/editors/vscode/; with
REDRAFT_UPDATE_SCREENSHOTS=1 the screenshots also replace editors/vscode/media/*.png (the README's).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "editors" / "vscode"
E2E = EXT / "test" / "e2e"
OUT = ROOT / "build" / "editors" / "vscode"
REDRAFT = Path(sys.executable).parent / "redraft"
SCREENSHOTS = ("ghost-text.png", "popup.png")  # run.mjs writes them; the README shows media/ copies
SHIPPED = {"extension/out/extension.js", "extension/package.json", "extension/readme.md", "extension/LICENSE.txt"}


TIMINGS: dict[str, float] = {}


def run(cmd: list[str], what: str, timeout: float, **kw) -> subprocess.CompletedProcess:
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{what} took more than {timeout:.0f} s:\n{e.stdout or ''}\n{e.stderr or ''}")
    TIMINGS[what] = round(time.monotonic() - start, 1)
    if proc.returncode != 0:
        pytest.fail(f"{what} failed (exit {proc.returncode}):\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return proc


@pytest.fixture(scope="module")
def vsix() -> Path:
    lock, installed = EXT / "package-lock.json", EXT / "node_modules" / ".package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        run(["npm", "ci", "--no-audit", "--no-fund"], "npm ci", 600, cwd=EXT)
    run(["npm", "run", "package"], "npm run package", 300, cwd=EXT)
    version = json.loads((EXT / "package.json").read_text())["version"]
    built = sorted(EXT.glob("*.vsix"))
    assert [p.name for p in built] == [f"redraft-{version}.vsix"], built
    return built[0]


@pytest.fixture(scope="module")
def tools() -> None:
    run(["bash", str(E2E / "setup.sh")], "setup.sh", 900)


def test_manifest_settings_match_the_server() -> None:
    """Every server setting is contributed with the server's default, and the server accepts them all."""
    from dataclasses import fields

    from redraft.engine.settings import Settings, parse_settings

    props = json.loads((EXT / "package.json").read_text())["contributes"]["configuration"]["properties"]
    sent = {k.removeprefix("redraft."): v["default"] for k, v in props.items()
            if not k.startswith(("redraft.server.", "redraft.trace.", "redraft.nextEdit."))}  # client-only
    settings, problems, ignored = parse_settings({"redraft": sent})
    assert (problems, ignored) == ([], [])
    assert settings == Settings(), "a contributed default differs from the server's"
    camel = {f.name: f.name.split("_")[0] + "".join(p.title() for p in f.name.split("_")[1:]) for f in fields(Settings)}
    missing = {c for n, c in camel.items() if c not in sent and n not in ("debug_step_delay_ms", "debug_index_delay_ms")}
    assert not missing, f"server settings without a VS Code setting: {missing}"


def test_vsix_ships_only_the_bundle(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    shipped = {n for n in names if n.startswith("extension/")}
    assert SHIPPED <= shipped, names
    extra = {n for n in shipped - SHIPPED if not n.startswith("extension/media/")}
    assert not extra, f"unexpected files in the .vsix: {sorted(extra)}"
    assert manifest["main"] == "./out/extension.js"


def test_ghost_text_and_popup_in_code_server(vsix: Path, tools: None, tmp_path: Path) -> None:
    assert REDRAFT.exists(), f"no redraft executable next to the interpreter: {REDRAFT}"
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    env = {**os.environ, "REDRAFT_VSIX": str(vsix), "REDRAFT_SERVER": str(REDRAFT),
           "REDRAFT_WORKSPACE": str(workspace), "OUT_DIR": str(OUT)}
    start = time.monotonic()
    try:
        proc = subprocess.run(["node", str(E2E / "run.mjs")], capture_output=True, text=True, env=env, timeout=480)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"run.mjs did not finish within 480 s:\n{e.stdout or ''}\n{e.stderr or ''}")
    TIMINGS["run.mjs"] = round(time.monotonic() - start, 1)
    (OUT / "run.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, f"run.mjs failed (exit {proc.returncode}, screenshots in {OUT}):\n" \
                                 f"{proc.stdout[-8000:]}\n{proc.stderr[-12000:]}"
    steps = next((json.loads(line.split(" ", 1)[1]) for line in proc.stdout.splitlines()
                  if line.startswith("E2E_TIMINGS ")), {})
    (OUT / "timings.json").write_text(json.dumps({"steps_s": TIMINGS, "run_mjs_s": steps}, indent=2) + "\n")
    print(f"VS Code e2e timings (s): {TIMINGS}; inside run.mjs: {steps}")
    for name in SCREENSHOTS:
        assert (OUT / name).stat().st_size > 10_000, f"screenshot {name} missing or empty"
    if os.environ.get("REDRAFT_UPDATE_SCREENSHOTS") == "1":
        for name in SCREENSHOTS:
            shutil.copyfile(OUT / name, EXT / "media" / name)
