"""Load on one `redraft serve --http`: 1, 4, 8 and 16 concurrent simulated typists (issue 46).

    .venv/bin/python bench/serve_load.py [--clients 1,4,8,16] [--seconds 30] [--repeats 3]
                                         [--max-batch N] [--max-queue 16] [--compare] [--baseline DIR]

Each typist retypes lines of its own file (a different standard-library module per typist), one
character at a time: every keystroke sends POST /v1/fim/completions with the text before the cursor
(the last 120 lines) and after it (the next 40 lines), and abandons the request still in flight
from the keystroke before by closing its connection, as an editor does.  Keystrokes come
`--gap-ms` apart (a log-normal spread around it, 40 ms at least), with a `--pause-ms` pause at the
end of each line.  Each request has exactly one outcome: answered (200, latency from its first
byte sent to the last received), abandoned (the typist closed it), refused (429, counted, with its
Retry-After), or lost (anything else: an error status, a reset, a timeout); `lost` and
`answered twice` must stay 0.  Throughput = answered completions per second.  Requests carry `language` (redraft's field) unless
`--language ''`: without it the server guesses the language with five parsers, on the CPU the
model needs (about 120 ms a request on the shared 2-core machine, November 2026).  The server's own
counters (/v1/redraft/stats) give the batch sizes its passes reached.

--closed: each typist waits for a keystroke's answer before the next (`--gap-ms` after it was sent
at the earliest): nothing is abandoned, and the answered rate at N typists is the server's capacity.

--compare runs every client count against the one-at-a-time runner too
(REDRAFT_HTTP_MAX_BATCH=1), in the same session, alternating, so that both see the same machine.
--baseline DIR does the same with a batched server run from another checkout (e.g. `git worktree
add /tmp/wt HEAD`): before/after figures of a change, alternating run by run.  --ray N adds N Ray
Serve replicas of this checkout (redraft.http.ray_app) behind Ray's proxy, alternating too.

The server's own counters include `typed_through` (answers that were the rest of an earlier
answer, no model work: http/follow.py), `followed` and `kept`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
FILES = ["textwrap", "difflib", "argparse", "shlex", "csv", "calendar", "fractions", "heapq", "bisect",
         "dataclasses", "glob", "fnmatch", "statistics", "string", "tempfile", "configparser"]
# --split heldout: other modules and other seeds (typing streams the server's settings were not tuned on)
FILES_HELDOUT = ["pprint", "queue", "sched", "gettext", "ipaddress", "locale", "random", "selectors",
                 "socketserver", "threading", "tokenize", "traceback", "uuid", "enum", "zipfile", "ftplib"]
HELDOUT_SEED = 1000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# runs `redraft` from another checkout (--baseline): checkout.use points the editable install at it
_FROM = (f"import sys, runpy; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import checkout; "
         "checkout.use(sys.argv.pop(1)); sys.argv[0] = 'redraft'; runpy.run_module('redraft', run_name='__main__')")


def start_server(max_batch: int | str, max_queue: int, threads: int = 0,
                 checkout: Path | None = None, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str, int]:
    port = free_port()
    env = dict(os.environ)
    if max_batch != "default":          # else the server's own (2 on a CPU since session 31, 8 before)
        env["REDRAFT_HTTP_MAX_BATCH"] = str(max_batch)
    if threads:
        env["REDRAFT_HTTP_THREADS"] = str(threads)
    head = [sys.executable, "-m", "redraft"] if checkout is None else [sys.executable, "-c", _FROM, str(checkout)]
    proc = subprocess.Popen([*head, "serve", "--http", f"127.0.0.1:{port}",
                             "--max-queue", str(max_queue), *extra], cwd=checkout or ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited {proc.returncode}")
        try:
            httpx.get(f"{base}/v1/models", timeout=1)
            return proc, base, port
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


def start_ray(replicas: int, max_queue: int) -> tuple[None, str, int]:
    """`replicas` Ray Serve replicas behind Ray's HTTP proxy, on a local Ray instance of this
    machine's cores.  Their counters are per replica (whichever answers /v1/redraft/stats), so
    the server columns are left out for them."""
    from redraft.http import ray_app
    port = free_port()
    base = ray_app.start(port, address="local", replicas=replicas, num_cpus=1, max_queue=max_queue,
                         ray_init={"num_cpus": os.cpu_count(), "include_dashboard": False, "log_to_driver": False,
                                   "object_store_memory": 200 * 1024 * 1024, "logging_level": "WARNING"})
    return None, base, port


def stop_server(proc: subprocess.Popen | None) -> None:
    if proc is None:
        return
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def lines_to_type(name: str) -> tuple[list[str], list[int]]:
    import importlib
    lines = Path(importlib.import_module(name).__file__).read_text().split("\n")
    picks = [i for i, l in enumerate(lines) if l.startswith("    ") and 12 <= len(l.strip()) <= 70
             and not l.strip().startswith(("#", '"', "'"))]
    return lines, picks


class Typist:
    def __init__(self, k: int, port: int, args, rng: random.Random, out: dict) -> None:
        self.k, self.port, self.args, self.rng, self.out = k, port, args, rng, out
        files = FILES_HELDOUT if getattr(args, "split", "dev") == "heldout" else FILES
        self.lines, self.picks = lines_to_type(files[k % len(files)])
        self.rng.shuffle(self.picks)

    def keystrokes(self):
        for i in self.picks:
            line = self.lines[i]
            indent = len(line) - len(line.lstrip())
            for c in range(indent + 1, len(line) + 1):
                before = self.lines[max(0, i - 120):i] + [line[:c]]
                after = [""] + self.lines[i + 1:i + 41]
                yield "\n".join(before), "\n".join(after), c == len(line)

    def gap(self) -> float:
        return max(0.04, self.rng.lognormvariate(0.0, 0.35) * self.args.gap_ms / 1000)

    async def run(self, until: float) -> None:
        inflight: asyncio.Task | None = None
        for prefix, suffix, end_of_line in self.keystrokes():
            if time.monotonic() >= until:
                break
            if inflight is not None and not inflight.done():
                inflight.cancel()                 # the editor abandons it: its connection closes
            inflight = asyncio.ensure_future(self.request(prefix, suffix))
            pause = self.gap() + (self.args.pause_ms / 1000 if end_of_line else 0)
            if self.args.closed:      # the next keystroke waits for this one's answer (no abandoning)
                t0 = time.monotonic()
                await inflight
                pause = max(0.0, pause - (time.monotonic() - t0))
            await asyncio.sleep(pause)
        if inflight is not None and not inflight.done():
            await asyncio.wait({inflight}, timeout=30)   # the last keystroke's answer is awaited
            if not inflight.done():
                inflight.cancel()

    async def request(self, prefix: str, suffix: str) -> None:
        req = {"model": "redraft", "prompt": prefix, "suffix": suffix, "max_tokens": 32}
        if self.args.language:
            req["language"] = self.args.language
        body = json.dumps(req).encode()
        head = (f"POST /v1/fim/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        o = self.out
        o["sent"] += 1
        writer = None
        t0 = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            writer.write(head + body)
            await writer.drain()
            raw = await asyncio.wait_for(reader.read(), timeout=60)
            dt = time.monotonic() - t0
            status = int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/") else 0
            if status == 200:
                text = json.loads(raw.split(b"\r\n\r\n", 1)[1])["choices"][0]["text"]
                o["answered"] += 1
                o["latency"].append(dt)
                o["nonempty"] += bool(text.strip())
            elif status == 429:
                o["refused"] += 1
                o["retry_after"] += b"\r\nretry-after:" in raw.lower()
            else:
                o["lost"] += 1
                o["errors"].append(status)
        except asyncio.CancelledError:
            o["abandoned"] += 1
        except (OSError, asyncio.TimeoutError, ValueError, KeyError) as e:
            o["lost"] += 1
            o["errors"].append(type(e).__name__)
        finally:
            if writer is not None:
                writer.close()


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


async def load(port: int, clients: int, seconds: float, args, seed: int) -> dict:
    out = {"sent": 0, "answered": 0, "abandoned": 0, "refused": 0, "retry_after": 0, "lost": 0,
           "nonempty": 0, "latency": [], "errors": []}
    typists = [Typist(k, port, args, random.Random(seed * 100 + k), out) for k in range(clients)]
    t0 = time.monotonic()
    await asyncio.gather(*[t.run(t0 + seconds) for t in typists])
    out["wall_s"] = time.monotonic() - t0
    return out


def one_run(base: str, port: int, clients: int, args, seed: int, counters: bool = True) -> dict:
    stats = (lambda: httpx.get(f"{base}/v1/redraft/stats").json()) if counters else dict  # noqa: E731
    before = stats()
    out = asyncio.run(load(port, clients, args.seconds, args, seed))
    deadline = time.time() + 30
    while stats().get("pending") and time.time() < deadline:
        time.sleep(0.1)
    after = stats()
    sizes_b, sizes_a = before.get("batch_sizes", {}), after.get("batch_sizes", {})
    sizes = {int(k): v - sizes_b.get(k, 0) for k, v in sizes_a.items() if v - sizes_b.get(k, 0)}
    lat = out.pop("latency")
    passes = sum(sizes.values())
    res = {"clients": clients, **{k: v for k, v in out.items() if k != "errors"},
           "errors": sorted(set(map(str, out["errors"])))[:5],
           "throughput": out["answered"] / args.seconds,
           "p50_ms": 1000 * pct(lat, 0.5), "p95_ms": 1000 * pct(lat, 0.95),
           "server": {k: after.get(k, 0) - before.get(k, 0) for k in
                      ("requests", "completed", "abandoned", "refused_busy", "cancelled", "skipped", "dropped_calls",
                       "batched_rows", "pass_seconds", "typed_through", "followed", "kept")},
           "mean_batch": (sum(k * v for k, v in sizes.items()) / passes) if passes else None,
           "batch_max": max(sizes) if sizes else None,
           "batch_sizes": dict(sorted(sizes.items()))}
    # every request one outcome; the server saw each admitted request once
    res["unaccounted"] = out["sent"] - out["answered"] - out["abandoned"] - out["refused"] - out["lost"]
    return res


def warm(base: str) -> None:
    for _ in range(3):
        httpx.post(f"{base}/v1/fim/completions", timeout=60,
                   json={"model": "redraft", "prompt": "def f(x):\n    return x", "suffix": "\n"})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", default="1,4,8,16")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-batch", default="default",
                    help="the batched servers' max batch (default: each server's own default)")
    ap.add_argument("--max-queue", type=int, default=16)
    ap.add_argument("--gap-ms", type=float, default=90)
    ap.add_argument("--pause-ms", type=float, default=600)
    ap.add_argument("--language", default="python",
                    help="the request's `language` (redraft's field; '' sends none: the server guesses it)")
    ap.add_argument("--threads", type=int, default=0,
                    help="the server's torch threads (REDRAFT_HTTP_THREADS; 0: its default, every core up to 4)")
    ap.add_argument("--closed", action="store_true",
                    help="closed loop: each keystroke waits for the last one's answer (server capacity; nothing abandoned)")
    ap.add_argument("--compare", action="store_true", help="also the one-at-a-time runner (max batch 1)")
    ap.add_argument("--baseline", type=Path,
                    help="also a batched server run from this checkout (e.g. a git worktree of the last commit), "
                         "alternating with this one: before/after in the same session")
    ap.add_argument("--gate", default=None, metavar="auto|always|P",
                    help="this checkout's servers run with `--gate` (withheld completions are empty answers, "
                         "counted as answered); the --baseline server keeps its own default")
    ap.add_argument("--ray", type=int, default=0, metavar="N",
                    help="also N Ray Serve replicas of this checkout's app (redraft.http.ray_app, one CPU and one "
                         "torch thread each) on a local Ray instance, alternating with the others")
    ap.add_argument("--split", choices=("dev", "heldout"), default="dev",
                    help="heldout: typists retype other standard-library modules with other seeds (run once, at the end)")
    ap.add_argument("--json", type=Path, help="every run's record, one JSON object a line")
    args = ap.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    kinds: list = [args.max_batch, 1] if args.compare else [args.max_batch]
    extra = ("--gate", args.gate) if args.gate else ()
    servers = {mb: start_server(mb, args.max_queue, args.threads, extra=extra) for mb in kinds}
    if args.baseline:
        kinds.append("base")
        servers["base"] = start_server(args.max_batch, args.max_queue, args.threads, args.baseline.resolve())
    if args.ray:
        kinds.append(f"ray-{args.ray}")
        servers[f"ray-{args.ray}"] = start_ray(args.ray, args.max_queue)
    runs: list[dict] = []
    try:
        for mb, (_, base, _) in servers.items():
            warm(base)
        for rep in range(args.repeats):
            for c in counts:
                for mb, (_, base, port) in servers.items():
                    r = {"max_batch": mb, "repeat": rep,
                         **one_run(base, port, c, args, seed=rep + (HELDOUT_SEED if args.split == "heldout" else 0), counters=not str(mb).startswith("ray"))}
                    runs.append(r)
                    print(json.dumps(r), flush=True)
                    if args.json:
                        with args.json.open("a") as f:
                            f.write(json.dumps(r) + "\n")
    finally:
        for proc, _, _ in servers.values():
            stop_server(proc)
        if args.ray:
            from redraft.http import ray_app
            ray_app.stop()
    print(f"\n{args.seconds:g} s per run, median of {args.repeats}; keystrokes {args.gap_ms:g} ms apart, "
          f"{args.pause_ms:g} ms at line ends{' (closed loop)' if args.closed else ''}; max queue {args.max_queue}")
    print("| max batch | clients | answered/s | x one client | p50 ms | p95 ms | sent | abandoned | 429 (all runs) | lost (all runs) | mean batch | max batch | typed through |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for mb in kinds:
        one = None
        for c in counts:
            rs = [r for r in runs if r["max_batch"] == mb and r["clients"] == c]
            med = lambda k: statistics.median(r[k] for r in rs if r[k] is not None) if any(r[k] is not None for r in rs) else float("nan")  # noqa: E731
            thr = med("throughput")
            one = thr if c == counts[0] else one
            print(f"| {mb} | {c} | {thr:.1f} | {thr / one:.2f} | {med('p50_ms'):.0f} | {med('p95_ms'):.0f} | "
                  f"{med('sent'):.0f} | {med('abandoned'):.0f} | {sum(r['refused'] for r in rs)} | "
                  f"{sum(r['lost'] for r in rs)} | {med('mean_batch'):.2f} | "
                  f"{max((r['batch_max'] or 0) for r in rs)} | "
                  f"{statistics.median(r['server'].get('typed_through', 0) for r in rs):.0f} |")


if __name__ == "__main__":
    main()
