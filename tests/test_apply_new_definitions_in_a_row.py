"""Issue 43: two new definitions in a row after one the snippet shows (by name).  The shape, from a
real release (robyn's __init__.py): `add_response_header` shown, then the new `set_request_header`
and `set_response_header`, then a marker.  Each new definition went right after the last matched
one, both at the same line: two edits at one place, refused as overlapping ("two parts of the
snippet edit the same lines", on 406942d).  They are now inserted there one after another, as the
snippet has them, with the snippet's blank lines between them."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge


def _fn(lang: str, name: str, body: str) -> list[str]:
    if lang == "python":
        return [f"def {name}(key, value):", f"    {body}"]
    if lang == "go":
        return [f"func {name}(key string, value string) {{", f"\t{body}", "}"]
    if lang == "rust":
        return [f"fn {name}(key: &str, value: &str) {{", f"    {body};", "}"]
    typed = "key: string, value: string" if lang == "typescript" else "key, value"
    return [f"function {name}({typed}) {{", f"  {body};", "}"]


LANGS = ["python", "javascript", "typescript", "go", "rust"]


def _file(lang: str, fns: list[tuple[str, str]]) -> str:
    gap = ["", ""] if lang == "python" else [""]
    head = {"python": ["import os"], "go": ["package main"], "rust": ["use std::env;"]}.get(lang, ["const os = 1;"])
    lines = head
    for name, body in fns:
        lines = lines + gap + _fn(lang, name, body)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_two_new_definitions_after_a_shown_one_go_in_order(lang):
    old = [("add_header", "headers.append(key, value)"), ("add_socket", "sockets.append(key, value)")]
    new = [("add_header", "headers.append(key, value)"), ("set_request_header", "request.set(key, value)"),
           ("set_response_header", "response.set(key, value)"), ("add_socket", "sockets.append(key, value)")]
    mark = "# ... existing code ..." if lang == "python" else "// ... existing code ..."
    gap = ["", ""] if lang == "python" else [""]
    snippet = [mark] + _fn(lang, *new[0]) + gap + _fn(lang, *new[1]) + gap + _fn(lang, *new[2]) + gap + [mark]
    r = merge(_file(lang, old), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, new)


def test_new_definitions_before_a_shown_one_keep_the_snippets_spacing():
    """jsonschema-rs's regex crate: `mod repetition;` and `mod sequence;` written above the file's
    `mod syntax;`, no blank line between them: none in the result either (each new one used to take
    a blank line after it)."""
    original = "mod syntax;\n\nuse std::fmt::Write;\n\npub use syntax::is_valid;\n"
    snippet = "mod repetition;\nmod sequence;\nmod syntax;\n\nuse std::fmt::Write;\n// ... existing code ...\n"
    r = merge(original, snippet, "rust")
    assert r.ok, r.reason
    assert r.text == "mod repetition;\nmod sequence;\n" + original
