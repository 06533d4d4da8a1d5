"""`ragsweep server`: a team's MLflow tracking server, runs in PostgreSQL, artifacts served by it.

    RAGSWEEP_SERVER_DB=postgresql://USER:PASSWORD@HOST:5432/mlflow ragsweep server --port 5000
    ragsweep server --postgres-dir /var/lib/ragsweep/pg --artifacts-destination /srv/mlartifacts

It runs `mlflow server` with the database as its backend store (`postgresql+psycopg2://...`:
SQLAlchemy 2.1 picks psycopg 3 for a bare `postgresql://`, so the driver is spelled out) and
`--serve-artifacts` with `--artifacts-destination DIR`, so clients upload and download artifacts
through the server and need no shared disk. It binds 127.0.0.1 unless `--host` says otherwise.

The database URI comes from `--db` or `RAGSWEEP_SERVER_DB` (prefer the variable: a command line
is visible to every user of the machine). Its password never reaches a printed line: the URI
goes to `mlflow server` in its environment (`MLFLOW_BACKEND_STORE_URI`), not its command line,
and every line the server prints is relayed through `ragsweep.secrets.mask_text` with the
password itself removed too.

`--postgres-dir DIR` runs a PostgreSQL cluster of its own in DIR instead (created with initdb on
first use, password authentication, bound to 127.0.0.1 on a free or given port, the database
`mlflow` created), stopped when the server stops. initdb refuses to run as root, so as root the
cluster runs as the `postgres` user (`runuser`), and DIR is handed to that user.

Stopping `ragsweep server` (Ctrl-C, SIGTERM) stops the tracking server's whole process tree (it
runs in its own process group) and then the cluster it started. Bad input (no database URI, an
unreachable database, a port in use, no PostgreSQL binaries, no psycopg2) is one line naming the
flag or variable and the fix, exit code 2.
"""

from __future__ import annotations

import argparse
import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ragsweep.cli.ui import port_number
from ragsweep.errors import UserError, first_line
from ragsweep.experiment.lifecycle import free_port, port_free, signal_group, stop_tree
from ragsweep.secrets import REDACTED, mask_text

#: the environment variable holding the database URI (instead of `--db`)
DB_ENV = "RAGSWEEP_SERVER_DB"
#: the database `--postgres-dir` creates, and the role that owns it
DATABASE, ROLE = "mlflow", "ragsweep"
#: the OS user a cluster runs as when ragsweep runs as root (initdb refuses root)
DB_OS_USER = "postgres"
#: the scheme `mlflow server` is given: SQLAlchemy with psycopg2 (psycopg 3 otherwise)
SCHEME = "postgresql+psycopg2"
_SCHEMES = ("postgresql", "postgres", SCHEME)
INSTALL_PG = "install them (`apt-get install -y postgresql`) or give --db a running server"
INSTALL_DRIVER = "pip install 'ragsweep[server]' (or psycopg2-binary)"
#: how a database URI looks, in messages (a `user:password@` inside a URI would be masked)
URI_FORM = "postgresql://USER@HOST:PORT/DATABASE (USER:PASSWORD@ with a password)"


# ----------------------------------------------------------------------------- database URI


def backend_uri(uri: str, source: str = "--db") -> str:
    """`uri` as `mlflow server`'s backend store URI: `postgresql://` and `postgres://` become
    `postgresql+psycopg2://`; anything else is refused, naming `source`."""
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme not in _SCHEMES or not rest.strip("/"):
        raise UserError(f"{source} must be a PostgreSQL URI, {URI_FORM}, not {mask_text(uri)!r}")
    return f"{SCHEME}://{rest}"


def password_of(uri: str) -> str | None:
    """The password inside a database URI (None without one)."""
    try:
        password = urlsplit(uri).password
    except ValueError:
        return None
    return unquote(password) if password else None


def masked(text: str, password: str | None) -> str:
    """`text` with `password` (raw and URL-quoted) and every secret-shaped value masked."""
    if password:
        from urllib.parse import quote

        for form in {password, quote(password, safe="")}:
            text = text.replace(form, REDACTED)
    return mask_text(text)


def _libpq_uri(uri: str) -> str:
    """The URI libpq (psycopg2.connect) reads: no SQLAlchemy driver suffix."""
    return "postgresql://" + uri.partition("://")[2]


def check_driver() -> None:
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        raise UserError(
            f"ragsweep server needs the PostgreSQL driver psycopg2, which is not installed: "
            f"{INSTALL_DRIVER}"
        ) from None


def check_database(uri: str, source: str) -> None:
    """Connect once to the database `uri` names, so a wrong URI is one line here rather than a
    traceback from inside `mlflow server`."""
    import psycopg2

    try:
        psycopg2.connect(_libpq_uri(uri), connect_timeout=5).close()
    except psycopg2.Error as err:
        first = first_line(err)
        raise UserError(
            f"cannot reach the database {masked(uri, password_of(uri))} given by {source} "
            f"({masked(first, password_of(uri))[:200]}); start PostgreSQL there or fix the URI "
            f"({URI_FORM})"
        ) from None


# ----------------------------------------------------------------------------- local PostgreSQL


def postgres_bindir() -> Path:
    """Where initdb and pg_ctl are: on PATH, else Debian's /usr/lib/postgresql/<newest>/bin."""
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    found = sorted(
        (Path(p) for p in glob.glob("/usr/lib/postgresql/*/bin") if (Path(p) / "initdb").exists()),
        key=lambda p: [int(x) if x.isdigit() else 0 for x in re.split(r"\D+", p.parent.name)],
    )
    if not found:
        raise UserError(
            "--postgres-dir needs PostgreSQL's server programs (initdb, pg_ctl), found neither "
            f"on PATH nor in /usr/lib/postgresql/*/bin: {INSTALL_PG}"
        )
    return found[-1]


class LocalPostgres:
    """A PostgreSQL cluster of our own in `folder`: `data/` (the cluster), `password` (the role's
    password, mode 600), `postgres.log`. Bound to 127.0.0.1 only, password authentication."""

    def __init__(self, folder: str | Path, port: int | None = None) -> None:
        self.folder = Path(folder).resolve()
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.port = port or free_port()
        self.bindir = postgres_bindir()
        self.started = False
        self.as_user = DB_OS_USER if os.geteuid() == 0 else None
        if self.as_user is not None:
            try:
                self._owner = pwd.getpwnam(self.as_user)
            except KeyError:
                raise UserError(
                    "--postgres-dir: initdb refuses to run as root, and there is no "
                    f"`{DB_OS_USER}` user to run PostgreSQL as: install PostgreSQL "
                    "(`apt-get install -y postgresql` creates it) or run as another user"
                ) from None

    @property
    def password(self) -> str:
        return (self.folder / "password").read_text().strip()

    @property
    def uri(self) -> str:
        return f"{SCHEME}://{ROLE}:{self.password}@127.0.0.1:{self.port}/{DATABASE}"

    def _cmd(self, *cmd: str) -> list[str]:
        if self.as_user is None:
            return list(cmd)
        return ["runuser", "-u", self.as_user, "--", *cmd]

    def _run(self, *cmd: str, what: str) -> None:
        done = subprocess.run(
            self._cmd(*cmd), capture_output=True, text=True, start_new_session=True, timeout=120
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            log = f"; see {self.log}" if self.log.exists() else ""
            raise UserError(
                f"--postgres-dir {self.folder}: {what} failed ({mask_text(tail[0])[:200]}){log}"
            )

    def _prepare_folder(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o700)
        if self.as_user is not None:
            os.chown(self.folder, self._owner.pw_uid, self._owner.pw_gid)
            reach = subprocess.run(
                self._cmd("test", "-w", str(self.folder)), capture_output=True, check=False
            )
            if reach.returncode != 0:
                raise UserError(
                    f"--postgres-dir {self.folder}: the `{self.as_user}` user (PostgreSQL runs as "
                    "it because initdb refuses root) cannot reach this folder; pick one outside "
                    "private folders such as /root, e.g. /var/lib/ragsweep/postgres"
                )

    def _initdb(self) -> None:
        pwfile = self.folder / "password"
        if not pwfile.exists():
            pwfile.write_text(secrets.token_urlsafe(24) + "\n")
        pwfile.chmod(0o600)
        if self.as_user is not None:
            os.chown(pwfile, self._owner.pw_uid, self._owner.pw_gid)
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            ROLE,
            f"--pwfile={pwfile}",
            "--auth=scram-sha-256",
            "-E",
            "UTF8",
            "--no-instructions",
            what="initdb",
        )

    def start(self) -> LocalPostgres:
        """Create the cluster if `data/` holds none, start it, create the database if needed."""
        if not port_free("127.0.0.1", self.port):
            raise UserError(
                f"--postgres-port {self.port} on 127.0.0.1 is in use; pick another, or leave "
                "--postgres-port out for a free one"
            )
        if (self.data / "postmaster.pid").exists():
            raise UserError(
                f"--postgres-dir {self.folder}: a PostgreSQL already runs on this cluster "
                f"({self.data / 'postmaster.pid'}); stop it (pg_ctl -D {self.data} stop) or "
                "use another folder"
            )
        self._prepare_folder()
        if not (self.data / "PG_VERSION").exists():
            self._initdb()
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories=''"
        self.started = True  # from here on, stopping is attempted (a failed start stops nothing)
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            options,
            "-w",
            "-t",
            "60",
            "start",
            what="starting PostgreSQL",
        )
        self._create_database()
        return self

    def _create_database(self) -> None:
        import psycopg2

        dsn = f"postgresql://{ROLE}:{self.password}@127.0.0.1:{self.port}/postgres"
        try:
            conn = psycopg2.connect(dsn, connect_timeout=10)
        except psycopg2.Error as err:
            first = first_line(err)
            raise UserError(
                f"--postgres-dir {self.folder}: the cluster started but refused ragsweep's role "
                f"({masked(first, self.password)[:200]}); was it made by another tool? Use a "
                "fresh folder"
            ) from None
        try:
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,))
                if cur.fetchone() is None:
                    cur.execute(f'CREATE DATABASE "{DATABASE}"')
        finally:
            conn.close()

    def stop(self) -> None:
        if not self.started:
            return
        self.started = False
        subprocess.run(
            self._cmd(
                str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"
            ),
            capture_output=True,
            start_new_session=True,
            timeout=120,
            check=False,
        )


# ----------------------------------------------------------------------------- mlflow server


def build_command(
    host: str,
    port: int,
    artifacts: str,
    workers: int | None = None,
    allowed_hosts: str | None = None,
) -> list[str]:
    """The `mlflow server` command line. The backend store URI is not on it: it goes in the
    environment (`server_env`), where other users of the machine cannot read it."""
    cmd = [
        sys.executable,
        "-m",
        "mlflow",
        "server",
        "--serve-artifacts",
        "--artifacts-destination",
        artifacts,
        "--host",
        host,
        "--port",
        str(port),
    ]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    if allowed_hosts:
        cmd += ["--allowed-hosts", allowed_hosts]
    return cmd


def server_env(db_uri: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != DB_ENV}
    env["MLFLOW_BACKEND_STORE_URI"] = db_uri
    env.pop("MLFLOW_REGISTRY_STORE_URI", None)  # the registry lives in the same database
    env["PYTHONUNBUFFERED"] = "1"
    return env


def artifacts_destination(value: str) -> str:
    """A local folder as an absolute path (created); a URI (s3://, gs://, ...) as given."""
    if "://" in value:
        return value
    path = Path(value).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


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
    parser = argparse.ArgumentParser(
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
