"""The end of a sweep, in the launching process: summary, comparison report, confirm stage.

Everything here reads what the workers wrote into the sweep folder (their status, metrics and
per-question rows); nothing is downloaded back from MLflow. When every configuration
finished, the confirm stage runs on the held-out questions; then the report, with its verdict,
is logged: files and a few summary metrics on the parent run, each configuration's own
difference and interval on its run (`logged.log_comparison`). Last, the parent run gets what
the sweep cost: `cost/sweep_seconds` (launch to here) and `cost/sweep_mlflow_seconds` (the
launcher's and every worker's time in MLflow calls).
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import time
from collections.abc import Mapping
from typing import Any

from omegaconf import OmegaConf

from ragsweep import conventions as cv
from ragsweep.compare.report import Report
from ragsweep.compare.runs import RunRecord, load_run_folder, sweep_report
from ragsweep.compare.table import print_table
from ragsweep.compare.text import print_report
from ragsweep.data import Dataset
from ragsweep.errors import Exhausted, UserError, first_line, stop_name, stop_of, stop_status
from ragsweep.experiment import lifecycle, tracking
from ragsweep.experiment.judges import judge_notes
from ragsweep.experiment.logged import log_comparison
from ragsweep.experiment.plan import Plan, read_stages, shared_dataset
from ragsweep.experiment.worker import FAILED, FINISHED, SKIPPED, UNLOGGED
from ragsweep.measures import Measure
from ragsweep.secrets import mask_text


def finish(plan: Plan, lock: lifecycle.SweepLock, interrupted: BaseException | None = None) -> int:
    """Summarise the sweep, close its parent run, release the lock; return the exit code.

    A resource that ran out (a full disk: `interrupted` by it, or meeting it here) ends the
    sweep with its one line on stderr and exit code 1 (`_exhausted`)."""
    try:
        stop = None if interrupted is None else _exhaustion(plan, interrupted)
        if stop is None:
            try:
                return _finish(plan, interrupted, lock.began)
            except tracking.StoreUnreachable as err:
                return _store_gone(plan, err)
            except Exception as err:
                stop = _exhaustion(plan, err)
                if stop is None:
                    raise
        return _exhausted(plan, stop, lock)
    except BaseException as err:
        halt = stop_of(err)  # Ctrl-C, SIGTERM, SIGHUP while reporting or confirming
        if halt is None:
            raise
        return _stopped_finishing(plan, halt)
    finally:
        lock.release()


def _exhaustion(plan: Plan, err: BaseException) -> Exhausted | None:
    return tracking.exhaustion(err, plan.store, plan.sweep_dir)


def _exhausted(plan: Plan, stop: Exhausted, lock: lifecycle.SweepLock) -> int:
    """The end of a sweep a resource stopped: the summary of what finished, the parent run
    FAILED and this launch's runs still RUNNING marked KILLED (in the space the launch
    reserved, on a full disk), no report (a relaunch makes it), and the resource's one line."""
    if lock.reserve is not None:
        lock.reserve.free()
    with contextlib.suppress(Exception):
        _print_summary(plan, _statuses(plan))
    with contextlib.suppress(Exception):
        _kill_orphans(plan, first_line(stop))
    with contextlib.suppress(Exception):
        tracking.client(plan.store).set_terminated(plan.parent_run_id, status="FAILED")
    print(stop.told(), file=sys.stderr)
    return 1


def _store_gone(plan: Plan, err: tracking.StoreUnreachable) -> int:
    """The tracking server went away and did not come back in time: the summary from the sweep
    folder, and one line saying what is kept there for the next launch to log."""
    statuses = _statuses(plan)
    _print_summary(plan, statuses)
    kept = [plan.label(v) for v, s in statuses.items() if s["status"] == UNLOGGED]
    listing = f" ({', '.join(kept)})" if kept else ""
    print(
        f"sweep {plan.launch or plan.name}: {err.what}; {len(kept)} evaluated configuration(s)"
        f"{listing} are kept in {plan.sweep_dir}; start the server again (`ragsweep server`, "
        "docs/server.md), then launch the same command again: it logs them without "
        "evaluating again and runs the rest",
        file=sys.stderr,
    )
    return 1


def _stopped_finishing(plan: Plan, stop: KeyboardInterrupt) -> int:
    """The finish step was stopped: no run of this launch stays RUNNING; say what a relaunch
    does (it skips the finished configurations and makes the report and confirm stage)."""
    why = f"the sweep was stopped ({stop_name(stop)}) during its finish step"
    mc = tracking.client(plan.store)
    if mc.get_run(plan.parent_run_id).info.status == "RUNNING":
        lifecycle.mark_killed(mc, plan.parent_run_id, why)
    _kill_orphans(plan, why)
    print(
        f"sweep {plan.launch or plan.name}: stopped ({stop_name(stop)}) while reporting; the "
        "configurations that finished are logged: launch the same command again for the report"
        + (" and the confirm stage" if plan.confirm else ""),
        file=sys.stderr,
    )
    return stop_status(stop)


#: the status of a configuration whose worker started it and never reported back
DIED = "died"


def _statuses(plan: Plan) -> dict[str, dict[str, Any]]:
    """value -> what its worker recorded; `died` (with the last stage it reported) when a
    worker started it and never recorded an end, `not run` when no worker started it."""
    stages = read_stages(plan.sweep_dir)
    out = {}
    for value in plan.values:
        path = plan.folder.status(value)
        if path.exists():
            out[value] = json.loads(path.read_text())
        elif value in stages:
            out[value] = {"status": DIED, "stage": stages[value]}
        else:
            out[value] = {"status": "not run"}
    return out


def _kill_orphans(plan: Plan, why: str) -> list[str]:
    """Mark this launch's configuration runs still RUNNING (their worker died) as KILLED;
    return their names."""
    return lifecycle.kill_orphans(
        plan.store, plan.experiment_id, plan.parent_run_id, plan.owner, why
    )


def _why_stopped(interrupted: BaseException | None) -> str:
    """What stopped the pool, in a few words (joblib names the dead workers' exit codes)."""
    text = str(interrupted or "")
    codes = re.search(r"exit codes of the workers are \{([^}]*)\}", text)
    if codes:
        return f"exit code {codes.group(1)}"
    first = first_line(interrupted) if interrupted is not None else "NoneType"
    return mask_text(f"{type(interrupted).__name__}: {first[:200]}")


def _records(plan: Plan, statuses: dict[str, dict[str, Any]]) -> dict[str, RunRecord]:
    """value -> the rows of each configuration that finished (now or in an earlier launch)."""
    return {
        value: load_run_folder(
            plan.folder.rows(value), name=value, run_id=s["run_id"], tags=s.get("tags", {})
        )
        for value, s in statuses.items()
        if s["status"] in (FINISHED, SKIPPED)
    }


def _log_cost(plan: Plan, statuses: dict[str, dict[str, Any]], began: tuple[float, float]) -> None:
    """The sweep's wall time and its time in MLflow (launcher and workers), on the parent."""
    workers = sum(float(s.get("mlflow_seconds", 0.0)) for s in statuses.values())
    mc = tracking.client(plan.store)
    seconds = time.perf_counter() - began[0]
    spent = tracking.seconds_in_mlflow() - began[1] + workers
    for name, value in (("sweep_seconds", seconds), ("sweep_mlflow_seconds", spent)):
        mc.log_metric(plan.parent_run_id, f"{cv.COST}/{name}", value)


def _finish(
    plan: Plan, interrupted: BaseException | None, began: tuple[float, float] | None = None
) -> int:
    code = _finish_steps(plan, interrupted)
    if began is not None:
        _log_cost(plan, _statuses(plan), began)
    return code


def _finish_steps(plan: Plan, interrupted: BaseException | None) -> int:
    statuses = _statuses(plan)
    if any(s.get("unreachable") for s in statuses.values()):
        tracking.given_up(plan.store)  # a worker waited for it in vain: do not wait again
    failed = [v for v, s in statuses.items() if s["status"] not in (FINISHED, SKIPPED)]
    stop = stop_of(interrupted) if interrupted is not None else None  # Ctrl-C, SIGTERM, SIGHUP
    status = "KILLED" if stop else "FAILED" if failed or interrupted else "FINISHED"
    tracking.finish_run(
        plan.store,
        plan.parent_run_id,
        tags={cv.tag("failed"): ",".join(failed) or "none"},
        status=status,
    )
    died = [v for v in failed if statuses[v]["status"] == DIED]
    if died:
        why = f"the worker process running it died ({_why_stopped(interrupted)})"
        _kill_orphans(plan, why if stop is None else f"the sweep was stopped ({stop_name(stop)})")
    _print_summary(plan, statuses)
    skip = None  # why the confirm stage does not run, when it does not
    if stop is not None:
        skip = f"the sweep was stopped ({stop_name(stop)})"
    elif failed or interrupted is not None:
        skip = "the sweep did not finish every configuration"
    reported = _report_and_confirm(plan, _records(plan, statuses), skip)
    print(f"see {plan.launch or plan.name} with `ragsweep ui`, then {_link(plan, reported)}")
    if failed:
        listing = ", ".join(_what_happened(plan, v, statuses[v], stop) for v in failed)
        where = []
        if stop is not None:
            marked = ": their runs are marked KILLED" if died else ""
            where.append(f"the sweep was stopped ({stop_name(stop)}){marked}")
        elif interrupted is not None and not died:
            where.append(f"the launcher stopped ({_why_stopped(interrupted)})")
        if died and stop is None:
            where.append(
                f"a worker process died ({_why_stopped(interrupted)}), which stops the pool: "
                "their runs are marked KILLED"
            )
        if any(statuses[v]["status"] == FAILED for v in failed):
            where.append("tracebacks are in the failed runs' error/ artifacts")
        where.append("launch the same command again to run only those")
        print(
            f"sweep {plan.launch or plan.name}: {len(failed)} of {len(plan.values)} "
            f"configuration(s) did not finish: {listing}; {'; '.join(where)}",
            file=sys.stderr,
        )
    if stop is not None:
        return stop_status(stop)
    return 1 if failed or interrupted or reported is None else 0


def _link(plan: Plan, report: Report | None) -> str:
    """The runs table of this launch: with a report, its saved view (`experiment.view`: the
    configuration runs, best headline difference first, the columns that answer the sweep);
    without one, this launch's runs."""
    viewed = report is not None
    return tracking.launch_url(plan.store, plan.experiment_id, plan.parent_run_id, viewed=viewed)


def _what_happened(
    plan: Plan, value: str, status: dict[str, Any], stop: KeyboardInterrupt | None
) -> str:
    if status["status"] == DIED:
        how = "its worker died" if stop is None else "stopped"
        return f"{plan.label(value)} ({how} during {status['stage']})"
    if status["status"] == UNLOGGED:
        return f"{plan.label(value)} (evaluated, not logged: the tracking server was gone)"
    return f"{plan.label(value)} ({status['status']})"


def _scored_on(plan: Plan, base: RunRecord) -> Dataset | None:
    """The dataset the sweep shared with its configurations (`plan.shared_dataset` of its
    folder: kept in this process), when the baseline's config reads that folder; else None."""
    data = base.config.get("data")
    if not isinstance(data, Mapping) or "path" not in data:
        return None
    return shared_dataset(plan.folder, OmegaConf.create({"data": {"path": data["path"]}}))


def _report_and_confirm(
    plan: Plan, records: dict[str, RunRecord], skip: str | None
) -> Report | None:
    """The comparison report, with the confirm stage's verdict beside its decisions when the
    stage is enabled and not `skip`ped (why: the sweep was stopped, or some configuration did
    not finish: a winner picked from a partial sweep would spend the held-out split on a
    half-made decision); logged to the
    sweep's runs (`logged.log_comparison`) and printed. Returns it, or None when no report
    could be made. The confirm verdict does not change the sweep's exit code. Slices where
    judges agree weakly are noted in the report (`ragsweep.experiment.judges`).
    """
    from ragsweep.experiment.confirm import confirm_sweep, print_confirmation

    try:
        base = records.get(plan.baseline)
        report = sweep_report(
            records,
            values=plan.values,
            baseline=plan.baseline,
            name=plan.name,
            factor=plan.factor,
            notes=[] if base is None else judge_notes(base, _scored_on(plan, base)),
            launch=plan.launch or None,
        )
    except UserError as err:
        print(f"report: {err}", file=sys.stderr)
        return None
    done, why_not = None, "confirm.enabled=false"
    if plan.confirm and skip is not None:
        why_not = skip
    elif plan.confirm:
        try:
            done = confirm_sweep(
                plan.parent_run_id,
                store=plan.store,
                dev_report=report,
                records=records,
                print_table=False,
                folder=plan.folder,
            )
        except UserError as err:
            why_not = f"the confirm stage stopped: {err}"
            print(f"confirm: {err}", file=sys.stderr)
    mc = tracking.client(plan.store)
    held = None if done is None else done.held
    report = log_comparison(mc, plan.parent_run_id, report, plan.factor, held, why_not)
    print_report(report)
    if done is not None:
        print_confirmation(done)
    elif plan.confirm and skip is not None:
        print(f"confirm: skipped, {why_not}")
    return report


def _print_summary(plan: Plan, statuses: dict[str, dict[str, Any]]) -> None:
    from rich.table import Table

    decision = Measure.parse(plan.decision)
    metrics = {v: s.get("metrics", {}) for v, s in statuses.items()}
    present = {p.stratum for m in metrics.values() for k in m if (p := cv.parse_metric_key(k))}
    rows = [*(s for s in plan.slices if s in present), *cv.SUMMARY_ROWS]
    table = Table(
        title=(
            f"sweep {plan.launch or plan.name}: {decision} per slice, "
            f"baseline {plan.label(plan.baseline)}"
        ),
        title_justify="left",
    )
    table.add_column(plan.factor)
    table.add_column("status")
    for s in rows:
        table.add_column(s, justify="right")
    for value in plan.values:
        cells = []
        for s in rows:
            m = metrics[value].get(cv.metric_key(decision, s))
            cells.append("" if m is None else f"{m:.3f}")
        label = value + (" (baseline)" if value == plan.baseline else "")
        table.add_row(label, statuses[value]["status"], *cells)
    print_table(table)
