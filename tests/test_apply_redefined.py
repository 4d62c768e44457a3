"""Issue 43: a fragment that rewrites one of several definitions framed alike.  The shape, from a
real release (tRPC's hooks/types.ts): every type alias sits under the same `/** @internal */`
comment; the snippet shows that comment, the alias rewritten (its first line changed too), and the
first lines of the next comment (cut open by the marker).  Every pair of comments frames a candidate region, and the regions around the short
neighbours drop fewer lines, so they tied for best and the merge refused.  The region that takes in
the file's one definition of the name the fragment defines wins: any other would leave the name
defined twice.  Twin: when the fragment's name is defined nowhere in the file (a new definition
between two others), the candidates stay tied and the merge still refuses."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (the repeated frame, four definitions (the second one rewritten), its rewrite, the marker)
FILES = {
    "python": (["@internal"],
               [["def query_result_a(x):", "    return x"],
                ["def query_result_b(x,", "         y):", "    total = x + y", "    return total"],
                ["def query_result_c(x):", "    return -x"], ["def query_result_d(x):", "    return x * 2"]],
               ["def query_result_b(x, y):", "    return y + x"], "# ... existing code ..."),
    "javascript": (["/**", " * @internal", " */"],
                   [["export function query_result_a(x) {", "  return x;", "}"],
                    ["export function query_result_b(x,", "  y) {", "  const total = x + y;", "  return total;", "}"],
                    ["export function query_result_c(x) {", "  return -x;", "}"],
                    ["export function query_result_d(x) {", "  return x * 2;", "}"]],
                   ["export function query_result_b(x, y) {", "  return y + x;", "}"], "// ... existing code ..."),
    "typescript": (["/**", " * @internal", " */"],
                   [["export type QueryResultA<TData, TError> = HookResult & Query<TData>;"],
                    ["export type QueryResultB<TData, TError> = Result<", "  TData,", "  TError", "> &", "  HookResult;"],
                    ["export type QueryResultC<TData, TError> = HookResult & Query<TError>;"],
                    ["export type QueryResultD<TData, TError> = HookResult | Query<TData>;"]],
                   ["export type QueryResultB<TData, TError> = HookResult &", "  Result<TData, TError>;"],
                   "// ... existing code ..."),
    "go": (["// Internal: not for callers.", "//", "// Since v1."],
           [["func QueryResultA(x int) int {", "\treturn x", "}"],
            ["func QueryResultB(x int,", "\ty int) int {", "\ttotal := x + y", "\treturn total", "}"],
            ["func QueryResultC(x int) int {", "\treturn -x", "}"],
            ["func QueryResultD(x int) int {", "\treturn x * 2", "}"]],
           ["func QueryResultB(x int, y int) int {", "\treturn y + x", "}"], "// ... existing code ..."),
    "rust": (["/// Internal: not for callers.", "///", "/// Since 1.0."],
             [["pub fn query_result_a(x: i32) -> i32 {", "    x", "}"],
              ["pub fn query_result_b(x: i32,", "    y: i32) -> i32 {", "    let total = x + y;", "    total", "}"],
              ["pub fn query_result_c(x: i32) -> i32 {", "    -x", "}"],
              ["pub fn query_result_d(x: i32) -> i32 {", "    x * 2", "}"]],
             ["pub fn query_result_b(x: i32, y: i32) -> i32 {", "    y + x", "}"], "// ... existing code ..."),
}
LANGS = list(FILES)


def _gap(lang: str) -> list[str]:
    return ["", ""] if lang == "python" else [""]


def _file(lang: str, defs: list[list[str]]) -> list[str]:
    frame = FILES[lang][0]
    head = {"python": ["def internal(f):", "    return f"], "go": ["package hooks"],
            "typescript": ["type Query<T> = { v: T };"]}.get(lang, [])
    out = head + _gap(lang) if head else []
    for k, d in enumerate(defs):
        out += frame + d + (_gap(lang) if k < len(defs) - 1 else [])
    return out


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_rewritten_definition_among_alike_frames_replaces_its_own(lang):
    frame, defs, new, m = FILES[lang]
    snippet = [m] + frame + new + _gap(lang) + frame[:2] + [m]
    r = merge(_text(_file(lang, defs)), _text(snippet), lang)
    assert r.ok, r.reason
    assert r.text == _text(_file(lang, [defs[0], new] + defs[2:]))
    assert r.deletions == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_name_the_file_does_not_define_stays_ambiguous(lang):
    frame, defs, new, m = FILES[lang]
    other = [l.replace("query_result_b", "query_result_e").replace("QueryResultB", "QueryResultE") for l in new]
    snippet = [m] + frame + other + _gap(lang) + frame[:2] + [m]
    r = merge(_text(_file(lang, defs)), _text(snippet), lang)
    assert not r.ok
    assert "more than one place" in r.reason
