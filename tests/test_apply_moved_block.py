"""Issue 43: a snippet that moves a definition up, shown at its new place only.  The shape, from a
real release (@tanstack/svelte-query's createQuery.ts): the imports, then an overload written out
that the file has further down, then the first lines of the next overload, then a marker.  Those
first lines are the same in every overload, so the fragment's end fit the overload after the moved
one and the overload in between was deleted, its lines lost, while the marker kept the moved one
where it was: the merged file had it twice in a row (on 406942d).  A result with six or more lines
with words twice in a row, one copy written by an edit that loses lines it replaces, where the
file and the snippet have them once, is refused now: the marker says the old copy stays, the new
lines say it is here.  Shown with the lines around its old place, the move is merged; a new
definition that copies a kept one's lines (losing nothing) is merged as well."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

MARK = {"python": "# ... existing code ..."}


def _fn(lang: str, name: str, arg: str) -> list[str]:
    body = [f"total = {arg} + 1", f"total = total * {arg}", "total = total - 2", "total = total / 3",
            f"print(\"{name}\", total)"]
    if lang == "python":
        return [f"def {name}({arg}):"] + ["    " + b for b in body] + ["    return total"]
    if lang == "go":
        return [f"func {name}({arg} int) int {{", f"\ttotal := {arg} + 1"] + \
            ["\t" + b for b in body[1:]] + ["\treturn total", "}"]
    if lang == "rust":
        return [f"fn {name}({arg}: i64) -> i64 {{", f"    let mut total = {arg} + 1;"] + \
            ["    " + b + ";" for b in body[1:]] + ["    total", "}"]
    typed = f"{arg}: number" if lang == "typescript" else arg
    return [f"function {name}({typed}) {{", f"  let total = {arg} + 1;"] + \
        ["  " + b + ";" for b in body[1:]] + ["  return total;", "}"]


def _file(lang: str, order: list[tuple[str, str]]) -> str:
    head = {"python": "import sys", "go": "package main", "rust": "use std::io;"}.get(lang, "const sys = 1;")
    lines = [head]
    for name, arg in order:
        lines += ["", ""] if lang == "python" else [""]
        lines += _fn(lang, name, arg)
    return "\n".join(lines) + "\n"


LANGS = ["python", "javascript", "typescript", "go", "rust"]
ORDER = [("first", "a"), ("second", "b"), ("third", "c")]


def _overload(result: str, options: str) -> list[str]:
    return ["export function createQuery<", "  TQueryFnData = unknown,", "  TError = DefaultError,",
            "  TData = TQueryFnData,", ">(", "  options: StoreOrVal<", f"    {options}<TQueryFnData, TError, TData>",
            "  >,", "  queryClient?: QueryClient,", f"): {result}<TData, TError>", ""]


IMPORTS = ["import { QueryObserver } from '@tanstack/query-core'", ""]
UNDEFINED = _overload("CreateQueryResult", "UndefinedInitialDataOptions")
DEFINED = _overload("DefinedCreateQueryResult", "DefinedInitialDataOptions")
IMPL = ["export function createQuery(options: StoreOrVal<CreateQueryOptions>) {",
        "  return createBaseQuery(options, QueryObserver)", "}"]


def test_an_overload_moved_over_another_is_refused():
    """The real shape: the second overload written out above the first, then the first lines that
    both overloads start with, then a marker.  Read with those lines at the second overload, the
    first one would be lost and the second be there twice."""
    original = "\n".join(IMPORTS + UNDEFINED + DEFINED + IMPL) + "\n"
    snippet = "\n".join(IMPORTS + DEFINED + UNDEFINED[:2] + ["// ... existing code ..."]) + "\n"
    r = merge(original, snippet, "typescript")
    assert not r.ok
    assert "moved?" in r.reason and "DefinedCreateQueryResult" in r.reason


def test_the_overload_moved_with_its_old_place_shown_is_merged():
    """Shown with the first overload's last lines after it and the implementation's first line (the
    second overload's old place, now empty), the move is merged."""
    original = "\n".join(IMPORTS + UNDEFINED + DEFINED + IMPL) + "\n"
    snippet = IMPORTS + DEFINED + UNDEFINED[:7] + ["// ... existing code ..."] + UNDEFINED[-3:] + IMPL[:1] + \
        ["// ... existing code ..."]
    r = merge(original, "\n".join(snippet) + "\n", "typescript")
    assert r.ok, r.reason
    assert r.text == "\n".join(IMPORTS + DEFINED + UNDEFINED + IMPL) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_a_new_definition_copying_another_is_merged(lang):
    """A new definition whose lines repeat a kept one's (copied code, common in tests) loses nothing:
    it is merged."""
    original = _file(lang, ORDER)
    copy = _fn(lang, "third", "c")
    copy[0] = copy[0].replace("third", "third_again")
    gap = ["", ""] if lang == "python" else [""]
    want = original + "\n" * len(gap) + "\n".join(copy) + "\n"
    mark = MARK.get(lang, "// ... existing code ...")
    r = merge(original, "\n".join([mark] + _fn(lang, "third", "c") + gap + copy) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == want


@pytest.mark.parametrize("lang", LANGS)
def test_a_move_shown_with_its_old_place_is_merged(lang):
    """With the lines around its old place shown too (`second`'s last lines, then `fourth`'s first
    ones, nothing between), the definition is moved: written where the snippet has it, deleted
    where it was (and the deletion reported)."""
    mark = MARK.get(lang, "// ... existing code ...")
    original = _file(lang, ORDER + [("fourth", "d")])
    want = _file(lang, [ORDER[2], ORDER[0], ORDER[1], ("fourth", "d")])
    gap = ["", ""] if lang == "python" else [""]
    new = want.split("\n")
    top = len(_file(lang, [ORDER[2]]).split("\n")) + len(gap) + 1
    snippet = new[:top] + [mark] + _fn(lang, "second", "b")[-3:] + gap + _fn(lang, "fourth", "d")[:2] + [mark]
    r = merge(original, "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == want
    assert len(r.deletions) == 1
