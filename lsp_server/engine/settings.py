"""Server settings: one typed, immutable `Settings`, parsed from `initializationOptions` and from
`workspace/didChangeConfiguration` (or a `workspace/configuration` pull).

Accepted shapes: `{"redraft": {...}}` or the flat `{...}`; keys in camelCase (`maxTokens`) or
snake_case (`max_tokens`). Design decisions:

* Parsing never raises. A bad value is reported (the returned problem strings, which the server
  shows with `window/showMessage`) and the field's default is used instead.
* A configuration change is merged into the current settings: keys that are absent keep their
  current value (clients differ in whether they send everything or only what changed).
* Unknown keys are ignored and reported separately (they are often other tools' settings).
* `enabled_languages` holds LSP languageIds; `"*"` enables every language. The default is
  Python only: the shipped model is trained mostly on Python (weak in the other four languages).
* `enabled` (default true) switches completions off without stopping the server (an editor's
  "disable suggestions" toggle): requests then answer empty.
* `syntax` (default true) turns the tree-sitter planning and truncation on for languages with a
  grammar (lsp_server/engine/syntax); false gives the plain line rules, e.g. to measure the difference.
* `workspace_index` (default true) indexes the workspace's files in the background (its folders
  from `initialize`; lsp_server/engine/workspace): the project's lines become candidates that the
  model chooses among. `gate` (default "auto", 0.3: the threshold
  fitted on real packages' code; "always" or 0 shows everything) withholds a
  completion that lsp_server/engine/gate.py judges less likely right than that.
* `snippet_tokens` (default -1: the model's own) is the share of the model's context given to the
  snippet of another workspace file nearest the code before the cursor (engine/workspace/snippets.py);
  a model trained with such snippets says how many in its config (`snippet_tokens`), others get
  none; 0 turns them off.
* `apply.deleteUnmarked` (default true; also `applyDeleteUnmarked` or `{"apply": {"deleteUnmarked"}}`):
  `redraft.applyEdit` deletes the lines a snippet omits without a marker (false: keeps them, the
  merge before issue 43).
* `backend` (default null: the `redraft serve --backend*` flags, else the in-process model): which
  model answers, an object `{"kind", "url", "model", "apiKeyEnv", "timeoutMs", "template",
  "sendSuffix", "stream", "fallback", "allowInsecure", ...}` typed and validated by
  engine/backends/config.py (its docstring has the rules: a bad field is reported and defaulted, a
  backend that cannot work is reported and dropped; the key is never a setting, `apiKeyEnv` names
  the environment variable that holds it, and no message quotes a value that could be one).
  An object replaces the whole backend (kinds differ in their defaults); `null` or `{}` unsets it.
* `debug_step_delay_ms` is an undocumented test hook (sleep after each denoising step, so that
  cancellation can be tested deterministically); it defaults to off.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any, Callable

from redraft.engine.backends.config import BackendConfig, parse_backend

# The pipeline's efforts (redraft.model.sampler.EFFORTS), spelled out so that reading settings does not
# import torch; tests/test_server_config.py checks that the two agree.
EFFORT_NAMES = ("instant", "low", "medium", "high", "max")
DEVICES = ("auto", "cpu", "cuda")
PRECISIONS = ("auto", "fp32", "bf16", "int8")  # redraft.model.precision.PRECISIONS (checked by a test)


@dataclass(frozen=True)
class Settings:
    enabled: bool = True                    # false: every completion request answers empty
    model_dir: str | None = None            # checkpoint directory; None: the shipped model
    device: str = "auto"                    # auto | cpu | cuda
    precision: str = "auto"                 # auto | fp32 | bf16 | int8 (auto: bf16 only where the CPU has it)
    effort: str = "low"                     # instant | low | medium | high | max (low: the typing latency target)
    max_tokens: int = 32                    # canvas cap for one completion
    context_tokens: int = 0                 # prefix + suffix token budget; 0: the model's own (pipeline.Engine)
    context_refresh: int = 4                # open-weight models: context keys/values recomputed every N steps (1: exact)
    enabled_languages: tuple[str, ...] = ("python",)
    feedback_file: str | None = None        # append accept/reject reports here (JSON lines); None: memory only
    threads: int = 0                        # torch CPU threads; 0: auto (half the cores, at most 4)
    debug_step_delay_ms: int = 0            # test hook, see the module docstring
    debug_index_delay_ms: int = 0           # test hook: the index's build sleeps this long after each file
    syntax: bool = True                     # tree-sitter planning and truncation (false: the line rules)
    workspace_index: bool = True            # index the workspace's files: the project's lines as candidates
    workspace_max_files: int = 5000         # files the index reads at most
    workspace_max_file_kb: int = 512        # larger files are not indexed
    preload_model: bool = True              # load the model at `initialized` (false: at the first request that needs it)
    apply_delete_unmarked: bool = True      # apply.deleteUnmarked: a snippet's unmarked omissions are deleted
    snippet_tokens: int = -1                # another file's snippet in the model's context: its tokens (-1: the model's own, 0: none)
    gate: float = 0.3                       # show a completion only when gate.confidence >= this (0: always; gate.DEFAULT_THRESHOLD)
    backend: BackendConfig | None = None    # the model that answers (backends/config.py); None: the CLI's, else local

    def language_enabled(self, language_id: str | None) -> bool:
        langs = self.enabled_languages
        return "*" in langs or (language_id or "").lower() in langs


def _int_in(lo: int, hi: int) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"expected an integer from {lo} to {hi}")
        return v
    return check


def _choice(options: tuple[str, ...]) -> Callable[[Any], str]:
    def check(v: Any) -> str:
        if not isinstance(v, str) or v.strip().lower() not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return v.strip().lower()
    return check


def _optional_path(v: Any) -> str | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if not isinstance(v, str):
        raise ValueError("expected a path (a string)")
    return v.strip()


def _languages(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [p for p in v.split(",")]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise ValueError('expected a list of languageIds such as ["python"], or ["*"] for all')
    return tuple(x.strip().lower() for x in v if x.strip())


def _zero_or(check: Callable[[Any], int]) -> Callable[[Any], int]:
    def zero_or(v: Any) -> int:
        if v == 0 and not isinstance(v, bool):
            return 0
        try:
            return check(v)
        except ValueError as e:
            raise ValueError(f"{e}, or 0 for the model's own") from None
    return zero_or


def _gate(v: Any) -> float:
    """"auto" (gate.DEFAULT_THRESHOLD, fitted), "always" (0: show everything), or a number from 0 to 1."""
    if isinstance(v, str) and v.strip().lower() in ("auto", "always", "off"):
        from redraft.engine.gate import DEFAULT_THRESHOLD
        return {"auto": DEFAULT_THRESHOLD, "always": 0.0, "off": 0.0}[v.strip().lower()]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
        raise ValueError('expected "auto", "always", or a number from 0 to 1')
    return float(v)


def gate_value(v: Any) -> float:
    """The `gate` as a flag or a request field gives it: "auto", "always", or a number from 0 to 1 (a
    string of one too); ValueError with the expected forms otherwise."""
    if isinstance(v, str) and v.strip().lower() not in ("auto", "always", "off"):
        try:
            v = float(v)
        except ValueError:
            pass
    return _gate(v)


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "enabled": _bool,
    "model_dir": _optional_path,
    "device": _choice(DEVICES),
    "precision": _choice(PRECISIONS),
    "effort": _choice(EFFORT_NAMES),
    "max_tokens": _int_in(1, 256),
    "context_tokens": _zero_or(_int_in(16, 4096)),
    "context_refresh": _int_in(1, 128),
    "enabled_languages": _languages,
    "feedback_file": _optional_path,
    "threads": _int_in(0, 256),
    "debug_step_delay_ms": _int_in(0, 10_000),
    "debug_index_delay_ms": _int_in(0, 10_000),
    "syntax": _bool,
    "workspace_index": _bool,
    "workspace_max_files": _int_in(1, 100_000),
    "workspace_max_file_kb": _int_in(1, 16_384),
    "gate": _gate,
    "snippet_tokens": _int_in(-1, 256),
    "apply_delete_unmarked": _bool,
    "preload_model": _bool,
    "backend": parse_backend,               # (value, problems): read below, never raises
}
_DEFAULTS = {f.name: f.default for f in fields(Settings)}


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def parse_settings(raw: Any, base: Settings | None = None) -> tuple[Settings, list[str], list[str]]:
    """raw options -> (settings, problems, ignored keys). `base` supplies the values of absent keys."""
    base = base if base is not None else Settings()
    if raw is None:
        return base, [], []
    if isinstance(raw, dict) and isinstance(raw.get("redraft"), dict):
        raw = raw["redraft"]
    if not isinstance(raw, dict):
        return base, [f"settings must be an object, got {type(raw).__name__}; keeping the current settings"], []
    updates: dict[str, Any] = {}
    problems: list[str] = []
    ignored: list[str] = []
    flat: dict[str, Any] = {}
    for key, value in raw.items():     # `{"apply": {"deleteUnmarked": false}}` is `apply.deleteUnmarked`
        if key == "apply" and isinstance(value, dict):
            flat.update({f"apply.{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    for key, value in flat.items():
        name = _snake(str(key).replace(".", "_"))
        check = _CHECKS.get(name)
        if check is None:
            ignored.append(str(key))
            continue
        if name == "backend":
            updates[name], more = parse_backend(value)
            problems.extend(more)
            continue
        try:
            updates[name] = check(value)
        except ValueError as e:
            updates[name] = _DEFAULTS[name]
            problems.append(f"{_camel(name)}={value!r} is invalid ({e}); using the default {_DEFAULTS[name]!r}")
    return replace(base, **updates), problems, ignored
