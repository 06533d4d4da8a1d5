"""`ragsweep ui`: the MLflow UI on this project's tracking store, on 127.0.0.1 by default.

A port another server holds is refused in one line (its pages would show another store), and
stopping `ragsweep ui` (Ctrl-C, SIGTERM) stops the whole server process tree: the server runs
in its own process group, which is what gets the signal.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys

from ragsweep.errors import UserError
from ragsweep.experiment import tracking
from ragsweep.secrets import mask_text


def build_command(store: tracking.Store, host: str, port: int) -> list[str]:
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
    ]
    if store.artifact_root is not None:
        cmd += ["--default-artifact-root", store.artifact_root]
    return cmd


def port_free(host: str, port: int) -> bool:
    """Whether `port` on `host` can be bound now (another server holds it otherwise)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """Stop the server and every process it started (gunicorn/uvicorn workers): SIGTERM to its
    process group, SIGKILL after `grace` seconds."""
    if proc.poll() is not None:
        return
    signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        signal_group(proc, signal.SIGKILL)
        proc.wait()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="ragsweep ui",
        description="Serve the MLflow UI for the tracking store (default: ./mlruns/mlflow.db).",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--uri",
        default=None,
        help="tracking URI (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )
    args = parser.parse_args(argv)
    if not port_free(args.host, args.port):
        raise UserError(
            f"port {args.port} on {args.host} is in use (another MLflow UI, or another server): "
            "its pages would not show this store; stop it or pick another with --port"
        )
    store = tracking.resolve_store(args.uri)
    tracking.client(store)  # creates the local store folder if it does not exist yet
    where = mask_text(store.uri)
    print(f"MLflow UI for {where} at http://{args.host}:{args.port} (Ctrl-C stops it)")
    # its own process group, so stopping it stops the workers the server starts as well
    proc = subprocess.Popen(build_command(store, args.host, args.port), start_new_session=True)
    # the handler only signals (waiting on `proc` from inside it would deadlock with the wait
    # below); that wait returns when the server is gone, and `stop_group` makes sure it is
    asked: list[int] = []

    def on_term(signum: int, _frame: object) -> None:
        asked.append(signum)
        signal_group(proc, signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        code = proc.wait()
        return 0 if asked else code
    except KeyboardInterrupt:
        return 0
    finally:
        stop_group(proc)
        signal.signal(signal.SIGTERM, previous)
