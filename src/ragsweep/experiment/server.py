"""The team's tracking server (`ragsweep server`, docs/server.md): the database URI it is given
(checked, its password masked), a PostgreSQL cluster of its own in a folder (`LocalPostgres`),
and the `mlflow server` command and environment that keep the password off the command line.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from ragsweep.errors import UserError, first_line
from ragsweep.experiment.lifecycle import free_port, port_free
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
