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
