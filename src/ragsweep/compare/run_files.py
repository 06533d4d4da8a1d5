"""The paired comparison of TREC run files from any system: the library behind `ragsweep
compare`. The first run is the baseline; every run is scored with trec_eval's conventions
(`ragsweep.scoring.run_files`) and compared per slice as a sweep's configurations are
(`ragsweep.compare.build`). No MLflow (docs/report.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragsweep.compare.build import build_report
from ragsweep.compare.report import Report
from ragsweep.data.importers.reading import read_slices
from ragsweep.errors import UserError
from ragsweep.measures import parse_measures, relevance_level
from ragsweep.scoring.run_files import Note, score_runs
from ragsweep.scoring.weights import read_weights


def compare_runs(
    qrels: str | Path,
    runs: Sequence[str | Path],
    *,
    metric: str,
    gain: str,
    guard_slices: Sequence[str],
    correction: str,
    level: float,
    target_gap: float,
    unjudged: str,
    slices: str | Path | None = None,
    weights: str | Path | None = None,
    note: Note | None = None,
    rel_level: int = 1,
) -> Report:
    """Compare the TREC runs `runs` (the first is the baseline) on the qrels file `qrels`.

    `metric` is the deciding measure, or a comma-separated list whose first decides; `slices` a
    `qid<TAB>slice` file (without it every query is in one slice, `all`); `weights` a YAML
    mapping `slice: share` (traffic shares, needs `slices`) that adds the weighted headline.
    Relevant means grade >= `rel_level` (trec_eval's `-l`; the bounds then assume an unjudged
    document relevant at that grade), and the report says so.
    The other arguments are `build_report`'s; notes about the runs go to `note`.
    """
    if len(runs) < 2:
        raise UserError("--runs needs a baseline run and at least one run to compare with it")
    if len({str(Path(p).resolve()) for p in runs}) != len(runs):
        raise UserError("a run file is given twice in --runs; give each run once")
    measures = parse_measures(metric)
    relevant_from = relevance_level(rel_level)
    if weights and not slices:
        raise UserError(
            "--weights gives traffic shares per slice: give the slices too (--slices FILE)"
        )
    assign = dict(read_slices(slices).assign) if slices else None
    order = list(dict.fromkeys(assign.values())) if assign else None
    shares = read_weights(weights, order or []) if weights else None
    frames = score_runs(qrels, list(runs), measures, gain, assign, note, relevant_from)
    names = list(frames)
    return build_report(
        frames[names[0]],
        {n: frames[n] for n in names[1:]},
        decision=measures[0],
        baseline_name=names[0],
        measures=measures,
        slices=order,
        weights=shares,
        guard_slices=list(guard_slices),
        correction=correction,
        level=level,
        target_gap=target_gap,
        slice_decision={},
        factor="run",
        title=f"{', '.join(names[1:])} against the baseline {names[0]}",
        unjudged=unjudged,
        gain=gain,
        rel_level=relevant_from,
        notes=[
            f"relevant means grade >= {relevant_from} (--rel-level, trec_eval's -l) for "
            "recall, P, RR and AP; nDCG reads the grades"
        ]
        if relevant_from > 1
        else [],
    )


def compare_json(report: Report) -> dict[str, Any]:
    """What `ragsweep compare --format json` prints: the baseline, the correction and levels,
    the weights, the unjudged rule and its note, each run's decision, and the rows."""
    return {
        "baseline": report.baseline,
        "correction": report.correction,
        "level": report.level,
        "interval_level": report.interval_level,
        "method": report.method,
        "weights": report.weights,
        "unjudged": report.unjudged,
        "notes": [t for t in [report.unjudged_note()] if t],
        "decisions": {d.config: d.decision for d in report.decisions},
        "rows": report.rows(),
    }
