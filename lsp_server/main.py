"""`redraft` console script (and `python -m redraft`): names every subcommand and hands it to the
part that owns it. This is the one module above the front doors: it may start the language server
(redraft.lsp), the HTTP API (redraft.http) or both on one engine, the CI bot (redraft.ci), the
one-shot commands (redraft.cli), the evaluation harnesses (redraft.evals) and training
(redraft.model.train); nothing imports it. Each part is imported only when its command runs, so
`redraft next-edit` never pays for the HTTP stack or torch it does not use."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from redraft.engine.settings import EFFORT_NAMES

USAGE = """usage: redraft COMMAND [ARGS]

commands:
  serve      run the language server (stdio; --tcp HOST:PORT; --http HOST:PORT for the HTTP API)
  complete   FILE LINE COL: print one completion (LINE and COL are 1-based; COL counts characters)
  apply      FILE SNIPPET: apply a lazy edit snippet (`# ... existing code ...`) (redraft apply --help)
  next-edit  FILE --line L --col C [--history DIFF]: print the predicted next edit as JSON
             (LINE and COL are 0-based; COL counts characters) (redraft next-edit --help)
  ci         the CI refactor bot: propagate --base REF | apply FILE=SNIPPET... (redraft ci --help)
  train      train or fine-tune the model (redraft train --help)
  eval       evaluation: humaneval-infill (redraft eval humaneval-infill --help), heldout,
             dev-lines (exact match on held-out functions' lines)
  demo       run the shipped model on a sample file and print completions with latency
  keys       the HTTP API's per-user keys: add NAME [--rate R] [--burst B] | revoke NAME | list
  average    OUT CKPT CKPT...: write the (weighted) mean of checkpoints of one architecture to OUT
             (--store int8: matrices in int8, half the size)
"""



def _host_port(value: str) -> tuple[str, int]:
    host, _, port = value.rpartition(":")
    try:
        return host or "127.0.0.1", int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}") from None


def serve(argv: list[str]) -> int:
    """`redraft serve`: the language server (redraft.lsp), the HTTP API (redraft.http), or the HTTP
    API beside the language server on its engine (`--stdio --http`)."""
    ap = argparse.ArgumentParser(prog="redraft serve", description="Run the redraft language server.")
    ap.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    ap.add_argument("--tcp", type=_host_port, metavar="HOST:PORT", help="listen on a TCP socket instead")
    ap.add_argument("--model", metavar="DIR", help="checkpoint directory (default: the shipped model; "
                    "the modelDir setting overrides it)")
    ap.add_argument("--effort", choices=EFFORT_NAMES, help="default effort (the effort setting overrides it)")
    ap.add_argument("--log-level", default="WARNING", help="stderr log level (default WARNING)")
    ap.add_argument("--http", type=_host_port, metavar="HOST:PORT",
                    help="serve the OpenAI/Mercury-compatible HTTP API (lsp_server/http); alone, or with "
                    "--stdio beside the language server on the same engine")
    ap.add_argument("--api-key", help="HTTP: the bearer key every request must send (or REDRAFT_API_KEY); "
                    "required on an address that is not loopback")
    ap.add_argument("--max-queue", type=int, default=16, help="HTTP: requests that may wait for the model (then 429)")
    ap.add_argument("--log-requests", action="store_true", help="HTTP: a JSON-lines access log on stderr (never bodies)")
    ap.add_argument("--request-timeout", type=float, default=10.0, metavar="S",
                    help="HTTP: seconds a request may take to arrive, header and body (then 408 and closed)")
    ap.add_argument("--keys-file", metavar="PATH",
                    help="HTTP: per-user API keys (`redraft keys add NAME`); re-read when it changes")
    ap.add_argument("--rate-limit", type=float, default=0.0, metavar="R",
                    help="HTTP: requests a second per key (or client, without keys); 0: no limit")
    ap.add_argument("--rate-burst", type=float, default=0.0, metavar="B",
                    help="HTTP: requests a key may make at once (default max(1, R))")
    ap.add_argument("--access-log", metavar="PATH", help="HTTP: JSON-lines access log (route, status, ms, key name; "
                    "never code), PATH or -")
    ap.add_argument("--log-bodies", action="store_true", help="HTTP: add request bodies (code) to the access log")
    ap.add_argument("--shutdown-timeout", type=float, default=20.0, metavar="S",
                    help="HTTP: seconds in-flight requests get to finish on SIGTERM")
    ap.add_argument("--max-batch", type=int, default=None, metavar="N",
                    help="HTTP: requests whose denoising steps share the model's passes (default 2 on a CPU, "
                         "8 on a GPU; 1: one at a time)")
    ap.add_argument("--threads", type=int, default=0, metavar="N",
                    help="HTTP: torch threads (default: 1 when batching, else every core up to 4)")
    ap.add_argument("--workspace", metavar="DIR",
                    help="HTTP: the project whose lines completions get as candidates, indexed in the background "
                         "(the language server indexes its editor's workspace folder)")
    ap.add_argument("--gate", default="always", metavar="auto|always|P",
                    help="HTTP: withhold (answer empty) a completion less likely right than P, as the language "
                         "server's `gate` setting (default always: every draft; a request's `gate` field overrides)")
    from redraft.engine.backends.config import add_flags, flags_of
    add_flags(ap)       # --backend KIND --backend-url ...: the default for the `backend` setting
    a = ap.parse_args(argv)
    backend, problems = flags_of(a)
    for p in problems:
        print(f"redraft serve: --backend: {p}", file=sys.stderr)
    if problems:           # a flag the backend cannot use: say so and stop, rather than guess
        return 2
    from redraft.engine.settings import gate_value
    try:
        gate = gate_value(a.gate)
    except ValueError as e:
        print(f"redraft serve: --gate {a.gate}: {e}", file=sys.stderr)
        return 2
    if a.workspace is not None and not Path(a.workspace).is_dir():
        print(f"redraft serve: --workspace {a.workspace}: not a directory", file=sys.stderr)
        return 2
    ops = {"keys_file": a.keys_file, "rate_limit": a.rate_limit, "rate_burst": a.rate_burst,
           "access_log": a.access_log, "log_bodies": a.log_bodies}
    if a.http and not a.stdio:
        from redraft.http.serve import serve_http
        return serve_http(*a.http, model_dir=a.model, api_key=a.api_key, effort=a.effort,
                          max_queue=a.max_queue, log_requests=a.log_requests, request_timeout=a.request_timeout,
                          shutdown_timeout=a.shutdown_timeout, backend=backend, max_batch=a.max_batch,
                          threads=a.threads, workspace=a.workspace, gate=gate, **ops)
    from redraft.lsp import server

    def beside() -> None:       # --stdio --http: the HTTP API beside the language server, one engine
        from redraft.http.serve import serve_beside
        serve_beside(*a.http, server.shared_engine, api_key=a.api_key, effort=a.effort,
                     max_queue=a.max_queue, log_requests=a.log_requests, request_timeout=a.request_timeout, **ops)
    return server.run(model_dir=a.model, effort=a.effort, log_level=a.log_level, tcp=a.tcp,
                      beside=beside if a.http else None, backend=backend)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "serve":
        return serve(rest) or 0
    if cmd == "complete":
        from redraft.cli.complete import main as complete_main
        return complete_main(rest)
    if cmd == "apply":
        from redraft.cli.apply import main as apply_main
        return apply_main(rest)
    if cmd == "next-edit":
        from redraft.cli.next_edit import main as next_edit_main
        return next_edit_main(rest)
    if cmd == "keys":
        from redraft.http.keys import main as keys_main
        return keys_main(rest)
    if cmd == "average":
        from redraft.cli.average import main as average_main
        return average_main(rest)
    if cmd == "demo":
        from redraft.lsp.demo import main as demo_main
        return demo_main(rest)
    if cmd == "ci":
        from redraft.ci.main import main as ci_main
        return ci_main(rest)
    if cmd == "train":
        from redraft.model.train import main as train_main
        train_main(rest)
        return 0
    if cmd == "eval" and rest[:1] == ["heldout"]:
        from redraft.model.train import main_heldout
        return main_heldout(rest[1:])
    if cmd == "eval" and rest[:1] == ["dev-lines"]:
        from redraft.evals.devlines import main as dev_main
        return dev_main(rest[1:])
    if cmd == "eval":
        from redraft.evals.evaluate import main as eval_main
        return eval_main(rest) or 0
    print(f"redraft: unknown command {cmd!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
