"""Paired comparison of configurations per slice: intervals that keep their level on small slices.

Per-question scores of one measure come as a baseline `base` (n,) and C candidates `cands` (C, n)
scored on the SAME questions, with each question's slice in `strata` (n,). The interval of a
slice is a Student-t interval on the paired differences with an Agresti-Min floor: two
pseudo-questions (half a question won and half lost by a typical disagreement, one tied) join
every slice, so a slice on which the systems never disagree still has an honest width. `all`
and the traffic-weighted row combine the slices (stratified, Welch-Satterthwaite degrees of
freedom) with the same floor on their effective number of questions. No resampling: the same
inputs give the same bits.

    diffs = paired_differences(base, cands, strata, names, weights={...})
    rows = compare(diffs, correction="bonferroni")       # one Comparison per candidate x stratum
    plan = resolution(diffs, target_gap=0.02)            # smallest resolvable gap, questions needed

`paired_comparison(...)` is `compare(paired_differences(...))` in one call. Method, measured
coverage and how to read the output: `docs/statistics.md`; the simulation:
`benchmarks/interval_coverage.py`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import stdtr, stdtrit

from ragsweep.conventions import ALL, WEIGHTED
from ragsweep.errors import UserError

#: Family-wise corrections across the candidates of a sweep (applied per stratum).
CORRECTIONS: tuple[str, ...] = ("bonferroni", "holm", "none")
VERDICTS: tuple[str, ...] = ("better", "worse", "noise")
#: The interval method, as reports name it.
METHOD = "paired t, Agresti-Min floor"
#: Pseudo-questions' weight (Agresti & Min 2005 add 0.5 to each cell of the paired 2x2 table:
#: PSEUDO / 2 won and PSEUDO / 2 lost by a typical disagreement, PSEUDO tied).
PSEUDO = 1.0
#: Mean differences smaller than this (times the largest |difference|) are rounding residue: 0.
_ZERO_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class PairedDifferences:
    """Each row's mean paired difference (candidate - baseline), its centre and standard error.

    Rows ("strata") are the slices in order of first appearance in `strata`, then `all`, then
    `weighted` when weights were given (a lone slice already named `all` is not repeated).
    `delta` is the mean difference on the data; the interval is `centre` +- t(df) x `se`, where
    `centre` is `delta` shrunk by the pseudo-questions (n_eff / (n_eff + 2 PSEUDO)) and `se`
    includes them, so it is never 0 (nor below Student-t's). `disputed[r, c]`: questions of row
    r on which candidate c and the baseline score differently. `scale[c]`: the typical size of
    a disagreement (root mean square of candidate c's nonzero differences over all questions; 1
    when there is none), the size of the pseudo-questions' disagreement. `bound`: the largest
    possible |difference| (1 for scores in [0, 1], else None), to which intervals are clipped.
    Built by `paired_differences`; read by `compare` and `resolution`.
    """

    candidates: tuple[str, ...]
    strata: tuple[str, ...]
    n: np.ndarray  # (R,) questions behind each row
    weights: dict[str, float] | None  # normalised over the slices present; None: no weighted row
    baseline: np.ndarray  # (R,) baseline mean
    value: np.ndarray  # (R, C) candidate means
    delta: np.ndarray  # (R, C) mean paired difference on the data
    centre: np.ndarray  # (R, C) the interval's centre
    se: np.ndarray  # (R, C) standard error with the floor, > 0
    df: np.ndarray  # (R, C) degrees of freedom of the t quantile
    disputed: np.ndarray  # (R, C) questions that score differently
    scale: np.ndarray  # (C,) size of a typical disagreement
    bound: float | None


@dataclass(frozen=True)
class Comparison:
    """One cell of the comparison report: a candidate against the baseline in one stratum.

    `delta` = mean over the stratum's questions of (candidate - baseline) on the real data (equal
    to `value - baseline` up to rounding). `[ci_low, ci_high]` is the interval at `level` (the
    level after widening, when the correction is Bonferroni): centred on `delta` shrunk by the
    pseudo-questions, so never of zero width. `p_value` is the two-sided p of the same t
    statistic; `p_adjusted` is it after the correction. `verdict`: "better" / "worse" when the
    (corrected) evidence excludes 0, else "noise".
    """

    candidate: str
    stratum: str
    n: int
    value: float
    baseline: float
    delta: float
    ci_low: float
    ci_high: float
    level: float
    p_value: float
    p_adjusted: float
    verdict: str


@dataclass(frozen=True)
class Resolution:
    """How finely one stratum's questions resolve a candidate's difference from the baseline.

    `half_width` = (ci_high - ci_low) / 2 of the paired interval at `level` (the smallest
    difference the current `n` questions can tell from 0). `sd` = the standard error of the mean
    difference, pseudo-questions included (never 0). `questions_needed` = questions this stratum
    would need for a half-width of `target_gap`, scaling `sd` by sqrt(n / n');
    `resolves` = `half_width <= target_gap`.
    """

    candidate: str
    stratum: str
    n: int
    sd: float
    half_width: float
    level: float
    target_gap: float
    questions_needed: int
    resolves: bool


# --- arguments ------------------------------------------------------------------------------
def _check_scores(
    base: Any, cands: Any, strata: Any, names: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, list[str], list[str]]:
    base = np.asarray(base, dtype=np.float64)
    cands = np.asarray(cands, dtype=np.float64)
    if base.ndim != 1 or base.size == 0:
        raise UserError(f"baseline scores must be a non-empty 1-D array, got shape {base.shape}")
    n = base.size
    if cands.ndim != 2 or cands.shape[1] != n or cands.shape[0] == 0:
        raise UserError(
            f"candidate scores must have shape (candidates, {n}) to pair with the baseline's {n} "
            f"questions, got {cands.shape}; for one candidate pass scores[None, :]"
        )
    if not (np.isfinite(base).all() and np.isfinite(cands).all()):
        raise UserError(
            "scores must be finite numbers: found NaN or infinity; score a "
            "question with no answer as 0"
        )
    labels = np.asarray(strata, dtype=object).ravel().tolist()
    if len(labels) != n or not all(isinstance(s, str) for s in labels):
        raise UserError(f"strata must be {n} slice names (str), one per question")
    names = list(names)
    if len(names) != cands.shape[0] or not all(isinstance(x, str) and x for x in names):
        raise UserError(
            f"names must be {cands.shape[0]} non-empty strings, one per candidate row, "
            f"got {names!r}"
        )
    if len(set(names)) != len(names):
        raise UserError(f"candidate names must be distinct, got {names!r}")
    return base, cands, labels, names


def _check_level(level: float) -> float:
    if (
        isinstance(level, bool)
        or not isinstance(level, int | float | np.floating)
        or not (0 < level < 1)
    ):
        raise UserError(
            f"level must be a number strictly between 0 and 1 (e.g. 0.95), got {level!r}"
        )
    return float(level)


def _check_correction(correction: str) -> str:
    if correction not in CORRECTIONS:
        raise UserError(f"unknown correction {correction!r}; accepted: {', '.join(CORRECTIONS)}")
    return correction


def slices_and_weights(
    labels: Sequence[str], weights: Mapping[str, float] | None
) -> tuple[list[str], dict[str, float] | None]:
    """The slices of `labels` in order of first appearance (`all` and `weighted` refused: the
    summary rows' names) and their traffic weights normalised (None when `weights` is)."""
    present = list(dict.fromkeys(labels))
    if WEIGHTED in present or (ALL in present and len(present) > 1):
        raise UserError(
            f"slice names {ALL!r} (unless it is the only slice) and {WEIGHTED!r} are reserved for "
            "the summary rows; rename that slice"
        )
    return present, None if weights is None else normalised_weights(weights, present)


def normalised_weights(weights: Mapping[str, float], present: Sequence[str]) -> dict[str, float]:
    """The traffic `weights` of the slices `present`, checked (a number >= 0 for every one, not
    all 0) and divided by their sum."""
    missing = [s for s in present if s not in weights]
    if missing:
        raise UserError(
            f"weights have no entry for slice(s) {', '.join(missing)}; give every "
            "slice scored a traffic weight, or pass weights=None"
        )
    raw = {}
    for s in present:
        w = weights[s]
        if isinstance(w, bool) or not isinstance(w, int | float | np.number):
            raise UserError(f"weight of slice {s!r} must be a number, got {w!r}")
        if not (math.isfinite(w) and w >= 0):
            raise UserError(f"weight of slice {s!r} must be finite and >= 0, got {w!r}")
        raw[s] = float(w)
    total = sum(raw.values())
    if total <= 0:
        raise UserError("weights of the slices scored are all 0; give at least one a weight > 0")
    return {s: raw[s] / total for s in present}


# --- the paired differences ----------------------------------------------------------------
def _floored(
    raw: np.ndarray, var_parts: np.ndarray, n_eff: float, scale2: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Centre and variance of a row as one sample of `n_eff` questions plus the pseudo-questions.

    `raw` (C,) is the row's mean difference, `var_parts` (S, C) the per-slice contributions to
    its plug-in variance (w_s^2 var_s / n_s). The augmented sample adds PSEUDO / 2 questions at
    +scale, PSEUDO / 2 at -scale and PSEUDO at 0: for a single slice of hit/miss scores this is
    exactly Agresti and Min's (2005) interval for matched proportions.
    """
    total = n_eff + 2 * PSEUDO
    centre = raw * n_eff / total
    second = n_eff * (var_parts.sum(axis=0) * n_eff + raw**2)  # sum of squares, n_eff questions
    var = (second + PSEUDO * scale2) / total - centre**2
    return centre, np.maximum(var, 0.0) / total


def paired_differences(
    base: np.ndarray,
    cands: np.ndarray,
    strata: np.ndarray | Sequence[str],
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
) -> PairedDifferences:
    """Per row: the mean paired difference, the interval's centre, standard error and df.

    `base` (n,) and `cands` (C, n) are per-question scores of one measure on the same questions;
    `strata` (n,) the slice of each question; `names` the C candidates. Rows: each slice, `all`
    (mean over all questions, stratified: each slice weighted by its share of questions) and,
    when `weights` (slice -> traffic weight, normalised over the slices present) is given,
    `weighted` (weighted mean of the slice means).

    A slice of n questions: centre = sum(d) / (n + 2), se^2 = max([(sum(d^2) + scale^2) / (n + 2)
    - centre^2] / (n + 2), var(d, ddof=1) / n), df = n - 1. A combined row (weights w_s): the
    same on its effective number of questions n_eff = 1 / sum(w_s^2 / n_s), never narrower than
    the stratified Student-t (se^2 = sum w_s^2 s_s^2 / n_s), df from Welch-Satterthwaite.
    Deterministic.
    """
    base, cands, labels, names = _check_scores(base, cands, strata, names)
    present, w = slices_and_weights(labels, weights)

    label_arr = np.array(labels, dtype=object)
    diff = (cands - base).T  # (n, C): paired differences, one column per candidate
    tol = _ZERO_TOL * max(1.0, float(np.abs(diff).max()))
    nonzero = np.abs(diff) >= tol
    k = nonzero.sum(axis=0)
    scale2 = np.where(k > 0, (diff**2 * nonzero).sum(axis=0) / np.maximum(k, 1), 1.0)
    scores = np.concatenate([base, cands.ravel()])
    bound = 1.0 if scores.min() >= 0.0 and scores.max() <= 1.0 else None

    c = cands.shape[0]
    n_s = np.array([int((label_arr == s).sum()) for s in present])
    means = np.empty((len(present), c))
    parts_var = np.empty((len(present), c))  # ddof 1 (0 for a one-question slice)
    plug_var = np.empty((len(present), c))  # ddof 0
    rows: dict[str, Any] = {
        "n": [],
        "baseline": [],
        "value": [],
        "delta": [],
        "centre": [],
        "se2": [],
        "df": [],
        "disputed": [],
    }
    for i, s in enumerate(present):
        sel = np.flatnonzero(label_arr == s)
        d = diff[sel]
        means[i] = d.mean(axis=0)
        parts_var[i] = d.var(axis=0, ddof=1) if sel.size > 1 else 0.0
        plug_var[i] = d.var(axis=0)
        centre, se2 = _floored(means[i], (plug_var[i] / sel.size)[None], sel.size, scale2)
        se2 = np.maximum(se2, parts_var[i] / sel.size)  # never below Student-t's
        rows["n"].append(sel.size)
        rows["baseline"].append(base[sel].mean())
        rows["value"].append(cands[:, sel].mean(axis=1))
        rows["delta"].append(means[i])
        rows["centre"].append(centre)
        rows["se2"].append(se2)
        rows["df"].append(np.full(c, max(sel.size - 1, 1), dtype=np.float64))
        rows["disputed"].append(nonzero[sel].sum(axis=0))

    strata_out = list(present)
    combos: list[tuple[str, np.ndarray]] = []
    if present != [ALL]:
        combos.append((ALL, n_s / n_s.sum()))
    if w is not None:
        combos.append((WEIGHTED, np.array([w[s] for s in present])))
    for name, wv in combos:
        strata_out.append(name)
        # `all` is the plain mean over every question (the same number up to rounding)
        raw = diff.mean(axis=0) if name == ALL else (wv[:, None] * means).sum(axis=0)
        parts = wv[:, None] ** 2 * parts_var / n_s[:, None]  # ddof 1: for the Welch df
        plug = wv[:, None] ** 2 * plug_var / n_s[:, None]  # ddof 0, as a slice's own row
        n_eff = 1.0 / float((wv**2 / n_s).sum())
        centre, se2 = _floored(raw, plug, n_eff, scale2)
        se2 = np.maximum(se2, parts.sum(axis=0))  # never below the stratified Student-t's
        many = n_s > 1
        denom = (parts[many] ** 2 / (n_s[many] - 1)[:, None]).sum(axis=0)
        welch = parts.sum(axis=0) ** 2 / np.where(denom > 0, denom, 1.0)
        df = np.where(denom > 0, welch, max(n_eff - 1.0, 1.0))
        rows["n"].append(int(n_s.sum()))
        if name == ALL:
            rows["baseline"].append(float(base.mean()))
            rows["value"].append(cands.mean(axis=1))
        else:
            rows["baseline"].append(float((wv * np.array(rows["baseline"][: len(present)])).sum()))
            rows["value"].append(
                (wv[:, None] * np.array(rows["value"][: len(present)])).sum(axis=0)
            )
        rows["delta"].append(raw)
        rows["centre"].append(centre)
        rows["se2"].append(se2)
        rows["df"].append(np.maximum(df, 1.0))
        rows["disputed"].append(nonzero.sum(axis=0))
    # Differences that cancel in exact arithmetic may leave rounding residue (1e-17); snap it to
    # 0 so that "the interval excludes 0" never hangs on the order of a floating-point sum.
    return PairedDifferences(
        candidates=tuple(names),
        strata=tuple(strata_out),
        n=np.array(rows["n"], dtype=np.int64),
        weights=w,
        baseline=np.array(rows["baseline"], dtype=np.float64),
        value=np.array(rows["value"], dtype=np.float64),
        delta=_snap(np.array(rows["delta"], dtype=np.float64), tol),
        centre=_snap(np.array(rows["centre"], dtype=np.float64), tol),
        se=np.sqrt(np.array(rows["se2"], dtype=np.float64)),
        df=np.array(rows["df"], dtype=np.float64),
        disputed=np.array(rows["disputed"], dtype=np.int64),
        scale=np.sqrt(scale2),
        bound=bound,
    )


def _snap(x: np.ndarray, tol: float) -> np.ndarray:
    x[np.abs(x) < tol] = 0.0
    return x


# --- intervals, p-values, corrections -------------------------------------------------------
def interval_level(level: float, n_candidates: int, correction: str) -> float:
    """The level of the reported intervals: `level`, or 1 - (1 - level) / C for Bonferroni."""
    level = _check_level(level)
    if _check_correction(correction) == "bonferroni":
        return 1.0 - (1.0 - level) / n_candidates
    return level


def holm(p: np.ndarray) -> np.ndarray:
    """Holm step-down adjusted p-values along the last axis (the candidates of one stratum).

    Sorted ascending, p_(i) becomes max over j <= i of min(1, (m - j + 1) p_(j)), m = family size.
    Ties get equal adjusted values, so the candidates' order does not matter.
    """
    p = np.asarray(p, dtype=np.float64)
    m = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    adjusted = np.minimum(1.0, np.maximum.accumulate(ranked * (m - np.arange(m)), axis=-1))
    out = np.empty_like(adjusted)
    np.put_along_axis(out, order, adjusted, axis=-1)
    return out


def _intervals(diffs: PairedDifferences, level: float) -> tuple[np.ndarray, np.ndarray]:
    """centre -+ t(df, (1 + level) / 2) x se, clipped to the possible differences."""
    half = stdtrit(diffs.df, 0.5 + level / 2) * diffs.se
    lo, hi = diffs.centre - half, diffs.centre + half
    if diffs.bound is not None:
        lo, hi = np.maximum(lo, -diffs.bound), np.minimum(hi, diffs.bound)
    return lo, hi


def p_values(diffs: PairedDifferences) -> np.ndarray:
    """Two-sided p of "no difference" from the same t statistic as the interval: 2 P(T_df >
    |centre| / se). The interval at `level` excludes 0 exactly when p < 1 - level."""
    return np.minimum(1.0, 2.0 * stdtr(diffs.df, -np.abs(diffs.centre) / diffs.se))


def compare(
    diffs: PairedDifferences, *, level: float = 0.95, correction: str = "bonferroni"
) -> list[Comparison]:
    """One `Comparison` per candidate x stratum (candidates in order, strata in row order).

    Intervals at `level`. The family is the C candidates within one stratum: `bonferroni`
    widens every interval to 1 - (1 - level) / C and the verdict follows the interval; `holm`
    reports the unadjusted interval and decides on Holm-adjusted p < 1 - level; `none` neither
    widens nor adjusts. Verdict: "better" (interval above 0, or adjusted p below alpha with a
    positive centre), "worse" (the mirror), else "noise".
    """
    level = _check_level(level)
    correction = _check_correction(correction)
    c = len(diffs.candidates)
    shown = interval_level(level, c, correction)
    lo, hi = _intervals(diffs, shown)
    p = p_values(diffs)  # (R, C)
    if correction == "holm":
        p_adj = holm(p)
        alpha = 1.0 - level
        verdict = np.where(p_adj < alpha, np.where(diffs.centre > 0, "better", "worse"), "noise")
    else:
        p_adj = np.minimum(1.0, p * c) if correction == "bonferroni" else p
        verdict = np.where(lo > 0, "better", np.where(hi < 0, "worse", "noise"))
    return [
        Comparison(
            candidate=name,
            stratum=stratum,
            n=int(diffs.n[r]),
            value=float(diffs.value[r, j]),
            baseline=float(diffs.baseline[r]),
            delta=float(diffs.delta[r, j]),
            ci_low=float(lo[r, j]),
            ci_high=float(hi[r, j]),
            level=shown,
            p_value=float(p[r, j]),
            p_adjusted=float(p_adj[r, j]),
            verdict=str(verdict[r, j]),
        )
        for j, name in enumerate(diffs.candidates)
        for r, stratum in enumerate(diffs.strata)
    ]


def paired_comparison(
    base: np.ndarray,
    cands: np.ndarray,
    strata: np.ndarray | Sequence[str],
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
    level: float = 0.95,
    correction: str = "bonferroni",
) -> list[Comparison]:
    """`compare(paired_differences(...))`: compare C candidates with a baseline, per stratum.

    See `paired_differences` for the arguments and the method, `compare` for the output.
    """
    _check_level(level)
    _check_correction(correction)
    diffs = paired_differences(base, cands, strata, names, weights=weights)
    return compare(diffs, level=level, correction=correction)


# --- resolution and sample size -------------------------------------------------------------
def questions_needed(sd: float, n: int, target_gap: float = 0.02, level: float = 0.95) -> int:
    """Questions a stratum needs for its paired interval's half-width to reach `target_gap`.

    `sd` is the standard error of the mean paired difference measured on `n` questions
    (`Resolution.sd`, the pseudo-questions included). Assumes the per-question spread of the
    differences stays the same as questions are added, so the standard error scales as
    1 / sqrt(n) and the half-width is z x sd with z the normal quantile for `level`:
    n' = ceil(n (z sd / target_gap)^2), at least 2 (an interval needs two questions).
    """
    level = _check_level(level)
    numeric = isinstance(target_gap, int | float | np.floating) and not isinstance(target_gap, bool)
    if not (numeric and target_gap > 0 and math.isfinite(target_gap)):
        raise UserError(f"target_gap must be a positive number (e.g. 0.02), got {target_gap!r}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    needed = n * (z * float(sd) / target_gap) ** 2
    return max(2, math.ceil(needed))


def resolution(
    diffs: PairedDifferences,
    *,
    target_gap: float = 0.02,
    level: float = 0.95,
    correction: str = "bonferroni",
) -> list[Resolution]:
    """Per candidate x stratum: the smallest resolvable difference and the questions needed.

    The interval is the one `compare` reports with the same `level` and `correction` (widened for
    Bonferroni, unadjusted for holm and none), so the half-width matches the table's interval.
    """
    level = _check_level(level)
    shown = interval_level(level, len(diffs.candidates), _check_correction(correction))
    lo, hi = _intervals(diffs, shown)
    sd = diffs.se
    return [
        Resolution(
            candidate=name,
            stratum=stratum,
            n=int(diffs.n[r]),
            sd=float(sd[r, j]),
            half_width=float((hi[r, j] - lo[r, j]) / 2),
            level=shown,
            target_gap=float(target_gap),
            questions_needed=questions_needed(sd[r, j], int(diffs.n[r]), target_gap, shown),
            resolves=bool((hi[r, j] - lo[r, j]) / 2 <= target_gap),
        )
        for j, name in enumerate(diffs.candidates)
        for r, stratum in enumerate(diffs.strata)
    ]


# --- without pairing ------------------------------------------------------------------------
def standard_error(scores: np.ndarray) -> float:
    """Standard error of a mean of per-question scores: sd / sqrt(n), sd with ddof=0.

    ddof=0 is the plug-in variance (no small-sample correction); for a recall of p on n
    questions scored 0/1 it is sqrt(p (1 - p) / n) (0.0447 for p = 0.8, n = 80).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise UserError(f"scores must be a non-empty 1-D array, got shape {x.shape}")
    return float(x.std() / math.sqrt(x.size))


def unpaired_se(scores_a: np.ndarray, scores_b: np.ndarray) -> float:
    """Standard error of mean(a) - mean(b) treating a and b as independent samples.

    sqrt(se(a)^2 + se(b)^2): what a comparison that ignores the shared questions sees. Compare
    with `paired_se`, the paired standard error (before the floor of `paired_differences`).
    """
    return math.hypot(standard_error(scores_a), standard_error(scores_b))


def paired_se(scores_a: np.ndarray, scores_b: np.ndarray) -> float:
    """Standard error of the mean paired difference a - b on the same questions (ddof=0)."""
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    if a.shape != b.shape:
        raise UserError(
            f"paired scores need the same questions, got shapes {a.shape} and {b.shape}"
        )
    return standard_error(a - b)


def to_frame(rows: Sequence[Comparison] | Sequence[Resolution]) -> pd.DataFrame:
    """The rows of `compare` or `resolution` as a DataFrame, one column per field, in order."""
    return pd.DataFrame([asdict(r) for r in rows])
