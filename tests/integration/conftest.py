"""A PostgreSQL cluster and a `ragsweep server` on it, started once for the integration tests.

- `pg`: a cluster of our own (`ragsweep.experiment.server.LocalPostgres`) in a temporary folder,
  bound to 127.0.0.1 on a free port, password authentication; skipped, with the reason, when
  PostgreSQL's server programs or psycopg2 are missing (`apt-get install -y postgresql`);
- `server`: `ragsweep server` on a free loopback port, the database given as a plain
  `postgresql://` URI in RAGSWEEP_SERVER_DB (the verb adds the psycopg2 driver), once it answers
  /health; stopped at the end with its whole process group, then the cluster;
- `on_server(server, folder, *args)`: the console script run in `folder` with
  MLFLOW_TRACKING_URI pointing at the server (`launch_on_server` starts it without waiting).

The cluster's folder is made under /tmp with mode 755, not under pytest's tmp_path (mode 700):
as root the cluster runs as the `postgres` user (initdb refuses root), which must reach it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import SCRIPT
from procs import descendants, running

#: how long the server may take to answer /health (about 11 s on 2 cores; more when busy)
START_SECONDS = 180


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:  # noqa: S310
                if r.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"ragsweep server did not come up on {url}:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)


def stop_group(proc: subprocess.Popen, family: set[int], grace: float = 20) -> set[int]:
    """SIGTERM `proc` (the verb stops its own server group and cluster); whatever of `family`
    still runs after `grace` seconds is killed and returned."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    deadline = time.monotonic() + grace
    while running(family) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = running(family)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def public_dir(prefix: str) -> Path:
    """A fresh folder under /tmp that the `postgres` user can reach."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp"))
    folder.chmod(0o755)
    return folder


@pytest.fixture(scope="session")
def pg() -> Any:
    pytest.importorskip("psycopg2", reason="the [server] extra (psycopg2-binary) is not installed")
    from ragsweep.errors import UserError
    from ragsweep.experiment.server import LocalPostgres, postgres_bindir

    try:
        postgres_bindir()
    except UserError as err:
        pytest.skip(f"PostgreSQL is not installed: {err}")
    folder = public_dir("ragsweep-pg-")
    cluster = None
    try:
        cluster = LocalPostgres(folder / "cluster")
        yield cluster.start()
    finally:
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log: Path
    artifacts: Path
    password: str

    def client(self) -> Any:
        from mlflow.tracking import MlflowClient

        return MlflowClient(self.url)


@pytest.fixture(scope="session")
def server(pg, tmp_path_factory) -> Any:
    folder = tmp_path_factory.mktemp("server")
    port = free_port()
    log = folder / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["RAGSWEEP_SERVER_DB"] = "postgresql://" + pg.uri.partition("://")[2]
    args = ["server", "--port", str(port), "--workers", "2"]
    args += ["--artifacts-destination", str(folder / "artifacts")]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(SCRIPT), *args],
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    family: set[int] = set()
    try:
        wait_healthy(url, proc, log, START_SECONDS)
        family = descendants(proc.pid)
        yield Server(url, proc, log, folder / "artifacts", pg.password)
    finally:
        stop_group(proc, family | descendants(proc.pid))


def server_env(server: Server, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env.update(CI="true", MLFLOW_TRACKING_URI=server.url, **extra)
    return env


def launch_on_server(
    server: Server,
    folder: Path,
    *args: str,
    prefix: Callable[[list[str]], list[str]] | None = None,
    **env: str,
) -> subprocess.Popen:
    """The console script started in `folder`, logging to the server (not waited for);
    `prefix` rewrites its command line (to run it as if on another machine)."""
    cmd = [str(SCRIPT), *args]
    return subprocess.Popen(
        prefix(cmd) if prefix is not None else cmd,
        cwd=folder,
        env=server_env(server, **env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def on_server(server: Server, folder: Path, *args: str, **env: str) -> tuple[int, str, str]:
    """The console script run in `folder`, logging to the server: (exit code, stdout, stderr)."""
    proc = launch_on_server(server, folder, *args, **env)
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err
