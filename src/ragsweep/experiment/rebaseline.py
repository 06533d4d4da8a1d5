"""Re-baselining after the labels changed: the sweep's baseline configuration scored again on the
labelled set as it is now, logged beside the old baseline.

A comparison across two labels hashes is refused (or, with `--allow-mismatch`, marked "not like
for like": `ragsweep.compare.runs`), so after `labels import` or `labels check --apply` the old
baseline cannot be compared with new configurations. `rebaseline(sweep)` takes the sweep's
baseline run, evaluates its logged config again on the current dataset, logs the result as a run
of the sweep's experiment (`ragsweep.stage` = `rebaseline`, `ragsweep.rebaselines` = the old run,
`ragsweep.labels_before` = the labels hash it was scored on) and returns the per-slice decision
metric before and after, so the user sees how much of a number was the labels. The next launch
of the sweep runs every configuration on the new labels (its pins changed) and compares them
with this baseline's numbers' peers, never with the old ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking
from ragsweep.experiment.reproduce import load_run_config


@dataclass
class Rebaseline:
    original: str  # the old baseline run
    run_id: str | None  # the new one (None: nothing had changed)
    measure: str  # the decision measure, e.g. recall@5
    before: dict[str, float]  # row (slice, all, weighted) -> value on the old labels
    after: dict[str, float]  # the same on the current labels
    labels_before: str
    labels_after: str


def _baseline_run(mc: Any, parent: Any) -> Any:
    runs = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=(
            f"tags.`mlflow.parentRunId` = '{parent.info.run_id}' and "
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_CONFIG}' and "
            f"tags.`{cv.tag('baseline')}` = 'true' and attributes.status = 'FINISHED'"
        ),
        order_by=["attributes.start_time DESC"],
        max_results=1,
    )
    if not runs:
        raise UserError(
            f"sweep {parent.data.tags.get(cv.tag('sweep'))!r} has no FINISHED baseline run to "
            "re-baseline; launch the sweep first"
        )
    return runs[0]


def rebaseline(sweep: str, *, uri: str | None = None) -> Rebaseline:
    """Score the baseline of `sweep` (name or parent run id) again on the current labels and
    log it (see the module docstring). Nothing is logged when the labels and snapshot are
    those the baseline was scored on."""
    from ragsweep.data import load_dataset
    from ragsweep.experiment.single import payload
    from ragsweep.scoring.evaluate import evaluate

    store = tracking.resolve_store(uri)
    _, mc = logged.store_client(store)
    parent, _ = logged.find_parent(mc, sweep)
    base = _baseline_run(mc, parent)
    run: Any
    run, cfg = load_run_config(store, base.info.run_id)
    tags = run.data.tags
    ds = load_dataset(cfg.data.path)
    measure = cv.decision_measure(int(cfg.eval.k_prompt))
    rows = [*ds.slices, *cv.SUMMARY_ROWS]
    before = {
        r: float(v)
        for r in rows
        if (v := run.data.metrics.get(cv.metric_key(measure, r))) is not None
    }
    old_labels = str(tags.get(cv.tag("labels"), ""))
    same = old_labels == ds.labels_hash and tags.get(cv.tag("snapshot")) == ds.snapshot_hash
    if same:
        return Rebaseline(
            str(base.info.run_id), None, str(measure), before, before, old_labels, old_labels
        )
    pinned = OmegaConf.merge(cfg, {"data": {"sha256": None}})  # the snapshot may move on too
    assert isinstance(pinned, DictConfig)
    result = evaluate(pinned, dataset=ds)
    after = {
        r: float(result.metrics[k])
        for r in rows
        if (k := cv.metric_key(measure, r)) in result.metrics
    }
    new_tags = {
        **result.tags,
        cv.TAG_STAGE: cv.STAGE_REBASELINE,
        cv.tag("rebaselines"): str(base.info.run_id),
        cv.tag("labels_before"): old_labels,
        cv.tag("sweep"): str(parent.data.tags.get(cv.tag("sweep"), "")),
    }
    with payload(result, pinned) as p:
        run_id = tracking.log_run(
            store,
            parent.info.experiment_id,
            run_name=f"rebaseline {base.info.run_name}",
            params=p.params,
            tags=new_tags,
            metrics=p.metrics,
            artifacts=p.artifacts,
            datasets=p.datasets,
            tables=p.tables,
        )
    return Rebaseline(
        str(base.info.run_id), run_id, str(measure), before, after, old_labels, ds.labels_hash
    )


def print_rebaseline(r: Rebaseline) -> None:
    from rich.table import Table

    from ragsweep.compare.table import print_table

    if r.run_id is None:
        print(
            f"baseline run {r.original} was scored on these labels ({r.labels_after[:12]}) "
            "already: nothing to re-baseline"
        )
        return
    table = Table(
        title=(
            f"{r.measure} of the baseline on the old labels ({r.labels_before[:12]}) and the "
            f"current ones ({r.labels_after[:12]})"
        ),
        title_justify="left",
    )
    for col in ("row", "old labels", "current labels", "difference"):
        table.add_column(col, justify="left" if col == "row" else "right")
    for row, old in r.before.items():
        new = r.after.get(row)
        table.add_row(
            row,
            f"{old:.3f}",
            "" if new is None else f"{new:.3f}",
            "" if new is None else f"{new - old:+.3f}",
        )
    print_table(table)
    print(
        f"logged as run {r.run_id} (ragsweep.stage=rebaseline, ragsweep.rebaselines={r.original}); "
        "launch the sweep again to compare its configurations on the current labels"
    )
