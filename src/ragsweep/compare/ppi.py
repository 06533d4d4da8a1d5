"""Judge-corrected estimates: a metric on a set whose labels a model made, corrected by the
questions people audited (prediction-powered inference; docs/statistics.md, "Model-judged labels").

Per question i of a stratum of N questions, `judged[i]` is a quantity scored on the model
judge's labels (a configuration's recall@5, or its paired difference with the baseline), and on
the n audited questions (a random subset, drawn per slice) `human[i]` is the same quantity on the
people's labels. The estimate (PPI++, Angelopoulos, Duchi and Zrnic 2023, with the audited
questions inside the N):

    theta = lam * mean_N(judged) + mean_n(human - lam * judged)

Whatever the judge's bias, theta is unbiased for the people's mean: the audited residuals carry
the correction. `lam` (power tuning) is the slope of the people's scores on the judge's over the
audited questions, pooled within slices and clipped to [0, 1] (`paired` uses the differences'
slope for every quantity of a measure): 1 is classic PPI, 0 ignores the judge. Its variance,
the audit a simple random sample of the N (the residual uncorrelated with the judge's score):

    V = var(human - lam * judged) / n + lam^2 var(judged) / N

(everything audited, n = N, is the people's mean: lam is 0 there). The interval is
theta +- t(n - 1) sqrt(V), the audited residuals' variance floored with Agresti-Min
pseudo-questions as in `ragsweep.compare.stats` and never below the sample's own, so a slice
where the judge agrees with people on every audited question still has an honest width. `all`
and `weighted` combine the slices (stratified; Welch-Satterthwaite degrees of freedom). Method
and measured coverage: docs/statistics.md; the simulation: benchmarks/ppi_coverage.py.

    est = corrected(judged, human, audited, strata, names, weights=traffic)
    est.estimate, est.se, est.df, est.bias, est.n_eff
    audit_advice(est, row, target)      # where more audits narrow an interval most
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragsweep.compare import stats
from ragsweep.compare.stats import PSEUDO
from ragsweep.conventions import ALL, WEIGHTED
from ragsweep.errors import UserError

#: how reports name the method
METHOD = "prediction-powered (PPI++), audited questions correct the judge"


@dataclass(frozen=True, eq=False)
class Corrected:
    """Judge-corrected estimates of K quantities, one row per stratum (each slice in order of
    first appearance, then `all`, then `weighted` when weights were given).

    Arrays are (R, K). `estimate` is theta, `se` its standard error (> 0), `df` the degrees of
    freedom of its t quantile; `judge_only` is mean_N(judged), what the judge's labels alone say,
    and `plain` the mean of what a run reports without correction (the judge's score where a
    question was not audited, the people's where it was); `bias` is mean_n(judged - human), the
    judge's bias on the audited questions; `lam` the power-tuning weight; `n_eff` the number of
    people-labelled questions that would give the same standard error (var(human) / se^2).
    `n` (R,) audited questions, `N` (R,) questions. For `audit_advice`: `parts` (S, K, 2), each
    slice's variance pieces (the audited residuals' variance, lam^2 var(judged)), and
    `combine` (rows after the slices, S), the weights of each combined row.
    """

    names: tuple[str, ...]
    strata: tuple[str, ...]
    N: np.ndarray
    n: np.ndarray
    weights: dict[str, float] | None
    estimate: np.ndarray
    se: np.ndarray
    df: np.ndarray
    judge_only: np.ndarray
    plain: np.ndarray
    bias: np.ndarray
    lam: np.ndarray
    n_eff: np.ndarray
    parts: np.ndarray
    combine: np.ndarray


def _check(
    judged: Any, human: Any, audited: Any, strata: Any, names: Sequence[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], list[str]]:
    judged = np.asarray(judged, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    if judged.ndim == 1:
        judged, human = judged[None], human[None] if human.ndim == 1 else human
    if judged.ndim != 2 or judged.shape[1] == 0:
        raise UserError(
            f"judged scores must have shape (quantities, questions), got {judged.shape}"
        )
    k, n = judged.shape
    if human.shape != (k, n):
        raise UserError(
            f"human scores must have the judged scores' shape {(k, n)} (any value where a "
            f"question was not audited), got {human.shape}"
        )
    audited = np.asarray(audited, dtype=bool).ravel()
    if audited.size != n:
        raise UserError(f"audited must say for each of the {n} questions whether people graded it")
    if not np.isfinite(judged).all() or not np.isfinite(human[:, audited]).all():
        raise UserError(
            "scores must be finite numbers: found NaN or infinity; score a question with no "
            "answer as 0"
        )
    labels = np.asarray(strata, dtype=object).ravel().tolist()
    if len(labels) != n or not all(isinstance(s, str) for s in labels):
        raise UserError(f"strata must be {n} slice names (str), one per question")
    names = [str(x) for x in names]
    if len(names) != k:
        raise UserError(f"names must name the {k} quantities, got {names!r}")
    return judged, np.where(audited, human, 0.0), audited, labels, names


def _pooled_lam(
    judged: np.ndarray, human: np.ndarray, audited: np.ndarray, groups: Sequence[np.ndarray]
) -> np.ndarray:
    """The power-tuning weight of each quantity (K,): the slope of the people's scores on the
    judge's over the audited questions, within slices (each centred on its own means), clipped
    to [0, 1]; 0 when the judge's scores do not vary there. One weight for every slice, so a
    slice of a few audited questions does not fit its own."""
    num = np.zeros(judged.shape[0])
    den = np.zeros(judged.shape[0])
    for sel in groups:
        mine = sel & audited
        if mine.sum() < 2:
            continue
        y, yh = human[:, mine], judged[:, mine]
        dyh = yh - yh.mean(axis=1, keepdims=True)
        num += ((y - y.mean(axis=1, keepdims=True)) * dyh).sum(axis=1)
        den += (dyh**2).sum(axis=1)
    return np.clip(np.divide(num, den, out=np.zeros_like(num), where=den > 0), 0.0, 1.0)


def _pooled_scale(
    judged: np.ndarray,
    human: np.ndarray,
    audited: np.ndarray,
    groups: Sequence[np.ndarray],
    lam: np.ndarray,
) -> np.ndarray:
    """The size of a typical residual of each quantity (K,), the pseudo-questions' size: the
    mean of the nonzero squared deviations of human - lam * judged from their slice's mean,
    over every audited question (as `stats` takes a typical disagreement over all questions,
    so a slice whose few audits happen to agree still counts a disagreement's size); else the
    same of the judge's scores over every question; else 0 (nothing varies)."""
    sums, counts = np.zeros(len(lam)), np.zeros(len(lam))
    spread, spread_n = np.zeros(len(lam)), np.zeros(len(lam))
    for sel in groups:
        mine = sel & audited
        z = human[:, mine] - lam[:, None] * judged[:, mine]
        dev2 = (z - z.mean(axis=1, keepdims=True)) ** 2
        sums += (dev2 * (dev2 > 1e-24)).sum(axis=1)
        counts += (dev2 > 1e-24).sum(axis=1)
        j2 = (judged[:, sel] - judged[:, sel].mean(axis=1, keepdims=True)) ** 2
        spread += (j2 * (j2 > 1e-24)).sum(axis=1)
        spread_n += (j2 > 1e-24).sum(axis=1)
    own = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    other = np.divide(spread, spread_n, out=np.zeros_like(spread), where=spread_n > 0)
    return np.where(counts > 0, own, other)


def _slice(
    judged: np.ndarray,
    human: np.ndarray,
    audited: np.ndarray,
    lam: np.ndarray,
    scale2: np.ndarray,
) -> dict[str, np.ndarray]:
    """One slice's pieces, each (K,): theta, var (of theta), bias, plain, judge_only, var_z (the
    audited residuals' floored variance), gain (lam^2 var(judged)), var_h (the people's
    scores' variance on the audited questions, floored the same way), df, lam."""
    big_n, n = judged.shape[1], int(audited.sum())
    if n == 0:
        raise UserError(
            "a slice has no audited question: the judge's bias there cannot be measured; "
            "have people grade a random few of its questions"
        )
    if n == big_n:
        lam = np.zeros_like(lam)  # everything audited: the people's mean, nothing to correct
    y, yh = human[:, audited], judged[:, audited]
    var_all = judged.var(axis=1, ddof=1) if big_n > 1 else np.zeros(judged.shape[0])
    z = y - lam[:, None] * yh
    # lam is the slope of the people's scores on the judge's, so the residual z is uncorrelated
    # with the judge's score: cov(human, judged) = lam var(judged), and the term is lam^2 var
    gain = lam**2 * var_all
    var_z = _floored_var(z, scale2)
    var = np.maximum(var_z / n + gain / big_n, var_z / big_n)
    return {
        "theta": lam * judged.mean(axis=1) + z.mean(axis=1),
        "var": np.maximum(var, _TINY),
        "lam": lam,
        "bias": (yh - y).mean(axis=1),
        "plain": np.where(audited, human, judged).mean(axis=1),
        "judge_only": judged.mean(axis=1),
        "var_z": var_z,
        "gain": gain,
        "var_h": _floored_var(y, scale2),
        "df": np.full(judged.shape[0], max(n - 1, 1), dtype=np.float64),
    }


#: a variance never reaches 0 (an interval of zero width has no t statistic)
_TINY = 1e-24


def _floored_var(x: np.ndarray, scale2: np.ndarray) -> np.ndarray:
    """Each row's sample variance with Agresti-Min pseudo-questions (`ragsweep.compare.stats`):
    PSEUDO / 2 at sqrt(scale2) above the row's mean, PSEUDO / 2 below and PSEUDO at it, so a
    row whose values all agree (a judge that matched people on every audited question) still
    has a variance; never below the sample variance itself."""
    dev2 = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    floored = (dev2 + PSEUDO * scale2) / (x.shape[1] + 2 * PSEUDO - 1)
    return np.maximum(floored, dev2 / max(x.shape[1] - 1, 1))  # never below the sample's own


def corrected(
    judged: Any,
    human: Any,
    audited: Any,
    strata: Any,
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
    lam: np.ndarray | None = None,
) -> Corrected:
    """Judge-corrected estimates of K per-question quantities (`judged`, `human`: (K, N); a
    human score is read only where `audited`), per slice of `strata`, then `all` (the slices
    weighted by their questions) and `weighted` (by `weights`, slice -> traffic share, when
    given). `lam` (K,) fixes the power-tuning weights (default: each quantity's own pooled
    slope). Every slice needs an audited question (else `UserError`). Deterministic."""
    judged, human, audited, labels, names = _check(judged, human, audited, strata, names)
    present, w = stats.slices_and_weights(labels, weights)
    label_arr = np.array(labels, dtype=object)
    groups = [label_arr == s for s in present]
    bare = [s for s, sel in zip(present, groups, strict=True) if not audited[sel].any()]
    if bare:
        raise UserError(
            f"slice(s) {', '.join(bare)} have no audited question: the judge's bias there cannot "
            "be measured; have people grade a random few of their questions"
        )
    lam = _pooled_lam(judged, human, audited, groups) if lam is None else np.asarray(lam, float)
    scale2 = _pooled_scale(judged, human, audited, groups, lam)
    pieces, big_ns, ns = [], [], []
    for sel in groups:
        pieces.append(_slice(judged[:, sel], human[:, sel], audited[sel], lam, scale2))
        big_ns.append(int(sel.sum()))
        ns.append(int(audited[sel].sum()))
    big_n, n = np.array(big_ns), np.array(ns)

    def stack(key: str) -> np.ndarray:
        return np.array([p[key] for p in pieces])  # (S, K)

    rows = {k: list(stack(k)) for k in ("theta", "var", "lam", "bias", "plain", "judge_only")}
    var_h = stack("var_h")
    rows["n_eff"] = list(var_h / stack("var"))
    rows["df"] = list(stack("df"))
    strata_out = list(present)
    combos: list[tuple[str, np.ndarray]] = []
    if present != [ALL]:
        combos.append((ALL, big_n / big_n.sum()))
    if w is not None:
        combos.append((WEIGHTED, np.array([w[s] for s in present])))
    for name, wv in combos:
        strata_out.append(name)
        parts = wv[:, None] ** 2 * stack("var")
        var = parts.sum(axis=0)
        df = var**2 / (parts**2 / stack("df")).sum(axis=0)
        rows["theta"].append((wv[:, None] * stack("theta")).sum(axis=0))
        rows["var"].append(var)
        rows["lam"].append(lam)
        rows["bias"].append((wv[:, None] * stack("bias")).sum(axis=0))
        rows["plain"].append((wv[:, None] * stack("plain")).sum(axis=0))
        rows["judge_only"].append((wv[:, None] * stack("judge_only")).sum(axis=0))
        rows["n_eff"].append((wv[:, None] ** 2 * var_h / n[:, None]).sum(axis=0) / var * n.sum())
        rows["df"].append(np.maximum(df, 1.0))
    weight_rows = np.array([wv for _, wv in combos]) if combos else np.zeros((0, len(present)))
    parts = np.stack([stack("var_z"), stack("gain")], axis=-1)  # (S, K, 2)
    return Corrected(
        names=tuple(names),
        strata=tuple(strata_out),
        N=np.concatenate([big_n, [big_n.sum()] * len(combos)]).astype(np.int64),
        n=np.concatenate([n, [n.sum()] * len(combos)]).astype(np.int64),
        weights=w,
        estimate=np.array(rows["theta"]),
        se=np.sqrt(np.array(rows["var"])),
        df=np.array(rows["df"]),
        judge_only=np.array(rows["judge_only"]),
        plain=np.array(rows["plain"]),
        bias=np.array(rows["bias"]),
        lam=np.array(rows["lam"]),
        n_eff=np.array(rows["n_eff"]),
        parts=parts,
        combine=weight_rows,
    )


def paired(
    judged: Any,
    human: Any,
    audited: Any,
    strata: Any,
    names: Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
) -> tuple[stats.PairedDifferences, Corrected]:
    """The judge-corrected counterpart of `stats.paired_differences`: `judged` and `human` are
    (1 + C, N), the baseline's per-question scores then the C candidates' (`names`). Returns the
    differences as `stats.compare` and `stats.resolution` read them (centre and delta the
    corrected difference, se and df its own), and the `Corrected` estimates of the 1 + 2C
    quantities (the baseline's value, each candidate's value, each difference)."""
    judged = np.asarray(judged, dtype=np.float64)
    human = np.asarray(human, dtype=np.float64)
    c = len(names)
    if judged.ndim != 2 or judged.shape[0] != 1 + c:
        raise UserError(
            f"judged scores must have shape (1 + {c}, questions): the baseline's, then each "
            f"candidate's, got {judged.shape}"
        )
    quantities = ["baseline", *names, *(f"{x} - baseline" for x in names)]
    all_judged = np.concatenate([judged, judged[1:] - judged[0]])
    all_human = np.concatenate([human, human[1:] - human[0]])
    # one weight for every quantity of the measure, so each difference is exactly the
    # candidate's corrected value less the baseline's: the differences' pooled slope (they
    # decide), any fixed weight keeping the estimate unbiased
    audited = np.asarray(audited, dtype=bool).ravel()
    labels = np.asarray(strata, dtype=object).ravel()
    groups = [labels == s for s in dict.fromkeys(labels.tolist())]
    slope = _pooled_lam(
        (judged[1:] - judged[0]).reshape(1, -1),
        np.where(audited, human[1:] - human[0], 0.0).reshape(1, -1),
        np.tile(audited, c),
        [np.tile(g, c) for g in groups],
    )
    est = corrected(
        all_judged,
        all_human,
        audited,
        strata,
        quantities,
        weights=weights,
        lam=np.full(len(quantities), float(slope[0])),
    )
    delta = est.estimate[:, 1 + c :]
    scores = np.concatenate([judged.ravel(), human[:, np.asarray(audited, dtype=bool)].ravel()])
    diffs = stats.PairedDifferences(
        candidates=tuple(names),
        strata=est.strata,
        n=est.N,
        weights=est.weights,
        baseline=est.estimate[:, 0],
        value=est.estimate[:, 1 : 1 + c],
        delta=delta,
        centre=delta,
        se=est.se[:, 1 + c :],
        df=est.df[:, 1 + c :],
        disputed=np.zeros_like(delta, dtype=np.int64),
        scale=np.ones(c),
        bound=1.0 if scores.min() >= 0.0 and scores.max() <= 1.0 else None,
    )
    return diffs, est


def audit_advice(
    est: Corrected, quantity: int, row: str, target: float, level: float = 0.95
) -> tuple[dict[str, int], float, float]:
    """Where more audits narrow the interval of `quantity` (its index in `est.names`) on the
    combined `row` (`all` or `weighted`) most: audits are added one at a time to the slice whose
    next audit shrinks the row's variance most (w_s^2 var_z,s (1/n_s - 1/(n_s + 1)), the
    slice's residual variance held), never past a slice's questions, until the interval's
    half-width (normal quantile at `level`) reaches `target` or every question is audited.
    Returns (slice -> audits to add, half-width now, half-width after)."""
    from statistics import NormalDist

    r = est.strata.index(row)
    s_count = est.parts.shape[0]
    w = est.combine[r - s_count]
    var_z, gain = est.parts[:, quantity, 0], est.parts[:, quantity, 1]
    n, big_n = est.n[:s_count].astype(np.float64), est.N[:s_count]
    z = NormalDist().inv_cdf(0.5 + level / 2)
    added = np.zeros(s_count, dtype=np.int64)

    def half() -> float:
        now = n + added
        return float(z * np.sqrt((w**2 * (var_z / now + gain / big_n)).sum()))

    before = half()
    while half() > target:
        now = n + added
        room = now < big_n
        if not room.any():
            break
        step = np.where(room, w**2 * var_z * (1 / now - 1 / (now + 1)), -1.0)
        added[int(np.argmax(step))] += 1
    names = est.strata[:s_count]
    return {names[i]: int(a) for i, a in enumerate(added) if a}, before, half()
