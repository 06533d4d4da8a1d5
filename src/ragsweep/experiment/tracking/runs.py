"""Logging a run: created RUNNING and owned by its launcher (`start_run`), then its params, metrics,
artifacts, datasets and tables in batches and its end (`finish_run`); downloading its artifacts.
docs/report.md, "What a run logs".
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragsweep.errors import stop_of
from ragsweep.experiment.tracking.opening import client, store_lock
from ragsweep.experiment.tracking.store import Store
from ragsweep.secrets import is_secret_key, mask_text

# MLflow's per-call limits for log_batch
_MAX_PARAMS, _MAX_METRICS = 100, 1000


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
    process; see `experiment.lifecycle`); return its id."""
    # imported here: the lifecycle package keeps its lock in the store (it imports tracking)
    from ragsweep.experiment import lifecycle

    all_tags = {**_WHO, **lifecycle.owner_tags(owner), **tags}
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
