"""MLflow tracking: where the store is, creating it safely, and logging a run in batches.

MLflow is imported lazily (about 1.7 s and 200 MB): nothing that does not log pays for it.
Every call through a `client` is timed (`seconds_in_mlflow`), so a sweep can say what share
of its time went to tracking.

The default store is `sqlite:///<cwd>/mlruns/mlflow.db` with artifacts under `mlruns/artifacts`
(MLflow 3 refuses its old file store). `MLFLOW_TRACKING_URI` or `tracking.uri` override it. The
store and the experiment are created once, by the process that launches work (`prepare`), and the
experiment id is handed to whoever logs: MLflow 3.x corrupts a brand-new sqlite store migrated by
several processes at once, and a process that loses an experiment-creation race silently logs
into the Default experiment (tests/experiment/test_faults.py starts 8 runs at once on a fresh
store).

A tracking server (an http(s) store) is asked once per process whether it answers (`reach`):
nothing answering is one line, "cannot reach", within seconds, rather than MLflow's client
retrying for about 4 minutes and then reporting a missing run. Once it has answered, a call that
meets it gone (connection refused, a timeout, a 5xx while it restarts) is retried here for up
to `Store.wait` seconds (`tracking.wait`, default `WAIT_SECONDS`), then ends in
`StoreUnreachable`; MLflow's own retries are turned off (`MLFLOW_HTTP_REQUEST_MAX_RETRIES=0`
unless set), so the bound is one number and a retried run creation is not made twice
(`TimedClient`). docs/server.md, "When the server goes away".
"""

from __future__ import annotations

import fcntl
import itertools
import json
import logging
import math
import os
import re
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ragsweep.errors import Exhausted, UserError, exhausted, first_line, stop_of
from ragsweep.experiment import owners
from ragsweep.secrets import is_secret_key, mask_text

DEFAULT_DIR = "mlruns"

# MLflow's per-call limits for log_batch
_MAX_PARAMS, _MAX_METRICS = 100, 1000


#: how long (seconds) a call waits for a tracking server that stopped answering before giving
#: up (`tracking.wait` in the config): a restart, a short outage
WAIT_SECONDS = 120.0
#: how long (seconds) the first question to a tracking server waits for an answer (`reach`)
REACH_SECONDS = 5.0


@dataclass(frozen=True)
class Store:
    """A resolved tracking store: URI plus the artifact root for experiments we create, and how
    long a call waits for a tracking server that stopped answering (`WAIT_SECONDS`)."""

    uri: str
    artifact_root: str | None  # file URI for the default local store; None = let the server decide
    wait: float = WAIT_SECONDS


class StoreUnreachable(UserError):
    """A tracking server that does not answer: at the first question (`reach`), or for longer
    than `Store.wait` seconds later on. `what` is the message without its fix."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(f"{what}; {fix}")
        self.what = what


def resolve_store(
    uri: str | None = None, workdir: str | Path | None = None, wait: float | None = None
) -> Store:
    """`uri` if given, else $MLFLOW_TRACKING_URI, else the local sqlite store under `workdir`;
    `wait` seconds through an outage of a tracking server (default `WAIT_SECONDS`)."""
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI") or None
    wait = WAIT_SECONDS if wait is None else float(wait)
    if uri:
        return Store(uri=uri, artifact_root=None, wait=wait)
    base = Path(workdir or Path.cwd()).resolve() / DEFAULT_DIR
    return Store(f"sqlite:///{base / 'mlflow.db'}", (base / "artifacts").as_uri(), wait)


def is_server(uri: str) -> bool:
    """Whether `uri` names a tracking server (http or https)."""
    return uri.startswith(SERVER_SCHEMES)


#: the schemes of a tracking server (`tracking=server` takes nothing else)
SERVER_SCHEMES = ("http://", "https://")


def configured_store(tracking_cfg: Mapping[str, Any], workdir: str | Path | None = None) -> Store:
    """The store a config's `tracking` block names (`resolve_store(tracking.uri)`). With
    `tracking.server` true (`tracking=server`) the URI must name a tracking server: unset, it
    is refused in one line instead of falling back to ./mlruns, where a team would never see
    the runs. Any tracking server is asked once whether it answers (`reach`)."""
    uri = tracking_cfg.get("uri") or None
    wait = wait_seconds(tracking_cfg)
    if tracking_cfg.get("server"):
        if not uri:
            raise UserError(
                "tracking=server logs to the team's tracking server, and MLFLOW_TRACKING_URI is "
                "unset: set it to the server's http://HOST:PORT (what `ragsweep server` prints), "
                "or use tracking=local"
            )
        if not str(uri).startswith(SERVER_SCHEMES):
            raise UserError(
                f"tracking=server needs a tracking server's http(s)://HOST:PORT in "
                f"MLFLOW_TRACKING_URI, not {mask_text(str(uri))!r}; use tracking=local for a "
                "database or folder of your own"
            )
        if _has_password(str(uri)):
            raise UserError(
                "tracking=server: MLFLOW_TRACKING_URI holds a password, which would be written "
                "into every sweep's plan; give the server's address alone, and the credentials "
                "in MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD (or "
                "MLFLOW_TRACKING_TOKEN), which MLflow's client reads and ragsweep never logs"
            )
    store = resolve_store(uri, workdir, wait)
    reach(store)
    return store


def wait_seconds(tracking_cfg: Mapping[str, Any]) -> float:
    """The config's `tracking.wait` (seconds through a tracking server's outage), checked."""
    value = tracking_cfg.get("wait", WAIT_SECONDS)
    try:
        seconds = float(WAIT_SECONDS if value is None else value)
    except (TypeError, ValueError):
        seconds = math.nan
    if not 0 <= seconds < math.inf:
        raise UserError(
            f"tracking.wait={value!r}: give the seconds to wait for a tracking server that "
            f"stopped answering, a number >= 0 (default {WAIT_SECONDS:.0f})"
        )
    return seconds


#: tracking servers that answered this process (`reach`), and those it gave up on
_REACHED: set[str] = set()
_LOST: set[str] = set()


def _silence(uri: str) -> str | None:
    """Why nothing answers at the tracking server `uri` (None: it answered). Any HTTP answer
    counts, a refusal of our missing credentials too, and so does a TLS failure (MLflow may
    trust a certificate we do not)."""
    import ssl
    import urllib.error
    import urllib.request
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(uri)
    netloc = parts.netloc.rpartition("@")[2]  # urllib takes user:password@ for the host name
    health = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/") + "/health", "", ""))
    try:
        with urllib.request.urlopen(health, timeout=REACH_SECONDS):  # noqa: S310
            return None
    except urllib.error.HTTPError:
        return None  # it answered
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return None if isinstance(reason, ssl.SSLError) else str(reason)


def reach(store: Store) -> None:
    """Refuse in one line (`StoreUnreachable`) a tracking server that does not answer, within
    `REACH_SECONDS`: MLflow's client would retry for minutes, then report a missing run. Asked
    once per process and store; a local store needs nothing."""
    if not is_server(store.uri) or store.uri in _REACHED:
        return
    why = _silence(store.uri)
    if why is not None:
        raise StoreUnreachable(
            f"cannot reach the tracking server at {mask_text(store.uri)} ({mask_text(why)})",
            "start it (`ragsweep server`, docs/server.md) or correct the URI where it is set "
            "(--uri, --tracking-uri, tracking.uri or MLFLOW_TRACKING_URI)",
        )
    _REACHED.add(store.uri)


def reached_before(store: Store) -> None:
    """Another process of this launch reached `store` already (a sweep's launcher, for its
    workers): an outage met from here on is waited through, not refused at once."""
    if is_server(store.uri):
        _REACHED.add(store.uri)


def _has_password(uri: str) -> bool:
    from urllib.parse import urlsplit

    try:
        return bool(urlsplit(uri).password)
    except ValueError:
        return False


def _local_db(uri: str) -> Path | None:
    if uri.startswith("sqlite:///"):
        return Path(uri[len("sqlite:///") :])
    return None


def missing_store(store: Store) -> Path | None:
    """The file of a local sqlite store that does not exist (None: it exists, or the store is
    not a local file): readers refuse it rather than create an empty store."""
    db = _local_db(store.uri)
    return db if db is not None and not db.exists() else None


def exhaustion(
    err: BaseException, store: Store, *folders: str | Path | None, sweep: bool = True
) -> Exhausted | None:
    """`errors.exhausted` for a run logging to `store` and writing `folders` (the cache's,
    the sweep's): a full disk is named after the store's file or the fullest folder."""
    artifacts = store.artifact_root or ""
    written = [Path(unquote(urlparse(artifacts).path))] if artifacts.startswith("file:") else []
    written += [Path(f) for f in folders if f]
    return exhausted(err, sweep=sweep, store=_local_db(store.uri), folders=written)


class Reserve:
    """Space kept beside a local sqlite store for a launch's last writes: on a full disk,
    ending its runs FAILED or KILLED needs room for sqlite's journal, which `free()` gives back
    (a tracking server keeps its own disk: nothing is reserved there). One file per `name` (a
    sweep: one launch of it at a time), reused by a relaunch after a kill. A disk without room
    for it raises (ENOSPC) before the launch runs anything."""

    #: a few dozen sqlite pages: the journal and the tags of marking a sweep's runs
    BYTES = 256 * 1024

    def __init__(self, store: Store, name: str) -> None:
        db = _local_db(store.uri)
        self.path = None if db is None else db.parent / f".ragsweep-reserve-{name}"
        if self.path is None:
            return
        try:
            with open(self.path, "wb") as handle:
                handle.write(bytes(self.BYTES))  # written, not sparse: the space is taken
        except OSError:
            self.free()  # nothing left half-made
            raise

    def free(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)


#: sqlite stores this process has opened (created and migrated) already
_OPENED: set[str] = set()


#: store locks this process holds: lock file -> [open handle, depth] (the lock is re-entrant)
_HELD: dict[Path, list[Any]] = {}


@contextmanager
def _store_lock(db: Path) -> Iterator[None]:
    """An exclusive lock beside a local sqlite store, held while it is created or migrated, while
    an experiment is created in it, and while a sweep claims its runs: MLflow 3.x run by several
    processes at once on a brand-new store corrupts its schema, and loses the loser of an
    experiment-creation race to the Default experiment (as the fault tests measured). Folders
    that share one store (one MLFLOW_TRACKING_URI) share this lock. Re-entrant within a process."""
    path = db.with_name(db.name + ".lock")
    held = _HELD.get(path)
    if held is not None:
        held[1] += 1
        try:
            yield
        finally:
            held[1] -= 1
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        _HELD[path] = [handle, 1]
        try:
            yield
        finally:
            del _HELD[path]
            fcntl.flock(handle, fcntl.LOCK_UN)


def store_lock(store: Store) -> AbstractContextManager[None]:
    """The store's lock for a local sqlite store (see `_store_lock`); nothing for a tracking
    server, which serialises its own writes: an experiment's unique name settles two processes
    creating it (`prepare`), and a sweep's claim on its runs takes a lock recorded in the
    server itself (`storelock.claim_lock`)."""
    db = _local_db(store.uri)
    return _store_lock(db) if db is not None else nullcontext()


_SPENT_LOCK = threading.Lock()
_SPENT = [0.0]  # seconds this process spent in MLflow calls made through `client`


def seconds_in_mlflow() -> float:
    """Seconds this process has spent so far in MLflow calls (opening clients included)."""
    return _SPENT[0]


@contextmanager
def _timed() -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        took = time.perf_counter() - t0
        with _SPENT_LOCK:
            _SPENT[0] += took


class TimedClient:
    """An MlflowClient whose method calls add their wall time to `seconds_in_mlflow`; on a
    tracking server, a call that finds it gone is retried for up to `store.wait` seconds, then
    raises `StoreUnreachable` (`_patiently`)."""

    def __init__(self, mc: Any, store: Store | None = None) -> None:
        self._mc = mc
        self._store = store if store is not None and is_server(store.uri) else None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._mc, name)
        if not callable(attr) or name.startswith("__"):
            return attr
        store = self._store
        if store is not None and name == "create_run":
            attr = _once(self._mc, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with _timed():
                if store is None:
                    return attr(*args, **kwargs)
                return _patiently(store, attr, args, kwargs)

        return timed


#: the tag a run created on a tracking server carries so that a creation retried after a lost
#: answer finds the run the first attempt made instead of making a second one
CREATED_TAG = "ragsweep.created"


def _once(mc: Any, create_run: Any) -> Any:
    """`create_run` that makes one run however often it is retried: the run carries a fresh
    `CREATED_TAG`, and a retry first looks for a run with it."""
    token = uuid.uuid4().hex
    tried = [False]

    def create(experiment_id: str, *args: Any, tags: Mapping[str, str] | None = None, **kw: Any):
        if tried[0]:
            flt = f"tags.`{CREATED_TAG}` = '{token}'"
            found = mc.search_runs([experiment_id], filter_string=flt, max_results=1)
            if found:
                return found[0]
        tried[0] = True
        return create_run(experiment_id, *args, tags={**(tags or {}), CREATED_TAG: token}, **kw)

    return create


def _transient(err: BaseException) -> bool:
    """Whether `err` (or what it was raised from) says the server is not there right now: no
    connection, a timeout, or 429/5xx answers (MLflow's own retry codes). A TLS failure is
    not: waiting does not mend it."""
    import requests

    seen: BaseException | None = err
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, requests.exceptions.SSLError):
            return False
        if isinstance(
            seen,
            requests.exceptions.ConnectionError
            | requests.exceptions.Timeout
            | requests.exceptions.RetryError,
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: tracking servers this process is waiting for (it says so once per outage)
_WAITING: set[str] = set()
#: seconds between two attempts at a server that is not answering (doubling up to the last)
_PAUSES = (0.5, 1.0, 2.0, 4.0)


def _patiently(store: Store, call: Any, args: Any, kwargs: Any) -> Any:
    """`call(*args, **kwargs)` on a tracking server, retried while it is not there, for up to
    `store.wait` seconds; then `StoreUnreachable`. A server this process gave up on already is
    asked once (`_silence`) before any waiting, so the next calls fail at once while it stays
    gone."""
    began = time.monotonic()
    for attempt in itertools.count():
        try:
            result = call(*args, **kwargs)
        except Exception as err:
            if not _transient(err):
                raise
            waited = time.monotonic() - began
            if store.uri in _LOST:
                if _silence(store.uri) is not None:
                    raise _gone(store) from None
                _LOST.discard(store.uri)
            if waited >= store.wait:
                _LOST.add(store.uri)
                raise _gone(store) from None
            if store.uri not in _WAITING:
                _WAITING.add(store.uri)
                print(
                    f"ragsweep: the tracking server at {mask_text(store.uri)} does not answer; "
                    f"trying again for up to {store.wait:.0f} s (tracking.wait)",
                    file=sys.stderr,
                    flush=True,
                )
            pause = _PAUSES[min(attempt, len(_PAUSES) - 1)]
            time.sleep(max(0.0, min(pause, store.wait - waited)))
            continue
        _LOST.discard(store.uri)
        _WAITING.discard(store.uri)
        return result
    raise AssertionError("itertools.count() ended")


def _gone(store: Store) -> StoreUnreachable:
    return StoreUnreachable(
        f"the tracking server at {mask_text(store.uri)} stopped answering and did not answer "
        f"again within {store.wait:g} s (tracking.wait)",
        "start it again (`ragsweep server`, docs/server.md), then run the same command again",
    )


def given_up(store: Store) -> None:
    """Another process of this launch waited `store.wait` for this tracking server in vain:
    while it stays silent, calls from here fail at once instead of waiting again."""
    if is_server(store.uri):
        _LOST.add(store.uri)


def _open(make: Any, store: Store) -> Any:
    """`make(tracking_uri=store.uri)` as a `TimedClient`, with MLflow's refusal of the URI as
    a one-line UserError."""
    from mlflow.exceptions import MlflowException

    uri = store.uri
    try:
        with _timed():
            return TimedClient(make(tracking_uri=uri), store)
    except MlflowException as err:
        first = first_line(err)
        raise UserError(
            f"cannot open the tracking store {mask_text(uri)!r} ({first[:160]}); set "
            "tracking.uri or MLFLOW_TRACKING_URI to sqlite:///PATH or http(s)://HOST:PORT, or "
            "unset both for ./mlruns"
        ) from None


def check_store(store: Store) -> None:
    """Refuse, before any work, a store MLflow cannot open. A local sqlite store needs no
    check (it is created when the first run is logged, so a refused run leaves none behind)."""
    if _local_db(store.uri) is None:
        client(store)


def client(store: Store) -> Any:
    """An MlflowClient on the store. A local sqlite store is created (folder, `.gitignore`,
    schema) under the store's lock the first time this process opens it, so any number of
    processes may start at once on a fresh folder."""
    # MLflow draws a progress bar on stderr for every artifact download: noise in our output
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    # and on a tracking server, two lines ("View run ... at: URL") for every run it ends: a
    # sweep's output would be mostly those (the sweep prints its runs table's link once)
    os.environ.setdefault("MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT", "true")
    _quiet_exhaustion()
    # a tracking server's outage is waited through by `TimedClient`, within one bound (MLflow's
    # client would retry every call 7 times over about 4 minutes, a creation too)
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    reach(store)
    with _timed():  # the first import costs about 1.7 s: part of what tracking costs
        from mlflow.tracking import MlflowClient

    db = _local_db(store.uri)
    if db is None or store.uri in _OPENED:
        return _open(MlflowClient, store)
    db.parent.mkdir(parents=True, exist_ok=True)
    gitignore = db.parent / ".gitignore"
    if db.parent.name == DEFAULT_DIR and not gitignore.exists():
        gitignore.write_text("*\n!.gitignore\n")
    with _store_lock(db):
        mc = _open(MlflowClient, store)  # opens the store: creates and migrates it
    _OPENED.add(store.uri)
    return mc


class _UnlessExhausted(logging.Filter):
    """Drops a log record whose error is a resource that ran out (`errors.exhausted`): MLflow
    logs a sqlite error with its traceback (about 80 lines) and then raises it, and a full disk
    is said in one line where it is caught."""

    def filter(self, record: logging.LogRecord) -> bool:
        err = record.exc_info[1] if record.exc_info else None
        return err is None or exhausted(err, sweep=False) is None


def _quiet_exhaustion() -> None:
    logger = logging.getLogger("mlflow.store.db.utils")
    if not any(isinstance(f, _UnlessExhausted) for f in logger.filters):
        logger.addFilter(_UnlessExhausted())


def prepare(store: Store, experiment: str, tags: Mapping[str, str] | None = None) -> str:
    """Create the store and the experiment if needed; return the experiment id. For a local
    store the look-up and the creation happen under the store's lock, so two processes asking
    for the same new experiment get the same one."""
    from mlflow.exceptions import MlflowException

    mc = client(store)
    with store_lock(store):
        found = mc.get_experiment_by_name(experiment)
        if found is not None:
            if found.lifecycle_stage == "deleted":
                mc.restore_experiment(found.experiment_id)
            return str(found.experiment_id)
        location = None
        if store.artifact_root is not None:
            location = f"{store.artifact_root}/{_safe(experiment)}"
        _describe_default(mc)
        try:
            return str(
                mc.create_experiment(experiment, artifact_location=location, tags=dict(tags or {}))
            )
        except MlflowException as err:
            # a tracking server has no lock of ours: another process created it first (the
            # store's unique name decided), so the experiment is the one it made
            if err.error_code != "RESOURCE_ALREADY_EXISTS":
                raise
            found = mc.get_experiment_by_name(experiment)
            if found is None:
                raise
            return str(found.experiment_id)


#: the description of the empty experiment MLflow creates in every store
DEFAULT_NOTE = (
    "Empty: ragsweep logs each sweep in an experiment of its own (`sweep:<name>`) and single "
    "runs in `ragsweep`; MLflow creates this one in every store."
)


def _describe_default(mc: Any) -> None:
    """Say in the experiments list what MLflow's `Default` experiment (id 0) is, when it has
    no description yet (a user may have written one)."""
    from mlflow.exceptions import MlflowException

    try:
        default = mc.get_experiment("0")
        if default is not None and "mlflow.note.content" not in default.tags:
            mc.set_experiment_tag("0", "mlflow.note.content", DEFAULT_NOTE)
    except MlflowException:  # a server without one, or that lets us not write to it
        return


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "experiment"


def flatten(cfg: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Flatten a nested config to `a.b.c` -> str(value) for MLflow params.

    Keys that look secret (`ragsweep.secrets`) are left out whatever their value; secret-shaped
    values and passwords inside URIs are masked; lists are logged as their JSON-like repr.
    """
    out: dict[str, str] = {}
    for key in sorted(cfg, key=str):
        value = cfg[key]
        name = f"{prefix}{key}"
        if is_secret_key(str(key)):
            continue
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = "null" if value is None else mask_text(str(value))
    return out


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return str(os.getuid())


#: the runs table's "Created by" and "Source" columns (MLflow's own tags; its fluent API sets
#: them, the client we log with does not)
_WHO = {"mlflow.user": _user(), "mlflow.source.type": "LOCAL", "mlflow.source.name": "ragsweep"}


def start_run(
    store: Store,
    experiment_id: str,
    *,
    run_name: str,
    tags: Mapping[str, str],
    parent_run_id: str | None = None,
    owner: str | None = None,
) -> str:
    """Create a RUNNING run (visible in the UI at once), owned by `owner` (default: this
    process; see `experiment.owner`); return its id."""
    all_tags = {
        **_WHO,
        owners.OWNER_TAG: owner or owners.me(),
        owners.HEARTBEAT_TAG: f"{time.time():.0f}",
        **tags,
    }
    if parent_run_id:
        all_tags["mlflow.parentRunId"] = parent_run_id
    run = client(store).create_run(experiment_id, run_name=run_name, tags=all_tags)
    return str(run.info.run_id)


@dataclass(frozen=True)
class DataInput:
    """A dataset a run read, for MLflow's Dataset column and filter: `digest` is the first 36
    hex digits of our sha256 (MLflow's digest holds 36 characters; the tags hold the whole
    hash), `source` the folder it was read from, `context` the split (`dev`, `heldout`)."""

    name: str
    digest: str
    source: str
    context: str
    profile: Mapping[str, Any] | None = None

    def entity(self) -> Any:
        from mlflow.entities import Dataset, DatasetInput, InputTag

        dataset = Dataset(
            name=self.name,
            digest=self.digest[:36],
            source_type="local",
            source=json.dumps({"uri": self.source}),
            profile=None if self.profile is None else json.dumps(dict(self.profile)),
        )
        return DatasetInput(dataset, tags=[InputTag("mlflow.data.context", self.context)])


def log_inputs(store: Store | None, mc: Any, run_id: str, inputs: Sequence[Any]) -> None:
    """`mc.log_inputs`, safe when several processes log the same dataset at once: MLflow looks
    the dataset up, then inserts it, so two workers of one sweep could both insert it and one
    fail on the (experiment, name, digest) key. Under the store's lock for a local store; any
    store (None: not known here) is retried, since the second attempt finds the dataset the
    first one made."""
    from mlflow.exceptions import MlflowException

    for attempt in range(3):
        try:
            with store_lock(store) if store is not None else nullcontext():
                mc.log_inputs(run_id, datasets=list(inputs))
            return
        except MlflowException as err:
            if "UNIQUE" not in str(err).upper() or attempt == 2:
                raise
            time.sleep(0.2 * (attempt + 1))


def finish_run(
    store: Store,
    run_id: str,
    *,
    params: Mapping[str, str] | None = None,
    tags: Mapping[str, str] | None = None,
    metrics: Mapping[str, float] | None = None,
    artifacts: Mapping[str, Path] | None = None,
    datasets: Sequence[DataInput] = (),
    tables: Mapping[str, Any] | None = None,
    status: str = "FINISHED",
) -> None:
    """Log params, tags, metrics (in batches), artifacts, dataset inputs and tables (artifact
    file -> DataFrame, for the UI's table view), then end the run with `status`.

    If logging itself fails the run is marked FAILED (KILLED when stopped) and the error
    propagates.
    """
    from mlflow.entities import Metric, Param, RunTag

    mc = client(store)
    try:
        ts = int(time.time() * 1000)
        metric_rows = [
            Metric(k, float(v), ts, 0)
            for k, v in sorted((metrics or {}).items())
            if not math.isnan(v)
        ]
        param_rows = [Param(k, v[:6000]) for k, v in sorted((params or {}).items())]
        tag_rows = [RunTag(k, v[:5000]) for k, v in sorted((tags or {}).items())]
        for batch in _chunks(param_rows, _MAX_PARAMS):
            mc.log_batch(run_id, params=batch)
        for batch in _chunks(metric_rows, _MAX_METRICS):
            mc.log_batch(run_id, metrics=batch)
        for batch in _chunks(tag_rows, _MAX_PARAMS):
            mc.log_batch(run_id, tags=batch)
        for name, path in sorted((artifacts or {}).items()):
            if Path(path).is_dir():
                mc.log_artifacts(run_id, str(path), artifact_path=name)
            else:
                mc.log_artifact(run_id, str(path), artifact_path=name or None)
        if datasets:
            log_inputs(store, mc, run_id, [d.entity() for d in datasets])
        for name, frame in sorted((tables or {}).items()):
            log_table(mc, run_id, name, frame)
    except BaseException as err:
        stopped = stop_of(err) is not None  # Ctrl-C, SIGTERM, SIGHUP
        mc.set_terminated(run_id, status="KILLED" if stopped else "FAILED")
        raise
    mc.set_terminated(run_id, status=status)


#: MLflow's tag listing a run's table artifacts (what its UI's table view offers)
_TABLES_TAG = "mlflow.loggedArtifacts"


def log_table(mc: Any, run_id: str, name: str, frame: Any) -> None:
    """`frame` as the table artifact `name` (`results/metrics.json`), as MLflow's `log_table`
    writes it, but replaced rather than appended to when the run has it already: a write
    retried after a lost answer, or a run logged again by a relaunch, holds its rows once."""
    folder, _, file = name.rpartition("/")
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        path = Path(tmp) / file
        frame.to_json(path, orient="split", index=False, date_format="iso")
        mc.log_artifact(run_id, str(path), artifact_path=folder or None)
    listed = json.loads(mc.get_run(run_id).data.tags.get(_TABLES_TAG, "[]"))
    entry = {"path": name, "type": "table"}
    if entry not in listed:
        mc.set_tag(run_id, _TABLES_TAG, json.dumps([*listed, entry]))


def log_run(
    store: Store,
    experiment_id: str,
    *,
    run_name: str,
    params: Mapping[str, str],
    tags: Mapping[str, str],
    metrics: Mapping[str, float],
    artifacts: Mapping[str, Path] | None = None,
    parent_run_id: str | None = None,
    datasets: Sequence[DataInput] = (),
    tables: Mapping[str, Any] | None = None,
) -> str:
    """Log one finished run in batches; return its id. A failure marks the run FAILED."""
    run_id = start_run(
        store, experiment_id, run_name=run_name, tags=tags, parent_run_id=parent_run_id
    )
    finish_run(
        store,
        run_id,
        params=params,
        metrics=metrics,
        artifacts=artifacts,
        datasets=datasets,
        tables=tables,
    )
    return run_id


def download(mc: Any, run_id: str, paths: Iterable[str], dest: Path) -> Path:
    """Download the artifact folders `paths` of a run into `dest` (`dest/<path>/...`), with
    MLflow's per-download progress bar off; return `dest`."""
    key = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    old = os.environ.get(key)
    os.environ[key] = "false"
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for path in paths:
            mc.download_artifacts(run_id, path, str(dest))
    finally:
        if old is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = old
    return dest


def runs_url(
    store: Store,
    experiment_id: str,
    host: str = "127.0.0.1",
    port: int = 5000,
    *,
    view: str | None = None,
    search: str | None = None,
    order_by: str | None = None,
) -> str:
    """Where the runs table of an experiment is, once `ragsweep ui` serves this store: opened on
    the saved view `view` (`experiment.view`), or filtered by `search` (an MLflow filter) and
    sorted by `order_by` (a metric key, best first)."""
    from urllib.parse import quote

    # workflowType=machine_learning: MLflow 3 opens the classic view (a Runs entry in the side
    # bar) instead of the GenAI one (traces, tokens), seen in a fresh headless Chromium profile.
    url = f"http://{host}:{port}/#/experiments/{experiment_id}/runs?workflowType=machine_learning"
    if view:  # alone: MLflow's UI ignores a saved view when the link has a search parameter
        return f"{url}&viewStateShareKey={quote(view, safe='')}"
    # a search or a sort also lists child runs flat instead of under a collapsed parent
    if search:
        url += f"&searchFilter={quote(search, safe='')}"
    if order_by:
        url += f"&orderByKey={quote(f'metrics.`{order_by}`', safe='')}&orderByAsc=false"
    return url


def launch_url(
    store: Store,
    experiment_id: str,
    parent_id: str,
    *,
    viewed: bool,
    host: str = "127.0.0.1",
    port: int = 5000,
) -> str:
    """The runs of one launch of a sweep: the view it saved (`experiment.view`) when `viewed`,
    else the runs under its parent run `parent_id`."""
    if viewed:
        return runs_url(store, experiment_id, host, port, view=parent_id)
    search = f"tags.`mlflow.parentRunId` = '{parent_id}'"
    return runs_url(store, experiment_id, host, port, search=search)


def experiments_url(host: str = "127.0.0.1", port: int = 5000) -> str:
    """The MLflow UI's list of experiments, on its classic side (its `/` is the GenAI home)."""
    return f"http://{host}:{port}/#/experiments?workflowType=machine_learning"
