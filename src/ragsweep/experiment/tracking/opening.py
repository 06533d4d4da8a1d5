"""Opening the tracking store: the client (`client`), the store and its experiments created once
and safely (`prepare`, under `store_lock` beside a local sqlite store). docs/server.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import os
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError, first_line
from ragsweep.experiment.tracking.exhaustion import quiet_exhaustion
from ragsweep.experiment.tracking.outage import TimedClient, in_mlflow, reach
from ragsweep.experiment.tracking.store import (
    DEFAULT_DIR,
    SERVER_SCHEMES,
    Store,
    _has_password,
    local_db,
    resolve_store,
    wait_seconds,
)
from ragsweep.retrieval.idle import on_idle_core
from ragsweep.secrets import mask_text


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
    db = local_db(store.uri)
    return _store_lock(db) if db is not None else nullcontext()


def _open(make: Any, store: Store) -> Any:
    """`make(tracking_uri=store.uri)` as a `TimedClient`, with MLflow's refusal of the URI as
    a one-line UserError."""
    from mlflow.exceptions import MlflowException

    uri = store.uri
    try:
        with in_mlflow():
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
    if local_db(store.uri) is None:
        client(store)


#: what `imported_meanwhile` imports: MLflow's client, and for a local sqlite store the store's
#: own modules (SQLAlchemy, Alembic, the schema: 1.1 s more, which `client` pays otherwise)
MLFLOW_MODULES = ("mlflow.tracking",)
SQLITE_MODULES = ("mlflow.store.tracking.sqlalchemy_store",)


def _missing(store: Store | None) -> list[str]:
    """What opening `store` needs of MLflow and is not imported yet (nothing when None)."""
    names = [] if store is None else list(MLFLOW_MODULES)
    if store is not None and local_db(store.uri) is not None:
        names += SQLITE_MODULES
    return [n for n in names if n not in sys.modules]


def _imported(names: list[str]) -> None:
    try:
        for name in names:
            importlib.import_module(name)
    except Exception:  # noqa: S110 - the import in `client` raises it again, in its place
        pass


@contextmanager
def imported_meanwhile(store: Store | None = None) -> Iterator[None]:
    """Import MLflow (what opening `store` needs) in a thread while the block runs (a launch's
    planning), so its 1.7-2.8 s leave the critical path wherever the block leaves the
    interpreter free (file reads, BLAS). The thread is joined when the block ends, however it
    ends, so all that follows finds MLflow imported. The block must not import MLflow itself,
    which the layers guarantee (only `experiment` imports it): two threads importing MLflow at
    once break its protobuf modules ("Couldn't build proto file into descriptor pool"). A
    failed import is left to the real one, which says why. Nothing happens when `store` is
    None (tracking off) or it is all imported."""
    names = _missing(store)
    if not names:
        yield
        return
    thread = threading.Thread(
        target=_imported, args=(names,), name="ragsweep-import-mlflow", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        thread.join()


@contextmanager
def opened_meanwhile(store: Store | None = None) -> Iterator[None]:
    """Import MLflow and open `store` (a new local sqlite store is created and migrated: 0.9 s)
    on the core a single run's evaluation leaves idle (`retrieval.idle`: LSA's SVD), or after
    the block when it lends none. Imported at the block's start instead, MLflow competed for the
    interpreter with the loading, chunking and tokenizing, and the run took 1.6-2.3 s longer at
    100,000 chunks. A block that raises before the core is lent leaves MLflow unimported and
    no store created. As in `imported_meanwhile`, the block must not import MLflow, and a
    failure is left to the real call, which says why. Nothing happens when `store` is None."""
    if store is None:
        yield
        return
    names = _missing(store)

    def work() -> None:
        _imported(names)
        if local_db(store.uri) is not None:
            with contextlib.suppress(Exception):
                client(store)

    with on_idle_core(work, name="ragsweep-open-mlflow"):
        yield


def client(store: Store) -> Any:
    """An MlflowClient on the store. A local sqlite store is created (folder, `.gitignore`,
    schema) under the store's lock the first time this process opens it, so any number of
    processes may start at once on a fresh folder."""
    # MLflow draws a progress bar on stderr for every artifact download: noise in our output
    os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
    # and on a tracking server, two lines ("View run ... at: URL") for every run it ends: a
    # sweep's output would be mostly those (the sweep prints its runs table's link once)
    os.environ.setdefault("MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT", "true")
    quiet_exhaustion()
    # a tracking server's outage is waited through by `TimedClient`, within one bound (MLflow's
    # client would retry every call 7 times over about 4 minutes, a creation too)
    os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    reach(store)
    with in_mlflow():  # the first import costs about 1.7 s: part of what tracking costs
        from mlflow.tracking import MlflowClient

    db = local_db(store.uri)
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
