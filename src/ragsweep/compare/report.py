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

from ragsweep.compare.judged import Judged
from ragsweep.conventions import ASSUME_NOT_RELEVANT, UNJUDGED_BOUNDS
from ragsweep.data.csvfile import read_csv_exact
from ragsweep.data.schema import SYNTHETIC
from ragsweep.measures import Measure

#: A row's overall decision, in order of precedence (see `build._decide` and docs/report.md).
#: `needs judging`: the decision turns on passages nobody judged (scored as not relevant and as
#: relevant, a headline or guard cell reads differently); it is never `better` or `worse`.
FAILS_GUARD, NEEDS_JUDGING, BETTER, NOISE, WORSE = (
    "fails guard",
    "needs judging",
    "better",
    "noise",
    "worse",
)
DECISIONS: tuple[str, ...] = (FAILS_GUARD, NEEDS_JUDGING, BETTER, NOISE, WORSE)

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
    "unjudged",
    "baseline_unjudged",
    "verdict_if_not_relevant",
    "delta_if_relevant",
    "ci_low_if_relevant",
    "ci_high_if_relevant",
    "verdict_if_relevant",
)
#: Columns of `Report.parts`: per stratum and part of the labelled set (core, rolling), the
#: stratum's deciding measure's mean for each run (`run`: the baseline and each configuration)
#: over the `n` questions of that part.
PART_COLUMNS: tuple[str, ...] = ("stratum", "measure", "part", "n", "run", "value")
#: Columns of `Report.flipped` (`ragsweep.compare.flips`): one row per configuration, slice and
#: question whose value of the slice's deciding measure changed (`change`: `lost` or `gained`),
#: with the two values, the question, its relevant clauses and both systems' top k as text.
FLIP_COLUMNS: tuple[str, ...] = (
    "config",
    "slice",
    "qid",
    "change",
    "measure",
    "baseline",
    "candidate",
    "question",
    "relevant",
    "baseline_top",
    "candidate_top",
    "unjudged_in_candidate",
)
#: float columns that are NaN when the frames did not allow them
_MAYBE_MISSING = (
    "unjudged",
    "baseline_unjudged",
    "delta_if_relevant",
    "ci_low_if_relevant",
    "ci_high_if_relevant",
)
_STR_COLUMNS = (
    "config",
    "measure",
    "stratum",
    "verdict",
    "verdict_if_not_relevant",
    "verdict_if_relevant",
)


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
    worse / noise / needs judging, and the resolution (`half_width`, `sd`, `questions_needed`
    for `target_gap`, `resolves`). `unjudged` and `baseline_unjudged` are the share of the top k
    nobody judged (unjudged@k at the measure's cutoff; NaN when the frames lack it); the
    `*_if_relevant` columns are the same comparison with unjudged passages scored as relevant
    (NaN / empty when `unjudged` is not `bounds` or the frames lack the columns); `verdict` is
    `needs judging` where the two verdicts differ (`verdict_if_not_relevant` keeps the first).
    `measures` are the measures shown as tables, the decision measure first;
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
    #: `bounds` or `assume_not_relevant` (`UNJUDGED_CHOICES`); `bounded` says whether the
    #: optimistic side was scored (the frames carried `clauses` and `labels`)
    unjudged: str = UNJUDGED_BOUNDS
    bounded: bool = False
    #: the sweep the report compares (None: a comparison of runs): names the judging command
    sweep: str | None = None
    #: the parts of the labelled set the numbers come from, in `SUBSETS` order (the per-question
    #: frames' `subset` column; empty when they lack it), and `eval.subset` when known
    parts_scored: tuple[str, ...] = ()
    subset: str | None = None
    #: with both parts scored: the deciding measure per stratum and part (`PART_COLUMNS`)
    parts: pd.DataFrame | None = None
    #: the questions each configuration lost and gained per slice (`FLIP_COLUMNS`; no row when
    #: nothing flipped): `ragsweep.compare.flips`
    flipped: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=FLIP_COLUMNS))
    #: on a labelled set partly made by a model judge (`ragsweep.compare.judged`): the plain and
    #: the corrected comparison side by side, the judge's bias and the audit advice; the cells
    #: are then the corrected ones (`method` says so). None: people made every label
    judge: Judged | None = None

    def judge_note(self) -> str | None:
        """The line every rendering prints under the title on a model-judged set: that the
        intervals are corrected by the audited questions, or that they could not be and why."""
        if self.judge is None:
            return None
        n, total = (
            self.judge.audited.get(self.headline, 0),
            self.judge.questions.get(self.headline, 0),
        )
        if self.judge.problem is not None:
            return (
                f"MODEL-JUDGED LABELS, NOT CORRECTED: a model judge made labels of this set "
                f"({n} of {total} questions audited by people); {self.judge.problem}. Until "
                "then every number and verdict below inherits the judge's bias."
            )
        return (
            f"Model-judged labels: {total - n} of {total} questions carry a model judge's "
            f"labels, {n} were audited by people; every interval and verdict is corrected by "
            "the audited questions (prediction-powered inference). The table 'Model-judged "
            "labels' shows what the labels alone would say and the judge's bias."
        )

    def needs_judging(self) -> bool:
        """Whether any configuration's decision is `needs judging`."""
        return any(d.decision == NEEDS_JUDGING for d in self.decisions)

    def judging_commands(self) -> tuple[str, ...]:
        """The commands that close the gap when a decision is `needs judging`: pool the
        unjudged passages of exactly these rankings, judge and import them, re-score."""
        if self.sweep:
            source = f"--sweep {self.sweep}"
            rescore = f"ragsweep labels rebaseline {self.sweep}"
        else:
            ids = [self.run_ids[c] for c in (self.baseline, *self.configs) if c in self.run_ids]
            source = "--runs " + (" ".join(ids) if ids else "RUN_ID ...")
            rescore = "re-run each configuration on the new labels, then compare again"
        return (
            f"ragsweep labels pool {source} --out judging_sheet.csv",
            "ragsweep labels import judging_sheet.csv --data DIR --judge NAME"
            "  # as pool prints it, grades filled",
            rescore,
        )

    def unjudged_note(self) -> str | None:
        """The line every rendering prints about unjudged passages: the assumption when
        `assume_not_relevant`, the missing bounds when they could not be scored, else None."""
        if self.unjudged == ASSUME_NOT_RELEVANT:
            return (
                "ASSUMPTION: passages nobody judged are scored as not relevant "
                "(eval.unjudged=assume_not_relevant, trec_eval's convention); the unjudged "
                "column shows how much of each top k that covers; no verdict was checked "
                "against them"
            )
        if not self.bounded:
            return (
                "no bounds: these scores lack the clauses and labels of each question, so "
                "passages nobody judged count as not relevant and no verdict was checked "
                "against them"
            )
        return None

    def part_note(self) -> str | None:
        """The line every rendering prints under the title: which part of the labelled set
        (the frozen core, the rolling part, or both) the numbers come from; None when the
        per-question scores do not say."""
        if not self.parts_scored:
            return None
        setting = f"eval.subset={self.subset}" if self.subset else "eval.subset not recorded"
        if len(self.parts_scored) > 1:
            return (
                f"Questions: {' and '.join(self.parts_scored)} parts of the labelled set "
                f"({setting}); every number is over both, and the table by part gives the "
                "deciding measure of each part per slice."
            )
        (part,) = self.parts_scored
        if part == SYNTHETIC:
            return (
                f"Questions: synthetic only, generated from the corpus, not asked by anyone "
                f"({setting}); never compare these numbers with runs on the real questions."
            )
        only = "frozen core" if part == "core" else f"{part} part"
        return f"Questions: the {only} of the labelled set only ({setting})."

    def heldout_of(self, config: str) -> str | None:
        """What held-out questions said of `config`'s dev decision, or None when the report
        has no held-out stage or the decision needs no confirmation (not `better`)."""
        if self.heldout is None:
            return None
        return self.heldout.get(config)

    def heldout_short(self, config: str) -> str | None:
        """`heldout_of` in a few words for a table cell: `not confirmed on held-out`."""
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
            "unjudged": self.unjudged,
            "bounded": self.bounded,
            "sweep": self.sweep,
            "parts_scored": list(self.parts_scored),
            "subset": self.subset,
            "parts": (
                None if self.parts is None else json.loads(self.parts.to_json(orient="records"))
            ),
            "judging_commands": list(self.judging_commands()) if self.needs_judging() else [],
            "flipped": json.loads(self.flipped.to_json(orient="records")),
            "decisions": [
                {**asdict(d), "guard_failed": list(d.guard_failed), "warnings": list(d.warnings)}
                for d in self.decisions
            ],
            "rows": self.rows(),
            "cells": json.loads(self.cells.to_json(orient="records")),
            "judge": None
            if self.judge is None
            else {
                "problem": self.judge.problem,
                "audited": dict(self.judge.audited),
                "questions": dict(self.judge.questions),
                "advice": list(self.judge.advice),
                "table": json.loads(self.judge.table.to_json(orient="records")),
            },
        }


def read_cells(path: str | Path) -> pd.DataFrame:
    """Read `report.csv` (the cells) back with the dtypes `Report.cells` has."""
    cells = read_csv_exact(
        path,
        dtype={c: str for c in _STR_COLUMNS},
        keep_default_na=False,
    )
    for c in _MAYBE_MISSING:  # NaN when not measured: written as an empty field
        cells[c] = pd.to_numeric(cells[c].replace("", float("nan"))).astype("float64")
    return cells[list(CELL_COLUMNS)]
