"""The report on a labelled set partly made by a model judge: every comparison corrected by the
audited questions (`ragsweep.compare.ppi`), beside what the labels alone would say, with the
judge's bias per slice and where more audits would narrow the headline most (docs/report.md,
"Model-judged labels").

The per-question frames carry what `ragsweep.scoring.ranked` adds on such a set: `audited`
(1 where people graded the question too) and `judge:<measure>` (the same ranking scored on the
judge's grades); the measure columns themselves are the labels' scores (the judge's where
nobody audited, the people's where they did).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragsweep.compare import ppi, stats
from ragsweep.conventions import AUDITED_COLUMN, JUDGE_PREFIX
from ragsweep.errors import UserError
from ragsweep.measures import Measure

#: Columns of `Judged.table`: per candidate x measure x stratum, the plain comparison (on the
#: labels as they are) and the corrected one, the judge's bias on the difference and on the
#: baseline's value (mean over the audited questions of judge - people), the effective number
#: of people-labelled questions the corrected difference is worth, and the power-tuning weight
JUDGED_COLUMNS: tuple[str, ...] = (
    "config",
    "measure",
    "stratum",
    "questions",
    "audited",
    "plain_delta",
    "plain_ci_low",
    "plain_ci_high",
    "plain_verdict",
    "delta",
    "ci_low",
    "ci_high",
    "verdict",
    "bias",
    "baseline_bias",
    "n_eff",
    "lam",
)


@dataclass(frozen=True, eq=False)
class Judged:
    """The judge part of a report: `table` (`JUDGED_COLUMNS`), `advice` (one line per
    candidate: which slices to audit how much more to bring its headline interval to the
    target gap), `audited` and `questions` (per slice and summary row), and `problem`: why the
    comparison could not be corrected (then the table is empty and the cells are the labels'
    own), None when it was."""

    table: pd.DataFrame
    advice: tuple[str, ...]
    audited: dict[str, int]
    questions: dict[str, int]
    problem: str | None = None


def has_judge_columns(frames: Mapping[str, pd.DataFrame], columns: Sequence[str]) -> bool:
    """Whether every frame carries `audited`, the judge's labels and its score of every
    column."""
    need = [AUDITED_COLUMN, JUDGE_PREFIX + "labels", *(JUDGE_PREFIX + c for c in columns)]
    return all(all(c in f.columns for c in need) for f in frames.values())


def aligned(
    frames: Mapping[str, pd.DataFrame],
    qids: pd.Index,
    columns: Sequence[str],
    *,
    audited_from: Mapping[str, pd.DataFrame] | None = None,
) -> tuple[np.ndarray, dict[str, pd.DataFrame]]:
    """The audited flags and each frame's judge scores of `columns`, on `qids` in their order.
    The flags are the `audited` column of `audited_from` (default: `frames`), which every frame
    must agree on; the scores are the `judge:` columns, or with `audited_from` given the plain
    columns of `frames` (frames already scored on the judge's labels, as
    `scoring.bounds.if_relevant` returns them)."""
    prefix = JUDGE_PREFIX if audited_from is None else ""
    audited = None
    for name, frame in (audited_from or frames).items():
        by_qid = frame.set_index(frame["qid"].astype(str)).loc[qids]
        flags = pd.to_numeric(by_qid[AUDITED_COLUMN]).to_numpy() != 0
        if audited is None:
            audited = flags
        elif not np.array_equal(audited, flags):
            raise UserError(
                f"configuration {name!r} marks other questions as audited than the baseline: "
                "the runs were scored on different labelled sets; score both on the same one"
            )
    assert audited is not None
    judge: dict[str, pd.DataFrame] = {}
    for name, frame in frames.items():
        by_qid = frame.set_index(frame["qid"].astype(str)).loc[qids]
        judge[name] = pd.DataFrame(
            {c: pd.to_numeric(by_qid[prefix + c]).to_numpy(np.float64) for c in columns},
            index=qids,
        )
    return audited, judge


def as_judge_frames(
    frames: Mapping[str, pd.DataFrame], measures: Sequence[Measure]
) -> dict[str, pd.DataFrame]:
    """Each frame as if the judge had made every label: `labels` and the measure columns
    replaced by the judge's (`judge:labels`, `judge:<measure>`), for `scoring.bounds`."""
    out = {}
    for name, frame in frames.items():
        copy = frame[["qid", "slice", "clauses"]].copy()
        copy["labels"] = frame[JUDGE_PREFIX + "labels"].to_numpy()
        for m in measures:
            copy[str(m)] = frame[JUDGE_PREFIX + str(m)].to_numpy()
        out[name] = copy
    return out


def too_few_audits(audited: np.ndarray, strata: np.ndarray, order: Sequence[str]) -> str | None:
    """Why the comparison cannot be corrected for want of audits, None when every slice has
    two or more audited questions."""
    short = [s for s in order if int(audited[strata == s].sum()) < 2]
    if not short:
        return None
    return (
        f"slice(s) {', '.join(short)} have fewer than 2 audited questions: the judge's bias "
        "there cannot be measured; have people grade a random few of their questions "
        "(`ragsweep labels pool`, then `labels import`, with the model's grades kept in "
        "review/prelabels.jsonl)"
    )


def corrected_draws(
    base: np.ndarray,
    cands: np.ndarray,
    judge_base: np.ndarray,
    judge_cands: np.ndarray,
    audited: np.ndarray,
    strata: np.ndarray,
    names: Sequence[str],
    weights: Mapping[str, float] | None,
) -> tuple[stats.PairedDifferences, ppi.Corrected]:
    """One measure's corrected comparison (`ppi.paired`) from the labels' scores (`base`,
    `cands`: people's where audited) and the judge's."""
    return ppi.paired(
        np.vstack([judge_base[None], judge_cands]),
        np.vstack([base[None], cands]),
        audited,
        strata,
        names,
        weights=weights,
    )


def table_rows(
    measure: str,
    names: Sequence[str],
    est: ppi.Corrected,
    plain: pd.DataFrame,
    corrected: pd.DataFrame,
) -> list[dict]:
    """`JUDGED_COLUMNS` rows of one measure: `plain` and `corrected` are its cells (columns
    config, stratum, delta, ci_low, ci_high, verdict) as `stats.compare` made them."""
    c = len(names)
    rows = []
    for j, name in enumerate(names):
        for r, stratum in enumerate(est.strata):
            p = plain[(plain["config"] == name) & (plain["stratum"] == stratum)].iloc[0]
            q = corrected[(corrected["config"] == name) & (corrected["stratum"] == stratum)].iloc[0]
            rows.append(
                {
                    "config": name,
                    "measure": measure,
                    "stratum": stratum,
                    "questions": int(est.N[r]),
                    "audited": int(est.n[r]),
                    "plain_delta": float(p["delta"]),
                    "plain_ci_low": float(p["ci_low"]),
                    "plain_ci_high": float(p["ci_high"]),
                    "plain_verdict": str(p["verdict"]),
                    "delta": float(q["delta"]),
                    "ci_low": float(q["ci_low"]),
                    "ci_high": float(q["ci_high"]),
                    "verdict": str(q["verdict"]),
                    "bias": float(est.bias[r, 1 + c + j]),
                    "baseline_bias": float(est.bias[r, 0]),
                    "n_eff": float(est.n_eff[r, 1 + c + j]),
                    "lam": float(est.lam[r, 1 + c + j]),
                }
            )
    return rows


def advice_lines(
    est: ppi.Corrected, names: Sequence[str], headline: str, target: float, level: float
) -> tuple[str, ...]:
    """Per candidate: the audits that would bring its headline difference's interval to
    `target` (or as near as auditing every question gets), by slice."""
    out = []
    c = len(names)
    for j, name in enumerate(names):
        plan, now, after = ppi.audit_advice(est, 1 + c + j, headline, target, level)
        if not plan:
            out.append(
                f"{name}: the {headline} interval is +-{now:.3f}, within the target gap "
                f"{target:g}; no more audits needed"
            )
            continue
        spread = ", ".join(f"{k} in {s}" for s, k in plan.items())
        total = sum(plan.values())
        out.append(
            f"{name}: audit {total} more question(s) ({spread}) to narrow the {headline} "
            f"interval from +-{now:.3f} to +-{after:.3f}, the target gap {target:g}"
            if after <= target
            else f"{name}: audit {total} more question(s) ({spread}) to narrow the {headline} "
            f"interval from +-{now:.3f} to +-{after:.3f}; every question audited still misses "
            f"the target gap {target:g}: more questions are needed"
        )
    return tuple(out)


def judge_part(
    plain: pd.DataFrame,
    corrected: pd.DataFrame | None,
    estimates: Mapping[str, ppi.Corrected],
    names: Sequence[str],
    problem: str | None,
    audited: np.ndarray,
    strata_labels: np.ndarray,
    strata: Sequence[str],
    *,
    decision: str,
    headline: str,
    target: float,
    level: float,
) -> Judged:
    """The report's `Judged` from the plain and corrected cells of every measure."""
    counts = {s: int(audited[strata_labels == s].sum()) for s in strata if s in set(strata_labels)}
    sizes = {s: int((strata_labels == s).sum()) for s in counts}
    for row in strata:
        if row not in counts:
            counts[row], sizes[row] = int(audited.sum()), len(audited)
    if corrected is None:
        return Judged(pd.DataFrame(columns=list(JUDGED_COLUMNS)), (), counts, sizes, problem)
    rows = []
    for measure, est in estimates.items():
        mine = plain["measure"] == measure
        rows += table_rows(
            measure, names, est, plain[mine], corrected[corrected["measure"] == measure]
        )
    advice = advice_lines(estimates[decision], names, headline, target, level)
    return Judged(pd.DataFrame(rows, columns=list(JUDGED_COLUMNS)), advice, counts, sizes)
