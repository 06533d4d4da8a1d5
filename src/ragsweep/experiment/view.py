"""What the MLflow UI opens on for a sweep's launch: a saved runs-table view, and the
experiment's description.

MLflow's UI reads a saved view from an experiment tag `mlflow.sharedViewState.<key>` (plain
JSON) when its runs page is opened with `?viewStateShareKey=<key>` and no other search
parameter (read in MLflow 3.15's and 3.17's UI code; tests/cli/test_browser.py opens it).
Each launch of a sweep gets one, keyed by its parent run id, so the link it prints lists that
launch's configuration runs alone, best headline difference first, with the columns that answer the
sweep: the decision, what held-out questions said, the headline difference with its interval,
the guard slice's difference, unjudged@k and cost; its chart view opens on the decision
measure's differences per slice. The experiment's description (a banner above its runs table,
and a line in the experiments list) says the latest launch's answer in one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragsweep import conventions as cv
from ragsweep.compare.format import interval
from ragsweep.compare.report import Report
from ragsweep.compare.summary import heldout_tag, pick_winner
from ragsweep.measures import Measure

#: MLflow's experiment tag prefix for a saved view, and the description tag
VIEW_TAG, NOTE = "mlflow.sharedViewState.", "mlflow.note.content"
#: the experiment's kind as MLflow's UI names it: set, the UI does not ask the user to confirm
#: a kind it guessed (a popup over the runs table in MLflow 3.9)
KIND_TAG, KIND = "mlflow.experimentKind", "custom_model_development"
#: the runs-table columns of a launch's view, first to last, with their widths in pixels: tags
#: a run carries as text with 3 decimals (a metric column shows 16 digits, and MLflow 3.9 puts
#: every metric column before every tag column)
COLUMNS = {
    "decision": 105,
    "heldout": 105,
    "headline": 170,
    "guard": 185,
    "unjudged_at_k": 190,
    "cost": 230,
}
#: the decision chart section's id in the view (MLflow adds its own sections after it)
SECTION = "ragsweep-decision"

#: every key of MLflow's runs-view state with its default (its UI code, 3.9 to 3.18): 3.9
#: reads a saved view without filling in what it leaves out, and fails on a missing list
_DEFAULTS: dict[str, Any] = {
    "startTime": "ALL",
    "lifecycleFilter": "Active",
    "datasetsFilter": [],
    "modelVersionFilter": "All Runs",
    "runsExpanded": {},
    "runsPinned": [],
    "runsHidden": [],
    "runsVisibilityMap": {},
    "runsHiddenMode": "FIRST_10_RUNS",
    "viewMaximized": False,
    "runListHidden": False,
    "useGroupedValuesInCharts": True,
    "hideEmptyCharts": True,
    "groupBy": None,
    "groupsExpanded": {},
    "autoRefreshEnabled": True,
    "globalLineChartConfig": {
        "xAxisKey": "step",
        "lineSmoothness": 0,
        "selectedXAxisMetricKey": "",
    },
}


def column(kind: str, key: str) -> str:
    """A runs-table column id as MLflow's UI writes it: `tags.`ragsweep.decision``."""
    return f"{kind}.`{key}`"


def unjudged_key(report: Report) -> str:
    """unjudged@k of the headline, k the decision measure's cutoff (`unjudged_at_5/weighted`)."""
    return cv.metric_key(Measure("unjudged", report.decision.k), report.headline)


def shown_metrics(report: Report, metrics: Mapping[str, float]) -> dict[str, str | None]:
    """A configuration run's `unjudged_at_k` and `cost` columns as text from its metrics:
    `6.0% of the top 5 (weighted)`, `2465 prompt words, 2.2 ms p50` (None when it has none)."""
    share = metrics.get(unjudged_key(report))
    unjudged = None
    if share is not None:
        unjudged = f"{share:.1%} of the top {report.decision.k} ({report.headline})"
    words = metrics.get(f"{cv.COST}/prompt_words_mean")
    p50 = metrics.get(f"{cv.COST}/latency_p50_ms")
    costs = [] if words is None else [f"{words:.0f} prompt words"]
    costs += [] if p50 is None else [f"{p50:.1f} ms p50"]
    return {"unjudged_at_k": unjudged, "cost": ", ".join(costs) or None}


def section_name(report: Report) -> str:
    """The decision charts' section: short, the UI cuts a section's name at ~30 characters."""
    return f"decision: Δ {report.decision}"


def view_state(report: Report, parent_id: str) -> dict[str, Any]:
    """The saved view of one launch: its configuration runs (children of `parent_id`), sorted
    by the headline difference, best first, showing `COLUMNS`."""
    delta = cv.metric_key(report.decision, report.headline, cv.DELTA)
    widths = {column("tags", cv.tag(name)): px for name, px in COLUMNS.items()}
    columns = list(widths)
    strata = [report.headline, *(s for s in report.strata if s != report.headline)]
    charts = [
        {
            "uuid": f"{SECTION}-{i}",
            "type": "BAR",
            "deleted": False,
            "isGenerated": False,
            "metricSectionId": SECTION,
            "metricKey": cv.metric_key(report.deciding(s), s, cv.DELTA),
            "runsCountToCompare": 20,
        }
        for i, s in enumerate(strata)
    ]
    return {
        **_DEFAULTS,
        "searchFilter": (
            f"tags.`mlflow.parentRunId` = '{parent_id}' and "
            f"tags.`{cv.TAG_STAGE}` = '{cv.STAGE_CONFIG}'"
        ),
        "orderByKey": column("metrics", delta),
        "orderByAsc": False,
        "selectedColumns": columns,
        "columnOrder": columns,
        "columnWidths": widths,
        "compareRunSections": [
            {
                "uuid": SECTION,
                "name": section_name(report),
                "display": True,
                "isReordered": False,
                "deleted": False,
                "isGenerated": False,
            }
        ],
        "compareRunCharts": charts,
        "isAccordionReordered": True,
    }


def answer_line(report: Report, launch: str) -> str:
    """The launch's answer in one line of plain text (the experiments list shows a description
    as written, the banner above the runs table as markdown): the dev winner, its decision,
    what held-out said and its dev headline difference; or that none beats the baseline."""
    winner = pick_winner(report)
    if winner is None:
        return (
            f"{launch}: no configuration beats the baseline {report.baseline} beyond noise on dev"
        )
    d = report.decision_of(winner)
    held = heldout_tag(report, winner)
    said = f", {held} on held-out" if held else ""
    return (
        f"{launch}: {winner} is {d.decision}{said}; {d.headline} {report.decision} "
        f"{interval(d.delta, d.ci_low, d.ci_high)} on dev against {report.baseline}"
    )


def save_view(
    mc: Any,
    experiment_id: str,
    parent_id: str,
    report: Report,
    launch: str,
) -> str:
    """Write the launch's saved view and the experiment's description (the latest launch's
    answer); return the view's key (the parent run id)."""
    state = view_state(report, parent_id)
    mc.set_experiment_tag(experiment_id, VIEW_TAG + parent_id, json.dumps(state))
    set_shared_tag(mc, experiment_id, NOTE, answer_line(report, launch))
    set_shared_tag(mc, experiment_id, KIND_TAG, KIND)
    return parent_id


def set_shared_tag(mc: Any, experiment_id: str, key: str, value: str) -> None:
    """Set an experiment tag every launch of the experiment sets. Two launches finishing at
    once may both create it, and the store refuses the second (its key is unique: MLflow reads,
    then inserts); the tag exists by then, so the second try updates it."""
    from mlflow.exceptions import MlflowException

    try:
        mc.set_experiment_tag(experiment_id, key, value)
    except MlflowException:
        mc.set_experiment_tag(experiment_id, key, value)
