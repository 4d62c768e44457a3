"""The package's layout holds (README, "Architecture"): the engine imports no front door, no front
door imports another, the model and kernels import nothing above them, no module imports itself
back through others, the engine carries no protocol types, and the installed package is one
`redraft` namespace. Read from the source files with `ast` (every import, at any depth, counts)."""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"lsp_server": "redraft", "model": "redraft.model", "kernels": "redraft.kernels"}
FRONT_DOORS = ("redraft.lsp", "redraft.http", "redraft.ci", "redraft.cli")
ABOVE_ENGINE = FRONT_DOORS + ("redraft.evals", "redraft.main", "redraft.__main__")
# model/edit_sites.py finds rename sites with the engine's grammar registry when tree-sitter is
# there (a leaf module that imports nothing of the package); the one arrow from the model upwards.
MODEL_UP = {("redraft.model.edit_sites", "redraft.engine.syntax.languages")}


def _name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = list(rel.with_suffix("").parts)
    parts[0] = FOLDERS[parts[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_name(p): p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
            if "__pycache__" not in p.parts}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules that `name` imports (`from pkg import sub` names the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_pkg else name.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        out.update(t for t in targets if t == "redraft" or t.startswith("redraft."))
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _in(module: str, part: str) -> bool:
    return module == part or module.startswith(part + ".")


def test_every_import_names_a_module_of_the_package():
    missing = sorted((m, t) for m, ts in GRAPH.items() for t in ts if t not in MODULES)
    assert missing == []


def test_the_engine_imports_no_front_door():
    bad = sorted((m, t) for m, ts in GRAPH.items() if _in(m, "redraft.engine")
                 for t in ts if any(_in(t, p) for p in ABOVE_ENGINE))
    assert bad == []


def test_no_front_door_imports_another():
    bad = sorted((m, t) for m, ts in GRAPH.items() for door in FRONT_DOORS if _in(m, door)
                 for t in ts if any(_in(t, p) for p in ABOVE_ENGINE if p != door))
    assert bad == []


def test_model_and_kernels_import_nothing_above_them():
    bad = sorted((m, t) for m, ts in GRAPH.items() if _in(m, "redraft.model") or _in(m, "redraft.kernels")
                 for t in ts if not (_in(t, "redraft.model") or _in(t, "redraft.kernels")) and (m, t) not in MODEL_UP)
    assert bad == []
    kernels_up = sorted((m, t) for m, ts in GRAPH.items() if _in(m, "redraft.kernels") for t in ts if not _in(t, "redraft.kernels"))
    assert kernels_up == []


def test_only_the_launcher_is_above_the_front_doors():
    users = sorted(m for m, ts in GRAPH.items() if "redraft.main" in ts)
    assert users == ["redraft.__main__"]


def test_no_import_cycle():
    """Tarjan's strongly connected components over the module graph: every one is a single module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_engine_carries_no_protocol_types():
    foreign = ("lsprotocol", "pygls", "starlette", "uvicorn", "httpx")
    bad = []
    for name, path in MODULES.items():
        if not _in(name, "redraft.engine"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            bad += [(name, m) for m in mods if m.split(".")[0] in foreign]
    assert bad == []


def test_pyproject_lists_every_package():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert cfg["package-dir"] == {v: k for k, v in FOLDERS.items()}
    packages = sorted(_name(p.parent / "__init__.py") for folder in FOLDERS for p in (ROOT / folder).rglob("__init__.py"))
    assert sorted(cfg["packages"]) == packages


def test_the_wheel_installs_one_namespace(tmp_path):
    """Everything the wheel installs is under redraft/ or its metadata: nothing generic (`model`,
    `kernels`, `lsp_server`) at the top of site-packages, and the shipped weights and the demo's
    sample are inside."""
    src = tmp_path / "src"    # a copy, so that the build leaves nothing in the checkout
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "data", "runs", "build", "node_modules",
                                                              "*.egg-info", "__pycache__", ".pytest_cache"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(tmp_path), str(src)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = tmp_path.glob("redraft-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"redraft"}
    for needed in ("redraft/main.py", "redraft/engine/pipeline.py", "redraft/model/weights/model.safetensors",
                   "redraft/model/weights/config.json", "redraft/lsp/samples/demo.py", "redraft/kernels/ops/rope.py"):
        assert needed in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "redraft = redraft.main:main" in zipfile.ZipFile(wheel).read(entry).decode()


@pytest.mark.parametrize("argv", [["-m", "redraft", "--help"], ["-m", "redraft.main", "--help"]])
def test_python_m_entry_points(argv):
    r = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0 and "usage: redraft COMMAND" in r.stdout, r.stderr
