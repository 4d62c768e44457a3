"""Per-user API keys for the HTTP API: a keys file, the server's view of it, per-key rate limits.

The keys file is JSON, `{"keys": [{"name", "sha256", "created", "rate"?, "burst"?}, ...]}`: only a
SHA-256 of each key is stored (a key is 32 random bytes, so a fast hash is enough: nothing to
guess), the file is written whole to a temporary file and renamed over the old one, mode 0600.

    redraft keys add NAME [--rate R] [--burst B]   prints the new key once; only its hash is kept
    redraft keys revoke NAME
    redraft keys list                              names, dates and limits, never a key or a hash
(`--file PATH`, default $REDRAFT_KEYS_FILE or ~/.config/redraft/keys.json; also `python -m
redraft.http.keys ...`).

The server (`KeyStore`) looks at the file's identity (inode, size, mtime) on every request and
reads it again when it changed, so a revoked key is refused from the next request on.  A file that
is missing or unreadable while serving refuses every key (fail closed) until it is readable again.
`RateLimits` is a token bucket per key name: `rate` requests a second, `burst` at once.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

KEYS_FILE_ENV = "REDRAFT_KEYS_FILE"
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
KEY_PREFIX = "rdk-"
MAX_BUCKETS = 4096              # rate-limit buckets kept before idle ones are forgotten
IDLE_S = 300.0                  # seconds after which a bucket has refilled under any sane limit


def default_path() -> Path:
    return Path(os.environ.get(KEYS_FILE_ENV) or Path.home() / ".config" / "redraft" / "keys.json")


def digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Key:
    name: str
    sha256: str
    created: str = ""
    rate: float | None = None       # requests a second; None: the server's default
    burst: float | None = None


class KeysFileError(Exception):
    """The keys file cannot be read or is not a keys file (one-line reason)."""


def read_keys(path: Path) -> list[Key]:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise KeysFileError(f"cannot read the keys file {path}: {e.strerror or e}") from None
    try:
        data = json.loads(raw or b'{"keys": []}')
    except (ValueError, UnicodeDecodeError) as e:
        raise KeysFileError(f"the keys file {path} is not JSON: {e}".split("\n")[0]) from None
    entries = data.get("keys") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise KeysFileError(f"the keys file {path} has no \"keys\" list")
    keys = []
    for i, e in enumerate(entries):
        ok = isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("sha256"), str) \
            and re.fullmatch(r"[0-9a-f]{64}", e["sha256"]) is not None
        for limit in ("rate", "burst"):
            v = e.get(limit) if isinstance(e, dict) else None
            ok = ok and (v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0))
        if not ok:
            raise KeysFileError(f"the keys file {path}: entry {i} needs a name, a sha256 (64 hex digits) "
                                "and positive numbers for rate/burst if given")
        keys.append(Key(e["name"], e["sha256"], str(e.get("created", "")), e.get("rate"), e.get("burst")))
    return keys


def write_keys(path: Path, keys: list[Key]) -> None:
    """The whole file, atomically (temporary file in the same folder, mode 0600, renamed over)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    entries = []
    for k in keys:
        e = {"name": k.name, "sha256": k.sha256, "created": k.created}
        e.update({n: v for n, v in (("rate", k.rate), ("burst", k.burst)) if v is not None})
        entries.append(e)
    fd, tmp = tempfile.mkstemp(prefix=".keys-", dir=path.parent)     # mkstemp creates it 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"keys": entries}, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class KeyStore:
    """The keys the server accepts: a keys file (re-read when it changes) and/or one plain key
    (`--api-key`, named "api-key")."""

    def __init__(self, path: str | Path | None = None, api_key: str | None = None) -> None:
        self.path = Path(path) if path else None
        self.plain = (digest(api_key), Key("api-key", digest(api_key))) if api_key else None
        self.keys: list[Key] = []
        self._seen: tuple | None = None
        self._lock = threading.Lock()
        self.error: str | None = None
        if self.path is not None:
            self.keys = read_keys(self.path)        # KeysFileError at start-up: the server refuses to start
            self._seen = self._identity()

    @property
    def enabled(self) -> bool:
        return self.path is not None or self.plain is not None

    def _identity(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def refresh(self) -> None:
        if self.path is None:
            return
        seen = self._identity()
        if seen == self._seen:
            return
        with self._lock:
            if seen == self._seen:
                return
            try:
                self.keys, self.error = read_keys(self.path), None
            except KeysFileError as e:
                self.keys, self.error = [], str(e)          # fail closed
                print(f"redraft serve: {e}; refusing every key from the file until it is fixed",
                      file=sys.stderr, flush=True)
            self._seen = seen

    def lookup(self, token: str) -> Key | None:
        """The key whose hash matches `token` (every stored hash is compared, in constant time)."""
        self.refresh()
        h = digest(token)
        found = None
        candidates = list(self.keys) + ([self.plain[1]] if self.plain else [])
        for k in candidates:
            if hmac.compare_digest(h, k.sha256) and found is None:
                found = k
        return found


class RateLimits:
    """A token bucket per key name; `take(name, rate, burst)` -> 0 when allowed, else the seconds
    until one request would be."""

    def __init__(self, rate: float = 0.0, burst: float = 0.0) -> None:
        self.rate, self.burst = rate, burst
        self.buckets: dict[str, tuple[float, float]] = {}      # name -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, name: str, rate: float | None = None, burst: float | None = None) -> float:
        rate = self.rate if rate is None else rate
        if not rate or rate <= 0:
            return 0.0
        burst = burst or self.burst or max(1.0, rate)
        now = time.monotonic()
        with self._lock:
            if len(self.buckets) > MAX_BUCKETS:       # forget buckets that have refilled (idle clients)
                self.buckets = {k: v for k, v in self.buckets.items() if now - v[1] < IDLE_S}
            tokens, at = self.buckets.get(name, (burst, now))
            tokens = min(burst, tokens + (now - at) * rate)
            if tokens >= 1.0:
                self.buckets[name] = (tokens - 1.0, now)
                return 0.0
            self.buckets[name] = (tokens, now)
            return (1.0 - tokens) / rate


def retry_after(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))


# ---------------------------------------------------------------------------- the command

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="redraft keys", description="Manage the HTTP API's per-user keys.")
    ap.add_argument("--file", type=Path, default=None, help=f"the keys file (default ${KEYS_FILE_ENV} or "
                    "~/.config/redraft/keys.json)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    add = sub.add_parser("add", help="make a key for NAME and print it (once)")
    add.add_argument("name")
    add.add_argument("--rate", type=float, help="requests a second this key may make (default: the server's)")
    add.add_argument("--burst", type=float, help="requests this key may make at once (default: the server's)")
    rev = sub.add_parser("revoke", help="remove NAME's key")
    rev.add_argument("name")
    sub.add_parser("list", help="the names, dates and limits (never the keys)")
    a = ap.parse_args(argv)
    path = a.file or default_path()
    try:
        keys = read_keys(path) if path.exists() else []
    except KeysFileError as e:
        print(f"redraft keys: {e}", file=sys.stderr)
        return 2
    if a.cmd == "list":
        if not keys:
            print(f"no keys in {path}")
        for k in keys:
            limits = "" if k.rate is None else f"  rate {k.rate:g}/s"
            limits += "" if k.burst is None else f" burst {k.burst:g}"
            print(f"{k.name}  created {k.created or '?'}{limits}")
        return 0
    if a.cmd == "revoke":
        if not any(k.name == a.name for k in keys):
            print(f"redraft keys: no key named {a.name!r} in {path}", file=sys.stderr)
            return 1
        write_keys(path, [k for k in keys if k.name != a.name])
        print(f"revoked {a.name}")
        return 0
    if not NAME_RE.match(a.name):
        print("redraft keys: a name is 1-64 letters, digits, '_', '.', '@' or '-' (starting with a letter "
              "or digit)", file=sys.stderr)
        return 2
    if any(k.name == a.name for k in keys):
        print(f"redraft keys: {a.name!r} already has a key (revoke it first)", file=sys.stderr)
        return 1
    for limit in ("rate", "burst"):
        v = getattr(a, limit)
        if v is not None and not (v > 0 and math.isfinite(v)):
            print(f"redraft keys: --{limit} must be a positive number", file=sys.stderr)
            return 2
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_keys(path, keys + [Key(a.name, digest(key), created, a.rate, a.burst)])
    print(key)
    print(f"(the key for {a.name}; it is not stored and cannot be shown again)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
