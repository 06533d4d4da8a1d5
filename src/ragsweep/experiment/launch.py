"""Launching a planned sweep from the process the user started.

`launch(args)` checks the command line (`ragsweep.experiment.plan.draft`), takes the sweep's
lock, then does what must happen once and before any worker starts:
1. creates the MLflow store, the sweep's experiment and its parent run itself (MLflow 3.x
   corrupts a brand-new sqlite store migrated by several processes, and loses runs to the
   Default experiment when processes race to create one), reusing the parent of an earlier
   launch of the same sweep (resume);
2. under the store's lock (a file beside a sqlite store, a claim recorded in a tracking
   server), refuses the sweep if a live launch of it owns its parent run (from any folder
   sharing the store), marks runs whose owner is gone as KILLED, and claims the parent run;
   then keeps a heartbeat on the runs it owns (`ragsweep.experiment.lifecycle`);
3. writes the plan and the dataset it loaded into the sweep folder, where every worker reads
   them (and the launcher watches: workers exit when it dies);
4. builds the stages all configurations share into the stage cache (chunks, indexes, and the
   first-stage lists of every question, which the confirm stage reads too).
Hydra's launcher gets the values most expensive first (`execution_order`), so the last worker
to start does not start the longest job.
Meanwhile Hydra's joblib workers start and import what a configuration needs, MLflow included
(`lifecycle.Warmup`), so no configuration waits for that; each watches this process
from its first instant and exits when it dies. A launch stopped before Hydra's launcher starts
(Ctrl-C, SIGTERM, SIGHUP: `ragsweep.errors.Stopped`) marks the parent run it claimed KILLED.
It returns the plan, the argv Hydra's launcher runs, and the lock (released by `finish`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from ragsweep import conventions as cv
from ragsweep.errors import UserError, stop_name, stop_of
from ragsweep.experiment import lifecycle, tracking
from ragsweep.experiment.factor import factor_prefix
from ragsweep.experiment.plan import (
    Draft,
    Plan,
    args_without_sweep,
    draft,
    quote,
    share_dataset,
)
from ragsweep.retrieval.cache import key_of, let_go_kept
from ragsweep.retrieval.idle import on_idle_core
from ragsweep.retrieval.pipeline import return_freed_memory
from ragsweep.scoring.eval_config import measures_of
from ragsweep.scoring.stages import prebuild, scores_only, stage_cache
from ragsweep.secrets import mask_overrides, mask_uri, unmask_uri


def experiment_name(name: str) -> str:
    return f"sweep:{name}"


def _is_parent_of(run: Any, sweep_key: str) -> bool:
    tags = run.data.tags
    return tags.get(cv.TAG_STAGE) == cv.STAGE_SWEEP and tags.get(cv.tag("sweep_key")) == sweep_key


def launch_name(d: Draft, number: int) -> str:
    """A parent run's name: the sweep, its launch number in the experiment, and the overrides
    it shares besides the sweep file (`chunk_size #2 eval.k_prompt=6`), so two launches of one
    sweep are told apart in the runs table, the printed link and the report."""
    shared = " ".join(o for o in mask_overrides(d.fixed) if not o.startswith("sweep="))
    if len(shared) > _SHOWN:  # the number tells launches apart; the overrides help read it
        shared = shared[: _SHOWN - 1].rstrip() + "…"  # a long path is cut, not dropped
    return " ".join(filter(None, [d.name, f"#{number}", shared]))


#: characters of a launch's shared overrides shown in its name (the params hold them all)
_SHOWN = 60


def _parent(store: tracking.Store, experiment_id: str, d: Draft, sweep_key: str) -> tuple[str, str]:
    """The sweep's parent run, owned by this process, and its name: reused when the same sweep
    is launched again (resume); a new one is numbered after the experiment's other launches."""
    from mlflow.entities import ViewType

    mc = tracking.client(store)
    found = mc.search_runs(
        [experiment_id],
        filter_string=(
            f"tags.`{cv.tag('sweep_key')}` = '{sweep_key}' and "
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_SWEEP}'"
        ),
        order_by=["attributes.start_time DESC"],
        max_results=1,
    )
    if found:
        run_id = found[0].info.run_id
        for key, value in lifecycle.owner_tags().items():
            mc.set_tag(run_id, key, value)
        mc.update_run(run_id, status="RUNNING")
        return str(run_id), str(found[0].info.run_name or d.name)
    launches = mc.search_runs(
        [experiment_id],
        filter_string=f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_SWEEP}'",
        run_view_type=ViewType.ALL,  # a deleted launch keeps its number
        max_results=50000,
    )
    name = launch_name(d, len(launches) + 1)
    tags = {
        cv.TAG_STAGE: cv.STAGE_SWEEP,
        cv.tag("sweep"): d.name,
        cv.tag("sweep_key"): sweep_key,
        cv.tag("factor"): d.factor,
        **{cv.tag(k): v for k, v in d.pins.items()},
    }
    params = {
        "sweep.name": d.name,
        "sweep.factor": d.factor,
        "sweep.values": ",".join(d.values),
        "sweep.baseline": d.baseline,
        "sweep.fixed": " ".join(mask_overrides(d.fixed)) or "(none)",
    }
    run_id = tracking.start_run(store, experiment_id, run_name=name, tags=tags)
    tracking.finish_run(store, run_id, params=params, status="RUNNING")
    return run_id, name


def _claim(store: tracking.Store, experiment_id: str, d: Draft, sweep_key: str) -> tuple[str, str]:
    """Under the store's lock: refuse if this sweep runs elsewhere, mark orphaned runs KILLED,
    and take (or create) the parent run; return its id and name."""
    with lifecycle.taking_over(store, experiment_id, lambda run: _is_parent_of(run, sweep_key)):
        return _parent(store, experiment_id, d, sweep_key)


def _sweep_dir(args: Sequence[str], name: str) -> str:
    for a in args:
        if a.startswith("hydra.sweep.dir="):
            return str(Path(a.split("=", 1)[1]).resolve())
    stamp = datetime.now().strftime("%Y-%m-%d/%H-%M-%S")
    return str((Path("multirun") / f"{stamp}-{cv.metric_safe(name)}").resolve())


def execution_order(d: Draft) -> list[str]:
    """The values in the order workers take them: most passages first (a chunker of smaller
    `size` cuts more, and every later stage costs more), else as given. With fewer workers than
    values, the longest jobs start first and the short ones fill in behind them."""

    def size(value: str) -> float:
        got = OmegaConf.select(d.cfgs[value], "chunker.size", default=None)
        return float(got) if isinstance(got, int | float) and got > 0 else float("inf")

    return sorted(d.values, key=size)  # stable: values of one size keep their order


def _check_workers_find(base_cfg: Any) -> None:
    """The plan holds the store's URI masked and every worker takes the real one from its
    environment (`Plan.store`): refuse a password that is not there (written in a config file)."""
    store = tracking.resolve_store(OmegaConf.select(base_cfg, "tracking.uri", default=None))
    if unmask_uri(mask_uri(store.uri)) != store.uri:
        raise UserError(
            f"the tracking URI {mask_uri(store.uri)} holds a password written in a config "
            "file, which a sweep's workers cannot read back from their environment: give the URI "
            "in MLFLOW_TRACKING_URI or on the command line (tracking.uri=...), or better, the "
            "credentials in MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD"
        )


def launch(args: Sequence[str]) -> tuple[Plan, list[str], lifecycle.SweepLock]:
    """Check and prepare a sweep; return the plan, Hydra's argv, and the sweep's lock."""
    d = draft(args)
    base_cfg = d.baseline_cfg
    measures_of(base_cfg)  # a bad measure is refused before anything runs
    cv.metrics_rule(OmegaConf.select(base_cfg, cv.METRICS_SETTING))  # and a bad tracking.metrics
    _check_workers_find(base_cfg)
    tracking.configured_store(base_cfg.tracking)  # and a tracking server that does not answer
    args = in_launcher(args, d)
    # the workers start and import MLflow while this process prepares the store, the parent
    # run and the shared stages (after the checks: a refused sweep starts no worker); each
    # worker watches this process from its first instant (exits when it dies)
    lifecycle.watch_workers()
    warmup = lifecycle.Warmup(args).start()
    try:
        launched = _launch(args, d, warmup)
    except BaseException:
        # a stop or a refusal ("this sweep is already running"): the workers, which hold no
        # job yet, end now and the warm-up is over before this process exits; leaving its
        # pool starting up to the exit made loky's resource tracker print a traceback (a
        # memmapping folder removed twice) under the refusal's one line, on a loaded machine
        warmup.stop()
        raise
    try:
        warmup.join()
    except BaseException as err:
        plan, _, lock = launched
        stop = stop_of(err)  # Ctrl-C, SIGTERM, SIGHUP
        if stop is not None:
            warmup.stop()
            _stopped(plan.store, plan.parent_run_id, stop)
        lock.release()
        raise
    return launched


#: what a sweep run by the launcher alone adds to Hydra's overrides (`in_launcher`)
ONE_WORKER = "hydra.launcher.n_jobs=1"


def in_launcher(args: Sequence[str], d: Draft) -> list[str]:
    """`args`, with `ONE_WORKER` when the launcher should run the configurations itself, one
    after another: on Hydra's joblib launcher, with workers not chosen on the command line, for
    configurations that `prebuild` leaves only fusing and scoring (`scores_only`: a fusion
    sweep). Each of those takes seconds from the cache; 2 workers took as long to start and
    held 250 MB each beside the launcher's index builds (a 100,000-chunk fusion sweep: 1.33x
    one configuration's memory)."""
    chosen = any(a.lstrip("+~").startswith(("hydra.launcher", "hydra/launcher")) for a in args)
    if chosen or not scores_only(list(d.cfgs.values()), d.dataset):
        return list(args)
    settings = lifecycle.joblib_arguments(args)
    if settings is None or settings.get("n_jobs") == 1:  # another launcher, or one already
        return list(args)
    return [*args, ONE_WORKER]


def _stopped(store: tracking.Store, parent: str, stop: KeyboardInterrupt) -> None:
    """A launch stopped before Hydra's launcher started: its parent run is KILLED."""
    why = f"the launch was stopped ({stop_name(stop)}) before its configurations ran"
    lifecycle.mark_killed(tracking.client(store), parent, why)


def _launch(
    args: Sequence[str], d: Draft, warmup: lifecycle.Warmup
) -> tuple[Plan, list[str], lifecycle.SweepLock]:
    base_cfg = d.baseline_cfg
    sweep_key = key_of(d.sweep_key)
    cache_dir = OmegaConf.select(base_cfg, "cache.dir", default=None)
    # one launch per sweep name at a time: recovery marks the experiment's RUNNING runs KILLED
    lock_name = cv.metric_safe(experiment_name(d.name)).replace(" ", "_").replace(":", "_")
    sweep_dir = _sweep_dir(args, d.name)
    store = tracking.configured_store(base_cfg.tracking)
    lock = lifecycle.SweepLock(Path(cache_dir or ".ragsweep_cache") / "locks" / f"{lock_name}.lock")
    parent: str | None = None
    claimed: tuple[tracking.Store, str] | None = None  # the store and the parent run, once taken
    try:
        lifecycle.check_workers(d.fixed, base_cfg, sweep_dir)  # on Ray: every node reaches it all
        experiment_id = tracking.prepare(store, experiment_name(d.name))
        warmup.store_ready(store)
        parent, launch = _claim(store, experiment_id, d, sweep_key)
        lock.reserve = tracking.Reserve(store, lock_name)
        claimed = (store, parent)
        lock.beat(store, experiment_id)
        plan = Plan(
            name=d.name,
            factor=d.factor,
            values=d.values,
            baseline=d.baseline,
            fixed=mask_overrides(d.fixed),
            sweep_dir=sweep_dir,
            store_uri=store.uri,
            artifact_root=store.artifact_root,
            experiment_id=experiment_id,
            parent_run_id=parent,
            pins=d.pins,
            config_hashes=d.config_hashes,
            decision=str(cv.decision_measure(int(base_cfg.eval.k_prompt))),
            slices=list(d.dataset.slices),
            confirm=bool(OmegaConf.select(base_cfg, "confirm.enabled", default=True)),
            launch_dir=str(Path.cwd()),
            owner=lifecycle.me(),
            launch=launch,
            tracking_wait=store.wait,
        )
        plan.save()
        # the dataset is written for the configurations on the core the prebuild's SVD leaves
        # idle (0.6 s at 100,000 chunks), before any configuration starts
        with on_idle_core(lambda: share_dataset(plan.folder, d.dataset), "ragsweep-share"):
            prebuild(list(d.cfgs.values()), d.dataset, stage_cache(base_cfg))
        # the workers run beside this process from now on (about 90 MB of a 100k-chunk fusion
        # sweep's launcher went back); the chunks and lists it kept go too, unless it runs the
        # configurations itself (`in_launcher`)
        if ONE_WORKER not in args:
            let_go_kept()
        return_freed_memory(collect=True)
    except BaseException as err:
        halt = stop_of(err)  # Ctrl-C, SIGTERM, SIGHUP
        if claimed is not None and halt is not None:
            _stopped(*claimed, halt)
        lock.release()
        stop = tracking.exhaustion(err, store, cache_dir, sweep_dir)
        if stop is None:
            raise
        if parent is not None:  # as far as the full disk allows; else the relaunch resumes it
            with contextlib.suppress(Exception):
                tracking.client(store).set_terminated(parent, status="FAILED")
        raise stop from None
    hydra_args = [
        *args_without_sweep(args, d.factor),
        f"{factor_prefix(args, d.factor)}{d.factor}="
        + ",".join(quote(v) for v in execution_order(d)),
        f"hydra.sweep.dir={sweep_dir}",
        "--multirun",
    ]
    return plan, hydra_args, lock
