"""`ragsweep server`: a team's MLflow tracking server, runs in PostgreSQL, artifacts served by it.

    RAGSWEEP_SERVER_DB=postgresql://USER:PASSWORD@HOST:5432/mlflow ragsweep server --port 5000
    ragsweep server --postgres-dir /var/lib/ragsweep/pg --artifacts-destination /srv/mlartifacts

The verb parses, checks the database (`experiment.server`), runs `mlflow server` in its own
process group with the password kept off its command line, relays its output masked, and on
Ctrl-C or SIGTERM stops its process tree, then the cluster it started. docs/server.md says more.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request

from ragsweep.cli.parser import Parser
from ragsweep.cli.ui import port_number
from ragsweep.errors import UserError
from ragsweep.experiment.lifecycle import port_free, signal_group, stop_tree
from ragsweep.experiment.server import (
    DB_ENV,
    URI_FORM,
    LocalPostgres,
    artifacts_destination,
    backend_uri,
    build_command,
    check_database,
    check_driver,
    masked,
    password_of,
    server_env,
)


def _relay(stream: object, password: str | None) -> None:
    """Copy the server's output to ours line by line, secrets masked."""
    for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
        line = raw.decode(errors="replace")
        sys.stdout.write(masked(line, password))
        sys.stdout.flush()


def _announce_when_ready(
    proc: subprocess.Popen[bytes], url: str, done: threading.Event, timeout: float = 180
) -> None:
    deadline = time.monotonic() + timeout
    while not done.is_set() and proc.poll() is None and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:  # noqa: S310
                if r.status == 200:
                    print(f"ready: {url} (clients: MLFLOW_TRACKING_URI={url} ragsweep ...)")
                    sys.stdout.flush()
                    return
        except OSError:
            pass
        done.wait(0.5)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep server",
        description=(
            "Run a team's MLflow tracking server: runs in PostgreSQL, artifacts stored in "
            "--artifacts-destination and served through the server (clients need no shared "
            "disk). Clients log to it with MLFLOW_TRACKING_URI=http://HOST:PORT and "
            "tracking=server (docs/server.md)."
        ),
    )
    parser.add_argument(
        "--db",
        metavar="URI",
        default=None,
        help=f"the PostgreSQL database, {URI_FORM} (default: ${DB_ENV}; prefer the "
        "variable: a command line is visible to other users)",
    )
    parser.add_argument(
        "--postgres-dir",
        metavar="DIR",
        default=None,
        help="run a PostgreSQL cluster of its own in DIR instead (created on first use, "
        "127.0.0.1 only), stopped with the server",
    )
    parser.add_argument(
        "--postgres-port",
        type=int,
        default=None,
        help="port of the --postgres-dir cluster (default: a free one)",
    )
    parser.add_argument(
        "--artifacts-destination",
        metavar="DIR",
        default="mlartifacts",
        help="where the server stores artifacts (a folder, or a URI such as s3://bucket/path; "
        "default ./mlartifacts)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 for the network)",
    )
    parser.add_argument("--port", type=port_number, default=5000, help="port (default 5000)")
    parser.add_argument(
        "--workers", type=int, default=None, help="server worker processes (default: MLflow's, 4)"
    )
    parser.add_argument(
        "--allowed-hosts",
        default=None,
        help="Host headers the server accepts beyond localhost and private addresses, e.g. "
        "mlflow.example.com (MLflow's --allowed-hosts)",
    )
    return parser


def _database(args: argparse.Namespace) -> tuple[str, str, LocalPostgres | None]:
    """(backend store URI, where it came from, the cluster to start or None)."""
    env_uri = os.environ.get(DB_ENV) or None
    if args.postgres_dir:
        if args.db:
            raise UserError("give --db or --postgres-dir, not both")
        return "", "--postgres-dir", LocalPostgres(args.postgres_dir, args.postgres_port)
    if args.postgres_port is not None:
        raise UserError("--postgres-port goes with --postgres-dir (a cluster ragsweep starts)")
    if args.db:
        return backend_uri(args.db, "--db"), "--db", None
    if env_uri:
        return backend_uri(env_uri, DB_ENV), DB_ENV, None
    raise UserError(
        f"no database: set {DB_ENV} (or --db) to {URI_FORM}, or give --postgres-dir DIR to "
        "run a PostgreSQL of its own"
    )


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    check_driver()
    db_uri, source, cluster = _database(args)
    if not port_free(args.host, args.port):
        raise UserError(
            f"--port {args.port} on {args.host} is in use (another server?): stop it or pick "
            "another with --port"
        )
    if cluster is None:
        check_database(db_uri, source)
    artifacts = artifacts_destination(args.artifacts_destination)
    url_host = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{url_host}:{args.port}"
    done = threading.Event()
    proc: subprocess.Popen[bytes] | None = None
    asked: list[int] = []

    def on_term(signum: int, _frame: object) -> None:
        asked.append(signum)
        if proc is not None:
            signal_group(proc, signal.SIGTERM)
        else:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        if cluster is not None:
            cluster.start()
            db_uri = cluster.uri
            print(f"PostgreSQL in {cluster.folder} on 127.0.0.1:{cluster.port}")
        password = password_of(db_uri)
        print(
            f"MLflow tracking server at {url}: runs in {masked(db_uri, password)}, artifacts in "
            f"{masked(artifacts, password)} (served through the server; Ctrl-C stops it)"
        )
        if args.host not in ("127.0.0.1", "localhost", "::1"):
            print(
                f"note: bound to {args.host}, so reachable from the network: MLflow's server has "
                "no authentication of its own here; keep it behind your firewall"
            )
        sys.stdout.flush()
        cmd = build_command(args.host, args.port, artifacts, args.workers, args.allowed_hosts)
        # its own process group, so stopping it stops the workers it starts as well
        proc = subprocess.Popen(
            cmd,
            env=server_env(db_uri),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        relay = threading.Thread(target=_relay, args=(proc.stdout, password), daemon=True)
        relay.start()
        threading.Thread(target=_announce_when_ready, args=(proc, url, done), daemon=True).start()
        code = proc.wait()
        relay.join(timeout=5)
        return 0 if asked else code
    except KeyboardInterrupt:
        return 0
    finally:
        done.set()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut cleanup
        try:
            if proc is not None:
                stop_tree(proc)
        finally:
            if cluster is not None:
                cluster.stop()
            signal.signal(signal.SIGTERM, previous)
