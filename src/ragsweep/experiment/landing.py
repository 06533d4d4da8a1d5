"""Where `ragsweep ui` lands a user: the view a sweep's launch saved (`experiment.view`), of a
named sweep or of the latest launch of any sweep in the store, or the experiments list when
the store holds no sweep yet (MLflow's own `/` is its GenAI home, which says nothing about a
sweep).

MLflow and the report machinery are imported only when `landing` runs: `ragsweep ui` calls it
in a short-lived process of its own while the server starts, so the ~170 MB they take is not
held for the server's whole life.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragsweep import conventions as cv
from ragsweep.experiment import tracking


@dataclass(frozen=True)
class Landing:
    """A page of the MLflow UI: what it shows (a launch's name) and its link."""

    what: str
    url: str


def latest_launch(mc: Any) -> Any | None:
    """The most recent sweep launch (parent run, by start time) whose experiment holds the
    view it saved, or None when no launch saved one."""
    from ragsweep.experiment.view import VIEW_TAG

    viewed: dict[str, set[str]] = {}
    for exp in mc.search_experiments():
        keys = {k.removeprefix(VIEW_TAG) for k in exp.tags if k.startswith(VIEW_TAG)}
        if keys:
            viewed[exp.experiment_id] = keys
    if not viewed:
        return None
    parents = mc.search_runs(
        list(viewed),
        filter_string=f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_SWEEP}'",
        order_by=["attributes.start_time DESC"],
        max_results=1000,
    )
    return next((r for r in parents if r.info.run_id in viewed[r.info.experiment_id]), None)


def landing(
    store: tracking.Store, sweep: str | None = None, host: str = "127.0.0.1", port: int = 5000
) -> Landing:
    """The page of `sweep`'s latest launch (a sweep name or a parent run id; an unknown one is
    a one-line UserError listing the store's sweeps), or with no `sweep` of the latest launch
    that saved a view; the experiments list when there is none."""
    from ragsweep.experiment import logged
    from ragsweep.experiment.view import VIEW_TAG

    _, mc = logged.store_client(store)
    if sweep is None:
        parent = latest_launch(mc)
        if parent is None:
            url = tracking.experiments_url(host, port)
            return Landing("the experiments (no sweep in this store yet)", url)
    else:
        parent, _ = logged.find_parent(mc, sweep)
    exp_id, pid = parent.info.experiment_id, parent.info.run_id
    viewed = VIEW_TAG + pid in mc.get_experiment(exp_id).tags
    url = tracking.launch_url(store, exp_id, pid, viewed=viewed, host=host, port=port)
    return Landing(parent.info.run_name or pid, url)
