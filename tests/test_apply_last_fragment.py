"""Issue 43: the snippet's last fragment, with no marker after it, opens with lines that close a
block (`}` three times) and then brings a new definition.  Everything after the region it takes
is deleted (no marker after the snippet's last line), so a region found early in the file costs
every line after it: the place that leaves least behind, the file's last block, wins (pydantic-core's
ob_type.rs, a new `fn get_base_type` at the end of the file: refused as matching more than one place).
And a Rust `macro_rules!` is a definition: a region that would drop one the snippet never names is
not read as a rewrite of it (orjson's util.rs, a new `pydict_next` macro after the last
`use_immortal`: the last one was replaced; here, with fewer lines to tell the places apart, the
merge is refused and names it)."""
from __future__ import annotations

from redraft.engine.apply import merge


def _impl(name: str, extra: list[str]) -> list[str]:
    return [f"impl {name} {{", "    fn find(&self, key: &str) -> bool {", "        if key.is_empty() {",
            "            false", "        } else {", f"            self.{name.lower()}.contains(key)", "        }",
            "    }", *extra, "}"]


BASE = ["", "    fn base(&self) -> Option<&Value> {", "        let ptr = unsafe { (*self.as_ptr()).base };",
        "        unsafe { self.from_ptr(ptr) }", "    }"]
NEW = ["fn base_kind(value: &Value) -> Option<&Value> {", "    let ptr = unsafe { (*value.as_ptr()).base };",
       "    unsafe { value.from_ptr(ptr) }", "}"]


def test_a_last_fragment_of_closing_lines_and_a_new_definition_goes_at_the_end():
    blocks = [_impl("Alpha", []), _impl("Beta", BASE), _impl("Gamma", BASE), _impl("Delta", [])]
    orig = "\n\n".join("\n".join(b) for b in blocks) + "\n"
    snippet = "\n".join(["// ... existing code ...", "        }", "    }", "}", "", *NEW]) + "\n"
    r = merge(orig, snippet, "rust")
    assert r.ok, r.reason
    assert r.text == orig + "\n" + "\n".join(NEW) + "\n"
    assert not r.deletions


def _macro(name: str, cfg: str, body: str) -> list[str]:
    return [f"#[cfg({cfg})]", f"macro_rules! {name} {{", "    ($obj:expr) => {", "        unsafe {",
            f"            {body}", "        }", "    };", "}"]


def test_a_macro_the_snippet_does_not_name_is_not_rewritten():
    blocks = [_macro("contains", "Py_3_12", "dict_contains($obj, 1)"),
              _macro("contains", "not(Py_3_12)", "dict_contains($obj, 0)"),
              _macro("immortal", "Py_3_12", "keep($obj)"), _macro("immortal", "not(Py_3_12)", "incref($obj)")]
    orig = "\n\n".join("\n".join(b) for b in blocks) + "\n"
    new = _macro("dict_next", "not(Py_3_13)", "dict_next($obj, 0)")
    new[-3] = "        };"                     # (its last lines are not its first ones: no mirrored frame)
    snippet = "\n".join(["// ... existing code ...", "        }", "    };", "}", "", *new]) + "\n"
    r = merge(orig, snippet, "rust")
    assert not r.ok                               # (before: `immortal` silently rewritten as `dict_next`)
    assert "would delete `immortal`" in r.reason
