"""The paired comparison report's model: one row per configuration, one column per slice, each
cell the paired difference from the baseline with its interval and verdict; guard slices; a
decision per configuration.

The report is built by `ragsweep.compare.build`, rendered by `text` (rich), `markdown`, `html`
and `plot`, written by `files`; `runs` builds it from configuration runs' results, and
`ragsweep.experiment.logged` reads and logs those runs in MLflow. How to read the report and the
decision rule: docs/report.md. The intervals are `ragsweep.compare.stats`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.measures import Measure

#: A row's overall decision, in order of precedence (see `build._decide` and docs/report.md).
FAILS_GUARD, BETTER, NO_DIFFERENCE, WORSE = (
    "fails guard",
    "better",
    "no resolvable difference",
    "worse",
)
DECISIONS: tuple[str, ...] = (FAILS_GUARD, BETTER, NO_DIFFERENCE, WORSE)
#: Columns of `Report.cells`, one row per candidate x measure x stratum.
CELL_COLUMNS: tuple[str, ...] = (
    "config",
    "measure",
    "stratum",
    "n",
    "value",
    "baseline",
    "delta",
    "ci_low",
    "ci_high",
    "level",
    "p_value",
    "p_adjusted",
    "verdict",
    "sd",
    "half_width",
    "questions_needed",
    "resolves",
)
_STR_COLUMNS = ("config", "measure", "stratum", "verdict")


@dataclass(frozen=True)
class Decision:
    """One configuration's overall decision and why.

    `decision` is one of `DECISIONS`. The headline cell (`headline` stratum of the decision
    measure: `weighted`, else `all`) gives `delta`, `ci_low`, `ci_high`, `verdict`. `guard` says
    how the guard slices went (and, for a drop, whether it is within noise); `warnings` names
    non-guard slices that are worse beyond noise (they do not change the decision, but should be
    read before adopting the configuration).
    """

    config: str
    decision: str
    headline: str
    delta: float
    ci_low: float
    ci_high: float
    verdict: str
    reason: str
    guard: str
    guard_failed: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class Report:
    """A built comparison report (`ragsweep.compare.build.build_report`); render it with
    `text.print_report`, `markdown.to_markdown`, `html.to_html`, `plot.forest_plot`, or write
    every file with `files.write_report` (all in `ragsweep.compare`).

    `cells` holds every candidate x measure x stratum (columns `CELL_COLUMNS`): `value` the
    candidate's mean, `baseline` the baseline's, `delta` the mean paired difference with its
    interval `[ci_low, ci_high]` at `level` (after any Bonferroni widening), `verdict` better /
    worse / noise, and the resolution (`half_width`, `sd`, `questions_needed` for `target_gap`,
    `resolves`). `measures` are the measures shown as tables, the decision measure first;
    `deciding` maps a stratum to the measure that decides there (the decision measure except
    where `slice_decision` says otherwise, e.g. RR for identifiers).
    """

    baseline: str
    configs: tuple[str, ...]
    decision: Measure
    measures: tuple[Measure, ...]
    slice_decision: dict[str, Measure]
    slices: tuple[str, ...]
    strata: tuple[str, ...]
    headline: str
    n: dict[str, int]
    weights: dict[str, float] | None
    guard_slices: tuple[str, ...]
    correction: str
    level: float
    interval_level: float
    method: str
    target_gap: float
    cells: pd.DataFrame
    decisions: tuple[Decision, ...]
    notes: tuple[str, ...] = ()
    like_for_like: bool = True
    factor: str | None = None
    title: str = "ragsweep report"
    run_ids: dict[str, str] = field(default_factory=dict)
    #: config -> what the confirm stage found on held-out questions for a `better` decision,
    #: `<status>: <detail>` (`summary.with_heldout`); None: no held-out stage applies (a
    #: comparison of any runs)
    heldout: dict[str, str] | None = None

    def heldout_of(self, config: str) -> str | None:
        """What held-out questions said of `config`'s dev decision, or None when the report
        has no held-out stage or the decision needs no confirmation (not `better`)."""
        if self.heldout is None:
            return None
        return self.heldout.get(config)

    def heldout_short(self, config: str) -> str | None:
        """`heldout_of` in a few words for a table cell: `NOT CONFIRMED on held-out`."""
        text = self.heldout_of(config)
        return None if text is None else f"{text.partition(': ')[0]} on held-out"

    def deciding(self, stratum: str) -> Measure:
        """The measure that decides in `stratum` (RR for identifiers by default)."""
        return self.slice_decision.get(stratum, self.decision)

    @cached_property
    def _index(self) -> dict[tuple[str, str, str], int]:
        keys = zip(self.cells["config"], self.cells["measure"], self.cells["stratum"], strict=True)
        return {k: i for i, k in enumerate(keys)}

    def cell(self, config: str, measure: Measure | str, stratum: str) -> pd.Series:
        """The row of `cells` for one candidate, measure and stratum (KeyError if none)."""
        return self.cells.iloc[self._index[(config, str(measure), stratum)]]

    def baseline_value(self, measure: Measure | str, stratum: str) -> float:
        """The baseline's mean of `measure` in `stratum`."""
        return float(self.cell(self.configs[0], measure, stratum)["baseline"])

    def decision_of(self, config: str) -> Decision:
        """The overall decision of one configuration."""
        (hit,) = [d for d in self.decisions if d.config == config]
        return hit

    def rows(self) -> list[dict[str, Any]]:
        """Flat rows `{run, slice, measure, value, delta, ci_low, ci_high, verdict}` for every
        measure computed: per measure, the baseline (verdict `baseline`, no delta) then each
        configuration, each stratum in report order."""
        out: list[dict[str, Any]] = []
        for measure in dict.fromkeys(self.cells["measure"]):
            for stratum in self.strata:
                out.append(
                    {
                        "run": self.baseline,
                        "slice": stratum,
                        "measure": measure,
                        "value": self.baseline_value(measure, stratum),
                        "delta": None,
                        "ci_low": None,
                        "ci_high": None,
                        "verdict": "baseline",
                    }
                )
            for config in self.configs:
                for stratum in self.strata:
                    c = self.cell(config, measure, stratum)
                    out.append(
                        {
                            "run": config,
                            "slice": stratum,
                            "measure": measure,
                            "value": float(c["value"]),
                            "delta": float(c["delta"]),
                            "ci_low": float(c["ci_low"]),
                            "ci_high": float(c["ci_high"]),
                            "verdict": str(c["verdict"]),
                        }
                    )
        return out

    def to_json(self) -> dict[str, Any]:
        """Everything in the report as plain JSON types (the `ragsweep report --format json`)."""
        return {
            "title": self.title,
            "baseline": self.baseline,
            "correction": self.correction,
            "level": self.level,
            "interval_level": self.interval_level,
            "method": self.method,
            "target_gap": self.target_gap,
            "factor": self.factor,
            "decision_measure": str(self.decision),
            "slice_decision": {s: str(m) for s, m in self.slice_decision.items()},
            "measures": [str(m) for m in self.measures],
            "headline": self.headline,
            "strata": list(self.strata),
            "n": dict(self.n),
            "weights": self.weights,
            "guard_slices": list(self.guard_slices),
            "like_for_like": self.like_for_like,
            "notes": list(self.notes),
            "run_ids": dict(self.run_ids),
            "heldout": None if self.heldout is None else dict(self.heldout),
            "decisions": [
                {**asdict(d), "guard_failed": list(d.guard_failed), "warnings": list(d.warnings)}
                for d in self.decisions
            ],
            "rows": self.rows(),
            "cells": json.loads(self.cells.to_json(orient="records")),
        }


def read_cells(path: str | Path) -> pd.DataFrame:
    """Read `report.csv` (the cells) back with the dtypes `Report.cells` has."""
    return pd.read_csv(path, dtype={c: str for c in _STR_COLUMNS}, keep_default_na=False)[
        list(CELL_COLUMNS)
    ]
