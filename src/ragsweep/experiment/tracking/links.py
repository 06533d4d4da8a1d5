"""Links into the MLflow UI that `ragsweep ui` serves: an experiment's runs table, a launch's
saved view, the experiments list. docs/report.md.
"""

from __future__ import annotations

from ragsweep.experiment.tracking.store import Store


def runs_url(
    store: Store,
    experiment_id: str,
    host: str = "127.0.0.1",
    port: int = 5000,
    *,
    view: str | None = None,
    search: str | None = None,
    order_by: str | None = None,
) -> str:
    """Where the runs table of an experiment is, once `ragsweep ui` serves this store: opened on
    the saved view `view` (`experiment.view`), or filtered by `search` (an MLflow filter) and
    sorted by `order_by` (a metric key, best first)."""
    from urllib.parse import quote

    # workflowType=machine_learning: MLflow 3 opens the classic view (a Runs entry in the side
    # bar) instead of the GenAI one (traces, tokens), seen in a fresh headless Chromium profile.
    url = f"http://{host}:{port}/#/experiments/{experiment_id}/runs?workflowType=machine_learning"
    if view:  # alone: MLflow's UI ignores a saved view when the link has a search parameter
        return f"{url}&viewStateShareKey={quote(view, safe='')}"
    # a search or a sort also lists child runs flat instead of under a collapsed parent
    if search:
        url += f"&searchFilter={quote(search, safe='')}"
    if order_by:
        url += f"&orderByKey={quote(f'metrics.`{order_by}`', safe='')}&orderByAsc=false"
    return url


def launch_url(
    store: Store,
    experiment_id: str,
    parent_id: str,
    *,
    viewed: bool,
    host: str = "127.0.0.1",
    port: int = 5000,
) -> str:
    """The runs of one launch of a sweep: the view it saved (`experiment.view`) when `viewed`,
    else the runs under its parent run `parent_id`."""
    if viewed:
        return runs_url(store, experiment_id, host, port, view=parent_id)
    search = f"tags.`mlflow.parentRunId` = '{parent_id}'"
    return runs_url(store, experiment_id, host, port, search=search)


def experiments_url(host: str = "127.0.0.1", port: int = 5000) -> str:
    """The MLflow UI's list of experiments, on its classic side (its `/` is the GenAI home)."""
    return f"http://{host}:{port}/#/experiments?workflowType=machine_learning"
