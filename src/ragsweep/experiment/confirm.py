"""The confirm stage: re-score a sweep's winner and its baseline on the held-out questions.

Sweeps score only dev questions, so a sweep's best row is fitted to dev. The winner is picked
by the declared rule — the best decision metric (recall@k_prompt, traffic-weighted headline) on
dev among configurations whose report decision is `better` (headline better beyond noise, no
guard slice below the baseline); if there is none, the stage says so and stops. Winner and
baseline are then evaluated on the held-out split (nobody tuned on it) and compared with the same
paired comparison. The verdict is `confirmed` when the held-out headline is better beyond noise
and no guard slice is below the baseline, else `not confirmed`.

Each confirmation is logged as a child run of the sweep (`ragsweep.stage` = `confirm`) and
counted per held-out split: past `confirm.max_confirmations` (default 3) the report warns that
the split is being tuned on and should be refreshed.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from ragsweep import conventions as cv
from ragsweep.compare.files import write_report
from ragsweep.compare.runs import RunRecord, report_from_runs
from ragsweep.compare.summary import HeldOut, pick_winner
from ragsweep.compare.text import print_report
from ragsweep.data import load_dataset
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking
from ragsweep.experiment.plan import SweepFolder, shared_dataset
from ragsweep.experiment.single import logs_every_number, payload
from ragsweep.measures import Measure
from ragsweep.provenance import code_version
from ragsweep.scoring.eval_config import config_hash, select_questions
from ragsweep.scoring.evaluate import evaluate

CONFIRMED, NOT_CONFIRMED, NO_WINNER = "confirmed", "not confirmed", "no winner"


@dataclass
class Confirmation:
    verdict: str  # confirmed | not confirmed | no winner
    winner: str | None
    run_id: str | None
    confirmations: int  # confirmations logged against this held-out split, this one included
    warning: str | None
    report: Any = None  # the held-out ragsweep.compare.report.Report
    reason: str | None = None  # the held-out decision's reason (weighted recall@5 ... is noise)
    reused: bool = False  # an earlier confirm run's, not made again

    @property
    def held(self) -> HeldOut:
        """What the dev report shows beside its decisions (`compare.summary.with_heldout`)."""
        return HeldOut(self.winner, self.verdict, self.reason)


def count_confirmations(mc: Any, split_hash: str, pair: str) -> int:
    """Distinct (winner, baseline) comparisons confirmed on this held-out split, in every
    experiment, this one included. Re-running the same confirmation looks at nothing new, so it
    does not count again."""
    experiments = [e.experiment_id for e in mc.search_experiments()]
    runs = mc.search_runs(
        experiments,
        filter_string=(
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_CONFIRM}' and "
            f"tags.`{cv.tag('split')}` = '{split_hash}'"
        ),
        max_results=10000,
    )
    pairs = {r.data.tags.get("ragsweep.confirm_pair", r.info.run_id) for r in runs}
    return len(pairs | {pair})


def _check_pins(parent: Any, name: str, tags: Mapping[str, str]) -> None:
    """Refuse when the data `tags` describe is not the data the sweep ran on."""
    for key in cv.PINS:
        if tags[cv.tag(key)] != parent.data.tags.get(cv.tag(key)):
            raise UserError(
                f"the {key} hash of {name} on held-out differs from the sweep's "
                f"({cv.tag(key)}); the data changed since the sweep ran: run it again"
            )


def _pair(winner_hash: str, baseline_hash: str) -> str:
    """What identifies one comparison on held-out: the two configurations' config hashes."""
    return hashlib.sha256(f"{winner_hash}:{baseline_hash}".encode()).hexdigest()[:16]


def _done_before(mc: Any, parent: Any, pair: str) -> Any:
    """A FINISHED confirm run of this sweep for the same pair, on the same data and code (a
    finished sweep launched again, or `ragsweep confirm` repeated), or None."""
    runs = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=(
            f"tags.`mlflow.parentRunId` = '{parent.info.run_id}' and "
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_CONFIRM}' and "
            f"tags.`ragsweep.confirm_pair` = '{pair}' and attributes.status = 'FINISHED'"
        ),
        order_by=["attributes.start_time DESC"],
        max_results=50,
    )
    for run in runs:
        tags = run.data.tags
        pinned = all(tags.get(cv.tag(k)) == parent.data.tags.get(cv.tag(k)) for k in cv.PINS)
        if pinned and tags.get(cv.tag("code")) == code_version():
            return run
    return None


def _reuse(run: Any) -> Confirmation:
    """The confirmation an earlier confirm run made: it is not made (or counted) again."""
    tags = run.data.tags
    return Confirmation(
        tags["ragsweep.verdict"],
        tags["ragsweep.winner"],
        str(run.info.run_id),
        int(tags.get("ragsweep.confirmations", "1")),
        tags.get("ragsweep.warning"),
        reason=logged.heldout_reason(tags),
        reused=True,
    )


def _heldout(config: dict[str, Any]) -> DictConfig:
    cfg = OmegaConf.create(config)
    cfg.eval.split = "heldout"
    return cfg


def confirm_sweep(
    sweep: str,
    *,
    store: tracking.Store | None = None,
    dev_report: Any = None,
    records: Mapping[str, RunRecord] | None = None,
    print_table: bool = True,
    folder: SweepFolder | None = None,
) -> Confirmation:
    """Run the confirm stage for a logged sweep (name or parent run id); see the module doc.

    At the end of a sweep, `dev_report` and `records` (value -> the configuration's dev rows
    and resolved config, from the sweep folder) come from the finish step, which logs the dev
    report with the verdict beside its decisions. `ragsweep confirm` run later reads both back
    from MLflow and logs the dev report again, with the verdict. `print_table` prints the
    held-out report and the verdict (`print_confirmation`). `folder`, the sweep's folder at the
    end of a sweep, holds the dataset the sweep read (`plan.shared_dataset`), scored again here.
    """
    store, mc = logged.store_client(store)
    parent, _ = logged.find_parent(mc, sweep)
    standalone = dev_report is None
    if dev_report is None:
        dev_report = logged.report_sweep(parent.info.run_id, store=store, print_table=False)
    done = _confirm(mc, store, parent, dev_report, records, folder)
    if standalone:
        factor = parent.data.tags.get(cv.tag("factor"))
        logged.log_comparison(mc, parent.info.run_id, dev_report, factor, done.held)
    if print_table:
        print_confirmation(done)
    return done


def print_confirmation(done: Confirmation) -> None:
    """The held-out report (when it was made now) and the verdict in one line."""
    if done.verdict == NO_WINNER:
        print(
            "confirm: no configuration beats the baseline beyond noise on dev while passing the "
            "guard slices; nothing to confirm"
        )
        return
    if done.report is not None:
        print_report(done.report)
    line = f"confirm: {done.winner} is {done.verdict} on held-out questions"
    if done.reason:
        line += f" ({done.reason})"
    if done.reused:
        line += (
            f", as confirm run {done.run_id} found for this sweep on the same data and code; not "
            "run again (the held-out split is spent once per comparison)"
        )
    print(line)
    if done.warning:
        print(f"warning: {done.warning}")


def _confirm(
    mc: Any,
    store: tracking.Store,
    parent: Any,
    dev_report: Any,
    records: Mapping[str, RunRecord] | None,
    folder: SweepFolder | None = None,
) -> Confirmation:
    pid = parent.info.run_id
    winner = pick_winner(dev_report)
    if winner is None:
        mc.set_tag(pid, cv.tag("confirm"), NO_WINNER)
        return Confirmation(NO_WINNER, None, None, 0, None)
    run_ids = dev_report.run_ids
    pair_names = (dev_report.baseline, winner)
    if records is None:
        with tempfile.TemporaryDirectory(prefix="ragsweep-confirm-") as tmp:
            records = {
                name: logged.load_logged_run(mc, mc.get_run(run_ids[name]), name, Path(tmp))
                for name in pair_names
            }
    logged_runs = {name: records[name] for name in pair_names}
    cfgs = {name: _heldout(run.config) for name, run in logged_runs.items()}
    shared = None if folder is None else shared_dataset(folder, cfgs[winner])
    dataset = shared if shared is not None else load_dataset(cfgs[winner].data.path)
    _, split_hash = select_questions(cfgs[winner], dataset, allow_heldout=True)
    now = {"snapshot": dataset.snapshot_hash, "labels": dataset.labels_hash, "split": split_hash}
    _check_pins(parent, winner, {cv.tag(k): v for k, v in now.items()})
    pair = _pair(config_hash(cfgs[winner]), config_hash(cfgs[dev_report.baseline]))
    done = _done_before(mc, parent, pair)
    if done is not None:
        return _reuse(done)
    print(
        f"confirm: scoring {winner} (the dev winner) and the baseline {dev_report.baseline} on "
        "the held-out questions"
    )
    max_conf = int(OmegaConf.select(cfgs[winner], "confirm.max_confirmations", default=3))
    results = {
        name: evaluate(cfg, allow_heldout=True, dataset=dataset) for name, cfg in cfgs.items()
    }
    for name, result in results.items():
        _check_pins(parent, name, result.tags)
    heldout_runs = [
        RunRecord(
            name,
            run_ids[name],
            dict(logged_runs[name].tags),
            results[name].per_question,
            logged_runs[name].slices,
            logged_runs[name].config,
        )
        for name in pair_names
    ]
    factor = parent.data.tags.get("ragsweep.factor")
    held = report_from_runs(
        heldout_runs,
        factor=factor,
        title=f"confirm {winner} against {dev_report.baseline} on held-out questions",
        allow_mismatch=False,
        notes=["winner picked on dev; scored here on held-out questions nobody tuned on"],
    )
    decision = held.decision_of(winner)
    verdict = CONFIRMED if decision.decision == "better" else NOT_CONFIRMED
    split_hash = results[winner].tags["ragsweep.split"]
    n = count_confirmations(mc, split_hash, pair)
    warning = None
    if n > max_conf:
        warning = (
            f"this held-out split has now confirmed {n} different comparisons (more than "
            f"confirm.max_confirmations={max_conf}): it is being tuned on; refresh it (new "
            "questions, or a new data.split.salt) before trusting another confirmation"
        )
    tags = {
        **results[winner].tags,
        cv.TAG_STAGE: cv.STAGE_CONFIRM,
        "ragsweep.sweep": parent.data.tags.get("ragsweep.sweep", ""),
        "ragsweep.winner": winner,
        "ragsweep.baseline_config": dev_report.baseline,
        "ragsweep.verdict": verdict,
        "ragsweep.confirmations": str(n),
        "ragsweep.confirm_pair": pair,
        logged.HELDOUT_DECISION: f"{decision.decision}: {decision.reason}"[:4000],
        logged.NOTE: (
            f"**Held-out confirmation** of the sweep's dev winner `{winner}` against the "
            f"baseline `{dev_report.baseline}`, on questions nobody tuned on: **{verdict}** "
            f"({decision.reason}). Its metrics are under `{cv.HELDOUT}/`, apart from the dev "
            "numbers."
        ),
    }
    if warning:
        tags["ragsweep.warning"] = warning
    run_id = _log_confirm_run(store, parent, held, results, cfgs, winner, dev_report.baseline, tags)
    mc.set_tag(pid, cv.tag("confirm"), f"{verdict}: {winner}")
    return Confirmation(verdict, winner, run_id, n, warning, held, decision.reason)


def _log_confirm_run(
    store: tracking.Store,
    parent: Any,
    held: Any,
    results: Mapping[str, Any],
    cfgs: Mapping[str, DictConfig],
    winner: str,
    baseline: str,
    tags: Mapping[str, str],
) -> str:
    """The confirm run: the winner's held-out metrics (those `tracking.metrics` picks, as a
    configuration run's), the differences (of the deciding measures only, unless
    `tracking.metrics=all`: every cell is in its `report/report.csv`) and, for the measure
    deciding each column, the baseline's value; every key under `heldout/`, so no chart or
    column mixes them with dev numbers."""
    every = logs_every_number(cfgs[winner])
    metrics: dict[str, float] = {}
    for cell in held.cells.itertuples(index=False):
        if cell.config != winner:
            continue
        m = Measure.parse(str(cell.measure))
        deciding = m == held.deciding(cell.stratum)
        if deciding:  # as the baseline's own evaluation computed it
            value = results[baseline].metrics[cv.metric_key(m, cell.stratum)]
            metrics[cv.heldout_key(cv.metric_key(m, cell.stratum, cv.BASELINE))] = float(value)
        if not (deciding or every):
            continue
        for prefix, value in (
            (cv.DELTA, cell.delta),
            (cv.CI_LOW, cell.ci_low),
            (cv.CI_HIGH, cell.ci_high),
        ):
            metrics[cv.heldout_key(cv.metric_key(m, cell.stratum, prefix))] = float(value)
    with payload(results[winner], cfgs[winner]) as p, tempfile.TemporaryDirectory() as tmp:
        files = Path(tmp, "report")
        write_report(held, files)
        base_dir = Path(tmp, "baseline")
        base_dir.mkdir()
        results[baseline].per_question.to_csv(base_dir / "per_question.csv", index=False)
        metrics.update({cv.heldout_key(k): v for k, v in p.metrics.items()})
        return tracking.log_run(
            store,
            parent.info.experiment_id,
            run_name=f"held-out confirm: {winner} vs {baseline}",
            parent_run_id=parent.info.run_id,
            **p.logged(
                tags=tags,
                metrics=metrics,
                artifacts={**p.artifacts, "report": files, "baseline": base_dir},
                tables={**p.tables, logged.FLIPPED_TABLE: held.flipped},
            ),
        )
