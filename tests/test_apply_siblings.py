"""Issue 43: methods shown together without their class are siblings.  The shape, from a real
release (rpds-py's lib.rs: `#[new] fn init` of `HashTrieSetPy`, unchanged, then a `__contains__`
new in that impl; the file's only `__contains__` was `HashTrieMapPy`'s): each definition was
matched by name on its own, so the map's `__contains__` was rewritten and the set got none, a
line lost without a word.  Now the class of the method the snippet shows unchanged is the class of
the others: one it lacks is new there, after its sibling.  When no method of the snippet is
unchanged, nothing tells which class they are in: refused.  Go's methods are named with their
receiver, so two of them never share a name."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

LANGS = ["python", "javascript", "typescript", "rust"]


def _marker(lang: str, indent: str) -> str:
    return indent + ("# ... existing code ..." if lang == "python" else "// ... existing code ...")


def _method(lang: str, name: str, body: str) -> list[str]:
    if lang == "python":
        return [f"    def {name}(self, key):", f"        return {body}"]
    if lang == "rust":
        return [f"    fn {name}(&self, key: Key) -> bool {{", f"        {body}", "    }"]
    typed = "key: string): boolean" if lang == "typescript" else "key)"
    return [f"  {name}({typed} {{", f"    return {body};", "  }"]


def _class(lang: str, name: str, methods: list[list[str]]) -> list[str]:
    gap = [""]
    body = [l for m in methods for l in m + gap][:-1]
    if lang == "python":
        return [f"class {name}:", *body]
    if lang == "rust":
        return [f"impl {name} {{", *body, "}"]
    return [f"class {name} {{", *body, "}"]


def _file(lang: str, classes: list[list[str]]) -> str:
    gap = [""] * (2 if lang == "python" else 1)
    return "\n".join(classes[0] + gap + classes[1]) + "\n"


INIT_MAP, INIT_SET = "MapPy.build(self.inner, key).freeze()", "self.inner.is_set(key)"
MORE = {"python": " and key is not None", "rust": " && true"}


def _two(lang: str, set_methods: list[list[str]]) -> str:
    return _file(lang, [
        _class(lang, "MapPy", [_method(lang, "init", INIT_MAP), _method(lang, "contains", "self.inner.has_key(key)")]),
        _class(lang, "SetPy", set_methods)])


def _snippet(lang: str, methods: list[list[str]]) -> str:
    ind = "    " if lang in ("python", "rust") else "  "
    body = [l for m in methods for l in m + [""]][:-1]
    return "\n".join([_marker(lang, ind), *body, _marker(lang, ind)]) + "\n"


def _set(lang: str) -> tuple[list[str], list[str]]:
    """The set class's two methods, `init` and `size`."""
    return _method(lang, "init", INIT_SET), _method(lang, "size", "self.inner.size(key)")


@pytest.mark.parametrize("lang", LANGS)
def test_a_method_new_beside_an_unchanged_sibling_goes_into_the_siblings_class(lang):
    init, size = _set(lang)
    new = _method(lang, "contains", "self.inner.has(key)")
    r = merge(_two(lang, [init, size]), _snippet(lang, [init, new]), lang)
    assert r.ok, r.reason
    assert r.text == _two(lang, [init, new, size])       # the map's `contains` untouched
    assert not r.deletions


@pytest.mark.parametrize("lang", LANGS)
def test_siblings_matched_in_two_classes_none_unchanged_are_refused(lang):
    init, size = _set(lang)
    changed = _method(lang, "init", INIT_SET + MORE.get(lang, " && key !== null"))
    new = _method(lang, "contains", "self.inner.has(key)")
    r = merge(_two(lang, [init, size]), _snippet(lang, [changed, new]), lang)
    assert not r.ok
    assert "shown together, are in different classes" in r.reason


@pytest.mark.parametrize("lang", LANGS)
def test_siblings_of_one_class_are_rewritten_there(lang):
    """Both methods matched in the same class: nothing changes from before (each replaced)."""
    init, size = _set(lang)
    new_size = _method(lang, "size", "self.inner.len()")
    r = merge(_two(lang, [init, size]), _snippet(lang, [init, new_size]), lang)
    assert r.ok, r.reason
    assert r.text == _two(lang, [init, new_size])
