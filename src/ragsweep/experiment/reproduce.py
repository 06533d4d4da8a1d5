"""Reproduce a logged run from what MLflow holds, and say whether every number came back.

`reproduce(run_id)` downloads the run's resolved config (`config/config.yaml`), checks that the
corpus snapshot, the labelled set and the split are the ones the run was logged with (a
mismatch is refused, naming which, since the numbers could not be compared), evaluates the
config again from scratch (no stage cache), compares every quality number it measured (its
`results/metrics.csv`, whatever it logged as metrics), and logs a new run tagged
`ragsweep.reproduces` = the original run id, logging the metrics the original's config asked for
(`tracking.metrics`). Timings and index sizes (`seconds/`, `cost/`) vary with the machine and
are not compared.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking


@dataclass
class Reproduction:
    original: str
    run_id: str | None
    differences: list[tuple[str, float | None, float | None]]  # key, logged, reproduced
    compared: int

    @property
    def identical(self) -> bool:
        return not self.differences


def load_run_config(store: tracking.Store, run_id: str) -> tuple[object, DictConfig]:
    """The run and its resolved config, from MLflow alone."""
    from mlflow.exceptions import MlflowException

    _, mc = logged.store_client(store)  # a missing local store is refused, not created
    try:
        run = mc.get_run(run_id)
    except MlflowException:
        raise UserError(
            f"no run {run_id!r} in the tracking store {store.uri}; "
            "pass the run id shown in the MLflow UI (and --uri if it lives elsewhere)"
        ) from None
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        try:
            path = mc.download_artifacts(run_id, "config/config.yaml", tmp)
        except Exception:
            raise UserError(
                f"run {run_id} has no config/config.yaml artifact: only configuration and "
                "confirm runs logged by ragsweep can be reproduced"
            ) from None
        cfg = OmegaConf.load(path)
    assert isinstance(cfg, DictConfig)
    return run, cfg


def comparable(key: str) -> bool:
    """A logged metric the re-run must give again: `<measure key>/<row>` or `questions/<slice>`.

    Timings and index sizes (`seconds/`, `cost/`) measure the machine; a confirm run's
    `baseline/`, `delta/` and `ci_*` metrics come from the comparison, not from this config.
    """
    if key.startswith(f"{cv.QUESTIONS}/"):
        return True
    parsed = cv.parse_metric_key(key)
    return parsed is not None and parsed.prefix is None


def _unnamed(metrics: dict[str, float], held: bool) -> dict[str, float]:
    """A confirm run's held-out metrics without their `heldout/` prefix (runs logged before
    the prefix existed have none, and its results/metrics.csv neither), so they compare with a
    fresh evaluation's; others as they are."""
    prefix = f"{cv.HELDOUT}/"
    if not held or not any(k.startswith(prefix) for k in metrics):
        return dict(metrics)
    return {k.removeprefix(prefix): v for k, v in metrics.items() if k.startswith(prefix)}


def _named(metrics: dict[str, float], held: bool) -> dict[str, float]:
    """What a reproduction logs: a confirm run's numbers under `heldout/`, as the original's."""
    return {cv.heldout_key(k) if held else k: v for k, v in metrics.items()}


def is_confirm(run: object) -> bool:
    return run.data.tags.get(cv.TAG_STAGE) == cv.STAGE_CONFIRM  # type: ignore[attr-defined]


def check_pins(run: object, cfg: DictConfig) -> object:
    """Refuse when the data on this machine is not the data the run was logged with."""
    from ragsweep.data import load_dataset
    from ragsweep.scoring.eval_config import select_questions

    tags = run.data.tags  # type: ignore[attr-defined]
    ds = load_dataset(cfg.data.path)
    _, split_hash = select_questions(cfg, ds, allow_heldout=is_confirm(run))
    now = {"snapshot": ds.snapshot_hash, "labels": ds.labels_hash, "split": split_hash}
    what = {"snapshot": "corpus snapshot", "labels": "labelled set", "split": "split"}
    for key, value in now.items():
        logged = tags.get(f"ragsweep.{key}")
        if logged is not None and logged != value:
            raise UserError(
                f"the {what[key]} differs from the one run {run.info.run_id} was logged with "  # type: ignore[attr-defined]
                f"(ragsweep.{key} logged {logged[:16]}..., here {value[:16]}...); restore that "
                f"{what[key]} (data.path={cfg.data.path}) before reproducing"
            )
    return ds


def reproduce(run_id: str, *, uri: str | None = None, log: bool = True) -> Reproduction:
    """Re-run a logged configuration and compare every quality metric (see module doc)."""
    from ragsweep.experiment.single import measured, payload, run_measured
    from ragsweep.scoring.evaluate import evaluate

    store = tracking.resolve_store(uri)
    run, cfg = load_run_config(store, run_id)
    tags = run.data.tags  # type: ignore[attr-defined]
    if tags.get(cv.TAG_STAGE) == cv.STAGE_EXTERNAL:
        raise UserError(
            f"run {run_id} scored another system's passages (ragsweep.stage=external), which "
            "ragsweep cannot re-run; score its run file again with `ragsweep score-passages "
            f"--run FILE` (the file's sha256 was {tags.get(cv.tag('run_sha256'), '?')[:16]}...)"
        )
    ds = check_pins(run, cfg)
    fresh = OmegaConf.merge(cfg, {"cache": {"dir": None}})
    assert isinstance(fresh, DictConfig)
    result = evaluate(fresh, dataset=ds, allow_heldout=is_confirm(run))  # type: ignore[arg-type]
    held = is_confirm(run)
    # every number it measured, however few it logged as metrics (`tracking.metrics`)
    numbers = _unnamed(run_measured(tracking.client(store), run), held)
    logged = {k: v for k, v in numbers.items() if comparable(k)}
    now = {k: v for k, v in measured(result).items() if comparable(k)}
    diffs = [
        (k, logged.get(k), now.get(k))
        for k in sorted(set(logged) | set(now))
        if logged.get(k) != now.get(k)
    ]
    new_id = None
    if log:
        tags = {
            **result.tags,
            cv.TAG_STAGE: cv.STAGE_REPRODUCE,
            "ragsweep.reproduces": run_id,
            "ragsweep.reproduced_identically": str(not diffs).lower(),
        }
        with payload(result, fresh) as p:
            new_id = tracking.log_run(
                store,
                run.info.experiment_id,  # type: ignore[attr-defined]
                run_name=f"reproduce {run.info.run_name}",  # type: ignore[attr-defined]
                **p.logged(tags=tags, metrics=_named(p.metrics, held)),
            )
    return Reproduction(original=run_id, run_id=new_id, differences=diffs, compared=len(logged))


def print_reproduction(rep: Reproduction) -> None:
    from rich.table import Table

    from ragsweep.compare.table import print_table

    if rep.identical:
        print(f"run {rep.original} reproduced: all {rep.compared} metrics identical, bit for bit")
    else:
        table = Table(title=f"run {rep.original}: {len(rep.differences)} metric(s) differ")
        for col in ("metric", "logged", "reproduced", "difference"):
            table.add_column(col, justify="left" if col == "metric" else "right")
        for key, a, b in rep.differences:
            diff = "" if a is None or b is None else f"{b - a:+.3g}"
            table.add_row(
                key, "missing" if a is None else repr(a), "missing" if b is None else repr(b), diff
            )
        print_table(table)
    if rep.run_id:
        print(f"logged as run {rep.run_id} (tag ragsweep.reproduces={rep.original})")
