"""Re-baselining after the labels changed: every configuration of a sweep scored again on the
labelled set as it is now, logged under the sweep's parent, and compared again.

A comparison across two labels hashes is refused (or, with `--allow-mismatch`, marked "not like
for like": `ragsweep.compare.runs`), so after `labels import` or `labels check --apply` the
sweep's old verdicts say nothing about the new labels. `rebaseline(sweep)` takes each value's
latest FINISHED scoring (`logged.configuration_runs`), evaluates its logged config again on the
current dataset (ranked lists come from the stage cache), and logs the result as a child run of
the sweep's parent (`ragsweep.stage` = `rebaseline`, `ragsweep.rebaselines` = the run it
re-scores, `ragsweep.labels_before` = the labels hash that run was scored on, `ragsweep.value`
as the configuration run's). It then builds the sweep's report on the new runs: its notes say
the verdicts are on labels hash X and not like for like with the earlier run; the report's files
go under the re-scored baseline run's `report/`, and each new run gets its decision and verdict
tags and its differences from the baseline, as a launch gives a configuration run. It returns
the per-slice decision measure of the baseline before and after, so the user sees how much of
a number was the labels. Launching the sweep again does the same from scratch (a new labels hash
is a new sweep key: a new parent run, every configuration ranked and scored again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.compare.report import Report
from ragsweep.compare.runs import RunRecord, sweep_report
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking
from ragsweep.experiment.judges import judge_notes
from ragsweep.experiment.reproduce import load_run_config


@dataclass
class Rescored:
    """One configuration of the sweep scored again on the current labels."""

    value: str
    original: str  # the run re-scored
    run_id: str  # the new run
    before: dict[str, float]  # row (slice, all, weighted) -> decision measure, old labels
    after: dict[str, float]  # the same on the current labels


@dataclass
class Rebaseline:
    original: str  # the old baseline run
    run_id: str | None  # the new one (None: nothing had changed)
    measure: str  # the decision measure, e.g. recall@5
    before: dict[str, float]  # row (slice, all, weighted) -> value on the old labels
    after: dict[str, float]  # the same on the current labels
    labels_before: str
    labels_after: str
    #: every configuration re-scored, the baseline first (empty: nothing had changed)
    configurations: list[Rescored] = field(default_factory=list)
    #: the sweep's report on the current labels (None: nothing had changed, or no other
    #: configuration finished)
    report: Report | None = None


def _rows(metrics: dict[str, float], measure: Any, rows: list[str]) -> dict[str, float]:
    return {r: float(v) for r in rows if (v := metrics.get(cv.metric_key(measure, r))) is not None}


def rebaseline(sweep: str, *, uri: str | None = None) -> Rebaseline:
    """Score every configuration of `sweep` (name or parent run id) again on the current
    labels, log each and the sweep's report on them (see the module docstring). Nothing is
    logged when every configuration was scored on these labels and snapshot already."""
    from ragsweep.data import load_dataset
    from ragsweep.experiment.single import payload, run_measured
    from ragsweep.scoring.evaluate import evaluate

    store = tracking.resolve_store(uri)
    _, mc = logged.store_client(store)
    parent, notes = logged.find_parent(mc, sweep)
    pid = str(parent.info.run_id)
    ptags, params = parent.data.tags, parent.data.params
    name = str(ptags.get(cv.tag("sweep")) or params.get("sweep.name") or pid)
    factor = ptags.get(cv.tag("factor")) or params.get("sweep.factor")
    latest = logged.configuration_runs(mc, parent)
    baseline = params.get("sweep.baseline") or next(
        (v for v, r in latest.items() if r.data.tags.get(cv.tag("baseline")) == "true"), None
    )
    if baseline is None or baseline not in latest:
        raise UserError(
            f"sweep {name!r} has no FINISHED baseline run to re-baseline; launch the sweep first"
        )
    values = [v for v in params.get("sweep.values", "").split(",") if v]
    order = [baseline, *(v for v in [*values, *sorted(latest)] if v in latest and v != baseline)]
    order = list(dict.fromkeys(order))
    configs = {v: load_run_config(store, latest[v].info.run_id) for v in order}
    base_run, base_cfg = configs[baseline]
    ds = load_dataset(base_cfg.data.path)
    measure = cv.decision_measure(int(base_cfg.eval.k_prompt))
    rows = [*ds.slices, *cv.SUMMARY_ROWS]
    base_before = _rows(run_measured(mc, base_run), measure, rows)
    old_labels = str(base_run.data.tags.get(cv.tag("labels"), ""))
    fresh = all(
        run.data.tags.get(cv.tag("labels")) == ds.labels_hash
        and run.data.tags.get(cv.tag("snapshot")) == ds.snapshot_hash
        for run, _ in configs.values()
    )
    if fresh:
        return Rebaseline(
            str(base_run.info.run_id),
            None,
            str(measure),
            base_before,
            base_before,
            old_labels,
            old_labels,
        )
    done: list[Rescored] = []
    records: dict[str, RunRecord] = {}
    for value in order:
        run, cfg = configs[value]
        pinned = OmegaConf.merge(cfg, {"data": {"sha256": None}})  # the snapshot may move on
        assert isinstance(pinned, DictConfig)
        result = evaluate(pinned, dataset=ds)
        old_name = str(run.info.run_name or value).removeprefix("rebaseline ")
        tags = {
            **result.tags,
            cv.TAG_STAGE: cv.STAGE_REBASELINE,
            cv.tag("rebaselines"): str(run.info.run_id),
            cv.tag("labels_before"): str(run.data.tags.get(cv.tag("labels"), "")),
            cv.tag("sweep"): name,
            cv.tag("value"): value,
            cv.tag("baseline"): str(value == baseline).lower(),
            **({cv.tag("factor"): str(factor)} if factor else {}),
        }
        with payload(result, pinned) as p:
            run_id = tracking.log_run(
                store,
                parent.info.experiment_id,
                run_name=f"rebaseline {old_name}",
                parent_run_id=pid,
                **p.logged(tags=tags),
            )
        done.append(
            Rescored(
                value,
                str(run.info.run_id),
                run_id,
                _rows(run_measured(mc, run), measure, rows),
                _rows(result.metrics, measure, rows),
            )
        )
        slices = [str(s) for s in result.summary.index if s not in cv.SUMMARY_ROWS]
        records[value] = RunRecord(
            value, run_id, tags, result.per_question, slices, dict(result.config)
        )
    report = None
    if len(records) > 1:
        note = (
            f"verdicts on labels {ds.labels_hash[:12]} (every configuration re-scored by "
            f"`ragsweep labels rebaseline`): not like for like with the sweep's earlier run "
            f"(parent run {pid}) on labels {old_labels[:12]}; any held-out verdict was on "
            "those earlier labels"
        )
        report = sweep_report(
            records,
            values=values,
            baseline=baseline,
            name=name,
            factor=factor,
            notes=[note, *notes, *judge_notes(records[baseline])],
        )
        logged.log_report_files(mc, records[baseline].run_id, report)
        logged.log_config_results(mc, report, factor)
    return Rebaseline(
        str(base_run.info.run_id),
        done[0].run_id,
        str(measure),
        base_before,
        done[0].after,
        old_labels,
        ds.labels_hash,
        done,
        report,
    )


def print_rebaseline(r: Rebaseline) -> None:
    from rich.table import Table

    from ragsweep.compare.table import print_table

    if r.run_id is None:
        print(
            f"every configuration of the sweep (baseline run {r.original}) was scored on these "
            f"labels ({r.labels_after[:12]}) already: nothing to re-baseline"
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
    for c in r.configurations:
        old, new = c.before.get(cv.WEIGHTED), c.after.get(cv.WEIGHTED)
        change = "" if old is None or new is None else f": weighted {old:.3f} -> {new:.3f}"
        print(f"re-scored {c.value} (run {c.original}) as run {c.run_id}{change}")
    print(
        f"logged as run {r.run_id} (ragsweep.stage=rebaseline, ragsweep.rebaselines={r.original})"
        + (", every configuration beside it" if len(r.configurations) > 1 else "")
    )
    if r.report is not None:
        from ragsweep.compare.text import print_report

        print_report(r.report)
        print(
            f"the report above is on labels {r.labels_after[:12]}, logged under run "
            f"{r.run_id}'s report/; it is not like for like with the sweep's earlier verdicts "
            f"(labels {r.labels_before[:12]})"
        )
