"""Judge agreement in a comparison report: the kappa two judges reached (review/agreement.json,
with its interval) and notes on the slices where they agree weakly (without that record: the
second reviewer's file against labels.jsonl), so a difference measured there is not read as the
retriever's alone.

The report itself (`ragsweep.compare`) knows nothing of judges: this module, in the experiment
layer, loads the dataset the baseline run was scored on, asks `ragsweep.labelling.agreement`
for the notes and hands them to the report builder (`notes=`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragsweep import conventions as cv
from ragsweep.compare.runs import RunRecord, report_defaults
from ragsweep.data import Dataset, load_dataset
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.agreement import THRESHOLD, stored_notes, weak_slices

#: the report setting that holds the kappa threshold (null: no agreement check)
SETTING = "agreement_threshold"


def agreement_threshold(config: Mapping[str, Any]) -> float | None:
    """`report.agreement_threshold` of a run's config: the report group's default where the
    config lacks it (runs logged before the setting existed: 0.6), None when set to null."""
    defaults = {SETTING: THRESHOLD, **report_defaults()}
    block = {**defaults, **dict(config.get("report") or {})}
    value = block[SETTING]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(
            f"report.{SETTING} must be a number (kappa below it flags a slice) or null, got "
            f"{value!r}"
        )
    return float(value)


def judge_notes(baseline: RunRecord, dataset: Dataset | None = None) -> list[str]:
    """Notes on the slices the baseline run covers where judges agree weakly (see
    `ragsweep.labelling.agreement.weak_slices`), for the dataset its config names (`data.path`;
    null: the built-in sample) at `report.agreement_threshold`: `dataset` when the caller holds
    it (a sweep's finish: the dataset it shared with its configurations, which loading the
    folder again would read and hash whole), else loaded.

    When the dataset holds review/agreement.json, the notes are its overall kappa with the
    interval and its weak slices (`stored_notes`). No notes when the dataset has neither that
    record nor review/reviewer2.jsonl, the threshold is null or the
    config names no dataset. When the dataset no longer loads, or its labelled set is not the
    one the run was scored on (`ragsweep.labels` tag), one note says agreement was not checked
    and why: the report is still made.
    """
    threshold = agreement_threshold(baseline.config)
    data = baseline.config.get("data")
    if threshold is None or not isinstance(data, Mapping) or "path" not in data:
        return []
    try:
        ds = dataset if dataset is not None else load_dataset(data["path"])
    except DatasetError as err:
        return [f"judge agreement not checked: the dataset does not load ({err})"]
    scored_on = baseline.tags.get(cv.tag("labels"))
    if scored_on and scored_on != ds.labels_hash:
        return [
            f"judge agreement not checked: the dataset at {ds.root} now holds labelled set "
            f"{ds.labels_hash[:12]}, the runs were scored on {scored_on[:12]}"
        ]
    covered = list(dict.fromkeys(baseline.per_question["slice"].astype(str)))
    if ds.agreement is not None:
        return stored_notes(ds.agreement, threshold, slices=covered)
    return weak_slices(ds, threshold, slices=covered)
