"""Helix (no binary can be had here): the shipped editors/helix/languages.toml parses and keeps
Helix's default servers, and a session replayed the way Helix talks (its initialize capabilities,
UTF-8 first; its config as initializationOptions, then didChangeConfiguration; the popup's
textDocument/completion) against the real `redraft serve` returns items whose ranges are valid
UTF-8 columns of a line with CJK and emoji."""
from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from redraft.lsp.stdio_client import JsonRpcStdioClient

ROOT = Path(__file__).resolve().parents[1]
TOML = ROOT / "editors" / "helix" / "languages.toml"
# Helix's built-in language-servers lists (its languages.toml, mid-2026) that a user's entry replaces
HELIX_DEFAULTS = {
    "python": ["ty", "ruff", "jedi", "pylsp", "zuban"],
    "javascript": ["typescript-language-server"], "jsx": ["typescript-language-server"],
    "typescript": ["typescript-language-server"], "tsx": ["typescript-language-server"],
    "rust": ["rust-analyzer"], "go": ["gopls", "golangci-lint-lsp"],
}
# What Helix (helix-lsp/src/client.rs) sends as capabilities, reduced to what a completion server reads
HELIX_CAPABILITIES = {
    "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
    "workspace": {"configuration": True, "didChangeConfiguration": {"dynamicRegistration": False},
                  "workspaceFolders": True, "applyEdit": True, "executeCommand": {"dynamicRegistration": False}},
    "textDocument": {
        "completion": {"completionItem": {"snippetSupport": True, "insertReplaceSupport": True,
                                          "deprecatedSupport": True, "tagSupport": {"valueSet": [1]},
                                          "resolveSupport": {"properties": ["documentation", "detail",
                                                                            "additionalTextEdits"]}},
                       "completionItemKind": {}},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "refactor"]}},
                       "isPreferredSupport": True, "dataSupport": True},
        "publishDiagnostics": {"versionSupport": True}},
    "window": {"workDoneProgress": True, "showDocument": {"support": True}},
}


@pytest.fixture(scope="module")
def config() -> dict:
    return tomllib.loads(TOML.read_text(encoding="utf-8"))


def test_languages_toml_defines_the_server_and_keeps_helix_defaults(config: dict):
    server = config["language-server"]["redraft"]
    assert server["command"] == "redraft" and server["args"] == ["serve"]
    assert set(server["config"]["redraft"]) <= {"enabled", "effort", "maxTokens", "contextTokens",
                                                 "enabledLanguages", "syntax", "modelDir", "device", "precision", "threads"}
    entries = {lang["name"]: lang["language-servers"] for lang in config["language"]}
    assert set(entries) == set(HELIX_DEFAULTS)
    for name, servers in entries.items():
        assert servers == HELIX_DEFAULTS[name] + ["redraft"], name


def test_helix_session_gets_valid_utf8_ranges(config: dict):
    server = config["language-server"]["redraft"]
    exe = shutil.which(server["command"], path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    assert exe, "redraft is not on PATH next to this interpreter"
    settings = {"redraft": {**server["config"]["redraft"], "threads": 1, "gate": "always"}}
    client = JsonRpcStdioClient([exe, *server["args"]], configuration=settings, timeout=120)
    try:
        init = client.initialize(settings, HELIX_CAPABILITIES)
        caps = init["capabilities"]
        assert caps["positionEncoding"] == "utf-8" and client.position_encoding == "utf-8"
        assert not caps["completionProvider"].get("resolveProvider")  # Helix will not ask to resolve
        client.notify("workspace/didChangeConfiguration", {"settings": settings})  # Helix does this next
        line = 'names = ["数据", "😀"]; total = len'
        uri = (Path.cwd() / "redraft-helix" / "sizes.py").as_uri()
        client.open_document(uri, line + "\n")
        cursor = len(line.encode("utf-8"))  # Helix counts UTF-8 bytes: 10 more than the code points
        result = client.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": 0, "character": cursor},
            "context": {"triggerKind": 1}})
        items = result["items"] if isinstance(result, dict) else result
        assert items, "the shipped model completes `total = len` after the list"
        raw = line.encode("utf-8")
        for item in items:
            rng, new = item["textEdit"]["range"], item["textEdit"]["newText"]
            start, end = rng["start"], rng["end"]
            assert start["line"] == end["line"] == 0
            assert 0 <= start["character"] <= end["character"] == cursor
            raw[:start["character"]].decode("utf-8")  # a byte column on a character boundary
            edited = raw[:start["character"]].decode("utf-8") + new + raw[end["character"]:].decode("utf-8")
            assert edited.startswith(line) and len(edited) > len(line)  # `len` typed, then the infill
            assert item["label"] and "\n" not in item["label"]
        assert not [n for n in client.notifications if n["method"] == "window/showMessage"]  # no bad settings
    finally:
        assert client.close() == 0


def test_helix_gets_the_next_edit_as_a_code_action_in_utf8_columns(config: dict):
    # Helix cannot send redraft's next-edit requests; it lists code actions (`space a`)
    server = config["language-server"]["redraft"]
    exe = shutil.which(server["command"], path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    settings = {"redraft": {**server["config"]["redraft"], "threads": 1, "gate": "always"}}
    client = JsonRpcStdioClient([exe, *server["args"]], configuration=settings, timeout=120)
    try:
        client.initialize(settings, HELIX_CAPABILITIES)
        text = 'größe = 1  # 😀\nprint("größe", größe)\nwert = größe * 2\n'
        uri = (Path.cwd() / "redraft-helix" / "rename.py").as_uri()
        client.open_document(uri, text)
        n = len("größe".encode("utf-8"))                  # the user renames the binding (UTF-8 columns)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": n}}, "text": "size"}]})
        now = text.replace("größe = 1", "size = 1")
        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "context": {"diagnostics": [], "triggerKind": 1},
            "range": {"start": {"line": 0, "character": 4}, "end": {"line": 0, "character": 4}}})
        (action,) = actions
        assert action["title"].startswith("redraft: next edit") and action["kind"].startswith("refactor")
        (change,) = action["edit"]["documentChanges"]
        assert change["textDocument"] == {"uri": uri, "version": 2}
        lines = now.split("\n")
        for e in sorted(change["edits"], key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                        reverse=True):
            (s, e_), new = (e["range"]["start"], e["range"]["end"]), e["newText"]
            raw = "\n".join(lines).encode("utf-8")
            starts = [0] + [i + 1 for i, b in enumerate(raw) if b == 0x0A]
            a, b = starts[s["line"]] + s["character"], starts[e_["line"]] + e_["character"]
            lines = (raw[:a].decode("utf-8") + new + raw[b:].decode("utf-8")).split("\n")
        assert "\n".join(lines) == 'size = 1  # 😀\nprint("größe", size)\nwert = size * 2\n'
    finally:
        assert client.close() == 0
