"""Cohen's kappa of two graders' grades (0, 1, 2) and its bootstrap interval over questions.

Labels fixed to 0, 1, 2 (a grade nobody used still counts), unweighted or with quadratic weights;
NaN when undefined (no items, or expected agreement 1). It matches
`sklearn.metrics.cohen_kappa_score(..., labels=[0, 1, 2])`. See docs/labelling.md (two judges).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ragsweep.errors import UserError

#: the grades: 0 not relevant, 1 supports, 2 answers fully
GRADES = (0, 1, 2)
#: how kappa is weighted: None (unweighted) or "quadratic"
WEIGHTS = (None, "quadratic")
#: bootstrap resamples of the kappa interval, its seed and its coverage
RESAMPLES = 2000
SEED = 0
CONFIDENCE = 0.95


def confusion(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> np.ndarray:
    """3x3 int64 counts: row = grade in `a`, column = grade in `b` (grades 0, 1, 2)."""
    x = _grades(a, "a")
    y = _grades(b, "b")
    if len(x) != len(y):
        raise ValueError(f"grade lists differ in length: {len(x)} and {len(y)}")
    out = np.zeros((len(GRADES), len(GRADES)), dtype=np.int64)
    np.add.at(out, (x, y), 1)
    return out


def kappa_from_confusion(matrix: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa from a 3x3 confusion matrix: 1 - sum(w * O) / sum(w * E), with E the
    product of the margins over n and w = 1 off the diagonal (unweighted) or (i - j)^2
    (quadratic). NaN when undefined: no items, or sum(w * E) = 0 (expected agreement 1)."""
    if weights not in WEIGHTS:
        raise UserError(f"kappa weights must be None or 'quadratic', got {weights!r}")
    m = np.asarray(matrix, dtype=np.float64)
    n = m.sum()
    if n == 0:
        return float("nan")
    i = np.arange(m.shape[0])
    w = (i[:, None] != i[None, :]).astype(np.float64)
    if weights == "quadratic":
        w = (i[:, None] - i[None, :]).astype(np.float64) ** 2
    expected = np.outer(m.sum(axis=1), m.sum(axis=0)) / n
    disagree_expected = float(np.sum(w * expected))
    if disagree_expected == 0.0:
        return float("nan")
    return 1.0 - float(np.sum(w * m)) / disagree_expected


def kappa_interval(
    qids: Sequence[str] | np.ndarray,
    a: Sequence[int] | np.ndarray,
    b: Sequence[int] | np.ndarray,
    *,
    resamples: int = RESAMPLES,
    seed: int | Sequence[int] = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of unweighted kappa over the questions `qids` (one per
    item, aligned with the grades `a` and `b`): each resample draws as many questions as there
    are, with replacement, and takes all their items. (NaN, NaN) with fewer than two questions
    or when no resample has a defined kappa."""
    x, y = _grades(a, "a"), _grades(b, "b")
    codes, groups = pd.factorize(pd.Series(np.asarray(qids, dtype=object)), sort=True)
    nq = len(groups)
    if nq < 2:
        return float("nan"), float("nan")
    cells = np.zeros((nq, len(GRADES) ** 2), dtype=np.float64)
    np.add.at(cells, (codes, x * len(GRADES) + y), 1.0)
    rng = np.random.default_rng(seed)
    weights = np.zeros((resamples, nq), dtype=np.float64)
    draws = rng.integers(0, nq, size=(resamples, nq))
    np.add.at(weights, (np.repeat(np.arange(resamples), nq), draws.ravel()), 1.0)
    m = (weights @ cells).reshape(resamples, len(GRADES), len(GRADES))
    n = m.sum(axis=(1, 2))
    observed = np.trace(m, axis1=1, axis2=2) / n
    expected = np.einsum("ri,ri->r", m.sum(axis=2), m.sum(axis=1)) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = (observed - expected) / (1.0 - expected)
    kappas = kappas[np.isfinite(kappas) & (expected < 1.0)]
    if kappas.size == 0:
        return float("nan"), float("nan")
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(kappas, [tail, 100 - tail])
    return float(low), float(high)


def cohen_kappa(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray, weights: str | None = None
) -> float:
    """Cohen's kappa of two aligned grade lists (labels 0, 1, 2); NaN when undefined."""
    return kappa_from_confusion(confusion(a, b), weights)


def _grades(values: Sequence[int] | np.ndarray, what: str) -> np.ndarray:
    """Grades as int64, each one of 0, 1, 2."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"{what}: grades must be a flat list, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iuf" or not np.isin(arr, GRADES).all():
        bad = next(v for v in arr.tolist() if v not in GRADES or isinstance(v, bool))
        raise UserError(f"{what}: grade {bad!r} is not one of 0, 1, 2")
    return arr.astype(np.int64)
