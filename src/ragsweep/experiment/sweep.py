"""One-factor sweeps: `ragsweep -m sweep=chunk_size` or `ragsweep -m chunker.size=128,256,512`.

A sweep is an experiment. Before anything runs, the launching process (`plan`):
1. expands the sweep and refuses it unless exactly one config key varies;
2. composes every configuration and refuses the sweep if they differ in corpus snapshot,
   labelled set or split, or (when the factor does not touch the index) in index build;
3. creates the MLflow store, the sweep's experiment and its parent run itself (MLflow 3.x
   corrupts a brand-new sqlite store migrated by several processes, and loses runs to the
   Default experiment when processes race to create one), marks runs left RUNNING by a killed
   launch as KILLED, and builds the pipeline stages all configurations share into the cache;
4. writes the plan into the sweep folder, where every worker (Hydra's joblib launcher) reads it.

Each worker (`run_job`) skips a configuration that already finished under this sweep (same
config hash, snapshot, labels, split), else logs it as a child run; a configuration that raises
becomes a FAILED child run with its traceback, and the others go on. `finish` then prints the
summary, gives the parent run summary metrics and returns the exit code (1 if any failed).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep.config import build
from ragsweep.errors import UserError
from ragsweep.experiment import tracking

PLAN_FILE = "ragsweep_plan.json"
#: keys of a config that decide nothing about results, so never count as a sweep factor
_NEUTRAL = ("tracking.", "cache.", "hydra.", "report.", "confirm.")
#: keys that change the data or how results are scored: sweeping them compares unlike numbers
_NOT_PIPELINE = ("data.", "eval.", "data", "eval")


@dataclass
class Plan:
    """Everything workers and `finish` need, written as JSON into the sweep folder."""

    name: str
    factor: str
    values: list[str]
    baseline: str
    fixed: list[str]  # the overrides every configuration shares
    sweep_dir: str
    store_uri: str
    artifact_root: str | None
    experiment_id: str
    parent_run_id: str
    pins: dict[str, str]  # snapshot, labels, split (+ index_build when the factor spares it)
    config_hashes: dict[str, str]  # value -> config hash
    decision: str = ""  # the decision measure, e.g. recall@5
    slices: list[str] = field(default_factory=list)  # the dataset's slices, in report order
    confirm: bool = True  # run the confirm stage at the end
    launch_dir: str = ""  # where the sweep was launched: relative paths resolve from here

    @property
    def store(self) -> tracking.Store:
        return tracking.Store(uri=self.store_uri, artifact_root=self.artifact_root)

    def save(self) -> Path:
        path = Path(self.sweep_dir) / PLAN_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2, sort_keys=True))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, sweep_dir: str | Path) -> Plan:
        path = Path(sweep_dir) / PLAN_FILE
        if not path.exists():
            raise UserError(
                f"{path} is missing: multirun jobs must be launched through `ragsweep -m ...`"
            )
        return cls(**json.loads(path.read_text()))

    def label(self, value: str) -> str:
        return f"{self.factor}={value}"


def metric_safe(text: str) -> str:
    """A string MLflow accepts inside a metric key (alphanumerics, _ - . space : /)."""
    return re.sub(r"[^A-Za-z0-9_\-. :]+", "_", text)


# ----------------------------------------------------------------------------- planning


def _overrides(args: Sequence[str]) -> list[str]:
    """The overrides of a command line: flags (`-m`, Hydra's `--...`) stay out of composition."""
    return [a for a in args if not a.startswith("-")]


def _compose(overrides: Sequence[str], hydra: bool = False) -> DictConfig:
    from ragsweep.config import compose

    return compose(overrides, hydra=hydra)


def _default_value(fixed: Sequence[str], factor: str) -> str:
    cfg = _compose(fixed, hydra=True)
    choices = cfg.hydra.runtime.choices
    if factor in choices:
        return str(choices[factor])
    value = OmegaConf.select(cfg, factor, throw_on_missing=False)
    if value is None:
        raise UserError(
            f"sweep factor {factor!r} is not a key of the config; see `ragsweep --cfg job`"
        )
    return str(value)


def expand(args: Sequence[str]) -> tuple[str | None, str, list[str], str, list[str]]:
    """(sweep name, factor, values, baseline, fixed overrides) of a multirun command line.

    Refuses (UserError) a sweep that varies no key or two or more keys, and sweeping over
    sweep files themselves.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = _overrides(args)
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except Exception as err:  # Hydra's grammar errors are multi-line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UserError(f"cannot parse the overrides: {first}") from None
    varying = [o for o in parsed if o.is_sweep_override()]
    fixed = [o.input_line for o in parsed if not o.is_sweep_override()]
    if any(o.get_key_element().lstrip("+~") == "sweep" for o in varying):
        raise UserError("sweep one sweep file at a time: `ragsweep -m sweep=chunk_size`")
    name = baseline = None
    factor = None
    values: list[str] = []
    cfg = _compose(fixed)
    if cfg.get("sweep"):
        s = cfg.sweep
        name, factor = str(s.name), str(s.factor)
        values = [str(v) for v in s["values"]]
        baseline = str(s.baseline)
    keys = sorted({o.get_key_element().lstrip("+~") for o in varying})
    if factor is not None and keys and keys != [factor]:
        extra = [k for k in keys if k != factor]
        raise UserError(
            f"a sweep changes one thing; sweep {name!r} varies {factor} and the command line also "
            f"varies {', '.join(extra)}: drop those values or run a separate sweep"
        )
    if factor is None and len(keys) > 1:
        raise UserError(
            f"a sweep changes one thing, but this one varies {len(keys)} config keys: "
            f"{', '.join(keys)}; give several values to one key only"
        )
    if factor is None and not keys:
        raise UserError(
            "nothing to sweep: name a sweep file (`ragsweep -m sweep=chunk_size`) or give one "
            "key several values (`ragsweep -m chunker.size=128,256,512`)"
        )
    for o in varying:  # command-line values replace the file's
        factor = o.get_key_element().lstrip("+~")
        values = [str(v) for v in o.sweep_string_iterator()]
    assert factor is not None
    if factor.startswith(_NEUTRAL):
        raise UserError(f"{factor} does not change results; sweep a pipeline setting instead")
    if factor in _NOT_PIPELINE or factor.startswith(_NOT_PIPELINE[:2]):
        raise UserError(
            f"{factor} changes the data or how results are scored, so its configurations would "
            "not be comparable; a sweep varies the retrieval pipeline (chunker, embedder, "
            "retriever, fusion, reranker)"
        )
    if baseline is None:
        baseline = _default_value(fixed, factor)
    values = list(dict.fromkeys(values))
    if baseline not in values:
        values = [baseline, *values]
    return name, factor, values, baseline, fixed


def _pins(cfgs: dict[str, DictConfig]) -> tuple[dict[str, str], dict[str, str], Any]:
    """Check every configuration shares snapshot, labels, split (and index build unless the
    factor changes it); return (pins, config hashes, the dataset)."""
    from ragsweep.data import load_dataset
    from ragsweep.retrieval.pipeline import index_build_hash
    from ragsweep.scoring.evaluate import check_snapshot, config_hash, select_questions

    datasets: dict[str, Any] = {}
    rows: dict[str, dict[str, str]] = {}
    hashes: dict[str, str] = {}
    for value, cfg in cfgs.items():
        key = str(cfg.data.path)
        if key not in datasets:
            datasets[key] = load_dataset(cfg.data.path)
        ds = datasets[key]
        check_snapshot(cfg, ds)
        _, split_hash = select_questions(cfg, ds)
        try:  # a value the chunker refuses (chunker.size=8 with overlap 16) is refused now
            build(cfg.chunker)
        except UserError as err:
            raise UserError(f"{value!r} cannot be run: {err}") from None
        rows[value] = {
            "snapshot": ds.snapshot_hash,
            "labels": ds.labels_hash,
            "split": split_hash,
            "split_name": str(cfg.eval.split),
            "subset": str(cfg.eval.subset),
            "index_build": index_build_hash(cfg, ds.snapshot_hash),
        }
        hashes[value] = config_hash(cfg)
    pins: dict[str, str] = {}
    for what in ("snapshot", "labels", "split", "split_name", "subset", "index_build"):
        seen = {r[what] for r in rows.values()}
        if len(seen) == 1:
            pins[what] = seen.pop()
        elif what != "index_build":
            raise UserError(
                f"a sweep fixes the {what}, but its configurations differ in it "
                f"({', '.join(f'{v}: {r[what][:12]}' for v, r in rows.items())}); "
                "sweep a pipeline setting, not the data"
            )
    if len(set(hashes.values())) != len(hashes):
        raise UserError("two values of the sweep give the same configuration; list each once")
    return pins, hashes, next(iter(datasets.values()))


def _check_factor_is_used(factor: str, cfg: DictConfig) -> None:
    """Refuse a factor the pipeline would ignore: every configuration would be the same."""
    kind, reranker = str(cfg.retriever.kind), str(cfg.reranker.name)
    unused = None
    if factor.startswith("reranker.") and reranker == "none":
        unused = "the reranker is off (reranker=none); add reranker=proximity"
    elif factor.startswith("fusion.") and kind != "hybrid":
        unused = f"nothing is fused with retriever={kind}; use retriever=hybrid"
    elif (factor == "embedder" or factor.startswith("embedder.")) and kind == "bm25":
        unused = "retriever=bm25 uses no embedder; use retriever=hybrid or dense"
    elif factor.startswith("retriever.bm25.") and kind == "dense":
        unused = "retriever=dense uses no BM25; use retriever=hybrid or bm25"
    if unused:
        raise UserError(f"sweeping {factor} would change nothing: {unused}")


def _experiment_name(name: str) -> str:
    return f"sweep:{name}"


def _recover(store: tracking.Store, experiment_id: str) -> int:
    """Mark runs left RUNNING in this experiment (a launch killed with -9) as KILLED."""
    mc = tracking.client(store)
    from mlflow.entities import ViewType

    stale = mc.search_runs(
        [experiment_id],
        filter_string="attributes.status = 'RUNNING'",
        run_view_type=ViewType.ACTIVE_ONLY,
        max_results=5000,
    )
    for run in stale:
        mc.set_tag(
            run.info.run_id, "ragsweep.recovered", "killed: found RUNNING at the next launch"
        )
        mc.set_terminated(run.info.run_id, status="KILLED")
    return len(stale)


def _parent(
    store: tracking.Store,
    experiment_id: str,
    sweep_key: str,
    tags: dict[str, str],
    params: dict[str, str],
    name: str,
) -> str:
    """The sweep's parent run: reused when the same sweep is launched again (resume)."""
    mc = tracking.client(store)
    found = mc.search_runs(
        [experiment_id],
        filter_string=(
            f"tags.`ragsweep.sweep_key` = '{sweep_key}' and tags.`ragsweep.stage` = 'sweep'"
        ),
        order_by=["attributes.start_time DESC"],
        max_results=1,
    )
    if found:
        run_id = found[0].info.run_id
        mc.update_run(run_id, status="RUNNING")
        return str(run_id)
    run_id = tracking.start_run(store, experiment_id, run_name=name, tags=tags)
    tracking.finish_run(store, run_id, params=params, status="RUNNING")
    return run_id


class _Lock:
    """An exclusive lock per sweep, so a second launch of a running sweep is refused instead of
    'recovering' the first one's live runs."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(path, "a+")  # noqa: SIM115 (held for the sweep's lifetime)
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise UserError(
                f"this sweep is already running (lock {path}); wait for it or stop it first"
            ) from None

    def release(self) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def plan(args: Sequence[str]) -> tuple[Plan, list[str], _Lock]:
    """Check and prepare a sweep; return the plan, Hydra's argv, and the sweep's lock."""
    from ragsweep.retrieval.cache import key_of
    from ragsweep.scoring.evaluate import parse_measures, stage_cache

    name, factor, values, baseline, fixed = expand(args)
    name = name or factor
    cfgs = {v: _compose([*fixed, f"{factor}={v}"]) for v in values}
    _check_factor_is_used(factor, cfgs[baseline])
    pins, hashes, dataset = _pins(cfgs)
    base_cfg = cfgs[baseline]
    parse_measures(base_cfg)  # a bad measure is refused before anything runs
    # what identifies the sweep for resume: not how it is run (workers, tracking, cache)
    telling = sorted(o for o in fixed if not o.lstrip("+~").startswith(_NEUTRAL))
    sweep_key = key_of(
        {
            "name": name,
            "factor": factor,
            "values": values,
            "baseline": baseline,
            "fixed": telling,
            "pins": pins,
        }
    )
    cache_dir = base_cfg.cache.dir if "cache" in base_cfg else None
    # one launch per sweep name at a time: recovery marks the experiment's RUNNING runs KILLED
    lock_name = metric_safe(_experiment_name(name)).replace(" ", "_").replace(":", "_")
    lock = _Lock(Path(cache_dir or ".ragsweep_cache") / "locks" / f"{lock_name}.lock")
    try:
        store = tracking.resolve_store(base_cfg.tracking.get("uri"))
        experiment_id = tracking.prepare(store, _experiment_name(name))
        recovered = _recover(store, experiment_id)
        if recovered:
            print(f"marked {recovered} run(s) left RUNNING by an interrupted launch as KILLED")
        parent_tags = {
            "ragsweep.stage": "sweep",
            "ragsweep.sweep": name,
            "ragsweep.sweep_key": sweep_key,
            "ragsweep.factor": factor,
            **{f"ragsweep.{k}": v for k, v in pins.items()},
        }
        parent_params = {
            "sweep.name": name,
            "sweep.factor": factor,
            "sweep.values": ",".join(values),
            "sweep.baseline": baseline,
            "sweep.fixed": " ".join(fixed) or "(none)",
        }
        parent = _parent(store, experiment_id, sweep_key, parent_tags, parent_params, name)
        sweep_dir = _sweep_dir(args, name)
        the_plan = Plan(
            name=name,
            factor=factor,
            values=values,
            baseline=baseline,
            fixed=fixed,
            sweep_dir=sweep_dir,
            store_uri=store.uri,
            artifact_root=store.artifact_root,
            experiment_id=experiment_id,
            parent_run_id=parent,
            pins=pins,
            config_hashes=hashes,
            decision=f"recall@{int(base_cfg.eval.k_prompt)}",
            slices=list(dataset.slices),
            confirm=bool(OmegaConf.select(base_cfg, "confirm.enabled", default=True)),
            launch_dir=str(Path.cwd()),
        )
        the_plan.save()
        from ragsweep.scoring.evaluate import prebuild

        prebuild(list(cfgs.values()), dataset, stage_cache(base_cfg))
    except BaseException:
        lock.release()
        raise
    quoted = ",".join(_quote(v) for v in values)
    hydra_args = [
        *args_without_sweep(args, factor),
        f"{factor}={quoted}",
        f"hydra.sweep.dir={sweep_dir}",
        "--multirun",
    ]
    return the_plan, hydra_args, lock


def _quote(value: str) -> str:
    return value if re.fullmatch(r"[A-Za-z0-9_.@/\-]+", value) else f"'{value}'"


def args_without_sweep(args: Sequence[str], factor: str) -> list[str]:
    """The command line minus -m and any override of the factor (the plan supplies it)."""
    out = []
    for a in args:
        if a in ("-m", "--multirun"):
            continue
        if "=" in a and a.split("=", 1)[0].lstrip("+~") == factor:
            continue
        out.append(a)
    return out


def _sweep_dir(args: Sequence[str], name: str) -> str:
    for a in args:
        if a.startswith("hydra.sweep.dir="):
            return str(Path(a.split("=", 1)[1]).resolve())
    stamp = datetime.now().strftime("%Y-%m-%d/%H-%M-%S")
    return str((Path("multirun") / f"{stamp}-{metric_safe(name)}").resolve())


# ----------------------------------------------------------------------------- workers


def _progress(plan_: Plan, value: str, stage: str) -> None:
    folder = Path(plan_.sweep_dir) / "progress"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{metric_safe(value)}.tmp"
    tmp.write_text(json.dumps({"value": value, "stage": stage, "time": time.time()}))
    os.replace(tmp, folder / f"{metric_safe(value)}.json")


def _write_result(plan_: Plan, value: str, record: dict[str, Any]) -> None:
    folder = Path(plan_.sweep_dir) / "results"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{metric_safe(value)}.tmp"
    tmp.write_text(json.dumps({"value": value, **record}, sort_keys=True))
    os.replace(tmp, folder / f"{metric_safe(value)}.json")


def _finished_child(plan_: Plan, chash: str) -> str | None:
    """A FINISHED run of this configuration under this sweep, on the same data and code."""
    from ragsweep.provenance import code_version

    mc = tracking.client(plan_.store)
    flt = (
        f"tags.`mlflow.parentRunId` = '{plan_.parent_run_id}' and "
        f"tags.`ragsweep.config_hash` = '{chash}' and attributes.status = 'FINISHED'"
    )
    for run in mc.search_runs([plan_.experiment_id], filter_string=flt, max_results=50):
        tags = run.data.tags
        same_data = all(
            tags.get(f"ragsweep.{k}") == plan_.pins[k] for k in ("snapshot", "labels", "split")
        )
        if same_data and tags.get("ragsweep.code") == code_version():
            return str(run.info.run_id)
    return None


def factor_value(plan_: Plan, overrides: Sequence[str]) -> str:
    for o in overrides:
        key, _, value = o.partition("=")
        if key.lstrip("+~") == plan_.factor:
            return value.strip("'\"")
    raise UserError(f"job overrides {list(overrides)} do not set the sweep factor {plan_.factor}")


def run_job(
    cfg: DictConfig, sweep_dir: str, overrides: Sequence[str], hydra_dir: Path | None
) -> str:
    """Evaluate and log one configuration of a planned sweep; never raises for a failure of
    the configuration itself (it becomes a FAILED child run). Returns the status."""
    from ragsweep.experiment.single import payload
    from ragsweep.scoring.evaluate import config_hash, evaluate

    plan_ = Plan.load(sweep_dir)
    # joblib reuses worker processes between launches in one Python process (a notebook, a
    # test run), and a reused worker keeps the folder it started in: resolve paths as planned
    if plan_.launch_dir:
        os.chdir(plan_.launch_dir)
    value = factor_value(plan_, overrides)
    chash = config_hash(cfg)
    if plan_.config_hashes.get(value) not in (None, chash):
        error = (
            f"the job composed a configuration other than the planned one (config hash "
            f"{chash[:12]}, planned {plan_.config_hashes[value][:12]})"
        )
        _write_result(plan_, value, {"status": "failed", "error": error})
        _progress(plan_, value, "failed")
        return "failed"
    done = _finished_child(plan_, chash)
    if done is not None:
        _write_result(plan_, value, {"status": "skipped", "run_id": done})
        _progress(plan_, value, "skipped (already finished)")
        return "skipped"
    store = plan_.store
    tags = {
        "ragsweep.stage": "config",
        "ragsweep.sweep": plan_.name,
        "ragsweep.factor": plan_.factor,
        "ragsweep.value": value,
        "ragsweep.baseline": str(value == plan_.baseline).lower(),
        "ragsweep.config_hash": chash,
    }
    run_id = tracking.start_run(
        store,
        plan_.experiment_id,
        run_name=plan_.label(value),
        tags=tags,
        parent_run_id=plan_.parent_run_id,
    )
    try:
        result = evaluate(cfg, progress=lambda stage: _progress(plan_, value, stage))
        _progress(plan_, value, "logging")
        with payload(result, cfg, hydra_dir) as p:
            tracking.finish_run(
                store,
                run_id,
                params=p.params,
                tags=p.tags,
                metrics=p.metrics,
                artifacts=p.artifacts,
            )
    except Exception as err:  # a failed configuration must not stop the others
        tb = traceback.format_exc()
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        _fail(store, run_id, tb, first)
        _write_result(plan_, value, {"status": "failed", "run_id": run_id, "error": first})
        _progress(plan_, value, "failed")
        return "failed"
    _write_result(plan_, value, {"status": "finished", "run_id": run_id})
    _progress(plan_, value, "done")
    return "finished"


def _fail(store: tracking.Store, run_id: str, tb: str, message: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        path = Path(tmp) / "traceback.txt"
        path.write_text(tb)
        tracking.finish_run(
            store,
            run_id,
            tags={"ragsweep.error": message[:4000]},
            artifacts={"error": path},
            status="FAILED",
        )


# ----------------------------------------------------------------------------- the end


def finish(plan_: Plan, lock: _Lock, interrupted: BaseException | None = None) -> int:
    """Summarise the sweep, close its parent run, release the lock; return the exit code."""
    try:
        return _finish(plan_, interrupted)
    finally:
        lock.release()


def _finish(plan_: Plan, interrupted: BaseException | None) -> int:
    from ragsweep.measures import Measure

    store = plan_.store
    mc = tracking.client(store)
    records: dict[str, dict[str, Any]] = {}
    for value in plan_.values:
        path = Path(plan_.sweep_dir) / "results" / f"{metric_safe(value)}.json"
        records[value] = json.loads(path.read_text()) if path.exists() else {"status": "not run"}
    runs = {v: mc.get_run(r["run_id"]) for v, r in records.items() if r.get("run_id")}
    decision = Measure.parse(plan_.decision)
    # the parent carries every configuration's metrics (`<key>/<slice>/<value>`) and the
    # baseline's (`baseline/<key>/<slice>`), so the UI's charts have something to draw on the
    # parent row; the report adds delta/, ci_low/ and ci_high/ metrics
    parent_metrics: dict[str, float] = {}
    for value, run in runs.items():
        if run.info.status != "FINISHED":
            continue
        for key, metric in run.data.metrics.items():
            if "/" in key and not key.startswith(("seconds/", "questions/")):
                parent_metrics[f"{key}/{metric_safe(value)}"] = metric
                if value == plan_.baseline:
                    parent_metrics[f"baseline/{key}"] = metric
    failed = [
        v for v, r in records.items() if r["status"] != "finished" and r["status"] != "skipped"
    ]
    status = "FAILED" if failed or interrupted else "FINISHED"
    tracking.finish_run(
        store,
        plan_.parent_run_id,
        metrics=parent_metrics,
        tags={"ragsweep.failed": ",".join(failed) or "none"},
        status=status,
    )
    _print_summary(plan_, records, runs, decision)
    complete = not failed and interrupted is None
    reported = _report_and_confirm(plan_, confirm=complete)
    print(f"see it with `ragsweep ui`, then {tracking.runs_url(store, plan_.experiment_id)}")
    if failed:
        listing = ", ".join(f"{plan_.label(v)} ({records[v]['status']})" for v in failed)
        print(
            f"sweep {plan_.name}: {len(failed)} of {len(plan_.values)} configuration(s) did not "
            f"finish: {listing}; tracebacks are in the failed runs' error/ artifacts; "
            "launch the same command again to run only those",
            file=sys.stderr,
        )
        return 1
    return 1 if interrupted or not reported else 0


def _report_and_confirm(plan_: Plan, confirm: bool) -> bool:
    """The comparison report (logged to the parent run), then the confirm stage if enabled and
    `confirm` (every configuration finished: a winner picked from a partial sweep would spend
    the held-out split on a half-made decision). Returns False when no report could be made.
    The confirm verdict does not change the sweep's exit code.
    """
    from ragsweep.compare.report import report_sweep
    from ragsweep.experiment.confirm import confirm_sweep

    try:
        dev_report = report_sweep(plan_.parent_run_id, store=plan_.store)
    except UserError as err:
        print(f"report: {err}", file=sys.stderr)
        return False
    if plan_.confirm and not confirm:
        print("confirm: skipped, the sweep did not finish every configuration")
    elif plan_.confirm:
        try:
            confirm_sweep(plan_.parent_run_id, store=plan_.store, dev_report=dev_report)
        except UserError as err:
            print(f"confirm: {err}", file=sys.stderr)
    return True


def _print_summary(
    plan_: Plan, records: dict[str, dict[str, Any]], runs: dict[str, Any], decision: Any
) -> None:
    from rich.table import Table

    from ragsweep.compare.table import print_table

    present = {k.split("/", 1)[1] for r in runs.values() for k in r.data.metrics}
    slices = [s for s in plan_.slices if s in present]
    table = Table(
        title=f"sweep {plan_.name}: {decision} per slice, baseline {plan_.label(plan_.baseline)}",
        title_justify="left",
    )
    table.add_column(plan_.factor)
    table.add_column("status")
    for s in [*slices, "all", "weighted"]:
        table.add_column(s, justify="right")
    for value in plan_.values:
        rec, run = records[value], runs.get(value)
        cells = []
        for s in [*slices, "all", "weighted"]:
            m = run.data.metrics.get(f"{decision.key}/{s}") if run is not None else None
            cells.append("" if m is None else f"{m:.3f}")
        label = value + (" (baseline)" if value == plan_.baseline else "")
        table.add_row(label, rec["status"], *cells)
    print_table(table)
