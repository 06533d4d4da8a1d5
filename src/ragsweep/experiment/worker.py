"""One configuration of a planned sweep, in a worker process (Hydra's joblib launcher).

`run_job` reads the plan from the sweep folder, skips a configuration that already finished
under this sweep (same config hash, snapshot, labels, split and code), else evaluates it and
logs it as a child run of the sweep's parent. Its results go into the sweep folder too (status,
tags and every number it measured in `SweepFolder.status`; per-question rows in
`SweepFolder.rows`, the same files as the run's artifacts), which is where the finish step reads
them; a skipped configuration's are fetched from its finished run. A configuration that raises
becomes a FAILED child run with its traceback under `error/`, and the others go on; a resource
that ran out (a full disk) stops the launch instead (`errors.Exhausted`). A worker whose
launcher dies exits at once (`lifecycle.watch`).

A tracking server that stops answering is waited for (`tracking.wait`); one that does not come
back in time leaves the configuration `unlogged`: its rows and what its run logs stay in the
sweep folder, and a note under the cache folder (`kept_note`) lets the next launch of the sweep
log them without evaluating again (docs/server.md, "When the server goes away").
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.config import use_working_folder
from ragsweep.errors import Exhausted, UserError, first_line
from ragsweep.experiment import lifecycle, tracking
from ragsweep.experiment.plan import SKIPPED_STAGE, Plan, shared_dataset, write_json
from ragsweep.experiment.single import Payload, read_measured, read_payload, write_payload
from ragsweep.provenance import code_version
from ragsweep.retrieval.pipeline import return_freed_memory
from ragsweep.scoring.eval_config import config_hash
from ragsweep.scoring.evaluate import evaluate

FINISHED, SKIPPED, FAILED = "finished", "skipped", "failed"
#: evaluated, but the tracking server was gone: the results wait in the sweep folder
UNLOGGED = "unlogged"
#: value -> this process's `tracking.seconds_in_mlflow` when its job began (what its status
#: file reports is the difference: the job's own time in MLflow)
_MLFLOW_AT_START: dict[str, float] = {}


def progress(plan: Plan, value: str, stage: str) -> None:
    record = {"value": value, "stage": stage, "time": time.time(), "pid": os.getpid()}
    write_json(plan.folder.progress(value), record)


def _record(plan: Plan, value: str, status: str, stage: str, **extra: Any) -> str:
    record = {"value": value, "status": status, **extra}
    record["mlflow_seconds"] = tracking.seconds_in_mlflow() - _MLFLOW_AT_START.get(value, 0.0)
    write_json(plan.folder.status(value), record)
    progress(plan, value, stage)
    return status


def _finished_child(plan: Plan, chash: str) -> Any:
    """A FINISHED run of this configuration under this sweep, on the same data and code."""
    mc = tracking.client(plan.store)
    flt = (
        f"tags.`mlflow.parentRunId` = '{plan.parent_run_id}' and "
        f"tags.`{cv.tag('config_hash')}` = '{chash}' and attributes.status = 'FINISHED'"
    )
    for run in mc.search_runs([plan.experiment_id], filter_string=flt, max_results=50):
        tags = run.data.tags
        same_data = all(tags.get(cv.tag(k)) == plan.pins[k] for k in cv.PINS)
        if same_data and tags.get(cv.tag("code")) == code_version():
            return run
    return None


def factor_value(plan: Plan, overrides: Sequence[str]) -> str:
    for o in overrides:
        key, _, value = o.partition("=")
        if key.lstrip("+~") == plan.factor:
            return value.strip("'\"")
    raise UserError(f"job overrides {list(overrides)} do not set the sweep factor {plan.factor}")


def run_job(
    cfg: DictConfig, sweep_dir: str, overrides: Sequence[str], hydra_dir: Path | None
) -> str:
    """Evaluate and log one configuration of a planned sweep; never raises for a failure of
    the configuration itself (it becomes a FAILED child run). Returns the status.

    A resource that ran out (a full disk, memory, open files) would fail every configuration:
    the run is marked FAILED as far as the resource allows, and `errors.Exhausted` (its one
    line) stops the launch.
    """
    plan = Plan.load(sweep_dir)
    _thread_lock_for_progress_bars()
    try:
        return _run_job(plan, cfg, overrides, hydra_dir)
    except Exception as err:
        stop = _exhaustion(plan, cfg, err)
        if stop is None:
            raise
        raise stop from None
    finally:
        # the heap of this job back to the system: loky replaces a worker whose resident
        # memory grew past its allowance (a "memory leak": loky's 300 MB, raised to
        # `lifecycle.warm.LEAK_ALLOWANCE`), and its replacement starts cold, importing
        # everything again (seen after 100k-chunk jobs and builds ahead). In
        # the launcher itself (`launch.in_launcher`) no collection first: a full one over the
        # launcher's objects took 0.3 s a configuration, and nothing replaces the launcher
        return_freed_memory(collect=plan.owner != lifecycle.me())


def _thread_lock_for_progress_bars() -> None:
    """tqdm (bm25s and MLflow draw progress bars with it) makes a multiprocessing lock on first
    use, which a worker stopped by `Exhausted` (the pool kills the others) leaves behind: the
    launcher's exit then warns of "leaked semaphore objects". One worker's bars need a thread
    lock only."""
    try:
        from tqdm import tqdm
    except ImportError:
        return
    tqdm.set_lock(threading.RLock())


def _exhaustion(plan: Plan, cfg: DictConfig, err: BaseException) -> Exhausted | None:
    cache = OmegaConf.select(cfg, "cache.dir", default=None)
    return tracking.exhaustion(err, plan.store, cache, plan.sweep_dir)


def _run_job(plan: Plan, cfg: DictConfig, overrides: Sequence[str], hydra_dir: Path | None) -> str:
    tracking.reached_before(plan.store)  # the launcher reached it: wait through an outage
    lifecycle.watch(plan.owner, lambda: _launcher_alive(plan))  # exit if the launcher dies
    # joblib reuses worker processes between launches in one Python process (a notebook, a
    # test run), and a reused worker keeps the folder it started in: resolve paths as planned
    # and the sys.path of the launch before it: make this launch's folder, where the user's own
    # `_target_` modules live, the importable one
    if plan.launch_dir:
        os.chdir(plan.launch_dir)
        use_working_folder(plan.launch_dir)
    value = factor_value(plan, overrides)
    _MLFLOW_AT_START[value] = tracking.seconds_in_mlflow()
    chash = config_hash(cfg)
    if plan.config_hashes.get(value) not in (None, chash):
        error = (
            f"the job composed a configuration other than the planned one (config hash "
            f"{chash[:12]}, planned {plan.config_hashes[value][:12]})"
        )
        return _record(plan, value, FAILED, FAILED, error=error)
    note = kept_note(cfg, plan, value)
    try:
        return _run(cfg, plan, value, chash, note, hydra_dir)
    except tracking.StoreUnreachable as err:  # before anything was evaluated
        return _record(plan, value, FAILED, FAILED, error=str(err), unreachable=True)


def _run(
    cfg: DictConfig, plan: Plan, value: str, chash: str, note: Path, hydra_dir: Path | None
) -> str:
    done = _finished_child(plan, chash)
    if done is not None:  # resume: its rows come back from its run, for the finish step
        run_id = str(done.info.run_id)
        rows = plan.folder.rows(value)
        tracking.download(tracking.client(plan.store), run_id, ("results", "config"), rows)
        numbers = read_measured(rows / "results")
        note.unlink(missing_ok=True)
        return _record(
            plan,
            value,
            SKIPPED,
            SKIPPED_STAGE,
            run_id=run_id,
            tags=dict(done.data.tags),
            metrics=dict(done.data.metrics) if numbers is None else numbers,
        )
    kept = _kept(note, chash)
    if kept is not None:  # evaluated by an earlier launch whose tracking server went away
        return _log_kept(plan, value, note, kept)
    run_id = _start(plan, value, chash)
    p: Payload | None = None
    try:
        result = evaluate(
            cfg,
            dataset=shared_dataset(plan.folder, cfg),
            progress=lambda stage: progress(plan, value, stage),
        )
        progress(plan, value, "logging")
        p = write_payload(result, cfg, plan.folder.rows(value), hydra_dir)
        _log(plan, run_id, p)
    except tracking.StoreUnreachable as err:
        if p is None:
            raise
        return _keep(plan, value, note, chash, run_id, p, str(err))
    except Exception as err:  # a failed configuration must not stop the others
        stop = _exhaustion(plan, cfg, err)
        if stop is None:
            first = first_line(err)
            stop = _fail(plan, cfg, run_id, traceback.format_exc(), first)
            if stop is None:
                return _record(plan, value, FAILED, FAILED, run_id=run_id, error=first)
        _give_up(plan, value, run_id, stop)
        raise stop from None
    return _record(plan, value, FINISHED, "done", run_id=run_id, tags=p.tags, metrics=p.measured)


def _start(plan: Plan, value: str, chash: str) -> str:
    """A new RUNNING child run of the sweep's parent for this configuration."""
    tags = {
        cv.TAG_STAGE: cv.STAGE_CONFIG,
        cv.tag("sweep"): plan.name,
        cv.tag("factor"): plan.factor,
        cv.tag("value"): value,
        cv.tag("baseline"): str(value == plan.baseline).lower(),
        cv.tag("config_hash"): chash,
    }
    return tracking.start_run(
        plan.store,
        plan.experiment_id,
        run_name=plan.label(value) + (" (baseline)" if value == plan.baseline else ""),
        tags=tags,
        parent_run_id=plan.parent_run_id,
        owner=plan.owner,
    )


def _log(plan: Plan, run_id: str, p: Payload) -> None:
    tracking.finish_run(plan.store, run_id, **p.logged())


def kept_note(cfg: DictConfig, plan: Plan, value: str) -> Path:
    """Where a configuration evaluated but not logged is noted for the next launch of its sweep
    (which reuses the parent run): under the cache folder, by parent run and value. A launch
    writes a new sweep folder; the note says which one holds the results."""
    cache_dir = OmegaConf.select(cfg, "cache.dir", default=None) or ".ragsweep_cache"
    name = f"{cv.metric_safe(value)}.json"
    return Path(cache_dir).resolve() / "unlogged" / plan.parent_run_id / name


def _keep(
    plan: Plan, value: str, note: Path, chash: str, run_id: str, p: Payload, error: str
) -> str:
    """The tracking server went away after the evaluation: the results stay in the sweep
    folder (`write_payload` wrote them there), noted for the next launch."""
    kept = {"rows": str(plan.folder.rows(value)), "config_hash": chash, "run_id": run_id}
    note.parent.mkdir(parents=True, exist_ok=True)
    write_json(note, {**kept, "code": code_version()})
    return _record(
        plan,
        value,
        UNLOGGED,
        UNLOGGED,
        run_id=run_id,
        tags=p.tags,
        metrics=p.measured,
        error=error,
        unreachable=True,
    )


def _kept(note: Path, chash: str) -> dict[str, Any] | None:
    """The results an earlier launch kept (`_keep`), when they are of this very configuration
    on the same code and their files are still there."""
    try:
        kept = json.loads(note.read_text())
    except (OSError, ValueError):
        return None
    rows = Path(kept.get("rows", ""))
    same = kept.get("config_hash") == chash and kept.get("code") == code_version()
    return kept if same and (rows / "payload.json").is_file() else None


def _log_kept(plan: Plan, value: str, note: Path, kept: dict[str, Any]) -> str:
    """Log the results an earlier launch evaluated and could not log, into its run (ended
    KILLED by this launch's recovery, or never made), and copy them into this sweep folder."""
    progress(plan, value, "logging")
    source = Path(kept["rows"])
    p = read_payload(source)
    run_id = _reopen(plan, value, kept)
    try:
        _log(plan, run_id, p)
    except tracking.StoreUnreachable as err:
        return _record(
            plan, value, UNLOGGED, UNLOGGED, run_id=run_id, error=str(err), unreachable=True
        )
    rows = plan.folder.rows(value)
    if rows.resolve() != source.resolve():
        shutil.copytree(source, rows, dirs_exist_ok=True)
    note.unlink(missing_ok=True)
    return _record(
        plan,
        value,
        FINISHED,
        "done",
        run_id=run_id,
        tags=p.tags,
        metrics=p.measured,
        logged_from=str(source),
    )


def _reopen(plan: Plan, value: str, kept: dict[str, Any]) -> str:
    """The run an earlier launch made for this configuration, RUNNING again and owned by this
    launch (this launch's recovery ended it KILLED); a new one when it is gone."""
    from mlflow.exceptions import MlflowException

    mc = tracking.client(plan.store)
    run_id = str(kept.get("run_id") or "")
    try:
        run = mc.get_run(run_id) if run_id else None
    except MlflowException:
        run = None
    if run is None or run.data.tags.get("mlflow.parentRunId") != plan.parent_run_id:
        return _start(plan, value, str(kept["config_hash"]))
    if cv.tag("recovered") in run.data.tags:
        mc.delete_tag(run_id, cv.tag("recovered"))
    mc.set_tag(run_id, lifecycle.OWNER_TAG, plan.owner)
    mc.update_run(run_id, status="RUNNING")
    return run_id


def _launcher_alive(plan: Plan) -> bool:
    """For a worker on another host than its launcher: the parent run's heartbeat is fresh."""
    parent = tracking.client(plan.store).get_run(plan.parent_run_id)
    return lifecycle.alive(parent.data.tags)


def _fail(plan: Plan, cfg: DictConfig, run_id: str, tb: str, message: str) -> Exhausted | None:
    """End the run FAILED with its error and traceback; a resource that runs out meanwhile
    (the traceback's file, the store) is returned, not raised."""
    try:
        with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
            path = Path(tmp) / "traceback.txt"
            path.write_text(tb)
            tracking.finish_run(
                plan.store,
                run_id,
                tags={cv.tag("error"): message[:4000]},
                artifacts={"error": path},
                status="FAILED",
            )
    except Exception as err:
        stop = _exhaustion(plan, cfg, err)
        if stop is None:
            raise
        return stop
    return None


def _give_up(plan: Plan, value: str, run_id: str, stop: Exhausted) -> None:
    """What a worker still records when a resource ran out, each step as far as it allows:
    the run FAILED with the line as its error, and the status the finish step reads (a run
    left RUNNING is marked KILLED by the launcher)."""
    with contextlib.suppress(Exception):
        tracking.client(plan.store).set_terminated(run_id, status="FAILED")
    with contextlib.suppress(Exception):
        tracking.client(plan.store).set_tag(run_id, cv.tag("error"), str(stop))
    with contextlib.suppress(Exception):
        _record(plan, value, FAILED, FAILED, run_id=run_id, error=str(stop))
