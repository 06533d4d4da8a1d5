"""Paired, stratified bootstrap comparison of configurations, and how many questions are enough.

Per-question scores of one measure come as a baseline `base` (n,) and C candidates `cands` (C, n)
scored on the SAME questions, with each question's slice in `strata` (n,). The bootstrap resamples
questions with replacement within each slice (stratified), the same draw for the baseline and
every candidate (paired), and recomputes each slice's mean paired difference, the mean over all
questions and the traffic-weighted mean of slice means in every resample.

    draws = paired_resamples(base, cands, strata, names, weights={...}, seed=0)
    rows = compare(draws, correction="bonferroni")       # one Comparison per candidate x stratum
    plan = resolution(draws, target_gap=0.02)            # smallest resolvable gap, questions needed

`paired_bootstrap(...)` is `compare(paired_resamples(...))` in one call. Method, conventions and
how to read the output: `docs/statistics.md`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.conventions import ALL, WEIGHTED
from ragsweep.errors import UserError

#: Family-wise corrections across the candidates of a sweep (applied per stratum).
CORRECTIONS: tuple[str, ...] = ("bonferroni", "holm", "none")
VERDICTS: tuple[str, ...] = ("better", "worse", "noise")
MIN_RESAMPLES = 1000
#: Resample counts are built in blocks of at most this many (resample x question) cells, so that
#: memory stays bounded (~64 MB of float64) whatever the stratum size.
_BLOCK_CELLS = 1 << 23
#: Mean differences smaller than this (times the largest |difference|) are rounding residue: 0.
_ZERO_TOL = 1e-12


@dataclass(frozen=True, eq=False)
class PairedResamples:
    """The bootstrap distribution of mean paired differences (candidate - baseline).

    Rows ("strata") are the slices in order of first appearance in `strata`, then `all`, then
    `weighted` when weights were given (a lone slice already named `all` is not repeated).
    `resampled[b, r, c]` is the mean difference of candidate c in row r in resample b; the point
    estimates come from the data as given. Built by `paired_resamples`; read by `compare` and
    `resolution`.
    """

    candidates: tuple[str, ...]
    strata: tuple[str, ...]
    n: np.ndarray  # (R,) questions behind each row
    weights: dict[str, float] | None  # normalised over the slices present; None: no weighted row
    baseline: np.ndarray  # (R,) baseline mean
    value: np.ndarray  # (R, C) candidate means
    delta: np.ndarray  # (R, C) mean paired difference on the data
    resampled: np.ndarray  # (B, R, C) mean paired difference in each resample
    seed: int

    @property
    def n_resamples(self) -> int:
        return int(self.resampled.shape[0])


@dataclass(frozen=True)
class Comparison:
    """One cell of the comparison report: a candidate against the baseline in one stratum.

    `delta` = mean over the stratum's questions of (candidate - baseline) on the real data (equal
    to `value - baseline` up to rounding). `[ci_low, ci_high]` is the percentile interval of the
    resampled deltas at `level` (already widened when the correction is Bonferroni). `p_value`
    is the two-sided bootstrap p (twice the share of resampled deltas on the other side of 0 from
    `delta`, capped at 1; 1 when `delta` is 0); `p_adjusted` is it after the correction.
    `verdict`: "better" / "worse" when the (corrected) evidence excludes 0, else "noise".
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
    difference the current `n` questions can tell from 0). `sd` = standard deviation of the
    resampled mean differences (the bootstrap standard error). `questions_needed` = questions
    this stratum would need for a half-width of `target_gap`, scaling `sd` by sqrt(n / n');
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


def _normalise(weights: Mapping[str, float], present: Sequence[str]) -> dict[str, float]:
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


# --- the bootstrap --------------------------------------------------------------------------
def _resample_sums(diff: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of `diff` (n_s, C) over `n_resamples` resamples of its rows with replacement.

    Each resample draws n_s row indices uniformly; their counts (b, n_s) times `diff` give the
    resampled sums (one matmul), so gathering (n_s x C per resample) never happens.
    """
    n_s, c = diff.shape
    out = np.empty((n_resamples, c))
    block = max(1, min(n_resamples, _BLOCK_CELLS // n_s))
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        # int32 is enough (b x n_s <= _BLOCK_CELLS) and halves the cost of drawing and counting
        idx = rng.integers(0, n_s, size=(b, n_s), dtype=np.int32)
        idx += np.arange(0, b * n_s, n_s, dtype=np.int32)[:, None]
        counts = np.zeros(b * n_s)
        np.add.at(counts, idx.ravel(), 1.0)
        out[start : start + b] = counts.reshape(b, n_s) @ diff
    return out


def paired_resamples(
    base: np.ndarray,
    cands: np.ndarray,
    strata: np.ndarray | Sequence[str],
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedResamples:
    """Paired, stratified bootstrap distribution of candidate - baseline mean differences.

    `base` (n,) and `cands` (C, n) are per-question scores of one measure on the same questions;
    `strata` (n,) the slice of each question; `names` the C candidates. Questions are resampled
    with replacement within each slice, `n_resamples` times, the same draw for the baseline and
    all candidates. Rows: each slice, `all` (mean over all questions) and, when `weights` (slice ->
    traffic weight, normalised over the slices present) is given, `weighted` (weighted mean of
    the slice means, recomputed in every resample). Same inputs and `seed` give identical bits
    (on one machine and BLAS); the draws do not depend on the candidates, so adding one leaves
    the others' intervals as they were (up to floating-point rounding).
    """
    base, cands, labels, names = _check_scores(base, cands, strata, names)
    if (
        isinstance(n_resamples, bool)
        or not isinstance(n_resamples, int | np.integer)
        or (n_resamples < MIN_RESAMPLES)
    ):
        raise UserError(
            f"n_resamples must be an integer >= {MIN_RESAMPLES} (10000 recommended), "
            f"got {n_resamples!r}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UserError(f"seed must be a non-negative integer, got {seed!r}")
    present = list(dict.fromkeys(labels))  # slices in order of first appearance
    if WEIGHTED in present or (ALL in present and len(present) > 1):
        raise UserError(
            f"slice names {ALL!r} (unless it is the only slice) and {WEIGHTED!r} are reserved for "
            "the summary rows; rename that slice"
        )
    w = None if weights is None else _normalise(weights, present)

    label_arr = np.array(labels, dtype=object)
    diff = (cands - base).T  # (n, C): paired differences, one column per candidate
    rng = np.random.default_rng(int(seed))
    c = cands.shape[0]
    n_resamples = int(n_resamples)
    slice_means = np.empty((n_resamples, len(present), c))
    point = np.empty((len(present), c))
    value = np.empty((len(present), c))
    baseline = np.empty(len(present))
    n_s = np.empty(len(present), dtype=np.int64)
    for i, s in enumerate(present):
        rows = np.flatnonzero(label_arr == s)
        n_s[i] = rows.size
        slice_means[:, i] = _resample_sums(diff[rows], n_resamples, rng) / rows.size
        point[i] = diff[rows].mean(axis=0)
        value[i] = cands[:, rows].mean(axis=1)
        baseline[i] = base[rows].mean()

    share = (n_s / n_s.sum())[:, None]  # each slice's share of all questions
    strata_out = list(present)
    resampled = [slice_means]
    points, values, baselines, ns = [point], [value], [baseline], [n_s]
    if present != [ALL]:
        strata_out.append(ALL)
        resampled.append((slice_means * share).sum(axis=1, keepdims=True))
        points.append(diff.mean(axis=0)[None])
        values.append(cands.mean(axis=1)[None])
        baselines.append(np.array([base.mean()]))
        ns.append(np.array([n_s.sum()]))
    if w is not None:
        wv = np.array([w[s] for s in present])[:, None]
        strata_out.append(WEIGHTED)
        resampled.append((slice_means * wv).sum(axis=1, keepdims=True))
        points.append((point * wv).sum(axis=0)[None])
        values.append((value * wv).sum(axis=0)[None])
        baselines.append(np.array([(baseline * wv[:, 0]).sum()]))
        ns.append(np.array([n_s.sum()]))
    # Differences that cancel in exact arithmetic may leave rounding residue (1e-17); snap it to
    # 0 so that "the interval excludes 0" never hangs on the order of a floating-point sum.
    tol = _ZERO_TOL * max(1.0, float(np.abs(diff).max()))
    return PairedResamples(
        candidates=tuple(names),
        strata=tuple(strata_out),
        n=np.concatenate(ns),
        weights=w,
        baseline=np.concatenate(baselines),
        value=np.concatenate(values),
        delta=_snap(np.concatenate(points), tol),
        resampled=_snap(np.concatenate(resampled, axis=1), tol),
        seed=int(seed),
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


def bootstrap_p(resampled: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Two-sided bootstrap p-values, elementwise over `delta` (resampled has one more axis, first).

    p = 2 x (share of resampled deltas on the other side of 0 from `delta`, 0 itself counted as
    the other side), capped at 1; p = 1 where `delta` is 0. The smallest nonzero p is 2 / B.
    """
    below = (resampled <= 0).mean(axis=0)
    above = (resampled >= 0).mean(axis=0)
    p = np.where(delta > 0, 2 * below, np.where(delta < 0, 2 * above, 1.0))
    return np.minimum(p, 1.0)


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


def _intervals(draws: PairedResamples, level: float) -> tuple[np.ndarray, np.ndarray]:
    tail = (1.0 - level) / 2
    lo, hi = np.quantile(draws.resampled, [tail, 1.0 - tail], axis=0)
    return lo, hi


def compare(
    draws: PairedResamples, *, level: float = 0.95, correction: str = "bonferroni"
) -> list[Comparison]:
    """One `Comparison` per candidate x stratum (candidates in order, strata in row order).

    Percentile intervals at `level`. The family is the C candidates within one stratum:
    `bonferroni` widens every interval to 1 - (1 - level) / C and the verdict follows the
    interval; `holm` reports the unadjusted interval and decides on Holm-adjusted p < 1 - level;
    `none` neither widens nor adjusts. Verdict: "better" (interval above 0, or adjusted p below
    alpha with delta > 0), "worse" (the mirror), else "noise".
    """
    level = _check_level(level)
    correction = _check_correction(correction)
    c = len(draws.candidates)
    shown = interval_level(level, c, correction)
    lo, hi = _intervals(draws, shown)
    p = bootstrap_p(draws.resampled, draws.delta)  # (R, C)
    if correction == "holm":
        p_adj = holm(p)
        alpha = 1.0 - level
        verdict = np.where(p_adj < alpha, np.where(draws.delta > 0, "better", "worse"), "noise")
    else:
        p_adj = np.minimum(1.0, p * c) if correction == "bonferroni" else p
        verdict = np.where(lo > 0, "better", np.where(hi < 0, "worse", "noise"))
    return [
        Comparison(
            candidate=name,
            stratum=stratum,
            n=int(draws.n[r]),
            value=float(draws.value[r, j]),
            baseline=float(draws.baseline[r]),
            delta=float(draws.delta[r, j]),
            ci_low=float(lo[r, j]),
            ci_high=float(hi[r, j]),
            level=shown,
            p_value=float(p[r, j]),
            p_adjusted=float(p_adj[r, j]),
            verdict=str(verdict[r, j]),
        )
        for j, name in enumerate(draws.candidates)
        for r, stratum in enumerate(draws.strata)
    ]


def paired_bootstrap(
    base: np.ndarray,
    cands: np.ndarray,
    strata: np.ndarray | Sequence[str],
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
    n_resamples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
    correction: str = "bonferroni",
) -> list[Comparison]:
    """`compare(paired_resamples(...))`: compare C candidates with a baseline, per stratum.

    See `paired_resamples` for the arguments and the bootstrap, `compare` for the output.
    """
    _check_level(level)
    _check_correction(correction)
    draws = paired_resamples(
        base, cands, strata, names, weights=weights, n_resamples=n_resamples, seed=seed
    )
    return compare(draws, level=level, correction=correction)


# --- resolution and sample size -------------------------------------------------------------
def questions_needed(sd: float, n: int, target_gap: float = 0.02, level: float = 0.95) -> int:
    """Questions a stratum needs for its paired interval's half-width to reach `target_gap`.

    `sd` is the bootstrap standard error of the mean paired difference measured on `n`
    questions. Assumes the per-question spread of the differences stays the same as questions
    are added, so the standard error scales as 1 / sqrt(n) and the half-width is z x sd with z
    the normal quantile for `level`: n' = ceil(n (z sd / target_gap)^2), at least 1.
    """
    level = _check_level(level)
    numeric = isinstance(target_gap, int | float | np.floating) and not isinstance(target_gap, bool)
    if not (numeric and target_gap > 0 and math.isfinite(target_gap)):
        raise UserError(f"target_gap must be a positive number (e.g. 0.02), got {target_gap!r}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    needed = n * (z * float(sd) / target_gap) ** 2
    return max(1, math.ceil(needed))


def resolution(
    draws: PairedResamples,
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
    shown = interval_level(level, len(draws.candidates), _check_correction(correction))
    lo, hi = _intervals(draws, shown)
    sd = draws.resampled.std(axis=0, ddof=1)
    return [
        Resolution(
            candidate=name,
            stratum=stratum,
            n=int(draws.n[r]),
            sd=float(sd[r, j]),
            half_width=float((hi[r, j] - lo[r, j]) / 2),
            level=shown,
            target_gap=float(target_gap),
            questions_needed=questions_needed(sd[r, j], int(draws.n[r]), target_gap, shown),
            resolves=bool((hi[r, j] - lo[r, j]) / 2 <= target_gap),
        )
        for j, name in enumerate(draws.candidates)
        for r, stratum in enumerate(draws.strata)
    ]


# --- without pairing ------------------------------------------------------------------------
def standard_error(scores: np.ndarray) -> float:
    """Standard error of a mean of per-question scores: sd / sqrt(n), sd with ddof=0.

    ddof=0 is the plug-in variance the bootstrap resamples from; for a recall of p on n
    questions scored 0/1 it is sqrt(p (1 - p) / n) (0.0447 for p = 0.8, n = 80).
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise UserError(f"scores must be a non-empty 1-D array, got shape {x.shape}")
    return float(x.std() / math.sqrt(x.size))


def unpaired_se(scores_a: np.ndarray, scores_b: np.ndarray) -> float:
    """Standard error of mean(a) - mean(b) treating a and b as independent samples.

    sqrt(se(a)^2 + se(b)^2): what a comparison that ignores the shared questions sees. Compare
    with `paired_se`, which the paired bootstrap approximates.
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
