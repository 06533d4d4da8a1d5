"""The comparison report of logged runs: find them in MLflow, download their results, have
`ragsweep.compare` build the report, and log what it computed back to the sweep's runs.

    report_sweep("fusion_k")                   # a logged sweep: build, print, log to its parent
    report_runs([base_run_id, cand_run_id])    # any logged configuration runs, nothing logged

MLflow is imported lazily (`ragsweep.experiment.tracking`). Everything about the numbers is
`ragsweep.compare.runs`; this module only reads and writes the store.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragsweep import conventions as cv
from ragsweep.compare.files import write_report
from ragsweep.compare.markdown import config_description, parent_description
from ragsweep.compare.report import Report
from ragsweep.compare.runs import (
    RunRecord,
    load_run_folder,
    report_from_runs,
    sweep_report,
    sweep_values,
    with_run_ids,
)
from ragsweep.compare.summary import (
    HeldOut,
    config_metrics,
    decision_tag,
    decisions_line,
    guard_tag,
    headline_tag,
    heldout_line,
    heldout_tag,
    pick_winner,
    summary_metrics,
    verdict_tag,
    with_heldout,
)
from ragsweep.compare.text import print_report
from ragsweep.errors import UserError
from ragsweep.experiment import tracking, view
from ragsweep.experiment.judges import judge_notes

_RUN_ID = re.compile(r"[0-9a-f]{32}")
#: MLflow's limits: metrics per log_batch call, characters in a tag value
_MAX_METRICS, _MAX_TAG = 1000, 5000


def store_client(store: tracking.Store | None) -> tuple[tracking.Store, Any]:
    """The store (default: as `ragsweep` resolves it) and a client on it; a local store that
    does not exist is a one-line UserError rather than a new empty store."""
    store = store or tracking.resolve_store()
    missing = tracking.missing_store(store)
    if missing is not None:
        raise UserError(
            f"no MLflow store at {missing}; run from the folder the sweep ran in, or set "
            "MLFLOW_TRACKING_URI to its store"
        )
    return store, tracking.client(store)


def get_run(mc: Any, run_id: str) -> Any:
    """The run with id `run_id`, or None when the store has none."""
    from mlflow.exceptions import MlflowException

    try:
        return mc.get_run(run_id)
    except MlflowException:
        return None


def find_parent(mc: Any, sweep: str) -> tuple[Any, list[str]]:
    """The sweep's parent run (by run id, or the latest of sweep `sweep`), and notes."""
    if _RUN_ID.fullmatch(sweep):
        run = get_run(mc, sweep)
        if run is None:
            raise UserError(
                f"no run with id {sweep} in this MLflow store; check the id, or "
                "give the sweep's name"
            )
        stage = run.data.tags.get(cv.TAG_STAGE)
        if stage != cv.STAGE_SWEEP:
            raise UserError(
                f"run {sweep} is not a sweep's parent run (ragsweep.stage={stage!r}); give the "
                "sweep's name or parent run id, or compare runs with `ragsweep report --runs`"
            )
        return run, []
    name = sweep.removeprefix("sweep:")
    exp = mc.get_experiment_by_name(f"sweep:{name}")
    if exp is None:
        known = sorted(
            e.name.removeprefix("sweep:")
            for e in mc.search_experiments()
            if e.name.startswith("sweep:")
        )
        raise UserError(
            f"no sweep named {name!r} in this MLflow store (sweeps: "
            f"{', '.join(known) or 'none'}); give a sweep name or a parent run id"
        )
    parents = mc.search_runs(
        [exp.experiment_id],
        filter_string=f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_SWEEP}'",
        order_by=["attributes.start_time DESC"],
        max_results=100,
    )
    if not parents:
        raise UserError(f"sweep {name!r} has no parent run; launch it with `ragsweep -m ...`")
    notes = []
    if len(parents) > 1:
        notes.append(
            f"sweep {name!r} has {len(parents)} parent runs; this is the latest "
            f"({parents[0].info.run_id}); give another's run id to report it"
        )
    return parents[0], notes


def latest_finished(children: Sequence[Any]) -> dict[str, Any]:
    """value -> the latest FINISHED child run of that value (ties: the larger run id)."""
    best: dict[str, Any] = {}
    for run in children:
        value = run.data.tags.get(cv.tag("value"))
        if value is None or run.info.status != "FINISHED":
            continue
        key = (run.info.start_time or 0, run.info.run_id)
        old = best.get(value)
        if old is None or key > (old.info.start_time or 0, old.info.run_id):
            best[value] = run
    return best


def configuration_runs(mc: Any, parent: Any) -> dict[str, Any]:
    """value -> the latest FINISHED scoring of each configuration of the sweep `parent`: its
    configuration run, or a later re-scoring of it on new labels (`labels rebaseline`, which
    logs one under the same parent)."""
    children = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.`mlflow.parentRunId` = '{parent.info.run_id}'",
        max_results=5000,
    )
    stages = (cv.STAGE_CONFIG, cv.STAGE_REBASELINE)
    return latest_finished([r for r in children if r.data.tags.get(cv.TAG_STAGE) in stages])


def load_logged_run(mc: Any, run: Any, name: str, folder: Path) -> RunRecord:
    """Download a configuration run's `results/` and `config/` into `folder/<run id>` and read
    them (`compare.runs.load_run_folder`)."""
    rid = run.info.run_id
    if run.info.status != "FINISHED":
        raise UserError(
            f"run {rid} ({name}) is {run.info.status}, not FINISHED: it has no "
            "results to compare; re-run it"
        )
    dst = folder / rid
    try:
        tracking.download(mc, rid, ("results", "config"), dst)
    except Exception as err:  # MLflow raises several types for a missing artifact
        raise UserError(
            f"run {rid} ({name}) has no results/per_question.csv or config/config.yaml artifact "
            f"({type(err).__name__}); is it a ragsweep configuration run?"
        ) from None
    return load_run_folder(dst, name, rid, run.data.tags)


NOTE = "mlflow.note.content"  # a run's description in the MLflow UI (markdown)
#: the confirm run's held-out decision with its reason (`noise: weighted recall@5 ...`)
HELDOUT_DECISION = cv.tag("heldout_decision")


def heldout_reason(tags: Mapping[str, str]) -> str | None:
    """The held-out decision's reason from a confirm run's tags (older runs kept it in
    `ragsweep.decision`)."""
    text = tags.get(HELDOUT_DECISION) or tags.get(cv.tag("decision"))
    return None if text is None else text.partition(": ")[2] or text


def logged_heldout(mc: Any, parent: Any) -> HeldOut | None:
    """What the sweep's latest FINISHED confirm run found, or None when none ran."""
    runs = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=(
            f"tags.`mlflow.parentRunId` = '{parent.info.run_id}' and "
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_CONFIRM}' and attributes.status = 'FINISHED'"
        ),
        order_by=["attributes.start_time DESC"],
        max_results=1,
    )
    if runs:
        tags = runs[0].data.tags
        return HeldOut(tags["ragsweep.winner"], tags["ragsweep.verdict"], heldout_reason(tags))
    if parent.data.tags.get(cv.tag("confirm")) == "no winner":
        return HeldOut(None, "no winner")
    return None


def log_comparison(
    mc: Any,
    parent_id: str,
    report: Report,
    factor: str | None,
    held: HeldOut | None,
    why_not: str = "the confirm stage did not run",
) -> Report:
    """Log a sweep's report where users look in the MLflow UI and return it with the held-out
    verdict beside its decisions (`compare.summary.with_heldout`).

    The parent run gets the report's files under `report/`, its few summary metrics
    (`compare.summary.summary_metrics`), the tag `ragsweep.decisions` and, as its
    description, the decision table with the held-out verdict. Each configuration run gets its
    own comparison metrics (`delta|ci_low|ci_high/<measure key>/<slice>`), the tags
    `ragsweep.decision` (better, worse, noise, fails guard, baseline) and `ragsweep.verdict`,
    and a description naming what it changed and its decision.
    """
    from mlflow.entities import Metric, RunTag

    report = with_heldout(report, held, why_not)
    files = log_report_files(mc, parent_id, report)
    image = artifact_url(parent_id, FOREST) if FOREST in files else None
    ts = int(time.time() * 1000)
    shown = {report.baseline, pick_winner(report)} & set(report.run_ids)
    logged = {c: mc.get_run(report.run_ids[c]).data.metrics for c in shown}
    mc.log_batch(
        parent_id,
        metrics=[Metric(k, v, ts, 0) for k, v in sorted(summary_metrics(report, logged).items())],
        tags=[
            RunTag(cv.tag("decisions"), decisions_line(report)[:_MAX_TAG]),
            RunTag(NOTE, parent_description(report, heldout_line(held, why_not), files, image)),
        ],
    )
    _copy_inputs(mc, report.run_ids.get(report.baseline), parent_id)
    log_config_results(mc, report, factor)
    parent = mc.get_run(parent_id)
    launch = parent.info.run_name or parent_id
    view.save_view(mc, parent.info.experiment_id, parent_id, report, launch)
    return report


#: the forest plot of the deciding measure among the report's files (`compare.files`)
FOREST = "report/forest.png"


def artifact_url(run_id: str, path: str) -> str:
    """Where the MLflow server that shows a run serves one of its artifacts, relative to its UI
    page (the address its own artifact preview reads): a description's image shows from it."""
    from urllib.parse import quote

    return f"get-artifact?path={quote(path, safe='')}&run_uuid={run_id}"


#: what flipped (`Report.flipped`) as an MLflow table beside the report's files, so the UI's
#: artifact view shows it as a table (`compare.files` writes the same rows as flipped.csv)
FLIPPED_TABLE = "report/flipped.json"


def log_report_files(mc: Any, run_id: str, report: Report) -> list[str]:
    """The report's files (`compare.files.write_report`) under the run's artifacts `report/`,
    and what flipped as the table `FLIPPED_TABLE`; return their artifact paths
    (`report/report.html`, ...)."""
    with tempfile.TemporaryDirectory(prefix="ragsweep-report-") as tmp:
        written = write_report(report, tmp)
        for path in written.values():
            mc.log_artifact(run_id, str(path), artifact_path="report")
    tracking.log_table(mc, run_id, FLIPPED_TABLE, report.flipped)
    first = ("report.html", "report.md")  # the two a person reads, then the data files
    return [f"report/{n}" for n in sorted(written, key=lambda n: (n not in first, n))]


def log_config_results(mc: Any, report: Report, factor: str | None) -> None:
    """On each configuration run of `report` (`Report.run_ids`): its differences from the
    baseline and their bounds (`compare.summary.config_metrics`); the tags `ragsweep.decision`,
    `ragsweep.verdict` (the decision, held-out's word on a `better` one, the headline), and for
    the runs table `ragsweep.heldout`, `ragsweep.headline`, `ragsweep.guard`,
    `ragsweep.unjudged_at_k` and `ragsweep.cost` (`experiment.view.shown_metrics`), with
    `ragsweep.dev_winner` on the dev winner alone (a tag a report made before and this one
    does not set is removed); and a description that starts with the decision."""
    from mlflow.entities import Metric, RunTag

    ts = int(time.time() * 1000)
    winner = pick_winner(report)
    for config, run_id in report.run_ids.items():
        run = mc.get_run(run_id).data
        # the deciding measures' only, unless the run's config said tracking.metrics=all
        every = run.params.get(cv.METRICS_SETTING) == cv.METRICS_ALL
        found = config_metrics(report, config, every)
        metrics = [Metric(k, v, ts, 0) for k, v in sorted(found.items())]
        tags = [
            RunTag(NOTE, config_description(report, config, factor or "configuration")),
            RunTag(cv.tag("decision"), decision_tag(report, config)),
            RunTag(cv.tag("verdict"), verdict_tag(report, config)[:_MAX_TAG]),
        ]
        shown = {
            "heldout": heldout_tag(report, config),
            "headline": headline_tag(report, config),
            "guard": guard_tag(report, config),
            **view.shown_metrics(report, run.metrics),
            "dev_winner": "true" if config == winner else None,
        }
        tags += [RunTag(cv.tag(k), v[:_MAX_TAG]) for k, v in shown.items() if v is not None]
        for key in (cv.tag(k) for k, v in shown.items() if v is None):
            if key in run.tags:  # an earlier report's (another winner, say)
                mc.delete_tag(run_id, key)
        for start in range(0, len(metrics), _MAX_METRICS):
            mc.log_batch(run_id, metrics=metrics[start : start + _MAX_METRICS])
        mc.log_batch(run_id, tags=tags)


def _copy_inputs(mc: Any, source_id: str | None, run_id: str) -> None:
    """Give the parent run the datasets its configurations read (the baseline's: every
    configuration reads the same snapshot and labelled set), for the runs table's Dataset
    column on the parent's row. Logging the same input twice adds nothing."""
    if source_id is None:
        return
    inputs = mc.get_run(source_id).inputs
    if inputs is not None and inputs.dataset_inputs:
        tracking.log_inputs(None, mc, run_id, inputs.dataset_inputs)


def _load_all(mc: Any, runs: Sequence[tuple[Any, str]]) -> list[RunRecord]:
    """(run, name) pairs downloaded into one temporary folder and read."""
    with tempfile.TemporaryDirectory(prefix="ragsweep-report-") as tmp:
        return [load_logged_run(mc, run, name, Path(tmp)) for run, name in runs]


def report_sweep(
    sweep: str,
    *,
    store: tracking.Store | None = None,
    print_table: bool = True,
    allow_mismatch: bool = False,
) -> Report:
    """Build the report of a logged sweep, print it and log it to the sweep's parent run.

    `sweep` is a sweep name (experiment `sweep:<name>`; its latest parent run) or a parent run
    id; `store` a `ragsweep.experiment.tracking.Store` (default: as `ragsweep` resolves it).
    Each value's latest FINISHED child run is compared with the baseline value's; values without
    one are left out (noted). Slices where judges agree weakly are noted too
    (`ragsweep.experiment.judges`). Settings come from the baseline child's config (`report.*`,
    `eval.k_prompt`, `eval.traffic_weights`). Children on another labelled set or snapshot are
    refused unless `allow_mismatch`. Logs it with `log_comparison`, the held-out verdict of
    the sweep's latest confirm run beside its decisions.
    """
    store, mc = store_client(store)
    parent, notes = find_parent(mc, sweep)
    pid = parent.info.run_id
    params, tags = parent.data.params, parent.data.tags
    name = tags.get(cv.tag("sweep")) or params.get("sweep.name") or pid
    factor = tags.get(cv.tag("factor")) or params.get("sweep.factor")
    children = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.`mlflow.parentRunId` = '{pid}'",
        max_results=5000,
    )
    children = [r for r in children if r.data.tags.get(cv.TAG_STAGE) == cv.STAGE_CONFIG]
    latest = latest_finished(children)
    baseline = params.get("sweep.baseline") or next(
        (
            r.data.tags[cv.tag("value")]
            for r in children
            if r.data.tags.get(cv.tag("baseline")) == "true"
        ),
        None,
    )
    if baseline is None:
        raise UserError(f"sweep {name!r} (parent run {pid}) names no baseline value")
    values = [v for v in params.get("sweep.values", "").split(",") if v]
    chosen, _ = sweep_values(latest, values=values, baseline=baseline, name=name, factor=factor)
    records = _load_all(mc, [(latest[v], v) for v in chosen])
    report = sweep_report(
        dict(zip(chosen, records, strict=True)),
        values=values,
        baseline=baseline,
        name=name,
        factor=factor,
        allow_mismatch=allow_mismatch,
        notes=[*notes, *judge_notes(records[0])],  # records[0]: the baseline's
        launch=parent.info.run_name or None,
    )
    report = log_comparison(
        mc, pid, report, factor, logged_heldout(mc, parent), "no confirm run of this sweep"
    )
    if print_table:
        print_report(report)
    return report


def report_runs(
    run_ids: Sequence[str],
    *,
    store: tracking.Store | None = None,
    print_table: bool = True,
    allow_mismatch: bool = False,
) -> Report:
    """Compare logged configuration runs: the first is the baseline. Nothing is logged.

    For "it got worse after the release": the same labelled set run against two releases.
    Runs are named by their run names (with the run id's first 8 characters when two share
    one); settings come from the baseline run's config, as in `report_sweep`, and so do the
    notes on slices where judges agree weakly.
    """
    ids = [str(r) for r in run_ids]
    if len(ids) < 2:
        raise UserError("--runs needs a baseline run id and at least one more run id")
    if len(set(ids)) != len(ids):
        raise UserError("a run id is given twice in --runs; give each run once")
    store, mc = store_client(store)
    found = []
    for rid in ids:
        run = get_run(mc, rid)
        if run is None:
            raise UserError(f"no run with id {rid} in this MLflow store ({store.uri})")
        found.append(run)
    names = [r.info.run_name or r.info.run_id for r in found]
    names = [
        f"{n} ({r.info.run_id[:8]})" if names.count(n) > 1 else n
        for n, r in zip(names, found, strict=True)
    ]
    factors = {r.data.tags.get(cv.tag("factor")) for r in found}
    factor = factors.pop() if len(factors) == 1 else None
    records = _load_all(mc, list(zip(found, names, strict=True)))
    report = report_from_runs(
        records,
        factor=factor,
        title=f"runs {', '.join(names[1:])} against the baseline {names[0]}",
        allow_mismatch=allow_mismatch,
        notes=judge_notes(records[0]),
    )
    report = with_run_ids(report, records)
    if print_table:
        print_report(report)
    return report
