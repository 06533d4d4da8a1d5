"""The confirm stage: re-score a sweep's winner and its baseline on the held-out questions.

Sweeps score only dev questions, so a sweep's best row is fitted to dev. The winner is picked
by the declared rule — the best decision metric (recall@k_prompt, traffic-weighted headline) on
dev among configurations whose report decision is `better` (headline better beyond noise, no
guard slice below the baseline); if there is none, the stage says so and stops. Winner and
baseline are then evaluated on the held-out split (nobody tuned on it) and compared with the same
paired bootstrap. The verdict is `confirmed` when the held-out headline is better beyond noise
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
from ragsweep.compare.text import print_report
from ragsweep.data import load_dataset
from ragsweep.errors import UserError
from ragsweep.experiment import logged, tracking
from ragsweep.experiment.single import payload
from ragsweep.measures import Measure
from ragsweep.provenance import code_version
from ragsweep.scoring.evaluate import config_hash, evaluate, select_questions

CONFIRMED, NOT_CONFIRMED, NO_WINNER = "confirmed", "not confirmed", "no winner"


@dataclass
class Confirmation:
    verdict: str  # confirmed | not confirmed | no winner
    winner: str | None
    run_id: str | None
    confirmations: int  # confirmations logged against this held-out split, this one included
    warning: str | None
    report: Any = None  # the held-out ragsweep.compare.report.Report


def pick_winner(dev_report: Any) -> str | None:
    """The declared rule: best dev headline of the decision measure among `better` rows."""
    better = [d for d in dev_report.decisions if d.decision == "better"]
    if not better:
        return None
    headline = dev_report.headline
    measure = dev_report.decision
    return max(
        better,
        key=lambda d: (float(dev_report.cell(d.config, measure, headline)["value"]), d.config),
    ).config


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


def _reuse(run: Any, print_table: bool) -> Confirmation:
    """The confirmation an earlier confirm run made: it is not made (or counted) again."""
    tags = run.data.tags
    verdict, winner = tags["ragsweep.verdict"], tags["ragsweep.winner"]
    if print_table:
        print(
            f"confirm: {winner} is {verdict.upper()} on held-out questions, as confirm run "
            f"{run.info.run_id} found for this sweep on the same data and code; not run again "
            "(the held-out split is spent once per comparison)"
        )
    return Confirmation(
        verdict,
        winner,
        str(run.info.run_id),
        int(tags.get("ragsweep.confirmations", "1")),
        tags.get("ragsweep.warning"),
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
) -> Confirmation:
    """Run the confirm stage for a logged sweep (name or parent run id); see the module doc.

    At the end of a sweep, `dev_report` and `records` (value -> the configuration's dev rows
    and resolved config, from the sweep folder) come from the finish step; `ragsweep confirm`
    run later reads both back from MLflow.
    """
    store, mc = logged.store_client(store)
    parent, _ = logged.find_parent(mc, sweep)
    pid = parent.info.run_id
    if dev_report is None:
        dev_report = logged.report_sweep(pid, store=store, print_table=False)
    winner = pick_winner(dev_report)
    if winner is None:
        mc.set_tag(pid, cv.tag("confirm"), NO_WINNER)
        print(
            "confirm: no configuration beats the baseline beyond noise on dev while passing the "
            "guard slices; nothing to confirm"
        )
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
    dataset = load_dataset(cfgs[winner].data.path)
    _, split_hash = select_questions(cfgs[winner], dataset, allow_heldout=True)
    now = {"snapshot": dataset.snapshot_hash, "labels": dataset.labels_hash, "split": split_hash}
    _check_pins(parent, winner, {cv.tag(k): v for k, v in now.items()})
    pair = _pair(config_hash(cfgs[winner]), config_hash(cfgs[dev_report.baseline]))
    done = _done_before(mc, parent, pair)
    if done is not None:
        return _reuse(done, print_table)
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
    base_result, win_result = results[dev_report.baseline], results[winner]
    metrics: dict[str, float] = {}
    metrics.update({f"{cv.BASELINE}/{k}": v for k, v in base_result.metrics.items()})
    for cell in held.cells.itertuples(index=False):
        if cell.config == winner:
            m = Measure.parse(str(cell.measure))
            metrics[cv.metric_key(m, cell.stratum, cv.DELTA)] = float(cell.delta)
            metrics[cv.metric_key(m, cell.stratum, cv.CI_LOW)] = float(cell.ci_low)
            metrics[cv.metric_key(m, cell.stratum, cv.CI_HIGH)] = float(cell.ci_high)
    tags = {
        **win_result.tags,
        cv.TAG_STAGE: cv.STAGE_CONFIRM,
        "ragsweep.sweep": parent.data.tags.get("ragsweep.sweep", ""),
        "ragsweep.winner": winner,
        "ragsweep.baseline_config": dev_report.baseline,
        "ragsweep.verdict": verdict,
        "ragsweep.confirmations": str(n),
        "ragsweep.confirm_pair": pair,
        "ragsweep.decision": f"{decision.decision}: {decision.reason}"[:4000],
    }
    if warning:
        tags["ragsweep.warning"] = warning
    with payload(win_result, cfgs[winner]) as p, tempfile.TemporaryDirectory() as tmp:
        files = Path(tmp, "report")
        write_report(held, files)
        base_dir = Path(tmp, "baseline")
        base_dir.mkdir()
        base_result.per_question.to_csv(base_dir / "per_question.csv", index=False)
        run_id = tracking.log_run(
            store,
            parent.info.experiment_id,
            run_name=f"confirm {winner}",
            params=p.params,
            tags=tags,
            metrics={**p.metrics, **metrics},
            artifacts={**p.artifacts, "report": files, "baseline": base_dir},
            parent_run_id=pid,
        )
    mc.set_tag(pid, cv.tag("confirm"), f"{verdict}: {winner}")
    if print_table:
        print_report(held)
        line = f"confirm: {winner} is {verdict.upper()} on held-out questions ({decision.reason})"
        print(line)
        if warning:
            print(f"warning: {warning}")
    return Confirmation(verdict, winner, run_id, n, warning, held)
