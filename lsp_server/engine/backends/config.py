"""The `backend` setting: which model answers, typed and validated (torch-free, no I/O but reading
one environment variable).

`{"redraft": {"backend": {"kind": ..., "url": ..., ...}}}`; keys in camelCase or snake_case; a bare
string is the kind (`"backend": "ollama"`). `null` or `{}` means "not set": the `redraft serve
--backend*` flags, else the in-process model (`local`).

Design decisions:
* Parsing never raises (settings.py's rule). A bad field is reported and its default used; a
  backend that cannot work at all (an unknown kind, no url or model where the kind needs one, a url
  that is not http(s), plain http to a host that is not loopback without `allowInsecure`) is
  reported and the whole object is dropped, so the model falls back to the default (`local`).
* The key itself is never a setting: `apiKeyEnv` names the environment variable that holds it, and
  is read when the engine is built (`api_key`). No message quotes a backend value that could be a
  key (a malformed `apiKeyEnv` is reported without echoing it).
* `describe()` is the one public view of a backend (status, stats, logs): kind, url without its
  query, model, and the names of the options; never the key.
* The object is frozen and hashable (the engine host compares it to decide on a reload): lists
  become tuples, `requestBody` canonical JSON.
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any
from urllib.parse import urlsplit

__all__ = ["BackendConfig", "KINDS", "REMOTE_KINDS", "parse_backend", "api_key", "is_loopback_host",
           "display_url", "LOCAL"]

REMOTE_KINDS = ("redraft", "mercury", "openai-completions", "llama.cpp", "ollama")
KINDS = ("local",) + REMOTE_KINDS
FALLBACKS = ("none", "local")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")

# what a kind assumes when the setting leaves it out: url, model, apiKeyEnv (None: must be given / none)
KIND_DEFAULTS: dict[str, tuple[str | None, str | None, str | None]] = {
    "redraft": ("http://127.0.0.1:8177/v1", "redraft", None),
    "mercury": ("https://api.inceptionlabs.ai/v1", "mercury-edit", "INCEPTION_API_KEY"),
    "openai-completions": (None, None, None),
    "llama.cpp": ("http://127.0.0.1:8080", None, None),
    "ollama": ("http://127.0.0.1:11434", None, None),
}
NEEDS_MODEL = ("openai-completions", "ollama")


@dataclass(frozen=True)
class BackendConfig:
    kind: str = "local"                 # local | redraft | mercury | openai-completions | llama.cpp | ollama
    url: str | None = None              # the base URL (`.../v1` for OpenAI-style APIs); the kind's default if absent
    model: str | None = None            # the model name the server knows
    api_key_env: str | None = None      # the environment variable holding the key (never the key)
    timeout_ms: int = 4000              # one request, connection to last byte; then it is closed
    template: str | None = None         # FIM prompt: a preset (templates.PRESETS) or a string with {prefix} {suffix}
    send_suffix: bool = False           # openai-completions: send `suffix` and let the server build the prompt
    stream: bool = True                 # stream the answer where the backend streams (closed early at a stop)
    fallback: str = "none"              # none | local: the in-process model answers when the backend fails
    allow_insecure: bool = False        # plain http to a host that is not loopback (the key travels in clear)
    prefix_chars: int = 6000            # text before the cursor sent at most (cut at a line start)
    suffix_chars: int = 2000            # text after the cursor sent at most (cut at a line end)
    stop: tuple[str, ...] = ()          # extra stop strings, after the plan's and the template's
    request_body: str | None = None     # canonical JSON object merged into every request body (temperature, options)
    max_answer_kb: int = 256            # a bigger answer is refused as oversized

    @property
    def remote(self) -> bool:
        return self.kind != "local"

    def body_extra(self) -> dict[str, Any]:
        return json.loads(self.request_body) if self.request_body else {}

    def describe(self) -> dict[str, Any]:
        """What status, stats and logs may show: no key, no url query, requestBody's keys only."""
        if not self.remote:
            return {"kind": "local"}
        out = {k: v for k, v in asdict(self).items() if v not in (None, (), False) or k == "fallback"}
        out["url"] = display_url(self.url or "")
        if self.request_body:
            out["request_body"] = sorted(self.body_extra())
        if self.stop:
            out["stop"] = list(self.stop)
        return {_camel(k): v for k, v in out.items()}


LOCAL = BackendConfig()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def display_url(url: str) -> str:
    """scheme://host:port/path: no user info, query or fragment (they may carry credentials)."""
    try:
        p = urlsplit(url)
        host = p.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        port = f":{p.port}" if p.port else ""
        return f"{p.scheme}://{host}{port}{p.path}"
    except ValueError:
        return "<unreadable url>"


def is_loopback_host(host: str) -> bool:
    """localhost, *.localhost or a loopback address (no DNS: a name is not trusted to stay loopback)."""
    h = (host or "").strip("[]").lower().rstrip(".")
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def api_key(cfg: BackendConfig, environ: dict[str, str] | None = None) -> str | None:
    """The key from the environment variable the backend names (None: no variable, or it is unset)."""
    if not cfg.api_key_env:
        return None
    value = (os.environ if environ is None else environ).get(cfg.api_key_env, "").strip()
    return value or None


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("expected true or false")
    return v


def _int_in(lo: int, hi: int):
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise ValueError(f"expected an integer from {lo} to {hi}")
        return v
    return check


def _text(v: Any) -> str | None:
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if not isinstance(v, str):
        raise ValueError("expected a string")
    return v.strip()


def _template(v: Any) -> str | None:
    from redraft.engine.backends.templates import check_template
    if v is None or (isinstance(v, str) and not v.strip()):
        return None
    if not isinstance(v, str):
        raise ValueError("expected a preset name or a template string")
    return check_template(v)


def _fallback(v: Any) -> str:
    if v is True:
        return "local"
    if v is False or v is None:
        return "none"
    if isinstance(v, str) and v.strip().lower() in FALLBACKS:
        return v.strip().lower()
    raise ValueError('expected "local" or "none"')


def _stops(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(s, str) and s for s in v) or len(v) > 16:
        raise ValueError("expected a list of at most 16 non-empty strings")
    return tuple(v)


def _request_body(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ValueError("expected an object (merged into every request body)")
    try:
        return json.dumps(v, sort_keys=True, ensure_ascii=False, allow_nan=False) if v else None
    except (TypeError, ValueError):
        raise ValueError("expected a JSON object") from None


_FIELDS = {
    "url": _text, "model": _text, "timeout_ms": _int_in(50, 600_000), "template": _template,
    "send_suffix": _bool, "stream": _bool, "fallback": _fallback, "allow_insecure": _bool,
    "prefix_chars": _int_in(0, 1_000_000), "suffix_chars": _int_in(0, 1_000_000), "stop": _stops,
    "request_body": _request_body, "max_answer_kb": _int_in(1, 65_536),
}
_DEFAULT = {f.name: f.default for f in fields(BackendConfig)}


def parse_backend(raw: Any) -> tuple[BackendConfig | None, list[str]]:
    """The `backend` value -> (config, problems). None: not set (null, {}), or unusable (reported)."""
    if raw is None:
        return None, []
    if isinstance(raw, str):
        raw = {"kind": raw}
    if not isinstance(raw, dict):
        return None, [f"backend must be an object such as {{\"kind\": \"ollama\", \"model\": ...}}, got "
                      f"{type(raw).__name__}; using the in-process model"]
    if not raw:
        return None, []
    problems: list[str] = []
    kind = raw.get("kind")
    if kind is None:
        return None, [f"backend.kind is missing (expected one of {', '.join(KINDS)}); using the in-process model"]
    if not isinstance(kind, str) or kind.strip().lower() not in KINDS:
        shown = repr(kind) if isinstance(kind, str) and len(kind) <= 40 else "that value"
        return None, [f"backend.kind={shown} is invalid (expected one of {', '.join(KINDS)}); using the "
                      "in-process model"]
    kind = kind.strip().lower()
    values: dict[str, Any] = {"kind": kind}
    key_named = False       # apiKeyEnv given (even null or malformed): the kind's default variable is not used
    for key, value in raw.items():
        name = _snake(str(key))
        if name == "kind":
            continue
        if name == "api_key_env":
            key_named = True
            if value is None or (isinstance(value, str) and not value.strip()):
                values[name] = None
            elif isinstance(value, str) and ENV_NAME.match(value.strip()):
                values[name] = value.strip()
            else:   # never echoed: users paste the key itself here
                problems.append("backend.apiKeyEnv must be the NAME of an environment variable (letters, digits "
                                "and _), not the key itself; no key is sent")
            continue
        if name in ("api_key", "key", "token", "api_token", "auth_token"):
            problems.append(f"backend.{key} is not read: put the key in an environment variable and name it "
                            "in backend.apiKeyEnv (settings files are often shared; the key must not be in one)")
            continue
        check = _FIELDS.get(name)
        if check is None:
            problems.append(f"backend.{key} is unknown; ignored")
            continue
        try:
            values[name] = check(value)
        except ValueError as e:
            shown = repr(value) if isinstance(value, (int, float, bool)) or (isinstance(value, str) and len(value) <= 40) \
                else "its value"
            problems.append(f"backend.{_camel(name)}={shown} is invalid ({e}); using the default {_DEFAULT[name]!r}")
    cfg = replace(BackendConfig(), **values)
    if kind == "local":
        return cfg, problems
    url, model, key_env = KIND_DEFAULTS[kind]
    cfg = replace(cfg, url=cfg.url or url, model=cfg.model or model,
                  api_key_env=cfg.api_key_env if key_named else key_env)
    fatal = _fatal(cfg)
    if fatal:
        return None, problems + [f"backend {kind}: {fatal}; using the in-process model"]
    return cfg, problems


def _fatal(cfg: BackendConfig) -> str | None:
    """Why this backend cannot work at all, or None."""
    if not cfg.url:
        return "needs a url (the server's base URL, e.g. http://127.0.0.1:8000/v1)"
    try:
        p = urlsplit(cfg.url)
        p.port   # noqa: B018 - raises on a bad port
    except ValueError:
        return "the url cannot be read"
    if p.scheme not in ("http", "https") or not p.hostname:
        return "the url must start with http:// or https:// and name a host"
    if p.username or p.password:
        return "the url must not carry user:password (name an environment variable in apiKeyEnv instead)"
    if p.scheme == "http" and not is_loopback_host(p.hostname) and not cfg.allow_insecure:
        return (f"plain http to {p.hostname}, which is not a loopback address, is refused (the code and the "
                "key would travel unencrypted); use https, or set allowInsecure: true")
    if cfg.kind in NEEDS_MODEL and not cfg.model:
        return "needs a model (the name the server knows it by)"
    if cfg.kind == "openai-completions" and not cfg.template and not cfg.send_suffix:
        return ("needs a template (qwen, starcoder, deepseek, codellama, codestral, or a string with {prefix} "
                "and {suffix}) or sendSuffix: true (the server builds the prompt)")
    return None


def from_flags(kind: str | None, url: str | None = None, model: str | None = None, api_key_env: str | None = None,
               timeout_ms: int | None = None, template: str | None = None, send_suffix: bool = False,
               fallback: str | None = None, allow_insecure: bool = False) -> tuple[BackendConfig | None, list[str]]:
    """The `--backend*` command-line flags as a backend (None when --backend is not given)."""
    if kind is None:
        return None, []
    raw: dict[str, Any] = {"kind": kind}
    for k, v in (("url", url), ("model", model), ("apiKeyEnv", api_key_env), ("timeoutMs", timeout_ms),
                 ("template", template), ("fallback", fallback)):
        if v is not None:
            raw[k] = v
    if send_suffix:
        raw["sendSuffix"] = True
    if allow_insecure:
        raw["allowInsecure"] = True
    return parse_backend(raw)


def add_flags(ap: Any) -> None:
    """`--backend*` flags on an argparse parser (redraft serve, redraft complete)."""
    g = ap.add_argument_group("remote model backend (see the README's `backend` setting)")
    g.add_argument("--backend", choices=KINDS, default=None, metavar="KIND",
                   help=f"which model answers: {', '.join(KINDS)} (default local: the in-process model)")
    g.add_argument("--backend-url", metavar="URL", help="the backend's base URL (e.g. http://127.0.0.1:8000/v1)")
    g.add_argument("--backend-model", metavar="NAME", help="the model name the backend knows")
    g.add_argument("--backend-api-key-env", metavar="VAR",
                   help="the environment variable that holds the API key (never the key itself)")
    g.add_argument("--backend-timeout-ms", type=int, metavar="MS", help="one request's limit (default 4000)")
    g.add_argument("--backend-template", metavar="T",
                   help="FIM prompt: qwen, starcoder, deepseek, codellama, codestral or a string with {prefix} {suffix}")
    g.add_argument("--backend-send-suffix", action="store_true", help="openai-completions: send `suffix` instead")
    g.add_argument("--backend-fallback", choices=FALLBACKS, help="local: the in-process model answers on failure")
    g.add_argument("--backend-allow-insecure", action="store_true",
                   help="allow plain http to a host that is not loopback")


def flags_of(a: Any) -> tuple[BackendConfig | None, list[str]]:
    return from_flags(a.backend, a.backend_url, a.backend_model, a.backend_api_key_env, a.backend_timeout_ms,
                      a.backend_template, a.backend_send_suffix, a.backend_fallback, a.backend_allow_insecure)
