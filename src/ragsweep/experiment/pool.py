"""Pooling a logged sweep for judging: the (question, clause) pairs nobody judged in the top-k of
each of its configuration runs, as the judging sheet `labels import` reads (docs/labelling.md,
"Pool the sweep").

    p = pool_sweep(sweep="fusion_k")                 # or runs=[run_id, ...]; depth=None: k_prompt
    write_sheet(p.pool, "judging_sheet.csv")         # ragsweep.labelling.pool
    p.per_system(), p.per_slice()                    # pairs per configuration, per slice

Nothing is ranked again: a configuration run's `results/per_question.csv` keeps the clauses each
of its top passages covers (`scoring.ranked.stored_depth`, at least 10), which is all a pool
of depth k needs; a deeper `depth` is refused. The runs must have been scored on the labelled set
and corpus snapshot the dataset holds now, else the verdicts the pool is meant to settle are on
other labels: `labels rebaseline` scores them on the current ones first.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from ragsweep import conventions as cv
from ragsweep.compare.runs import RunRecord
from ragsweep.data import Dataset, load_dataset
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking
from ragsweep.labelling.pool import Pool, pool_ranked
from ragsweep.labelling.pool_systems import top_clauses
from ragsweep.scoring.eval_config import measures_of
from ragsweep.scoring.ranked import stored_depth

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_.+-]")


@dataclass(frozen=True)
class SweepPool:
    """The unjudged pairs of logged configuration runs, and where they came from."""

    pool: Pool  # rows: the judging sheet; hits: each configuration's pairs with their ranks
    runs: dict[str, str]  # configuration (the sheet's system name) -> run id
    depths: dict[str, int]  # configuration -> k pooled (its eval.k_prompt, or the depth given)
    source: str  # "sweep fusion_k (parent run ...)" or "runs ..."
    sweep: str  # the sweep the runs belong to ("SWEEP" when they come from several)
    dataset: Dataset

    def per_system(self) -> dict[str, int]:
        """Unjudged pairs in each configuration's top-k, before de-duplication across them."""
        counts = self.pool.hits.groupby("system").size()
        return {name: int(counts.get(name, 0)) for name in self.runs}

    def per_slice(self) -> dict[str, int]:
        """Sheet rows per slice, in the dataset's slice order (slices with none left out)."""
        counts = self.pool.rows.groupby("slice").size()
        return {s: int(counts[s]) for s in self.dataset.slices if s in counts}


def _system_name(text: str, taken: set[str], run_id: str) -> str:
    """A configuration's name as the sheet's `systems` cell can hold it (`name@rank`)."""
    name = _NOT_IN_NAME.sub("_", text).lstrip("_.+-") or run_id[:8]
    return f"{name}-{run_id[:8]}" if name in taken else name


def _sweep_runs(mc: Any, sweep: str) -> tuple[dict[str, Any], str]:
    parent, _ = logged.find_parent(mc, sweep)
    name = parent.data.tags.get(cv.tag("sweep")) or parent.info.run_id
    found = logged.configuration_runs(mc, parent)
    if not found:
        raise UserError(
            f"sweep {name!r} (parent run {parent.info.run_id}) has no FINISHED configuration "
            "run to pool; launch it again to finish it"
        )
    order = [v for v in parent.data.params.get("sweep.values", "").split(",") if v in found]
    order += sorted(v for v in found if v not in order)
    named: dict[str, Any] = {}
    for value in order:
        named[_system_name(value, set(named), found[value].info.run_id)] = found[value]
    return named, f"sweep {name} (parent run {parent.info.run_id})"


def _given_runs(mc: Any, run_ids: Sequence[str]) -> tuple[dict[str, Any], str]:
    if len(set(run_ids)) != len(run_ids):
        raise UserError("a run id is given twice in --runs; give each run once")
    runs: dict[str, Any] = {}
    for rid in run_ids:
        run = logged.get_run(mc, rid)
        if run is None:
            raise UserError(f"no run with id {rid} in this MLflow store; check the id")
        tags = run.data.tags
        stage = tags.get(cv.TAG_STAGE)
        if stage not in (cv.STAGE_CONFIG, cv.STAGE_REBASELINE) or not tags.get(cv.tag("sweep")):
            raise UserError(
                f"run {rid} is not a sweep's configuration run (ragsweep.stage={stage!r}); give "
                "the ids of a sweep's configuration runs (its child runs), or --sweep NAME"
            )
        label = tags.get(cv.tag("value")) or run.info.run_name or rid
        runs[_system_name(label, set(runs), rid)] = run
    return runs, f"runs {', '.join(run_ids)}"


def _check_pins(records: dict[str, RunRecord], ds: Dataset, sweep: str) -> None:
    """Every run scored on the labelled set and snapshot `ds` holds now."""
    for name, rec in records.items():
        labels, snapshot = rec.tags.get(cv.tag("labels")), rec.tags.get(cv.tag("snapshot"))
        if snapshot != ds.snapshot_hash:
            raise UserError(
                f"configuration {name} (run {rec.run_id}) ranked corpus snapshot "
                f"{str(snapshot)[:12]}, {ds.root} holds {ds.snapshot_hash[:12]}: its passages "
                "are not this corpus's; launch the sweep again on this snapshot, then pool it"
            )
        if labels != ds.labels_hash:
            raise UserError(
                f"configuration {name} (run {rec.run_id}) was scored on labels "
                f"{str(labels)[:12]}, {ds.root} holds labels {ds.labels_hash[:12]} now; run "
                f"`ragsweep labels rebaseline {sweep}` to score the sweep on them, then pool it"
            )


def _depth(rec: RunRecord, name: str, depth: int | None) -> int:
    """The k pooled for a run: `depth`, else its eval.k_prompt; never deeper than it kept."""
    if "clauses" not in rec.per_question.columns:
        raise UserError(
            f"configuration {name} (run {rec.run_id}) has no clauses column in its "
            "results/per_question.csv (logged by an older ragsweep); launch the sweep again"
        )
    cfg = OmegaConf.create(rec.config)
    k = int(cfg.eval.k_prompt) if depth is None else depth
    kept = stored_depth(measures_of(cfg))
    if k > kept:
        raise UserError(
            f"--depth {k} is deeper than configuration {name} (run {rec.run_id}) kept: its "
            f"per-question rows hold its top {kept} passages; pool at most --depth {kept}, or "
            "pool deeper with `ragsweep labels pool --system NAME=OVERRIDES --depth D`"
        )
    return k


def pool_sweep(
    *,
    sweep: str | None = None,
    runs: Sequence[str] = (),
    depth: int | None = None,
    data: str | Path | None = None,
    store: tracking.Store | None = None,
) -> SweepPool:
    """The unjudged (question, clause) pairs in the top-k of a logged sweep's configurations
    (`sweep`: name or parent run id; each value's latest FINISHED scoring) or of the
    configuration runs `runs`, de-duplicated against every label of the dataset (grade 0
    included) and across configurations. k is `depth`, else each run's eval.k_prompt (a
    sweep's deciding k). The dataset is `data`, else the folder the runs were scored on."""
    if (sweep is None) == (not runs):
        raise UserError(
            "give --sweep NAME or --runs ID ... (not both): the configurations to pool"
            if sweep is not None
            else "name what to pool: --sweep NAME or --runs ID ..."
        )
    if depth is not None and (isinstance(depth, bool) or depth <= 0):
        raise UserError(f"--depth must be a positive number of passages, got {depth}")
    store, mc = logged.store_client(store)
    found, source = _sweep_runs(mc, sweep) if sweep is not None else _given_runs(mc, runs)
    with tempfile.TemporaryDirectory(prefix="ragsweep-pool-") as tmp:
        records = {n: logged.load_logged_run(mc, r, n, Path(tmp)) for n, r in found.items()}
    first = next(iter(records.values()))
    path = data if data is not None else (first.config.get("data") or {}).get("path")
    ds = load_dataset(path)
    sweeps = {rec.tags.get(cv.tag("sweep")) for rec in records.values()}
    sweep_name = str(sweeps.pop()) if len(sweeps) == 1 and None not in sweeps else "SWEEP"
    _check_pins(records, ds, sweep_name)
    depths = {n: _depth(rec, n, depth) for n, rec in records.items()}
    ranked = {n: top_clauses(rec.per_question, depths[n]) for n, rec in records.items()}
    done = pool_ranked(ds, ranked, max(depths.values()), unjudged_only=True)
    runs_by_name = {n: r.run_id for n, r in records.items()}
    return SweepPool(done, runs_by_name, depths, source, sweep_name, ds)
