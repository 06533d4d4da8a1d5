"""Cohen's kappa against scikit-learn: hand-made and random grades, degenerate cases, bad grades."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from ragsweep.errors import UserError
from ragsweep.labelling.kappa import cohen_kappa, confusion

LABELS = [0, 1, 2]


def _sk(a: list[int], b: list[int], weights: str | None) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns (and returns nan) when undefined
        return float(cohen_kappa_score(a, b, labels=LABELS, weights=weights))


def _same(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 1e-12


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_kappa_matches_sklearn_on_random_grades(weights: str | None) -> None:
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(1, 60))
        p = rng.dirichlet(np.ones(3) * (0.3 if trial % 3 == 0 else 2.0))
        a = rng.choice(3, size=n, p=p).tolist()
        # b copies a with noise, so kappa spans weak to strong agreement
        b = [x if rng.random() < 0.6 else int(rng.integers(0, 3)) for x in a]
        assert _same(cohen_kappa(a, b, weights), _sk(a, b, weights)), (trial, a, b)


def test_kappa_hand_made() -> None:
    a = [0, 0, 1, 1, 2, 2]
    b = [0, 1, 1, 1, 2, 0]
    # observed 4/6, expected (2*2 + 2*3 + 2*1) / 36 = 1/3
    assert cohen_kappa(a, b) == pytest.approx((4 / 6 - 1 / 3) / (1 - 1 / 3), abs=1e-12)
    # weighted disagreement: observed 1*1 + 4*1 = 5, expected 7/3 + 3/3 + 11/3 = 7
    assert cohen_kappa(a, b, "quadratic") == pytest.approx(1 - 5 / 7, abs=1e-12)
    for w in (None, "quadratic"):
        assert abs(cohen_kappa(a, b, w) - _sk(a, b, w)) <= 1e-12


def test_kappa_labels_fixed_to_three_grades() -> None:
    # grade 2 never used; its weights still count in the quadratic version
    a, b = [0, 0, 1, 1, 0], [0, 1, 0, 1, 0]
    for w in (None, "quadratic"):
        assert abs(cohen_kappa(a, b, w) - _sk(a, b, w)) <= 1e-12
    assert confusion(a, b).tolist() == [[2, 1, 0], [1, 1, 0], [0, 0, 0]]


def test_kappa_degenerate_cases() -> None:
    # both constant at the same grade: expected agreement 1, kappa undefined
    assert math.isnan(cohen_kappa([2, 2, 2], [2, 2, 2]))
    assert math.isnan(cohen_kappa([2, 2, 2], [2, 2, 2], "quadratic"))
    assert math.isnan(_sk([2, 2, 2], [2, 2, 2], None))
    # constant but different grades: expected agreement 0, observed 0, kappa 0
    assert cohen_kappa([2, 2], [1, 1]) == 0.0
    assert cohen_kappa([2, 2], [1, 1], "quadratic") == 0.0
    assert math.isnan(cohen_kappa([], []))
    # perfect agreement with variation is 1
    assert cohen_kappa([0, 1, 2], [0, 1, 2]) == 1.0


def test_bad_grades_are_user_errors() -> None:
    with pytest.raises(UserError, match="grade 3"):
        cohen_kappa([0, 3], [0, 1])
    with pytest.raises(ValueError, match="length"):
        cohen_kappa([0, 1], [0])
    with pytest.raises(UserError, match="weights"):
        cohen_kappa([0, 1], [0, 1], "linear")
