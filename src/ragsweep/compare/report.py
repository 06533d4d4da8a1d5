"""The paired comparison report: one row per configuration, one column per slice, each cell the
paired difference from the baseline with its interval and verdict; guard slices; a decision.

    report = build_report(base_frame, {"256": frame_256}, decision="recall@5", weights=traffic)
    print_report(report)                       # rich tables on stdout
    write_report(report, "out/")               # report.md, .html, .csv, decisions.csv, .json, PNGs

    report_sweep("fusion_k")                   # a logged sweep: build, print, log to its parent run
    report_runs([base_run_id, cand_run_id])    # any logged configuration runs, nothing logged

Building needs numpy and pandas only; matplotlib is imported when a plot is drawn and MLflow only
by `report_sweep` / `report_runs`, so `ragsweep compare` never pays for it. How to read the report
and the decision rule: docs/report.md. The bootstrap itself is `ragsweep.compare.stats`.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import re
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.compare import stats
from ragsweep.errors import UserError
from ragsweep.experiment.tracking import Store
from ragsweep.measures import Measure

#: A row's overall decision, in order of precedence (see `_decide` and docs/report.md).
FAILS_GUARD, BETTER, NO_DIFFERENCE, WORSE = (
    "fails guard",
    "better",
    "no resolvable difference",
    "worse",
)
DECISIONS: tuple[str, ...] = (FAILS_GUARD, BETTER, NO_DIFFERENCE, WORSE)
#: The identifiers slice usually has one right passage: reciprocal rank decides there.
DEFAULT_SLICE_DECISION: dict[str, Measure] = {"identifiers": Measure("RR")}
#: Measures shown beside the decision measure when ordering is what a sweep changed.
ORDERING_MEASURES: tuple[Measure, ...] = (Measure("nDCG", 10), Measure("recall", 5))
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
_ID_COLUMNS = ("qid", "slice")
_RUN_ID = re.compile(r"[0-9a-f]{32}")


def ordering_changed(factor: str | None) -> bool:
    """Whether a sweep over `factor` changes the order of the same passages (fusion, reranker),
    so nDCG@10 and recall@5 are shown beside the decision measure."""
    if not factor:
        return False
    return factor in ("fusion", "reranker") or factor.startswith(("fusion.", "reranker."))


def sweep_measures(k_prompt: int, factor: str | None) -> tuple[Measure, tuple[Measure, ...]]:
    """(decision measure, measures shown) for a sweep: recall@k_prompt decides; fusion and
    reranker sweeps also show nDCG@10 and recall@5."""
    decision = Measure("recall", int(k_prompt))
    shown = [decision, *(ORDERING_MEASURES if ordering_changed(factor) else ())]
    return decision, tuple(dict.fromkeys(shown))


# ----------------------------------------------------------------------------- the model


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
    """A built comparison report; render it with `print_report`, `to_markdown`, `to_html`,
    `forest_plot`, `write_report`.

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
    n_resamples: int
    seed: int
    target_gap: float
    cells: pd.DataFrame
    decisions: tuple[Decision, ...]
    notes: tuple[str, ...] = ()
    like_for_like: bool = True
    factor: str | None = None
    title: str = "ragsweep report"
    run_ids: dict[str, str] = field(default_factory=dict)

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
            "n_resamples": self.n_resamples,
            "seed": self.seed,
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
            "decisions": [
                {**asdict(d), "guard_failed": list(d.guard_failed), "warnings": list(d.warnings)}
                for d in self.decisions
            ],
            "rows": self.rows(),
            "cells": json.loads(self.cells.to_json(orient="records")),
        }


# ----------------------------------------------------------------------------- building


def _as_measure(m: Measure | str) -> Measure:
    return m if isinstance(m, Measure) else Measure.parse(str(m))


def _preview(items: Sequence[str], n: int = 3) -> str:
    shown = ", ".join(str(x) for x in items[:n])
    return shown + (", ..." if len(items) > n else "")


def _check_frame(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> pd.DataFrame:
    """The frame indexed by qid with `slice` and the measure columns, checked."""
    if not isinstance(frame, pd.DataFrame):
        raise UserError(
            f"configuration {name!r}: per-question scores must be a pandas DataFrame, "
            f"got {type(frame).__name__}"
        )
    missing = [c for c in (*_ID_COLUMNS, *columns) if c not in frame.columns]
    if missing:
        raise UserError(
            f"configuration {name!r}: per-question scores have no column(s) "
            f"{', '.join(missing)} (found: {_preview(list(map(str, frame.columns)), 12)}); "
            "score the run with those measures (eval.measures)"
        )
    qids = frame["qid"].astype(str)
    dup = qids[qids.duplicated()].unique().tolist()
    if dup:
        raise UserError(
            f"configuration {name!r}: question(s) {_preview(dup)} appear more than "
            "once in the per-question scores; give one row per question"
        )
    out = pd.DataFrame({"slice": frame["slice"].astype(str).to_numpy()}, index=qids.to_numpy())
    for col in columns:
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values)
        if bad.any():
            raise UserError(
                f"configuration {name!r}: column {col!r} has missing or non-numeric values for "
                f"question(s) {_preview(qids[bad].tolist())}; score a question with no answer as 0"
            )
        out[col] = values
    return out


def _align(base: pd.DataFrame, cand: pd.DataFrame, name: str, baseline_name: str) -> pd.DataFrame:
    """`cand` reindexed to the baseline's questions; refuses other question sets or slices."""
    only_base = sorted(set(base.index) - set(cand.index))
    only_cand = sorted(set(cand.index) - set(base.index))
    if only_base or only_cand:
        parts = []
        if only_base:
            parts.append(f"{len(only_base)} only in {baseline_name!r} ({_preview(only_base)})")
        if only_cand:
            parts.append(f"{len(only_cand)} only in {name!r} ({_preview(only_cand)})")
        raise UserError(
            f"configuration {name!r} was scored on other questions than the baseline "
            f"{baseline_name!r}: {'; '.join(parts)}; a paired comparison needs the same "
            "questions: score both on the same labelled set, split and subset"
        )
    cand = cand.loc[base.index]
    moved = base.index[(cand["slice"] != base["slice"]).to_numpy()].tolist()
    if moved:
        q = moved[0]
        raise UserError(
            f"configuration {name!r} puts question {q!r} in slice {cand.at[q, 'slice']!r}, the "
            f"baseline {baseline_name!r} in {base.at[q, 'slice']!r} ({len(moved)} such "
            "question(s)); the labelled sets differ: score both on the same one"
        )
    return cand


def signed(x: float) -> str:
    """A difference with its sign at 3 decimals; a nonzero one that would print as 0.000 prints
    as `+<0.001` / `-<0.001`, so an interval shown as "[+0.000, ...]" really touches 0 and one
    that excludes 0 never looks as if it did not."""
    x = float(x)
    if x != 0 and abs(x) < 0.0005:
        return "+<0.001" if x > 0 else "-<0.001"
    return f"{x:+.3f}"


def _interval(delta: float, lo: float, hi: float) -> str:
    return f"{signed(delta)} [{signed(lo)}, {signed(hi)}]"


def _decide(
    cells: pd.DataFrame,
    config: str,
    *,
    headline: str,
    decision: Measure,
    guard: Mapping[str, Measure],
    strata: Sequence[str],
    deciding: Mapping[str, Measure],
    target_gap: float,
) -> Decision:
    """The overall decision of one configuration (the rule is in docs/report.md):

    1. `fails guard` if any guard slice's estimate (on its deciding measure) is below the
       baseline's, whether or not the drop is beyond noise;
    2. else `better` / `worse` when the headline cell's verdict is better / worse;
    3. else `no resolvable difference`.
    """
    mine = cells[cells["config"] == config]

    def cell(measure: Measure, stratum: str) -> pd.Series:
        return mine[(mine["measure"] == str(measure)) & (mine["stratum"] == stratum)].iloc[0]

    head = cell(decision, headline)
    head_text = f"{headline} {decision} {_interval(head['delta'], head['ci_low'], head['ci_high'])}"
    failed, guard_parts = [], []
    for s, m in guard.items():
        g = cell(m, s)
        if g["delta"] < 0:
            failed.append(s)
            text = f"{s} {m} {_interval(g['delta'], g['ci_low'], g['ci_high'])} below the baseline"
            if g["verdict"] == "noise":
                need = stats.questions_needed(
                    float(g["sd"]), int(g["n"]), -float(g["delta"]), float(g["level"])
                )
                text += (
                    f", within noise (about {need} questions would resolve a drop this "
                    f"size; it has {int(g['n'])})"
                )
            else:
                text += ", beyond noise"
            guard_parts.append(text)
        else:
            guard_parts.append(f"{s} {m} {signed(g['delta'])} holds")
    warnings = []
    for s in strata:
        if s in guard or s == headline:
            continue
        m = deciding.get(s, decision)
        c = cell(m, s)
        if c["verdict"] == "worse":
            warnings.append(
                f"{s} {m} {_interval(c['delta'], c['ci_low'], c['ci_high'])} worse beyond noise"
            )
    if failed:
        verdict = FAILS_GUARD
        reason = "; ".join(p for s, p in zip(guard, guard_parts, strict=True) if s in failed)
        reason += f" (headline {head_text} {head['verdict']})"
    elif head["verdict"] == "better":
        verdict, reason = BETTER, f"{head_text} better" + ("; guards hold" if guard else "")
    elif head["verdict"] == "worse":
        verdict, reason = WORSE, f"{head_text} worse"
    elif head["ci_low"] == head["ci_high"] == 0:
        verdict, reason = NO_DIFFERENCE, f"{head_text}: no question scores differently"
    elif head["resolves"]:
        verdict = NO_DIFFERENCE
        reason = (
            f"{head_text} is noise; the questions resolve differences above "
            f"{float(head['half_width']):.3f}, finer than the target gap {target_gap:g}"
        )
    else:
        verdict = NO_DIFFERENCE
        reason = (
            f"{head_text} is noise; the questions resolve differences above "
            f"{float(head['half_width']):.3f}: about {int(head['questions_needed'])} "
            f"would resolve {target_gap:g} (it has {int(head['n'])})"
        )
    return Decision(
        config=config,
        decision=verdict,
        headline=headline,
        delta=float(head["delta"]),
        ci_low=float(head["ci_low"]),
        ci_high=float(head["ci_high"]),
        verdict=str(head["verdict"]),
        reason=reason,
        guard="; ".join(guard_parts) if guard_parts else "no guard slice",
        guard_failed=tuple(failed),
        warnings=tuple(warnings),
    )


#: below this many questions a slice's bootstrap interval is too narrow to trust
FEW_QUESTIONS = 10


def _few_questions(n: Mapping[str, int], slices: Sequence[str]) -> tuple[str, ...]:
    small = [f"{s} ({n[s]})" for s in slices if s in n and n[s] < FEW_QUESTIONS]
    if not small:
        return ()
    return (
        f"few questions in {', '.join(small)}: with fewer than {FEW_QUESTIONS} a bootstrap "
        "interval is too narrow to trust (docs/statistics.md); read those verdicts as noise "
        "and add questions",
    )


def build_report(
    baseline: pd.DataFrame,
    candidates: Mapping[str, pd.DataFrame],
    *,
    decision: Measure | str,
    baseline_name: str = "baseline",
    measures: Sequence[Measure | str] = (),
    slices: Sequence[str] | None = None,
    weights: Mapping[str, float] | None = None,
    guard_slices: Sequence[str] = ("exclusions",),
    correction: str = "bonferroni",
    level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    target_gap: float = 0.02,
    slice_decision: Mapping[str, Measure | str] | None = None,
    factor: str | None = None,
    title: str | None = None,
    notes: Sequence[str] = (),
    like_for_like: bool = True,
) -> Report:
    """Compare each candidate with the baseline per slice, on per-question scores.

    `baseline` and each of `candidates` (name -> frame, in report order) are per-question frames
    with columns `qid`, `slice` and one column per measure named `str(Measure)` (`recall@5`,
    `nDCG@10`, `RR`), as in a run's `results/per_question.csv`; all must hold the same questions
    in the same slices (else `UserError`). `decision` decides (the headline: the `weighted`
    stratum when `weights` (slice -> traffic weight) are given and there are two or more slices,
    else `all`); `measures` are shown beside it. `slice_decision` overrides the deciding measure
    per slice (default: RR for identifiers; `{}` for none). `slices` gives the column order
    (others follow in order of appearance); within a slice questions are taken in qid order, so
    the result does not depend on row order. A guard slice whose estimate is below the
    baseline's fails the configuration (see `Decision`). One `stats.paired_resamples` per
    measure, the same seed for all, so every measure sees the same resampled questions.
    """
    decision = _as_measure(decision)
    shown = tuple(dict.fromkeys([decision, *map(_as_measure, measures)]))
    names = [str(n) for n in candidates]
    if not names:
        raise UserError("nothing to compare: give at least one configuration besides the baseline")
    if baseline_name in names:
        raise UserError(
            f"a configuration is named like the baseline ({baseline_name!r}); "
            "give each a distinct name"
        )
    per_slice = {
        str(s): _as_measure(m)
        for s, m in (DEFAULT_SLICE_DECISION if slice_decision is None else slice_decision).items()
    }
    notes = list(notes)

    base = _check_frame(baseline, baseline_name, [str(m) for m in shown])
    present = list(dict.fromkeys(base["slice"]))
    order = [s for s in (slices or ()) if s in present]
    order += [s for s in present if s not in order]
    # the slice-specific measures that can be used: present in every frame
    used: dict[str, Measure] = {}
    for s, m in per_slice.items():
        if s not in order or m == decision:
            continue
        lacking = [
            n
            for n, f in [(baseline_name, baseline), *candidates.items()]
            if str(m) not in f.columns
        ]
        if lacking:
            notes.append(
                f"slice {s} is decided on {decision}, not {m}: no {m} scores for "
                f"{_preview(lacking)}"
            )
        else:
            used[s] = m
    computed = tuple(dict.fromkeys([*shown, *used.values()]))
    columns = [str(m) for m in computed]
    base = _check_frame(baseline, baseline_name, columns)
    cands = {
        n: _align(base, _check_frame(candidates[n], n, columns), n, baseline_name) for n in names
    }

    rank = {s: i for i, s in enumerate(order)}
    keys = pd.DataFrame({"rank": base["slice"].map(rank).to_numpy(), "qid": base.index})
    idx = keys.sort_values(["rank", "qid"], kind="stable").index.to_numpy()
    base = base.iloc[idx]
    cands = {n: f.iloc[idx] for n, f in cands.items()}
    strata_labels = base["slice"].to_numpy()
    use_weights = None if weights is None or len(order) < 2 else dict(weights)

    guard = {s: used.get(s, decision) for s in guard_slices if s in order}
    absent = [s for s in guard_slices if s not in order]
    if absent and order != [stats.ALL]:
        notes.append(f"guard slice(s) {', '.join(absent)} have no questions here: not checked")

    frames = []
    for m in computed:
        col = str(m)
        draws = stats.paired_resamples(
            base[col].to_numpy(),
            np.stack([cands[n][col].to_numpy() for n in names]),
            strata_labels,
            names,
            weights=use_weights,
            n_resamples=n_resamples,
            seed=seed,
        )
        comp = stats.to_frame(stats.compare(draws, level=level, correction=correction))
        res = stats.to_frame(
            stats.resolution(draws, target_gap=target_gap, level=level, correction=correction)
        )
        comp["measure"] = col
        for c in ("sd", "half_width", "questions_needed", "resolves"):
            comp[c] = res[c].to_numpy()
        frames.append(comp)
        strata, normalised = draws.strata, draws.weights
        n_of = {s: int(k) for s, k in zip(draws.strata, draws.n, strict=True)}
    cells = pd.concat(frames, ignore_index=True).rename(columns={"candidate": "config"})
    cells = cells[list(CELL_COLUMNS)]
    headline = stats.WEIGHTED if stats.WEIGHTED in strata else stats.ALL
    decisions = tuple(
        _decide(
            cells,
            n,
            headline=headline,
            decision=decision,
            guard=guard,
            strata=strata,
            deciding=used,
            target_gap=float(target_gap),
        )
        for n in names
    )
    return Report(
        baseline=baseline_name,
        configs=tuple(names),
        decision=decision,
        measures=shown,
        slice_decision=used,
        slices=tuple(order),
        strata=tuple(strata),
        headline=headline,
        n=n_of,
        weights=normalised,
        guard_slices=tuple(guard),
        correction=correction,
        level=float(level),
        interval_level=stats.interval_level(level, len(names), correction),
        n_resamples=int(n_resamples),
        seed=int(seed),
        target_gap=float(target_gap),
        cells=cells,
        decisions=decisions,
        notes=tuple(notes) + _few_questions(n_of, order),
        like_for_like=like_for_like,
        factor=factor,
        title=title or f"{', '.join(names)} against {baseline_name}",
    )


def read_cells(path: str | Path) -> pd.DataFrame:
    """Read `report.csv` (the cells) back with the dtypes `Report.cells` has."""
    return pd.read_csv(path, dtype={c: str for c in _STR_COLUMNS}, keep_default_na=False)[
        list(CELL_COLUMNS)
    ]


# ----------------------------------------------------------------------------- rendering


@dataclass(frozen=True)
class _Column:
    stratum: str
    measure: Measure
    n: int
    guard: bool
    own_measure: bool  # decided on another measure than the table's (identifiers on RR)

    def header(self, sep: str = " ") -> str:
        tags = [f"n={self.n}"]
        if self.own_measure:
            tags.append(str(self.measure))
        if self.guard:
            tags.append("guard")
        return f"{self.stratum}{sep}({', '.join(tags)})"


def _columns(report: Report, measure: Measure | None) -> list[_Column]:
    """The columns of one table: `measure`, or each stratum's deciding measure when None."""
    out = []
    for s in report.strata:
        m = report.deciding(s) if measure is None else measure
        out.append(
            _Column(
                s,
                m,
                report.n[s],
                s in report.guard_slices,
                measure is None and m != report.decision,
            )
        )
    return out


def method_text(report: Report) -> str:
    """One paragraph: how the intervals and verdicts were made."""
    c = len(report.configs)
    level = f"{report.level * 100:g}%"
    if report.correction == "bonferroni" and c > 1:
        interval = (
            f"{level} percentile intervals, Bonferroni-widened over {c} configurations "
            f"to {report.interval_level:.2%}"
        )
        verdict = "better / worse when the interval excludes 0, else noise"
    elif report.correction == "holm" and c > 1:
        interval = f"unadjusted {level} percentile intervals"
        verdict = (
            f"better / worse when the Holm-adjusted p over the {c} configurations is "
            f"below {1 - report.level:.2g}, else noise (an interval shown may exclude 0 "
            "and still read noise)"
        )
    else:
        interval = f"{level} percentile intervals, no family-wise correction"
        verdict = "better / worse when the interval excludes 0, else noise"
    weights = ""
    if report.weights is not None:
        weights = (
            " `weighted` = "
            + " + ".join(f"{w:.2f} x {s}" for s, w in report.weights.items())
            + " (slice means; traffic weights)."
        )
    return (
        f"Paired, stratified bootstrap over questions ({report.n_resamples:,} resamples, seed "
        f"{report.seed}): each cell is the configuration minus the baseline {report.baseline!r} "
        f"on the same questions, {interval}; verdict {verdict}. Decided on {report.decision}"
        + "".join(f", {s} on {m}" for s, m in report.slice_decision.items())
        + f"; headline `{report.headline}`.{weights}"
    )


def _fmt(x: float) -> str:
    return f"{x:.3f}"


def _cell_parts(report: Report, config: str, col: _Column) -> tuple[str, str, str, str]:
    """(delta, interval, verdict, raw value) texts of one candidate cell."""
    c = report.cell(config, col.measure, col.stratum)
    return (
        signed(c["delta"]),
        f"[{signed(c['ci_low'])}, {signed(c['ci_high'])}]",
        str(c["verdict"]),
        _fmt(c["value"]),
    )


def _tables(report: Report) -> list[tuple[str, Measure | None]]:
    """(caption, measure) of each table: the headline (None: deciding measure per stratum),
    then every other measure shown."""
    first = f"{report.decision} (decides)" + "".join(
        f"; {s}: {m}" for s, m in report.slice_decision.items()
    )
    return [(first, None), *((str(m), m) for m in report.measures if m != report.decision)]


def _row_label(report: Report, name: str) -> str:
    return f"{name} (baseline)" if name == report.baseline else name


_RICH_VERDICT = {"better": "green", "worse": "red", "noise": "dim"}
_RICH_DECISION = {
    FAILS_GUARD: "bold red",
    BETTER: "bold green",
    WORSE: "red",
    NO_DIFFERENCE: "yellow",
}


def rich_tables(report: Report) -> list[Any]:
    """The report as rich renderables: a title, the tables, the decisions and notes."""
    from rich.table import Table
    from rich.text import Text

    out: list[Any] = [Text(report.title, style="bold")]
    if not report.like_for_like:
        out.append(
            Text(
                "NOT LIKE FOR LIKE: the runs compared differ in labelled set or corpus "
                "snapshot (see the notes below)",
                style="bold red",
            )
        )
    out.append(Text(method_text(report), style="dim"))
    for caption, measure in _tables(report):
        cols = _columns(report, measure)
        table = Table(title=caption, title_justify="left", show_lines=True)
        table.add_column(report.factor or "configuration")
        if measure is None:
            table.add_column("decision")
        for col in cols:
            table.add_column(col.header("\n"), justify="right")
        base = [Text(_fmt(report.baseline_value(c.measure, c.stratum))) for c in cols]
        table.add_row(
            _row_label(report, report.baseline), *([""] if measure is None else []), *base
        )
        for name in report.configs:
            cells = []
            for col in cols:
                delta, interval, verdict, value = _cell_parts(report, name, col)
                t = Text(f"{delta} {verdict}\n", style=_RICH_VERDICT[verdict])
                t.append(interval + "\n", style="dim" if verdict == "noise" else "")
                t.append(value, style="dim")
                cells.append(t)
            extra = []
            if measure is None:
                d = report.decision_of(name).decision
                extra = [Text(d, style=_RICH_DECISION[d])]
            table.add_row(name, *extra, *cells)
        out.append(table)
    out.append(_rich_resolution(report))
    for d in report.decisions:
        line = Text(f"{d.config}: ", style="bold")
        line.append(d.decision, style=_RICH_DECISION[d.decision])
        line.append(f": {d.reason}")
        for w in d.warnings:
            line.append(f"\n  warning: {w}", style="yellow")
        out.append(line)
    for note in report.notes:
        out.append(Text(f"note: {note}", style="yellow"))
    return out


def _rich_resolution(report: Report) -> Any:
    from rich.table import Table

    cols = _columns(report, None)
    table = Table(
        title=(
            f"smallest resolvable difference (interval half-width) and questions needed to "
            f"resolve {report.target_gap:g}"
        ),
        title_justify="left",
    )
    table.add_column(report.factor or "configuration")
    for col in cols:
        table.add_column(col.header("\n"), justify="right")
    for name in report.configs:
        table.add_row(name, *(_resolution_text(report, name, c) for c in cols))
    return table


def _resolution_text(report: Report, config: str, col: _Column) -> str:
    c = report.cell(config, col.measure, col.stratum)
    if bool(c["resolves"]):
        return f"±{c['half_width']:.3f} (ok)"
    return f"±{c['half_width']:.3f} ({int(c['questions_needed'])} q)"


def print_report(report: Report, console: Any = None) -> None:
    """Print the report's tables with rich (wide enough for the whole table when piped)."""
    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    items = rich_tables(report)
    if console is None:
        console = Console()
        if not console.is_terminal:
            wide = console.options.update_width(10_000)
            widest = max(
                Measurement.get(console, wide, i).maximum for i in items if isinstance(i, Table)
            )
            console = Console(width=max(120, widest))
    for item in items:
        console.print(item)
        console.print()


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(report: Report, images: Sequence[str] = ()) -> str:
    """The report as GitHub markdown: method, one table per measure, resolution, decisions."""
    lines = [f"# {_md_escape(report.title)}", ""]
    if not report.like_for_like:
        lines += [
            "> **Not like for like**: the runs compared differ in labelled set or corpus "
            "snapshot; see the notes.",
            "",
        ]
    lines += [method_text(report), ""]
    lines += ["## Decisions", "", "| configuration | decision | why |", "|---|---|---|"]
    for d in report.decisions:
        why = d.reason + "".join(f"; warning: {w}" for w in d.warnings)
        lines.append(f"| {_md_escape(d.config)} | **{d.decision}** | {_md_escape(why)} |")
    lines.append("")
    for caption, measure in _tables(report):
        cols = _columns(report, measure)
        lines += [f"## {caption}", ""]
        first = ["decision"] if measure is None else []
        head = [report.factor or "configuration", *first, *(c.header() for c in cols)]
        lines.append("| " + " | ".join(map(_md_escape, head)) + " |")
        lines.append("|---" * (1 + len(first)) + "|---:" * len(cols) + "|")
        base = [
            *([""] if first else []),
            *(_fmt(report.baseline_value(c.measure, c.stratum)) for c in cols),
        ]
        lines.append(
            f"| {_md_escape(_row_label(report, report.baseline))} | " + " | ".join(base) + " |"
        )
        for name in report.configs:
            cells = [f"**{report.decision_of(name).decision}**"] if first else []
            for col in cols:
                delta, interval, verdict, value = _cell_parts(report, name, col)
                word = verdict if verdict == "noise" else f"**{verdict}**"
                cells.append(f"{delta} {interval} {word} ({value})")
            lines.append(f"| {_md_escape(name)} | " + " | ".join(cells) + " |")
        lines.append("")
    cols = _columns(report, None)
    lines += [
        f"## Resolution: half-width and questions needed for a gap of {report.target_gap:g}",
        "",
    ]
    lines.append(
        "| "
        + " | ".join(
            map(_md_escape, [report.factor or "configuration", *(c.header() for c in cols)])
        )
        + " |"
    )
    lines.append("|---" + "|---:" * len(cols) + "|")
    for name in report.configs:
        lines.append(
            f"| {_md_escape(name)} | "
            + " | ".join(_resolution_text(report, name, c) for c in cols)
            + " |"
        )
    lines.append("")
    if report.notes:
        lines += ["## Notes", "", *(f"- {n}" for n in report.notes), ""]
    for img in images:
        lines += [f"![forest plot]({img})", ""]
    return "\n".join(lines)


_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
.better { background: #e3f4e3; } .worse { background: #fbe3e3; } .noise { color: #666; }
.raw { color: #888; font-size: 90%; }
.d-fails-guard { color: #b00; font-weight: bold; } .d-better { color: #070; font-weight: bold; }
.d-worse { color: #b00; } .d-no-resolvable-difference { color: #960; }
.warn { color: #b00; font-weight: bold; } .method { color: #555; max-width: 60em; }
"""


def to_html(report: Report, images: Mapping[str, bytes] | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, PNGs embedded as data URIs)."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(report.title)}</h1>",
    ]
    if not report.like_for_like:
        parts.append(
            '<p class="warn">Not like for like: the runs compared differ in labelled '
            "set or corpus snapshot; see the notes.</p>"
        )
    parts.append(f'<p class="method">{e(method_text(report))}</p>')
    parts.append(
        "<h2>Decisions</h2><table><tr><th>configuration</th><th>decision</th><th>why</th></tr>"
    )
    for d in report.decisions:
        why = e(d.reason) + "".join(
            f'<br><span class="warn">warning: {e(w)}</span>' for w in d.warnings
        )
        klass = "d-" + d.decision.replace(" ", "-")
        parts.append(
            f'<tr><td>{e(d.config)}</td><td class="{klass}">{e(d.decision)}</td><td>{why}</td></tr>'
        )
    parts.append("</table>")
    for caption, measure in _tables(report):
        cols = _columns(report, measure)
        first = measure is None  # the headline table carries each row's decision
        parts.append(
            f"<h2>{e(caption)}</h2><table><tr><th>{e(report.factor or 'configuration')}"
            "</th>"
            + ("<th>decision</th>" if first else "")
            + "".join(f"<th>{e(c.header())}</th>" for c in cols)
            + "</tr>"
        )
        parts.append(
            f"<tr><td>{e(_row_label(report, report.baseline))}</td>"
            + ("<td></td>" if first else "")
            + "".join(
                f'<td class="num">{_fmt(report.baseline_value(c.measure, c.stratum))}</td>'
                for c in cols
            )
            + "</tr>"
        )
        for name in report.configs:
            row = [f"<tr><td>{e(name)}</td>"]
            if first:
                d = report.decision_of(name).decision
                row.append(f'<td class="d-{d.replace(" ", "-")}">{e(d)}</td>')
            for col in cols:
                delta, interval, verdict, value = _cell_parts(report, name, col)
                row.append(
                    f'<td class="num {verdict}">{delta} {verdict}<br>{interval}<br>'
                    f'<span class="raw">{value}</span></td>'
                )
            parts.append("".join(row) + "</tr>")
        parts.append("</table>")
    cols = _columns(report, None)
    parts.append(
        f"<h2>Resolution: half-width and questions needed for a gap of "
        f"{report.target_gap:g}</h2><table><tr><th>"
        f"{e(report.factor or 'configuration')}</th>"
        + "".join(f"<th>{e(c.header())}</th>" for c in cols)
        + "</tr>"
    )
    for name in report.configs:
        parts.append(
            f"<tr><td>{e(name)}</td>"
            + "".join(f'<td class="num">{e(_resolution_text(report, name, c))}</td>' for c in cols)
            + "</tr>"
        )
    parts.append("</table>")
    if report.notes:
        parts.append(
            "<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in report.notes) + "</ul>"
        )
    for name, png in (images or {}).items():
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<h2>{e(name)}</h2><img alt="{e(name)}" src="data:image/png;base64,{data}">')
    parts.append("</body></html>")
    return "\n".join(parts)


_PLOT_COLOUR = {"better": "#1a7f37", "worse": "#c62828", "noise": "#6e6e6e"}
_DECISION_COLOUR = {
    FAILS_GUARD: "#c62828",
    BETTER: "#1a7f37",
    WORSE: "#c62828",
    NO_DIFFERENCE: "#444444",
}


def forest_plot(report: Report, measure: Measure | None = None) -> bytes:
    """A forest plot as PNG bytes: one panel per stratum, each configuration's difference from
    the baseline with its interval, a line at 0; colour by verdict. `measure` None plots each
    stratum's deciding measure (the headline table). matplotlib's Agg canvas, no pyplot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    cols = _columns(report, measure)
    n_cols = min(4, len(cols))
    n_rows = math.ceil(len(cols) / n_cols)
    height = 0.45 * len(report.configs) + 1.3
    fig = Figure(figsize=(3.3 * n_cols, height * n_rows + 0.9), dpi=110)
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharex=True)
    lows = [report.cell(n, c.measure, c.stratum)["ci_low"] for n in report.configs for c in cols]
    highs = [report.cell(n, c.measure, c.stratum)["ci_high"] for n in report.configs for c in cols]
    lo, hi = min(0.0, *lows), max(0.0, *highs)
    pad = max(0.01, 0.08 * (hi - lo))
    y = np.arange(len(report.configs))[::-1]
    labels = [f"{n}\n{report.decision_of(n).decision}" for n in report.configs]
    for i, col in enumerate(cols):
        ax = axes[i // n_cols][i % n_cols]
        ax.axvline(0.0, color="black", linewidth=1)
        for yy, name in zip(y, report.configs, strict=True):
            c = report.cell(name, col.measure, col.stratum)
            colour = _PLOT_COLOUR[str(c["verdict"])]
            ax.plot(
                [c["ci_low"], c["ci_high"]],
                [yy, yy],
                color=colour,
                linewidth=2.5,
                solid_capstyle="butt",
            )
            ax.plot([c["delta"]], [yy], "o", color=colour, markersize=6)
        ax.set_yticks(y)
        ax.set_yticklabels(labels if i % n_cols == 0 else [])
        if i % n_cols == 0:
            for tick, name in zip(ax.get_yticklabels(), report.configs, strict=True):
                tick.set_color(_DECISION_COLOUR[report.decision_of(name).decision])
        if i % n_cols == 0 and report.factor:
            ax.set_ylabel(report.factor, fontsize=9)
        ax.set_ylim(-0.7, len(report.configs) - 0.3)
        ax.set_xlim(lo - pad, hi + pad)
        title = f"{col.stratum}  (n={col.n})"
        if col.guard:
            title += "  GUARD"
        elif col.stratum == report.headline:
            title += "  headline"
        ax.set_title(
            title,
            fontsize=10,
            fontweight="bold" if col.guard else "normal",
            color="#c62828" if col.guard else "black",
        )
        ax.set_xlabel(f"Δ {col.measure}", fontsize=9)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.tick_params(labelsize=8, labelbottom=True)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, symmetric=False))
    for j in range(len(cols), n_rows * n_cols):
        axes[j // n_cols][j % n_cols].set_visible(False)
    what = "each slice's deciding measure" if measure is None else str(measure)
    fig.suptitle(
        f"{report.title}\nmean paired difference from the baseline ({what}) with its "
        f"{report.interval_level:.1%} interval: green better, red worse, grey noise",
        fontsize=10,
    )
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _plot_name(measure: Measure | None) -> str:
    return "forest.png" if measure is None else f"forest_{measure.key}.png"


def write_report(report: Report, folder: str | Path) -> dict[str, Path]:
    """Write report.md, report.html, report.csv (the cells), decisions.csv, report.json and the
    forest plots (forest.png for the deciding measure, forest_<measure key>.png for the others)
    into `folder` (created); return name -> path."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images: dict[str, bytes] = {}
    for _, measure in _tables(report):
        name = _plot_name(measure)
        images[name] = forest_plot(report, measure)
        (out / name).write_bytes(images[name])
        written[name] = out / name
    texts = {
        "report.md": to_markdown(report, images=list(images)),
        "report.html": to_html(report, images),
        "report.json": json.dumps(report.to_json(), indent=2) + "\n",
    }
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written[name] = out / name
    report.cells.to_csv(out / "report.csv", index=False)
    written["report.csv"] = out / "report.csv"
    decisions = pd.DataFrame(
        [
            {
                **asdict(d),
                "guard_failed": ",".join(d.guard_failed),
                "warnings": "; ".join(d.warnings),
            }
            for d in report.decisions
        ]
    )
    decisions.to_csv(out / "decisions.csv", index=False)
    written["decisions.csv"] = out / "decisions.csv"
    return dict(sorted(written.items()))


# ----------------------------------------------------------------------------- MLflow


@dataclass(frozen=True)
class LoggedRun:
    """What a logged configuration run brings to a report."""

    name: str
    run_id: str
    tags: dict[str, str]
    per_question: pd.DataFrame
    slices: list[str]  # from its summary.csv: the dataset's slices in report order
    config: dict[str, Any]


def store_client(store: Store | None) -> tuple[Store, Any]:
    from ragsweep.experiment import tracking

    store = store or tracking.resolve_store()
    if store.uri.startswith("sqlite:///") and not Path(store.uri[len("sqlite:///") :]).exists():
        raise UserError(
            f"no MLflow store at {store.uri[len('sqlite:///') :]}; run from the folder the sweep "
            "ran in, or set MLFLOW_TRACKING_URI to its store"
        )
    return store, tracking.client(store)


def _get_run(mc: Any, run_id: str) -> Any:
    from mlflow.exceptions import MlflowException

    try:
        return mc.get_run(run_id)
    except MlflowException:
        return None


def find_parent(mc: Any, sweep: str) -> tuple[Any, list[str]]:
    """The sweep's parent run (by run id, or the latest of sweep `sweep`), and notes."""
    if _RUN_ID.fullmatch(sweep):
        run = _get_run(mc, sweep)
        if run is None:
            raise UserError(
                f"no run with id {sweep} in this MLflow store; check the id, or "
                "give the sweep's name"
            )
        stage = run.data.tags.get("ragsweep.stage")
        if stage != "sweep":
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
        filter_string="tags.`ragsweep.stage` = 'sweep'",
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
        value = run.data.tags.get("ragsweep.value")
        if value is None or run.info.status != "FINISHED":
            continue
        key = (run.info.start_time or 0, run.info.run_id)
        old = best.get(value)
        if old is None or key > (old.info.start_time or 0, old.info.run_id):
            best[value] = run
    return best


@contextmanager
def _no_progress_bar() -> Iterator[None]:
    """MLflow draws a progress bar on stderr for every download unless told not to."""
    key = "MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR"
    old = os.environ.get(key)
    os.environ[key] = "false"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = old


def load_logged_run(mc: Any, run: Any, name: str, folder: Path) -> LoggedRun:
    """Download a configuration run's per-question scores, summary and resolved config."""
    from omegaconf import OmegaConf

    rid = run.info.run_id
    if run.info.status != "FINISHED":
        raise UserError(
            f"run {rid} ({name}) is {run.info.status}, not FINISHED: it has no "
            "results to compare; re-run it"
        )
    dst = folder / rid
    dst.mkdir(parents=True, exist_ok=True)
    try:
        with _no_progress_bar():
            results = Path(mc.download_artifacts(rid, "results", str(dst)))
            config = Path(mc.download_artifacts(rid, "config/config.yaml", str(dst)))
    except Exception as err:  # MLflow raises several types for a missing artifact
        raise UserError(
            f"run {rid} ({name}) has no results/per_question.csv or config/config.yaml artifact "
            f"({type(err).__name__}); is it a ragsweep configuration run?"
        ) from None
    pq = results / "per_question.csv"
    if not pq.exists():
        raise UserError(
            f"run {rid} ({name}) has no results/per_question.csv artifact; is it a "
            "ragsweep configuration run?"
        )
    frame = pd.read_csv(
        pq, dtype={"qid": str, "slice": str, "subset": str}, keep_default_na=False, na_values=[""]
    )
    summary = results / "summary.csv"
    slices: list[str] = []
    if summary.exists():
        rows = pd.read_csv(summary, dtype={"slice": str}, keep_default_na=False)["slice"]
        slices = [s for s in rows if s not in (stats.ALL, stats.WEIGHTED)]
    cfg = OmegaConf.to_container(OmegaConf.load(config), resolve=False)
    return LoggedRun(
        name, rid, dict(run.data.tags), frame, slices, cfg if isinstance(cfg, dict) else {}
    )


def report_defaults() -> dict[str, Any]:
    """The `report` config group's defaults (conf/report/default.yaml), used for settings a
    logged run's config lacks (runs logged before the group existed)."""
    from importlib.resources import files

    from omegaconf import OmegaConf

    text = files("ragsweep.conf").joinpath("report", "default.yaml").read_text(encoding="utf-8")
    loaded = OmegaConf.to_container(OmegaConf.create(text))
    return dict(loaded) if isinstance(loaded, dict) else {}


def _settings(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """Report settings from a resolved config: the `report` block (defaults where missing),
    eval.k_prompt and eval.traffic_weights."""
    block = {**report_defaults(), **dict(cfg.get("report") or {})}
    ev = dict(cfg.get("eval") or {})
    if "k_prompt" not in ev:
        raise UserError(
            "the baseline run's config/config.yaml has no eval.k_prompt; it was not "
            "logged by ragsweep"
        )
    block["k_prompt"] = int(ev["k_prompt"])
    block["traffic_weights"] = ev.get("traffic_weights")
    block["guard_slices"] = [str(s) for s in (block["guard_slices"] or [])]
    return block


def _like_for_like(runs: Sequence[LoggedRun], allow_mismatch: bool) -> tuple[bool, list[str]]:
    """Refuse (or, with `allow_mismatch`, note) runs on another labelled set or snapshot."""
    base, notes = runs[0], []
    for run in runs[1:]:
        for what, tag in (
            ("labelled set", "ragsweep.labels"),
            ("corpus snapshot", "ragsweep.snapshot"),
        ):
            mine, theirs = run.tags.get(tag), base.tags.get(tag)
            if mine == theirs:
                continue
            text = (
                f"{run.name} (run {run.run_id}) was scored on {what} {str(mine)[:12]}, the "
                f"baseline {base.name} on {str(theirs)[:12]}"
            )
            if not allow_mismatch:
                raise UserError(
                    f"{text}: not like for like; re-run the baseline on the same {what}, or pass "
                    "--allow-mismatch to compare anyway"
                )
            notes.append(f"not like for like: {text}")
        for key in SCORING_KEYS:  # the same ranking scored by another rule is another number
            mine, theirs = _select(run.config, key), _select(base.config, key)
            if mine == theirs:
                continue
            text = (
                f"{run.name} (run {run.run_id}) was scored with {key}={mine}, the baseline "
                f"{base.name} with {key}={theirs}"
            )
            if not allow_mismatch:
                raise UserError(
                    f"{text}: not like for like; score both the same way, or pass "
                    "--allow-mismatch to compare anyway"
                )
            notes.append(f"not like for like: {text}")
    return not notes, notes


#: config keys that change how a ranking is scored (not the ranking itself)
SCORING_KEYS = ("eval.gain", "eval.min_overlap", "eval.split", "eval.subset")


def _select(config: Mapping[str, Any], dotted: str) -> Any:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def report_from_runs(
    runs: Sequence[LoggedRun],
    *,
    factor: str | None,
    title: str,
    allow_mismatch: bool,
    notes: Sequence[str] = (),
) -> Report:
    like, mismatch = _like_for_like(runs, allow_mismatch)
    base = runs[0]
    s = _settings(base.config)
    decision, shown = sweep_measures(s["k_prompt"], factor)
    present = list(dict.fromkeys(base.per_question["slice"].astype(str)))
    weights = s["traffic_weights"]
    if weights is None:  # equal weights, as the runs' own `weighted` rows
        weights = {sl: 1.0 for sl in present}
    return build_report(
        base.per_question,
        {r.name: r.per_question for r in runs[1:]},
        decision=decision,
        baseline_name=base.name,
        measures=shown,
        slices=base.slices or None,
        weights=weights,
        guard_slices=s["guard_slices"],
        correction=str(s["correction"]),
        level=float(s["level"]),
        n_resamples=int(s["n_resamples"]),
        seed=int(s["seed"]),
        target_gap=float(s["target_gap"]),
        factor=factor,
        title=title,
        notes=[*mismatch, *notes],
        like_for_like=like,
    )


def _metrics(report: Report, safe_names: Mapping[str, str]) -> dict[str, float]:
    """Parent-run metrics `delta|ci_low|ci_high/<measure key>/<stratum>/<config>`."""
    from ragsweep.experiment.sweep import metric_safe

    out: dict[str, float] = {}
    for row in report.cells.itertuples(index=False):
        m = Measure.parse(row.measure).key
        tail = f"{m}/{metric_safe(row.stratum)}/{safe_names[row.config]}"
        out[f"delta/{tail}"] = float(row.delta)
        out[f"ci_low/{tail}"] = float(row.ci_low)
        out[f"ci_high/{tail}"] = float(row.ci_high)
    return out


def _log_to_parent(mc: Any, run_id: str, report: Report, safe_names: Mapping[str, str]) -> None:
    """Log the report's files under `report/`, its deltas and bounds as metrics (in batches of
    at most 1000) and a one-line decision summary as the tag `ragsweep.decisions`."""
    import time

    from mlflow.entities import Metric, RunTag

    with tempfile.TemporaryDirectory(prefix="ragsweep-report-") as tmp:
        for path in write_report(report, tmp).values():
            mc.log_artifact(run_id, str(path), artifact_path="report")
    ts = int(time.time() * 1000)
    rows = [Metric(k, v, ts, 0) for k, v in sorted(_metrics(report, safe_names).items())]
    for start in range(0, len(rows), 1000):
        mc.log_batch(run_id, metrics=rows[start : start + 1000])
    summary = "; ".join(f"{d.config}: {d.decision}" for d in report.decisions)
    mc.log_batch(run_id, tags=[RunTag("ragsweep.decisions", summary[:5000])])


def report_sweep(
    sweep: str,
    *,
    store: Store | None = None,
    print_table: bool = True,
    allow_mismatch: bool = False,
) -> Report:
    """Build the report of a logged sweep, print it and log it to the sweep's parent run.

    `sweep` is a sweep name (experiment `sweep:<name>`; its latest parent run) or a parent run
    id; `store` a `ragsweep.experiment.tracking.Store` (default: as `ragsweep` resolves it).
    Each value's latest FINISHED child run is compared with the baseline value's; values without
    one are
    left out (noted). Settings come from the baseline child's config (`report.*`,
    `eval.k_prompt`, `eval.traffic_weights`). Children on another labelled set or snapshot are
    refused unless `allow_mismatch`. Logs report/ files, `delta|ci_low|ci_high/<measure key>/
    <stratum>/<value>` metrics and the tag `ragsweep.decisions` to the parent run.
    """
    from ragsweep.experiment.sweep import metric_safe

    store, mc = store_client(store)
    parent, notes = find_parent(mc, sweep)
    pid = parent.info.run_id
    params, tags = parent.data.params, parent.data.tags
    name = tags.get("ragsweep.sweep") or params.get("sweep.name") or pid
    factor = tags.get("ragsweep.factor") or params.get("sweep.factor")
    children = mc.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.`mlflow.parentRunId` = '{pid}'",
        max_results=5000,
    )
    children = [r for r in children if r.data.tags.get("ragsweep.stage") == "config"]
    latest = latest_finished(children)
    baseline = params.get("sweep.baseline") or next(
        (
            r.data.tags["ragsweep.value"]
            for r in children
            if r.data.tags.get("ragsweep.baseline") == "true"
        ),
        None,
    )
    if baseline is None:
        raise UserError(f"sweep {name!r} (parent run {pid}) names no baseline value")
    values = [v for v in params.get("sweep.values", "").split(",") if v]
    values += sorted(v for v in latest if v not in values)
    label = f"{factor}={baseline}" if factor else baseline
    if baseline not in latest:
        raise UserError(
            f"the baseline {label} of sweep {name!r} has no FINISHED run to compare "
            "with; launch the sweep again to finish it"
        )
    missing = [v for v in values if v not in latest]
    if missing:
        notes.append(f"left out, no FINISHED run: {', '.join(missing)}")
    chosen = [baseline, *(v for v in values if v in latest and v != baseline)]
    if len(chosen) < 2:
        raise UserError(
            f"sweep {name!r} has no FINISHED configuration besides the baseline "
            f"{label}: nothing to compare"
        )
    with tempfile.TemporaryDirectory(prefix="ragsweep-report-") as tmp:
        runs = [load_logged_run(mc, latest[v], v, Path(tmp)) for v in chosen]
    report = report_from_runs(
        runs,
        factor=factor,
        title=f"sweep {name}: {factor or 'configurations'} against the baseline {label}",
        allow_mismatch=allow_mismatch,
        notes=notes,
    )
    report = _with_run_ids(report, {r.name: r.run_id for r in runs})
    _log_to_parent(mc, pid, report, {v: metric_safe(v) for v in chosen})
    if print_table:
        print_report(report)
    return report


def _with_run_ids(report: Report, run_ids: Mapping[str, str]) -> Report:
    from dataclasses import replace

    return replace(report, run_ids=dict(run_ids))


def report_runs(
    run_ids: Sequence[str],
    *,
    store: Store | None = None,
    print_table: bool = True,
    allow_mismatch: bool = False,
) -> Report:
    """Compare logged configuration runs: the first is the baseline. Nothing is logged.

    For "it got worse after the release": the same labelled set run against two releases.
    Runs are named by their run names (with the run id's first 8 characters when two share
    one); settings come from the baseline run's config, as in `report_sweep`.
    """
    ids = [str(r) for r in run_ids]
    if len(ids) < 2:
        raise UserError("--runs needs a baseline run id and at least one more run id")
    if len(set(ids)) != len(ids):
        raise UserError("a run id is given twice in --runs; give each run once")
    store, mc = store_client(store)
    found = []
    for rid in ids:
        run = _get_run(mc, rid)
        if run is None:
            raise UserError(f"no run with id {rid} in this MLflow store ({store.uri})")
        found.append(run)
    names = [r.info.run_name or r.info.run_id for r in found]
    names = [
        f"{n} ({r.info.run_id[:8]})" if names.count(n) > 1 else n
        for n, r in zip(names, found, strict=True)
    ]
    factors = {r.data.tags.get("ragsweep.factor") for r in found}
    factor = factors.pop() if len(factors) == 1 else None
    with tempfile.TemporaryDirectory(prefix="ragsweep-report-") as tmp:
        runs = [load_logged_run(mc, r, n, Path(tmp)) for r, n in zip(found, names, strict=True)]
    report = report_from_runs(
        runs,
        factor=factor,
        title=f"runs {', '.join(names[1:])} against the baseline {names[0]}",
        allow_mismatch=allow_mismatch,
    )
    report = _with_run_ids(report, {r.name: r.run_id for r in runs})
    if print_table:
        print_report(report)
    return report
