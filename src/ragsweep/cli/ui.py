"""`ragsweep ui [SWEEP]`: the MLflow UI on this project's tracking store, on 127.0.0.1 by default,
and the link to open once it answers: the view of `SWEEP`'s latest launch, or of the latest
launch of any sweep in the store (`experiment.landing`).

The server is MLflow's with one worker and without its background job runner or telemetry
(`server_env`): 2 processes and 0.5 GiB instead of 15 and 2.4-3.1 GiB, ready in under half
the time (docs/benchmarks.md, "ragsweep ui"); `--workers N` and `--jobs` restore MLflow's.
A folder with no store is refused in one line (an empty store would be created otherwise), and
so is a port another server holds (its pages would show another store). Stopping `ragsweep ui`
(Ctrl-C, SIGTERM) stops the whole server process tree: the server runs in its own process
group, which is what gets the signal (`ragsweep.experiment.lifecycle`).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from multiprocessing.pool import Pool

from ragsweep.cli.parser import Parser
from ragsweep.errors import UserError
from ragsweep.experiment import landing, tracking
from ragsweep.experiment.lifecycle import answers, port_free, signal_group, stop_group
from ragsweep.secrets import mask_text

#: MLflow's switches for its background job runner (a huey consumer and its workers) and its
#: telemetry; `server_env` sets them unless the environment already does
JOBS, TELEMETRY = "MLFLOW_SERVER_ENABLE_JOB_EXECUTION", "MLFLOW_DISABLE_TELEMETRY"
#: seconds between two asks of the server's /health while it starts
POLL = 0.25


def build_command(store: tracking.Store, host: str, port: int, workers: int = 1) -> list[str]:
    """The `mlflow server` command line for `store` (a function so tests can check it)."""
    cmd = [
        sys.executable,
        "-m",
        "mlflow",
        "server",
        "--backend-store-uri",
        store.uri,
        "--host",
        host,
        "--port",
        str(port),
        "--workers",
        str(workers),
    ]
    if store.artifact_root is not None:
        cmd += ["--default-artifact-root", store.artifact_root]
    return cmd


def server_env(jobs: bool, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The server's environment: `environ` with MLflow's job runner off unless `jobs` (nothing
    a ragsweep user opens needs it) and its telemetry off; a value the user set is kept."""
    env = dict(environ)
    if jobs:
        env[JOBS] = "true"
    env.setdefault(JOBS, "false")
    env.setdefault(TELEMETRY, "true")
    return env


def port_number(text: str) -> int:
    """`--port` checked by argparse: a TCP port, 1 to 65535 (one line and exit 2 otherwise)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: give one from 1 to 65535")
    return port


def link_host(host: str) -> str:
    """The host a browser on this machine opens for a server bound to `host`."""
    if host in ("0.0.0.0", "::", ""):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def parse(argv: list[str]) -> argparse.Namespace:
    parser = Parser(
        prog="ragsweep ui",
        description="Serve the MLflow UI for the tracking store (default: ./mlruns/mlflow.db) "
        "and print the link of a sweep's latest launch once it answers.",
    )
    parser.add_argument(
        "sweep",
        nargs="?",
        metavar="SWEEP",
        help="a sweep name or a parent run id: link its latest launch (default: the latest "
        "launch of any sweep in the store)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=port_number, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--uri",
        default=None,
        help="tracking URI (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )
    parser.add_argument(
        "--workers",
        type=positive,
        default=1,
        help="server worker processes (default 1; MLflow's own default is 4, for many users)",
    )
    parser.add_argument(
        "--jobs",
        action="store_true",
        help="run MLflow's background job runner too (off by default: 6 processes, none of "
        "which a sweep's pages need)",
    )
    return parser.parse_args(argv)


#: the signals the link finder starts with blocked, until `_finder_signals` has set its own
FINDER_BLOCKED = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def _finder_signals() -> None:
    """In the link finder (a forked process): ignore Ctrl-C, and die at once on SIGTERM, which
    `Pool.terminate` sends. It inherits this process's stop handler (`errors.stop_signals`),
    which would raise and run multiprocessing's exit cleanup, and that cleanup waits for the
    queue lock `terminate` holds: the finder never ended and `ui` hung on its way out. Until
    this runs the signals are blocked (`link_finder`), then any that came meanwhile act."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FINDER_BLOCKED)


def link_finder(initializer: Callable[[], None] = _finder_signals) -> Pool:
    """The one forked process that finds the link while the server starts. It is forked with the
    stop signals blocked: a SIGTERM (`Pool.terminate` right after it starts, when the server
    exits at once) or a Ctrl-C reaching it before `initializer` set its handlers would raise in
    the copy of this process's stack it starts from, and that copy would carry on as a second
    `ragsweep ui` (seen once in the test suite, exit 143)."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, FINDER_BLOCKED)
    try:
        return multiprocessing.get_context("fork").Pool(1, initializer=initializer)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def main(argv: list[str]) -> int:
    args = parse(argv)
    if not port_free(args.host, args.port):
        raise UserError(
            f"port {args.port} on {args.host} is in use (another MLflow UI, or another server): "
            "its pages would not show this store; stop it or pick another with --port"
        )
    store = tracking.resolve_store(args.uri)
    if tracking.is_server(store.uri):
        tracking.reach(store)  # one line when nothing answers there
        raise UserError(
            f"{mask_text(store.uri)} is a tracking server, which serves its own UI: open it in "
            "a browser (`ragsweep ui` serves a store of files or a database)"
        )
    missing = tracking.missing_store(store)
    if missing is not None:
        raise UserError(
            f"no MLflow store at {missing}: run a sweep in this folder first (`ragsweep -m "
            "sweep=chunk_size`), or give the store with --uri sqlite:///PATH"
        )
    host = link_host(args.host)
    base = f"http://{host}:{args.port}"
    print(f"MLflow UI for {mask_text(store.uri)} at {base} (Ctrl-C stops it)", flush=True)
    # while the server starts, a process forked from this one finds the link: MLflow and the
    # report code it imports (~170 MB) are not kept for the server's life. It ignores Ctrl-C
    # (`finally` stops it); forked, not spawned: no helper process outlives it
    finder = link_finder()
    found = finder.apply_async(landing.landing, (store, args.sweep, host, args.port))
    # its own process group, so stopping it stops the workers the server starts as well
    proc = subprocess.Popen(
        build_command(store, args.host, args.port, args.workers),
        env=server_env(args.jobs),
        start_new_session=True,
    )
    # the handler only signals (waiting on `proc` from inside it would deadlock with the wait
    # below); that wait returns when the server is gone, and `stop_group` makes sure it is
    asked: list[int] = []

    def on_term(signum: int, _frame: object) -> None:
        asked.append(signum)
        signal_group(proc, signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        ready = False
        while proc.poll() is None and not (ready and found.ready()):
            if found.ready() and not found.successful():
                found.get()  # an unknown SWEEP: its UserError, at once
            ready = ready or answers(f"{base}/health")
            if ready:
                found.wait(POLL)
            else:
                time.sleep(POLL)
        if proc.poll() is None:
            page = found.get()
            finder.terminate()
            print(f"ready: {page.what} at {page.url}", flush=True)
        code = proc.wait()
        return 0 if asked else code
    except KeyboardInterrupt:
        return 0
    finally:
        finder.terminate()
        stop_group(proc)
        signal.signal(signal.SIGTERM, previous)
