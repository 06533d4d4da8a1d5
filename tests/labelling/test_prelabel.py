"""Offline pre-labeller: threshold fitting (known answers, brute force), grading, provenance,
determinism and a run on the built-in sample."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score

from ragsweep.data import Dataset, load_dataset, sample_path
from ragsweep.errors import UserError
from ragsweep.labelling.prelabel import (
    SOURCE,
    LSASimilarity,
    PrelabelFit,
    Thresholds,
    fit_prelabeller,
    fit_thresholds,
    grade,
    prelabel,
    render_fit,
)

AT = "2025-03-31T12:00:00+00:00"


def _qwk(a: np.ndarray, b: np.ndarray) -> float:
    return float(cohen_kappa_score(a, b, labels=[0, 1, 2], weights="quadratic"))


def test_grade_rule_boundaries() -> None:
    t = Thresholds(0.3, 0.7)
    assert grade([0.29, 0.3, 0.69, 0.7, 1.0, -0.5], t).tolist() == [0, 1, 1, 2, 2, 0]


def test_fit_recovers_known_thresholds() -> None:
    # humans grade 0 below 0.3, 1 from 0.3 to below 0.7, 2 from 0.7: on the 0.01 grid the only
    # perfect cut-offs are 0.30 and 0.70
    s = [0.05, 0.1, 0.29, 0.30, 0.5, 0.69, 0.70, 0.9]
    h = [0, 0, 0, 1, 1, 1, 2, 2]
    assert fit_thresholds(s, h) == Thresholds(0.3, 0.7)
    # shuffled input, same answer
    order = np.random.default_rng(1).permutation(len(s))
    assert fit_thresholds(np.asarray(s)[order], np.asarray(h)[order]) == Thresholds(0.3, 0.7)


def test_fit_ties_go_to_smaller_thresholds() -> None:
    # perfect for t1 in (0.1, 0.5] and t2 in (t1, 0.5]: grid 0.2 and 0.4 qualify
    assert fit_thresholds([0.1, 0.5], [0, 2], grid=[0.0, 0.2, 0.4, 0.6]) == Thresholds(0.2, 0.4)


def test_fit_matches_brute_force_with_sklearn() -> None:
    rng = np.random.default_rng(7)
    grid = np.round(np.linspace(-0.1, 0.8, 13), 4)
    for _ in range(5):
        n = 80
        h = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
        s = np.clip(0.25 * h + rng.normal(0.1, 0.15, size=n), -0.2, 1.0)
        best, best_pair = -np.inf, None
        for t1, t2 in itertools.combinations(sorted(grid), 2):  # t1 then t2 ascending
            g = (s >= t1).astype(int) + (s >= t2).astype(int)
            if len(set(g)) == 1 and len(set(h)) == 1:
                continue
            k = _qwk(g, h)
            if k > best + 1e-12:
                best, best_pair = k, (t1, t2)
        got = fit_thresholds(s, h, grid=grid)
        assert (got.t1, got.t2) == best_pair
        assert _qwk(grade(s, got), h) == pytest.approx(best, abs=1e-12)


def test_fit_errors() -> None:
    with pytest.raises(UserError, match="every human grade is 1"):
        fit_thresholds([0.1, 0.2], [1, 1])
    with pytest.raises(UserError, match="2 similarities but 1"):
        fit_thresholds([0.1, 0.2], [1])
    with pytest.raises(UserError, match="no items"):
        fit_thresholds([], [])
    with pytest.raises(UserError, match="NaN"):
        fit_thresholds([0.1, float("nan")], [0, 1])
    with pytest.raises(UserError, match="t1 < t2"):
        Thresholds(0.5, 0.5)


def test_prelabel_provenance_and_no_mutation() -> None:
    pairs = pd.DataFrame(
        {
            "qid": ["q1", "q1", "q2"],
            "document": ["home"] * 3,
            "section": ["1.1", "1.2", "2.1"],
            "version": ["2024"] * 3,
            "similarity": [0.8, 0.1, 0.4],
        }
    )
    before = pairs.copy()
    out = prelabel(pairs, Thresholds(0.3, 0.7), labeller="lsa-similarity(dim=8)", at=AT)
    pd.testing.assert_frame_equal(pairs, before)
    assert out["grade"].tolist() == [2, 0, 1]
    assert set(out["source"]) == {SOURCE} == {"model"}
    assert set(out["labeller"]) == {"lsa-similarity(dim=8);t1=0.3,t2=0.7"}
    assert set(out["at"]) == {AT}
    with pytest.raises(UserError, match="field 'at'"):
        prelabel(pairs, Thresholds(0.3, 0.7), labeller="x", at="yesterday")
    with pytest.raises(UserError, match="'similarity' is missing"):
        prelabel(pairs.drop(columns="similarity"), Thresholds(0.3, 0.7), labeller="x", at=AT)


@pytest.fixture(scope="module")
def sample() -> Dataset:
    if not (sample_path() / "dataset.json").is_file():
        pytest.skip("the built-in sample (src/ragsweep/data/sample) is not in this checkout")
    return load_dataset()


@pytest.fixture(scope="module")
def fitted(sample: Dataset) -> PrelabelFit:
    return fit_prelabeller(sample, at=AT)


def test_sample_fit(sample: Dataset, fitted: PrelabelFit) -> None:
    p = fitted.prelabels
    assert fitted.n == len(sample.labels) == len(p)
    assert p[["qid", "document", "section", "version"]].values.tolist() == (
        sample.labels[["qid", "document", "section", "version"]].values.tolist()
    )
    assert (p["human"].to_numpy() == sample.labels["grade"].to_numpy()).all()
    assert fitted.kappa_quadratic == pytest.approx(_qwk(p["grade"], p["human"]), abs=1e-12)
    assert fitted.kappa == pytest.approx(
        cohen_kappa_score(p["grade"], p["human"], labels=[0, 1, 2]), abs=1e-12
    )
    assert fitted.agree == pytest.approx((p["grade"] == p["human"]).mean(), abs=1e-12)
    assert fitted.confusion.sum() == fitted.n
    assert fitted.thresholds.t1 < fitted.thresholds.t2
    # the similarity tracks relevance: mean similarity rises with the human grade
    means = p.groupby("human")["similarity"].mean()
    assert means[0] < means[1] < means[2]
    # golden for this sample and the default LSA settings (dim 256, seed 0)
    assert (fitted.thresholds.t1, fitted.thresholds.t2) == (0.37, 0.47)
    # no neighbouring grid pair does better
    s, h = p["similarity"].to_numpy(), p["human"].to_numpy()
    for d1, d2 in itertools.product((-0.01, 0.0, 0.01), repeat=2):
        t1, t2 = round(fitted.thresholds.t1 + d1, 2), round(fitted.thresholds.t2 + d2, 2)
        if t1 < t2:
            g = grade(s, Thresholds(t1, t2))
            assert _qwk(g, h) <= fitted.kappa_quadratic + 1e-12
    assert f"{fitted.kappa_quadratic:.3f}" in render_fit(fitted)
    assert set(p["at"]) == {AT} and set(p["source"]) == {"model"}


def test_sample_fit_is_deterministic(sample: Dataset, fitted: PrelabelFit) -> None:
    again = fit_prelabeller(sample, at=AT)
    assert again.thresholds == fitted.thresholds
    pd.testing.assert_frame_equal(again.prelabels, fitted.prelabels)


def test_scoring_unknown_pairs_is_a_user_error(sample: Dataset) -> None:
    scorer = LSASimilarity(sample, dim=16)
    row = sample.labels.head(1)[["qid", "document", "section", "version"]]
    assert scorer.score(row).shape == (1,)
    with pytest.raises(UserError, match="question 'nope'"):
        scorer.score(row.assign(qid="nope"))
    with pytest.raises(UserError, match="not in the corpus"):
        scorer.score(row.assign(section="99.99"))
