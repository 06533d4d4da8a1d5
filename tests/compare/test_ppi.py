"""Judge-corrected estimates (`ragsweep.compare.ppi`): coverage against a known truth with a
biased judge (benchmarks/ppi_coverage.py has the full table), the edge cases, the audit advice."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from ragsweep.compare import ppi, stats
from ragsweep.errors import UserError

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import ppi_coverage as sim  # noqa: E402  (benchmarks/ is a folder of scripts)

TRIALS = 300


def _floor(rate: float, trials: int = TRIALS) -> float:
    """Nominal coverage less three standard errors of a share over `trials`."""
    return rate - 3 * np.sqrt(rate * (1 - rate) / trials)


@pytest.mark.parametrize(("measure", "big_n", "n"), [("recall@5", 100, 20), ("nDCG@5", 40, 8)])
def test_corrected_intervals_cover_the_truth_and_the_labels_alone_do_not(
    measure: str, big_n: int, n: int
) -> None:
    case = sim.run_case(measure, big_n, n, TRIALS, seed=11, m=30_000)
    rows = {r["row"]: r for r in case["rows"]}
    for r in rows.values():  # every slice and summary row, the value and the difference
        assert r["value"]["corrected"] >= _floor(0.95), r
        assert r["delta"]["corrected"] >= _floor(0.95), r
        assert r["value"]["corrected"] <= 0.995 or big_n < 100, r
    if measure == "recall@5":  # the judge over-calls on exclusions: the labels alone miss
        assert rows["exclusions"]["value"]["uncorrected"] < 0.5
        assert rows["all"]["value"]["uncorrected"] < 0.8
    # and the corrected difference is narrower than the audited questions alone give
    assert rows["all"]["delta"]["width_corrected"] < rows["all"]["delta"]["width_audited_only"]


def test_a_perfect_judge_gives_the_mean_over_every_question_with_a_narrower_interval() -> None:
    rng = np.random.default_rng(3)
    scores = rng.random(200)
    audited = np.zeros(200, dtype=bool)
    audited[rng.choice(200, 20, replace=False)] = True
    est = ppi.corrected(scores[None], scores[None], audited, ["s"] * 200, ["v"])
    assert est.estimate[0, 0] == pytest.approx(scores.mean(), abs=1e-12)
    assert est.bias[0, 0] == 0.0
    alone = scores[audited].std(ddof=1) / np.sqrt(20)
    assert est.se[0, 0] < alone / 2
    assert est.n_eff[0, 0] > 80  # 20 audits worth more than 80 people-labelled questions


def test_everything_audited_is_the_peoples_mean_whatever_the_judge_says() -> None:
    rng = np.random.default_rng(4)
    human = rng.random(30)
    judged = np.clip(human + 0.3, 0, 1)  # biased by +0.3
    est = ppi.corrected(judged[None], human[None], np.ones(30, bool), ["s"] * 30, ["v"])
    assert est.estimate[0, 0] == pytest.approx(human.mean(), abs=1e-12)
    assert est.bias[0, 0] == pytest.approx((judged - human).mean())
    assert est.lam[0, 0] == 0.0
    assert est.se[0, 0] >= human.std(ddof=1) / np.sqrt(30) - 1e-15  # never below Student-t's


def test_a_biased_judge_is_corrected_by_the_audited_residuals() -> None:
    rng = np.random.default_rng(5)
    human = (rng.random(2_000) < 0.6).astype(float)
    judged = np.where(rng.random(2_000) < 0.2, 1.0, human)  # over-calls a fifth of the misses
    audited = np.zeros(2_000, dtype=bool)
    audited[rng.choice(2_000, 400, replace=False)] = True
    est = ppi.corrected(judged[None], human[None], audited, ["s"] * 2_000, ["v"])
    truth = human.mean()
    assert abs(judged.mean() - truth) > 0.06  # what the judge alone says is off
    assert abs(est.estimate[0, 0] - truth) < 3 * est.se[0, 0]
    assert est.bias[0, 0] == pytest.approx((judged - human)[audited].mean())


def test_paired_gives_what_stats_compare_reads_and_is_deterministic() -> None:
    rng = np.random.default_rng(6)
    n, strata = 150, np.array(["a", "b", "c"] * 50, dtype=object)
    human = (rng.random((3, n)) < [[0.5], [0.6], [0.7]]).astype(float)
    judged = np.where(rng.random((3, n)) < 0.1, 1.0, human)
    audited = np.zeros(n, dtype=bool)
    audited[rng.choice(n, 45, replace=False)] = True
    weights = {"a": 0.5, "b": 0.3, "c": 0.2}
    diffs, est = ppi.paired(judged, human, audited, strata, ["x", "y"], weights=weights)
    again, _ = ppi.paired(judged, human, audited, strata, ["x", "y"], weights=weights)
    assert diffs.strata == ("a", "b", "c", "all", "weighted")
    assert np.array_equal(diffs.delta, again.delta) and np.array_equal(diffs.se, again.se)
    # the difference's estimate is the candidate's corrected value minus the baseline's
    assert np.allclose(diffs.delta, diffs.value - diffs.baseline[:, None], atol=1e-12)
    rows = stats.compare(diffs, level=0.95, correction="none")
    first = rows[0]
    q = sps.t.ppf(0.975, diffs.df[0, 0])
    assert first.ci_low == pytest.approx(diffs.delta[0, 0] - q * diffs.se[0, 0])
    # `weighted` combines the slices with the traffic weights
    w = np.array([0.5, 0.3, 0.2])
    assert est.estimate[4] == pytest.approx((w[:, None] * est.estimate[:3]).sum(axis=0))
    assert est.se[4] ** 2 == pytest.approx((w[:, None] ** 2 * est.se[:3] ** 2).sum(axis=0))


def test_a_slice_without_an_audited_question_is_refused_with_the_fix() -> None:
    judged = np.array([[0.1, 0.2, 0.3, 0.4]])
    audited = np.array([True, True, False, False])
    with pytest.raises(UserError, match="no audited question.*people grade"):
        ppi.corrected(judged, judged, audited, ["a", "a", "b", "b"], ["v"])


def test_audit_advice_sends_audits_where_they_narrow_the_headline_most() -> None:
    rng = np.random.default_rng(8)
    n = 400
    strata = np.array(["noisy"] * 200 + ["clean"] * 200, dtype=object)
    human = rng.random(n)
    judged = human.copy()
    judged[:200] = np.clip(human[:200] + rng.normal(0, 0.4, 200), 0, 1)  # a poor judge there
    audited = np.zeros(n, dtype=bool)
    audited[rng.choice(200, 20, replace=False)] = True
    audited[200 + rng.choice(200, 20, replace=False)] = True
    est = ppi.corrected(judged[None], human[None], audited, strata, ["v"], weights=None)
    plan, before, after = ppi.audit_advice(est, 0, "all", target=0.03)
    assert after <= 0.03 < before
    assert plan["noisy"] > 2 * plan.get("clean", 0)  # the poor judge's slice first
    # the promised half-width is about what those audits give
    more = audited.copy()
    for name, start in (("noisy", 0), ("clean", 200)):
        free = start + np.flatnonzero(~audited[start : start + 200])[: plan.get(name, 0)]
        more[free] = True
    redo = ppi.corrected(judged[None], human[None], more, strata, ["v"])
    assert redo.se[-1, 0] * 1.96 == pytest.approx(after, rel=0.25)
