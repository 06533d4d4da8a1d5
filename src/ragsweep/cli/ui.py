"""`ragsweep ui`: the MLflow UI on this project's tracking store, on 127.0.0.1 by default."""

from __future__ import annotations

import argparse
import subprocess
import sys

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
    store = tracking.resolve_store(args.uri)
    tracking.client(store)  # creates the local store folder if it does not exist yet
    where = mask_text(store.uri)
    print(f"MLflow UI for {where} at http://{args.host}:{args.port} (Ctrl-C stops it)")
    try:
        return subprocess.call(build_command(store, args.host, args.port))
    except KeyboardInterrupt:
        return 0
