"""MLflow tracking: where the store is, creating it safely, and logging a run in batches.

MLflow is imported lazily (about 1.7 s and 200 MB): nothing that does not log pays for it.
Every call through a `client` is timed (`seconds_in_mlflow`), so a sweep can say what share
of its time went to tracking.

The default store is `sqlite:///<cwd>/mlruns/mlflow.db` with artifacts under `mlruns/artifacts`
(MLflow 3 refuses its old file store). `MLFLOW_TRACKING_URI` or `tracking.uri` override it. The
store and the experiment are created once, by the process that launches work (`prepare`), and the
experiment id is handed to whoever logs: MLflow 3.x corrupts a brand-new sqlite store migrated by
several processes at once, and a process that loses an experiment-creation race silently logs
into the Default experiment (../shared/STACK-NOTES.md).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError, stop_of
from ragsweep.experiment import owners
from ragsweep.secrets import is_secret_key, mask_text

DEFAULT_DIR = "mlruns"

# MLflow's per-call limits for log_batch
_MAX_PARAMS, _MAX_METRICS = 100, 1000


@dataclass(frozen=True)
class Store:
    """A resolved tracking store: URI plus the artifact root for experiments we create."""

    uri: str
    artifact_root: str | None  # file URI for the default local store; None = let the server decide


def resolve_store(uri: str | None = None, workdir: str | Path | None = None) -> Store:
    """`uri` if given, else $MLFLOW_TRACKING_URI, else the local sqlite store under `workdir`."""
    uri = uri or os.environ.get("MLFLOW_TRACKING_URI") or None
    if uri:
        return Store(uri=uri, artifact_root=None)
    base = Path(workdir or Path.cwd()).resolve() / DEFAULT_DIR
    return Store(uri=f"sqlite:///{base / 'mlflow.db'}", artifact_root=(base / "artifacts").as_uri())


#: the schemes of a tracking server (`tracking=server` takes nothing else)
SERVER_SCHEMES = ("http://", "https://")


def configured_store(tracking_cfg: Mapping[str, Any], workdir: str | Path | None = None) -> Store:
    """The store a config's `tracking` block names (`resolve_store(tracking.uri)`). With
    `tracking.server` true (`tracking=server`) the URI must name a tracking server: unset, it
    is refused in one line instead of falling back to ./mlruns, where a team would never see
    the runs."""
    uri = tracking_cfg.get("uri") or None
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
        _check_reachable(str(uri))
    return resolve_store(uri, workdir)


def _check_reachable(uri: str, timeout: float = 10.0) -> None:
    """Refuse in one line a tracking server nothing answers at (MLflow's client would retry
    for minutes, then fail with a traceback). Any HTTP answer counts, a refusal of our missing
    credentials too, and so does a TLS failure (MLflow may trust a certificate we do not)."""
    import ssl
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=timeout):  # noqa: S310
            return
    except urllib.error.HTTPError:
        return  # it answered
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        if isinstance(reason, ssl.SSLError):
            return
        raise UserError(
            f"tracking=server: nothing answers at {mask_text(uri)} ({mask_text(str(reason))}); "
            "start the server (`ragsweep server`, docs/server.md) or fix MLFLOW_TRACKING_URI"
        ) from None


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


#: sqlite stores this process has opened (created and migrated) already
_OPENED: set[str] = set()


#: store locks this process holds: lock file -> [open handle, depth] (the lock is re-entrant)
_HELD: dict[Path, list[Any]] = {}


@contextmanager
def _store_lock(db: Path) -> Iterator[None]:
    """An exclusive lock beside a local sqlite store, held while it is created or migrated, while
    an experiment is created in it, and while a sweep claims its runs: MLflow 3.x run by several
    processes at once on a brand-new store corrupts its schema, and loses the loser of an
    experiment-creation race to the Default experiment (../shared/STACK-NOTES.md). Folders that
    share one store (one MLFLOW_TRACKING_URI) share this lock. Re-entrant within a process."""
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
    """An MlflowClient whose method calls add their wall time to `seconds_in_mlflow`."""

    def __init__(self, mc: Any) -> None:
        self._mc = mc

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._mc, name)
        if not callable(attr) or name.startswith("__"):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            with _timed():
                return attr(*args, **kwargs)

        return timed


def _open(make: Any, uri: str) -> Any:
    """`make(tracking_uri=uri)` as a `TimedClient`, with MLflow's refusal of the URI as a
    one-line UserError."""
    from mlflow.exceptions import MlflowException

    try:
        with _timed():
            return TimedClient(make(tracking_uri=uri))
    except MlflowException as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
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
    with _timed():  # the first import costs about 1.7 s: part of what tracking costs
        from mlflow.tracking import MlflowClient

    db = _local_db(store.uri)
    if db is None or store.uri in _OPENED:
        return _open(MlflowClient, store.uri)
    db.parent.mkdir(parents=True, exist_ok=True)
    gitignore = db.parent / ".gitignore"
    if db.parent.name == DEFAULT_DIR and not gitignore.exists():
        gitignore.write_text("*\n!.gitignore\n")
    with _store_lock(db):
        mc = _open(MlflowClient, store.uri)  # opens the store: creates and migrates it
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
            mc.log_table(run_id, data=frame, artifact_file=name)
    except BaseException as err:
        stopped = stop_of(err) is not None  # Ctrl-C, SIGTERM, SIGHUP
        mc.set_terminated(run_id, status="KILLED" if stopped else "FAILED")
        raise
    mc.set_terminated(run_id, status=status)


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
