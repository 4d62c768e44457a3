"""Issue 43: the last lines of a definition shown, then a new definition, and no marker after:
the new definition goes right after the shown lines, and what the file has after them is deleted
by omission (reported).  The shape, from a real release (hypercorn's run.py: `# ... existing code
...`, the last lines of a loop in `_populate`, then a new `def _join_exited`): the new definition
was appended at the file's end and the shown lines taken for nothing, so `_populate`'s own last
line, `return processes`, which the snippet leaves out, stayed.  In the five languages (the four
brace languages' snippets show the definition's closing line, and merged so before: the lines after
it at the file's end, which they leave out, are deleted and reported)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge
from redraft.engine.apply.edges import LAST_WHY

# (marker, the file's last definition, the lines after it, the new definition, blank lines between)
SHAPES = {
    "python": ("# ... existing code ...",
               ["def start(n):", "    processes = []", "    for i in range(n):", "        process = spawn(i)",
                "        processes.append(process)", "        if slow():", "            time.sleep(0.1)",
                "    return processes"],
               ["__all__ = [\"start\"]"],
               ["def join_exited(processes):", "    code = 0", "    for worker in processes:",
                "        code = worker.exitcode or code", "    return code"], 2),
    "javascript": ("// ... existing code ...",
                   ["function start(n) {", "  const processes = [];", "  for (let i = 0; i < n; i++) {",
                    "    processes.push(spawn(i));", "  }", "  return processes;", "}"],
                   ["module.exports = { start };"],
                   ["function joinExited(processes) {", "  let code = 0;", "  for (const worker of processes) {",
                    "    code = worker.exitCode || code;", "  }", "  return code;", "}"], 1),
    "typescript": ("// ... existing code ...",
                   ["function start(n: number): Worker[] {", "  const processes: Worker[] = [];",
                    "  for (let i = 0; i < n; i++) {", "    processes.push(spawn(i));", "  }", "  return processes;",
                    "}"],
                   ["export default start;"],
                   ["function joinExited(processes: Worker[]): number {", "  let code = 0;",
                    "  for (const worker of processes) {", "    code = worker.exitCode || code;", "  }",
                    "  return code;", "}"], 1),
    "rust": ("// ... existing code ...",
             ["fn start(n: usize) -> Vec<Worker> {", "    let mut processes = Vec::new();", "    for i in 0..n {",
              "        processes.push(spawn(i));", "    }", "    processes", "}"],
             ["const LIMIT: usize = 4;"],
             ["fn join_exited(processes: &[Worker]) -> i32 {", "    let mut code = 0;", "    for worker in processes {",
              "        code = worker.exit_code().unwrap_or(code);", "    }", "    code", "}"], 1),
    "go": ("// ... existing code ...",
           ["func start(n int) []Worker {", "\tprocesses := []Worker{}", "\tfor i := 0; i < n; i++ {",
            "\t\tprocesses = append(processes, spawn(i))", "\t}", "\treturn processes", "}"],
           ["var limit = 4"],
           ["func joinExited(processes []Worker) int {", "\tcode := 0", "\tfor _, worker := range processes {",
            "\t\tcode = worker.ExitCode()", "\t}", "\treturn code", "}"], 1),
}


@pytest.mark.parametrize("lang", sorted(SHAPES))
def test_lines_after_the_shown_ones_are_deleted_when_no_marker_follows_the_new_definition(lang):
    marker, last, after, new, gap = SHAPES[lang]
    keep = last if lang != "python" else last[:-1]      # Python: the function's own last line is left out too
    original = "\n".join(["import time" if lang == "python" else "// head", ""] + last + [""] * gap + after) + "\n"
    snippet = "\n".join([marker] + keep[-3:] + [""] * gap + new) + "\n"
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(["import time" if lang == "python" else "// head", ""] + keep + [""] * gap + new) + "\n"
    assert [d.why for d in r.deletions] == [LAST_WHY]
    assert any(t in r.text for t in new) and after[0] not in r.text


# A last fragment after another one: its first line the last line of the function that fragment ended
# in (a marker at its body's depth between them), found once after it, then new definitions for the
# file's old last ones, no marker after (mosec's utils.py: `return None`, then `_resolve_annotations`
# and three more for `ParseTarget` and `parse_func_type`).  Its last line is new and its region drops
# lines unlike the new ones: it was refused ("its last line is not in the file").  The fragment before
# and its first line anchor it; the file's end is its last anchor, what it omits there is gone.  (Rust:
# the new definitions' last line, `}`, is in the file, and it merged so before.)
TAIL = {
    "python": ("# ... existing code ...", "    # ... existing code ...",
               ["def mosec_path() -> Path | None:", '    """Find the binary."""', "    for p in PATHS:",
                "        if p.exists():", "            return p", "    return None"],
               ["class Target(Enum):", '    INPUT = "INPUT"', '    RETURN = "RETURN"', "", "",
                "def parse_type(func, target: Target) -> type:", "    hints = get_type_hints(func)",
                '    return hints.get("return" if target is Target.RETURN else "data", Any)'],
               ["def _hints(func) -> dict[str, Any]:", "    try:", "        return get_type_hints(func)",
                "    except Exception:", "        return func.__annotations__", "", "",
                "def input_type(func) -> Any:", '    return _hints(func).get("data", Any)', "", "",
                "def return_type(func) -> Any:", '    return _hints(func).get("return", Any)'], 2),
    "rust": ("// ... existing code ...", "    // ... existing code ...",
             ["fn mosec_path() -> Option<PathBuf> {", "    for p in PATHS {", "        if p.exists() {",
              "            return Some(p.into());", "        }", "    }", "    None", "}"],
             ["enum Target {", "    Input,", "    Return,", "}", "",
              "fn parse_type(func: &Func, target: Target) -> Kind {", "    func.hints().get(target.key())", "}"],
             ["fn hints(func: &Func) -> Hints {", "    func.hints().unwrap_or_default()", "}", "",
              "fn input_type(func: &Func) -> Kind {", "    hints(func).get(\"data\")", "}", "",
              "fn return_type(func: &Func) -> Kind {", "    hints(func).get(\"return\")", "}"], 1),
}


@pytest.mark.parametrize("lang", sorted(TAIL))
def test_a_last_fragment_from_the_end_of_the_function_before_replaces_the_files_tail(lang):
    marker, inner, fn, old, new, gap = TAIL[lang]
    head = ["import os", ""] if lang == "python" else ["use std::path::PathBuf;", ""]
    original = "\n".join(head + fn + [""] * gap + old) + "\n"
    snippet = "\n".join([marker] + fn[:2] + [inner] + fn[-(2 if lang == "rust" else 1):] + [""] * gap + new) + "\n"
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(head + fn + [""] * gap + new) + "\n"
    assert r.deletions and {d.why for d in r.deletions} == {LAST_WHY}
