"""Paired, stratified bootstrap: agreement with scipy, simulated error rates and power, the value
of pairing, stratification, weighting, corrections, sample size, and argument errors."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
import scipy.stats

from ragsweep.compare import stats
from ragsweep.errors import UserError

Z95 = NormalDist().inv_cdf(0.975)


def flip(base: np.ndarray, fix: float, brk: float, rng: np.random.Generator) -> np.ndarray:
    """A candidate that differs from a 0/1 baseline by one change: it fixes each baseline miss
    with probability `fix` and breaks each hit with probability `brk` (correlated systems)."""
    u = rng.random(base.shape)
    return np.where(base == 1, u >= brk, u < fix).astype(float)


def row(rows: list[stats.Comparison], candidate: str, stratum: str) -> stats.Comparison:
    (hit,) = [r for r in rows if r.candidate == candidate and r.stratum == stratum]
    return hit


# --- agreement with scipy.stats.bootstrap (one stratum) ----------------------------------------
def test_interval_agrees_with_scipy_paired_percentile_bootstrap() -> None:
    rng = np.random.default_rng(7)
    n = 80
    base = rng.beta(4, 1.5, n)  # nDCG-like continuous scores near 0.75
    cand = np.clip(base + rng.normal(0.03, 0.08, n), 0, 1)  # correlated with the baseline
    (mine,) = stats.paired_bootstrap(
        base, cand[None], ["all"] * n, ["cand"], correction="none", seed=1
    )
    ref = scipy.stats.bootstrap(
        (cand, base),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        paired=True,
        method="percentile",
        n_resamples=10_000,
        confidence_level=0.95,
        rng=np.random.default_rng(2),
    ).confidence_interval
    width = ref.high - ref.low
    assert mine.stratum == "all" and mine.n == n
    assert mine.delta == pytest.approx(np.mean(cand - base), abs=1e-15)
    assert abs(mine.ci_low - ref.low) < 0.1 * width
    assert abs(mine.ci_high - ref.high) < 0.1 * width
    assert (mine.ci_high - mine.ci_low) == pytest.approx(width, rel=0.1)


def test_bootstrap_sd_matches_the_paired_standard_error() -> None:
    """The resampled mean difference has sd = sd(d) / sqrt(n) (ddof 0) up to Monte-Carlo error."""
    rng = np.random.default_rng(3)
    base = rng.random(120)
    cand = base + rng.normal(0.02, 0.1, 120)
    strata = ["a"] * 50 + ["b"] * 70
    draws = stats.paired_resamples(base, cand[None], strata, ["c"], seed=4)
    sd = draws.resampled.std(axis=0, ddof=1)[:, 0]
    d = cand - base
    # rel. Monte-Carlo error of an sd from 10,000 resamples ~ 1/sqrt(2 * 10,000) = 0.7 %
    assert sd[0] == pytest.approx(stats.paired_se(cand[:50], base[:50]), rel=0.03)
    assert sd[1] == pytest.approx(stats.paired_se(cand[50:], base[50:]), rel=0.03)
    # "all" under stratified resampling: var = sum_s (n_s / n)^2 var_s(d) / n_s
    var_all = (50 / 120) ** 2 * d[:50].var() / 50 + (70 / 120) ** 2 * d[50:].var() / 70
    assert sd[2] == pytest.approx(math.sqrt(var_all), rel=0.03)


# --- simulations: error rate under no difference, power for a real gain -----------------------
SLICES = 5
PER_SLICE = 80
DATASETS = 200
SIM_STRATA = np.repeat([f"s{i}" for i in range(SLICES)], PER_SLICE)


def simulate(fix: float, brk: float, seed: int) -> list[stats.Comparison]:
    """DATASETS independent data sets: baseline recall Bernoulli(0.8) per question, candidate
    from `flip`; 2,000 resamples each, no correction (one candidate)."""
    rng = np.random.default_rng(seed)
    base = (rng.random((DATASETS, SLICES * PER_SLICE)) < 0.8).astype(float)
    cand = flip(base, fix, brk, rng)
    rows: list[stats.Comparison] = []
    for d in range(DATASETS):
        rows += stats.paired_bootstrap(
            base[d], cand[d][None], SIM_STRATA, ["c"], n_resamples=2000, seed=d, correction="none"
        )
    return rows


def test_equal_systems_are_declared_better_at_most_at_the_nominal_rate() -> None:
    # fixes 0.4 x 20 % of questions, breaks 0.1 x 80 %: both recall 0.8 in expectation
    rows = simulate(fix=0.4, brk=0.1, seed=11)
    per_slice = [r for r in rows if r.stratum.startswith("s")]  # 1,000 independent tests
    overall = [r for r in rows if r.stratum == "all"]  # 200
    nominal = 0.025  # one side of a 95 % interval
    for group in (per_slice, overall):
        m = len(group)
        tolerance = 3 * math.sqrt(nominal * (1 - nominal) / m)
        better = sum(r.verdict == "better" for r in group) / m
        worse = sum(r.verdict == "worse" for r in group) / m
        assert better <= nominal + tolerance
        assert worse <= nominal + tolerance
    assert len(per_slice) == SLICES * DATASETS


def test_a_real_gain_of_a_tenth_on_80_questions_is_found() -> None:
    # fixes 0.525 x 20 % = 10.5 % of questions, breaks 0.00625 x 80 % = 0.5 %: gain 0.10
    fix, brk = 0.525, 0.00625
    rows = [r for r in simulate(fix, brk, seed=12) if r.stratum.startswith("s")]
    power = sum(r.verdict == "better" for r in rows) / len(rows)
    # normal approximation: per-question difference +1 w.p. a, -1 w.p. b
    a, b = 0.2 * fix, 0.8 * brk
    sd = math.sqrt(a + b - (a - b) ** 2)
    expected = NormalDist().cdf((a - b) * math.sqrt(PER_SLICE) / sd - Z95)
    assert expected > 0.8
    assert power >= 0.8
    assert power >= expected - 3 * math.sqrt(expected * (1 - expected) / len(rows))
    # the same data compared unpaired would have a standard error of about 0.057: power ~ 0.4
    assert sum(r.verdict == "worse" for r in rows) == 0


# --- why pairing matters --------------------------------------------------------------------
def test_paired_interval_is_much_narrower_than_the_unpaired_standard_error_says() -> None:
    n = 80
    base = np.array([1.0] * 64 + [0.0] * 16)  # recall 0.8
    cand = base.copy()
    cand[[0, 1]] = 0.0  # breaks two questions ...
    cand[[64, 65]] = 1.0  # ... and fixes two others: recall 0.8, strongly correlated
    one = stats.standard_error(base)
    assert one == pytest.approx(math.sqrt(0.8 * 0.2 / n), rel=1e-12)
    assert round(one, 4) == 0.0447  # "about 0.045"
    unpaired = stats.unpaired_se(cand, base)
    assert unpaired == pytest.approx(math.sqrt(2) * one, rel=1e-12)
    assert stats.paired_se(cand, base) == pytest.approx(math.sqrt(4 / n) / math.sqrt(n))

    draws = stats.paired_resamples(base, cand[None], ["limits"] * n, ["c"], seed=5)
    (res, _all) = stats.resolution(draws, correction="none")
    assert res.stratum == "limits"
    assert res.half_width < 0.5 * Z95 * unpaired
    assert res.half_width < Z95 * one  # narrower even than one system's own interval


# --- determinism, order, stratification -------------------------------------------------------
def small_data() -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(21)
    base = rng.random(60)
    cands = np.stack([base + rng.normal(m, 0.1, 60) for m in (0.0, 0.05, -0.05)])
    strata = ["b"] * 20 + ["a"] * 25 + ["b"] * 15
    return base, cands, strata


def test_same_seed_gives_identical_bits_and_another_seed_does_not() -> None:
    base, cands, strata = small_data()
    one = stats.paired_resamples(base, cands, strata, ["x", "y", "z"], seed=0)
    two = stats.paired_resamples(base, cands, strata, ["x", "y", "z"], seed=0)
    other = stats.paired_resamples(base, cands, strata, ["x", "y", "z"], seed=1)
    assert one.resampled.tobytes() == two.resampled.tobytes()
    assert stats.compare(one) == stats.compare(two)
    assert not np.array_equal(one.resampled, other.resampled)
    # the draws do not depend on the other candidates: y alone gets the same distribution (up to
    # rounding: BLAS sums a one-column product in another order)
    alone = stats.paired_resamples(base, cands[1:2], strata, ["y"], seed=0)
    np.testing.assert_allclose(alone.resampled[..., 0], one.resampled[..., 1], rtol=0, atol=1e-15)


def test_rows_are_candidate_major_and_strata_in_order_of_first_appearance() -> None:
    base, cands, strata = small_data()
    rows = stats.paired_bootstrap(
        base, cands, strata, ["x", "y", "z"], weights={"a": 1, "b": 1}, n_resamples=1000
    )
    assert [(r.candidate, r.stratum) for r in rows] == [
        (c, s) for c in ("x", "y", "z") for s in ("b", "a", "all", "weighted")
    ]
    assert [r.n for r in rows[:4]] == [35, 25, 60, 60]
    frame = stats.to_frame(rows)
    assert frame["delta"].tolist() == [r.delta for r in rows]


def test_a_stratum_resamples_only_its_own_questions() -> None:
    # stratum "up": every delta is +0.25; stratum "down": every delta is -0.5 (exact in binary)
    base = np.array([0.0, 0.25, 0.5, 0.75, 0.25, 0.5, 0.75, 1.0, 0.5])
    cand = base + np.array([0.25] * 4 + [-0.5] * 5)
    strata = ["up"] * 4 + ["down"] * 5
    draws = stats.paired_resamples(base, cand[None], strata, ["c"], n_resamples=2000)
    rows = stats.compare(draws, correction="none")
    up, down, every = rows
    assert (up.ci_low, up.delta, up.ci_high) == (0.25, 0.25, 0.25)
    assert (down.ci_low, down.delta, down.ci_high) == (-0.5, -0.5, -0.5)
    assert (up.verdict, down.verdict) == ("better", "worse")
    # strata keep their sizes in every resample, so the overall mean cannot move either
    assert every.ci_low == every.ci_high == pytest.approx((4 * 0.25 - 5 * 0.5) / 9, abs=1e-15)
    assert up.p_value == 0.0 and down.p_value == 0.0


def test_a_single_slice_named_all_is_not_repeated() -> None:
    base, cands, _ = small_data()
    draws = stats.paired_resamples(base, cands[:1], ["all"] * 60, ["x"], n_resamples=1000)
    assert draws.strata == ("all",)
    weighted = stats.paired_resamples(
        base, cands[:1], ["all"] * 60, ["x"], weights={"all": 2}, n_resamples=1000
    )
    assert weighted.strata == ("all", "weighted")
    np.testing.assert_array_equal(weighted.resampled[:, 0], weighted.resampled[:, 1])


# --- the traffic-weighted headline ------------------------------------------------------------
def test_weighted_row_is_the_weighted_mean_of_slice_means() -> None:
    base, cands, strata = small_data()
    raw = {"a": 3.0, "b": 1.0, "unused": 5.0}  # normalised over the slices present: 3/4, 1/4
    draws = stats.paired_resamples(base, cands, strata, ["x", "y", "z"], weights=raw, seed=2)
    assert draws.strata == ("b", "a", "all", "weighted")
    assert draws.weights == {"b": 0.25, "a": 0.75}
    is_a = np.array(strata) == "a"
    for j in range(3):
        d = cands[j] - base
        want = 0.75 * d[is_a].mean() + 0.25 * d[~is_a].mean()
        assert draws.delta[3, j] == pytest.approx(want, abs=1e-15)
        assert draws.delta[3, j] == pytest.approx(
            0.75 * draws.delta[1, j] + 0.25 * draws.delta[0, j], abs=1e-15
        )
        assert draws.value[3, j] == pytest.approx(
            0.75 * cands[j][is_a].mean() + 0.25 * cands[j][~is_a].mean(), abs=1e-15
        )
        assert draws.delta[2, j] == pytest.approx(d.mean(), abs=1e-15)  # "all": plain mean
    assert draws.baseline[3] == pytest.approx(
        0.75 * base[is_a].mean() + 0.25 * base[~is_a].mean(), abs=1e-15
    )
    # recomputed inside every resample, not only at the point estimate
    np.testing.assert_allclose(
        draws.resampled[:, 3],
        0.75 * draws.resampled[:, 1] + 0.25 * draws.resampled[:, 0],
        rtol=0,
        atol=1e-15,
    )
    np.testing.assert_allclose(
        draws.resampled[:, 2],
        (35 * draws.resampled[:, 0] + 25 * draws.resampled[:, 1]) / 60,
        rtol=0,
        atol=1e-15,
    )


# --- intervals, p-values, corrections ---------------------------------------------------------
def test_none_gives_the_plain_percentile_interval_and_bonferroni_widens_it() -> None:
    base, cands, strata = small_data()
    draws = stats.paired_resamples(base, cands, strata, ["x", "y", "z"], seed=3)
    plain = stats.compare(draws, correction="none")
    wide = stats.compare(draws, correction="bonferroni")
    lo, hi = np.quantile(draws.resampled, [0.025, 0.975], axis=0)
    wlo, whi = np.quantile(draws.resampled, [0.05 / 6, 1 - 0.05 / 6], axis=0)
    for i, (p, w) in enumerate(zip(plain, wide, strict=True)):
        j, r = divmod(i, len(draws.strata))
        assert (p.ci_low, p.ci_high) == pytest.approx((lo[r, j], hi[r, j]), abs=1e-15)
        assert p.level == 0.95
        assert (w.ci_low, w.ci_high) == pytest.approx((wlo[r, j], whi[r, j]), abs=1e-15)
        assert w.level == pytest.approx(1 - 0.05 / 3)
        assert w.ci_low < p.ci_low and w.ci_high > p.ci_high
        assert w.p_value == p.p_value and w.p_adjusted == min(1.0, 3 * p.p_value)
        assert p.p_adjusted == p.p_value
    # one candidate: Bonferroni changes nothing
    one = stats.paired_resamples(base, cands[:1], strata, ["x"], seed=3)
    assert stats.compare(one, correction="bonferroni") == stats.compare(one, correction="none")


def test_bootstrap_p_counts_the_other_side_of_zero() -> None:
    res = np.array([[-1.0], [0.0], [1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    # delta > 0: 2 of 8 resamples at or below 0 -> p = 2 x 2/8
    assert stats.bootstrap_p(res, np.array([2.5])).tolist() == [0.5]
    # delta < 0: 7 of 8 at or above 0 -> 2 x 7/8, capped at 1
    assert stats.bootstrap_p(res, np.array([-0.5])).tolist() == [1.0]
    assert stats.bootstrap_p(res, np.array([0.0])).tolist() == [1.0]
    assert stats.bootstrap_p(np.arange(1.0, 11.0)[:, None], np.array([3.0])).tolist() == [0.0]


def holm_by_hand(p: list[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure as written in textbooks: reject in order of p until a failure."""
    m = len(p)
    reject = [False] * m
    for step, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        if p[i] >= alpha / (m - step):
            break
        reject[i] = True
    return reject


def test_holm_adjustment_matches_the_step_down_procedure() -> None:
    rng = np.random.default_rng(8)
    for _ in range(200):
        p = np.round(rng.random(5) ** 3, 3)  # small values and ties
        adjusted = stats.holm(p)
        assert (adjusted >= p).all() and (adjusted <= np.minimum(1, 5 * p)).all()
        assert [bool(a < 0.05) for a in adjusted] == holm_by_hand(p.tolist(), 0.05)
    assert stats.holm(np.array([0.01, 0.04, 0.03, 0.5])).tolist() == pytest.approx(
        [0.04, 0.09, 0.09, 0.5]
    )


def test_holm_verdicts_use_adjusted_p_and_are_monotone_in_p() -> None:
    rng = np.random.default_rng(10)
    n = 80
    base = (rng.random(n) < 0.75).astype(float)
    cands = np.stack([flip(base, f, 0.02, rng) for f in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)])
    names = [f"fix{f}" for f in range(6)]
    draws = stats.paired_resamples(base, cands, ["limits"] * n, names, seed=10)
    rows = [r for r in stats.compare(draws, correction="holm") if r.stratum == "limits"]
    plain = [r for r in stats.compare(draws, correction="none") if r.stratum == "limits"]
    bonf = [r for r in stats.compare(draws, correction="bonferroni") if r.stratum == "limits"]
    assert {r.verdict for r in rows} == {"better", "noise"}  # the data make the test bite:
    assert any(r.p_value < 0.05 <= r.p_adjusted for r in rows)  # one gain Holm does not accept
    for h, p in zip(rows, plain, strict=True):
        assert (h.ci_low, h.ci_high, h.level) == (p.ci_low, p.ci_high, 0.95)  # unadjusted
        assert h.verdict == ("better" if h.p_adjusted < 0.05 else "noise")
    significant = [r.verdict != "noise" for r in sorted(rows, key=lambda r: r.p_value)]
    assert significant == sorted(significant, reverse=True)  # a prefix in order of p
    # Holm finds at least what Bonferroni finds, and nothing that no correction misses
    for h, p, b in zip(rows, plain, bonf, strict=True):
        assert b.verdict == "noise" or h.verdict == b.verdict
        assert h.verdict == "noise" or p.verdict == h.verdict


# --- resolution and sample size -------------------------------------------------------------
def test_questions_needed_formula() -> None:
    # n' = n (z sd / gap)^2 = 80 x (1.959964 x 0.05 / 0.02)^2 = 1920.7... -> 1921
    assert stats.questions_needed(0.05, 80, 0.02, 0.95) == math.ceil(80 * (Z95 * 2.5) ** 2)
    assert stats.questions_needed(0.05, 80, 0.02, 0.95) == 1921
    # halving the gap needs four times the questions
    assert stats.questions_needed(0.05, 80, 0.01) == math.ceil(80 * (Z95 * 5) ** 2)
    assert stats.questions_needed(0.0, 80) == 1


def test_resolution_half_width_and_questions_needed_are_consistent() -> None:
    rng = np.random.default_rng(13)
    n = 200
    base = rng.random(n)
    cand = base + rng.normal(0.01, 0.15, n)
    draws = stats.paired_resamples(base, cand[None], ["a"] * 80 + ["b"] * 120, ["c"], seed=6)
    plain = stats.compare(draws, correction="none")
    res = stats.resolution(draws, correction="none", target_gap=0.02)
    for r, p in zip(res, plain, strict=True):
        assert r.half_width == pytest.approx((p.ci_high - p.ci_low) / 2, abs=1e-15)
        assert r.half_width == pytest.approx(Z95 * r.sd, rel=0.05)  # near-normal data
        assert r.questions_needed == stats.questions_needed(r.sd, r.n, 0.02, 0.95)
        assert r.resolves == (r.half_width <= 0.02)
        # asking for today's half-width needs about today's questions
        assert stats.questions_needed(r.sd, r.n, r.half_width) == pytest.approx(r.n, rel=0.1)
    a = res[0]
    assert a.stratum == "a" and a.n == 80 and not a.resolves
    assert a.questions_needed == pytest.approx(80 * (a.half_width / 0.02) ** 2, rel=0.1)
    # Bonferroni: the resolution follows the widened interval the report shows
    wide = stats.resolution(
        stats.paired_resamples(
            base, np.stack([cand, cand]), ["a"] * 80 + ["b"] * 120, ["c", "d"], seed=6
        ),
        correction="bonferroni",
    )
    assert wide[0].level == pytest.approx(1 - 0.05 / 2)
    assert wide[0].half_width > a.half_width
    assert wide[0].questions_needed > a.questions_needed


# --- errors ---------------------------------------------------------------------------------
GOOD = dict(base=np.zeros(4), cands=np.ones((1, 4)), strata=["a", "a", "b", "b"], names=["c"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"correction": "sidak"}, "unknown correction 'sidak'"),
        ({"n_resamples": 999}, "n_resamples must be an integer >= 1000"),
        ({"n_resamples": 5000.0}, "n_resamples must be an integer"),
        ({"level": 0.0}, "level must be a number strictly between 0 and 1"),
        ({"level": 1.0}, "strictly between 0 and 1"),
        ({"level": 95}, "strictly between 0 and 1"),
        ({"seed": -1}, "seed must be a non-negative integer"),
        ({"seed": None}, "seed must be a non-negative integer"),
        ({"weights": {"a": 1.0}}, "no entry for slice(s) b"),
        ({"weights": {"a": 1.0, "b": -1.0}}, "weight of slice 'b' must be finite and >= 0"),
        ({"weights": {"a": 0, "b": 0}}, "all 0"),
        ({"names": ["c", "d"]}, "names must be 1 non-empty strings"),
        ({"cands": np.ones(4)}, "candidate scores must have shape (candidates, 4)"),
        ({"cands": np.ones((1, 3))}, "candidate scores must have shape (candidates, 4)"),
        ({"base": np.array([0, 0, np.nan, 0])}, "scores must be finite"),
        ({"base": np.zeros(0), "cands": np.zeros((1, 0)), "strata": []}, "non-empty"),
        ({"strata": ["a", "b"]}, "strata must be 4 slice names"),
        ({"strata": ["a", "weighted", "a", "a"]}, "reserved"),
        ({"strata": ["a", "all", "a", "a"]}, "reserved"),
    ],
)
def test_bad_arguments_raise_user_errors(change: dict, message: str) -> None:
    args = {**GOOD, **change}
    with pytest.raises(UserError) as err:
        stats.paired_bootstrap(
            args.pop("base"), args.pop("cands"), args.pop("strata"), args.pop("names"), **args
        )
    assert message in str(err.value)


def test_more_argument_errors() -> None:
    with pytest.raises(UserError, match="must be distinct"):
        stats.paired_bootstrap(np.zeros(2), np.ones((2, 2)), ["a", "a"], ["c", "c"])
    with pytest.raises(UserError, match="target_gap must be a positive number"):
        stats.questions_needed(0.05, 80, target_gap=0)
    with pytest.raises(UserError, match="same questions"):
        stats.paired_se(np.zeros(3), np.zeros(4))
    draws = stats.paired_resamples(**GOOD, n_resamples=1000)
    with pytest.raises(UserError, match="unknown correction"):
        stats.resolution(draws, correction="Holm")
    with pytest.raises(UserError, match="strictly between"):
        stats.compare(draws, level=1.5)
