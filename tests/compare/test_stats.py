"""Paired intervals: the formula by hand (Agresti-Min for hit/miss), agreement with scipy's
Student-t where the floor is negligible, no zero width, coverage by simulation against known
truths (small slices, the weighted row, a Bonferroni family), error rates and power, pairing,
stratification, weighting, corrections, sample size, and argument errors."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from ragsweep.compare import stats
from ragsweep.errors import UserError

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
import interval_coverage as coverage  # noqa: E402  (benchmarks/ is a folder of scripts)

T79 = scipy.stats.t.ppf(0.975, 79)


def flip(base: np.ndarray, fix: float, brk: float, rng: np.random.Generator) -> np.ndarray:
    """A candidate that differs from a 0/1 baseline by one change: it fixes each baseline miss
    with probability `fix` and breaks each hit with probability `brk` (correlated systems)."""
    u = rng.random(base.shape)
    return np.where(base == 1, u >= brk, u < fix).astype(float)


def row(rows: list[stats.Comparison], candidate: str, stratum: str) -> stats.Comparison:
    (hit,) = [r for r in rows if r.candidate == candidate and r.stratum == stratum]
    return hit


# --- the formula ------------------------------------------------------------------------------
def _hit_miss(won: int, lost: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    base = np.array([0.0] * won + [1.0] * lost + [1.0] * (n - won - lost))
    cand = np.array([1.0] * won + [0.0] * lost + [1.0] * (n - won - lost))
    return base, cand


def test_few_disagreements_get_agresti_and_mins_interval_with_a_t_quantile() -> None:
    # 20 questions: 1 won, 0 lost, 19 tied. Agresti & Min (2005) add 0.5 to each cell of the
    # paired 2x2 table: n~ = 22, p~12 = 1.5/22, p~21 = 0.5/22, centre = p~12 - p~21,
    # var = [(p~12 + p~21) - (p~12 - p~21)^2] / n~ (wider than Student-t's here)
    base, cand = _hit_miss(1, 0, 20)
    (r,) = stats.paired_comparison(base, cand[None], ["all"] * 20, ["c"], correction="none")
    p12, p21 = 1.5 / 22, 0.5 / 22
    centre = p12 - p21
    se = math.sqrt(((p12 + p21) - (p12 - p21) ** 2) / 22)
    assert se > (cand - base).std(ddof=1) / math.sqrt(20)
    half = scipy.stats.t.ppf(0.975, 19) * se
    assert r.delta == pytest.approx(1 / 20, abs=1e-15)  # the data's own difference
    assert (r.ci_low, r.ci_high) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert r.p_value == pytest.approx(2 * scipy.stats.t.sf(centre / se, 19), rel=1e-9)
    assert r.verdict == "noise"


def test_more_disagreements_get_at_least_student_ts_width() -> None:
    # 3 won, 1 lost of 20: Student-t's standard error (ddof 1) exceeds Agresti-Min's here, and
    # the interval is never narrower than Student-t's; its centre is still shrunk by 20/22
    base, cand = _hit_miss(3, 1, 20)
    assert stats.paired_differences(base, cand[None], ["all"] * 20, ["c"]).disputed[0, 0] == 4
    (r,) = stats.paired_comparison(base, cand[None], ["all"] * 20, ["c"], correction="none")
    d = cand - base
    se = d.std(ddof=1) / math.sqrt(20)
    centre = d.sum() / 22
    half = scipy.stats.t.ppf(0.975, 19) * se
    assert (r.ci_low, r.ci_high) == pytest.approx((centre - half, centre + half), abs=1e-12)


def test_agrees_with_scipys_paired_t_interval_when_the_slice_is_large() -> None:
    rng = np.random.default_rng(7)
    n = 2000
    base = rng.beta(4, 1.5, n)  # nDCG-like continuous scores near 0.75
    cand = np.clip(base + rng.normal(0.03, 0.08, n), 0, 1)
    (mine,) = stats.paired_comparison(base, cand[None], ["all"] * n, ["cand"], correction="none")
    ref = scipy.stats.ttest_rel(cand, base).confidence_interval(0.95)
    width = ref.high - ref.low
    assert mine.delta == pytest.approx(np.mean(cand - base), abs=1e-15)
    # the two pseudo-questions move 2000 questions' interval by about 2/2000 of its size
    assert abs(mine.ci_low - ref.low) < 0.01 * width
    assert abs(mine.ci_high - ref.high) < 0.01 * width
    assert mine.verdict == "better"


def test_the_weighted_row_is_the_stratified_welch_t_when_the_floor_is_negligible() -> None:
    rng = np.random.default_rng(3)
    sizes = {"a": 900, "b": 1500}
    strata = np.repeat(list(sizes), list(sizes.values()))
    base = rng.random(strata.size)
    cand = base + rng.normal(0.02, 0.1, strata.size) * np.where(strata == "a", 1.0, 2.0)
    diffs = stats.paired_differences(base, cand[None], strata, ["c"], weights={"a": 3, "b": 1})
    d = cand - base
    w = {"a": 0.75, "b": 0.25}
    parts = [w[s] ** 2 * d[strata == s].var(ddof=1) / sizes[s] for s in sizes]
    df = sum(parts) ** 2 / sum(p**2 / (sizes[s] - 1) for p, s in zip(parts, sizes, strict=True))
    r = diffs.strata.index("weighted")
    assert diffs.se[r, 0] == pytest.approx(math.sqrt(sum(parts)), rel=1e-12)
    assert diffs.df[r, 0] == pytest.approx(df, rel=1e-12)
    want = 0.75 * d[strata == "a"].mean() + 0.25 * d[strata == "b"].mean()
    assert diffs.delta[r, 0] == pytest.approx(want, abs=1e-15)
    n_eff = 1 / (0.75**2 / 900 + 0.25**2 / 1500)
    assert diffs.centre[r, 0] == pytest.approx(want * n_eff / (n_eff + 2), rel=1e-12)


# --- no zero-width interval -----------------------------------------------------------------
def test_a_slice_where_no_question_differs_still_has_an_honest_interval() -> None:
    base = np.array([1.0] * 18 + [0.0] * 2)  # recall 0.9 on 20 questions, the same for both
    rows = stats.paired_comparison(base, base[None], ["all"] * 20, ["c"], correction="none")
    (r,) = rows
    assert r.delta == 0.0 and r.p_value == 1.0 and r.verdict == "noise"
    # a disagreement of size 1 (no disagreement to measure it by): Agresti-Min's interval for
    # 0 discordant pairs of 20, [-t sqrt(1/22) / sqrt(22), +...] = +-0.095
    half = scipy.stats.t.ppf(0.975, 19) * math.sqrt(1 / 22) / math.sqrt(22)
    assert (r.ci_low, r.ci_high) == pytest.approx((-half, half), abs=1e-12)
    assert 0.09 < half < 0.1
    diffs = stats.paired_differences(base, base[None], ["all"] * 20, ["c"])
    assert diffs.disputed.tolist() == [[0]] and diffs.scale.tolist() == [1.0]
    (res,) = stats.resolution(diffs, target_gap=0.02, correction="none")
    assert not res.resolves and res.half_width == pytest.approx(half, abs=1e-12)
    assert res.questions_needed == stats.questions_needed(res.sd, 20, 0.02) > 300  # never "1"
    # one question lost then no longer "excludes" a true +0.05
    lost = base.copy()
    lost[0] = 0.0
    (one,) = stats.paired_comparison(base, lost[None], ["all"] * 20, ["c"], correction="none")
    assert one.ci_low < -0.05 < 0.05 < one.ci_high


def test_intervals_stay_within_the_possible_differences() -> None:
    base = np.zeros(3)
    cand = np.ones(3)
    (r,) = stats.paired_comparison(base, cand[None], ["all"] * 3, ["c"], correction="none")
    assert -1.0 <= r.ci_low < r.ci_high <= 1.0 and r.delta == 1.0
    assert r.ci_high == 1.0  # clipped: a difference of two scores in [0, 1] cannot exceed 1


# --- coverage against known truths (benchmarks/interval_coverage.py: the full table) ----------
def _coverage_of(name: str, trials: int) -> dict[str, float]:
    (case,) = [c for c in coverage._cases() if c.name == name]
    return coverage.run_case(case, coverage._ragsweep, trials, seed=1)


@pytest.mark.parametrize(
    ("case", "rows"),
    [
        ("recall@5 ~0.9, 20/slice, gap +0.05", ("slice", "all")),
        ("recall@5 ~0.5, 20/slice, independent", ("slice", "all")),
        ("nDCG@10, 20/slice, independent", ("slice", "all")),
        ("weighted headline ~0.9, 20/slice", ("slice", "all", "weighted")),
    ],
)
def test_intervals_cover_the_truth_on_20_question_slices(case: str, rows: tuple) -> None:
    """300 samples of 5 slices x 20 questions: each row's 95% interval covers the population's
    exact difference at least 93% of the time (the old percentile bootstrap: 72-93%)."""
    got = _coverage_of(case, 300)
    for kind in rows:
        # 3 standard errors of a 95% coverage measured on 300 x 5 slices (or 300 rows)
        assert got[kind] >= 0.93 - (0.012 if kind == "slice" else 0.025), (kind, got)
        assert got[kind] <= 0.995 if kind != "slice" else True


def test_the_bonferroni_family_of_three_covers_jointly() -> None:
    got = _coverage_of("3 candidates (Bonferroni), ~0.5, 20/slice", 300)
    for kind in ("slice family", "all family", "weighted family"):
        assert got[kind] >= 0.95 - 0.035, (kind, got)  # 3 standard errors at 300 trials


# --- error rates and power --------------------------------------------------------------------
SLICES = 5
PER_SLICE = 80
DATASETS = 200
SIM_STRATA = np.repeat([f"s{i}" for i in range(SLICES)], PER_SLICE)


def simulate(fix: float, brk: float, seed: int) -> list[stats.Comparison]:
    """DATASETS independent data sets: baseline recall Bernoulli(0.8) per question, candidate
    from `flip`, no correction (one candidate)."""
    rng = np.random.default_rng(seed)
    base = (rng.random((DATASETS, SLICES * PER_SLICE)) < 0.8).astype(float)
    cand = flip(base, fix, brk, rng)
    rows: list[stats.Comparison] = []
    for d in range(DATASETS):
        rows += stats.paired_comparison(
            base[d], cand[d][None], SIM_STRATA, ["c"], correction="none"
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
    # normal approximation: per-question difference +1 w.p. a, -1 w.p. b, t quantile
    a, b = 0.2 * fix, 0.8 * brk
    sd = math.sqrt(a + b - (a - b) ** 2)
    expected = scipy.stats.norm.cdf((a - b) * math.sqrt(PER_SLICE) / sd - T79)
    assert 0.79 < expected < 0.8
    assert power >= 0.78
    # the pseudo-questions cost a little power on 80 questions (centre shrunk by 80/82)
    assert power >= expected - 0.04 - 3 * math.sqrt(expected * (1 - expected) / len(rows))
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

    diffs = stats.paired_differences(base, cand[None], ["limits"] * n, ["c"])
    (res, _all) = stats.resolution(diffs, correction="none")
    assert res.stratum == "limits"
    assert res.half_width < 0.5 * 1.96 * unpaired
    assert res.half_width < 1.96 * one  # narrower even than one system's own interval


# --- determinism, order, stratification -------------------------------------------------------
def small_data() -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(21)
    base = rng.random(60)
    cands = np.stack([base + rng.normal(m, 0.1, 60) for m in (0.0, 0.05, -0.05)])
    strata = ["b"] * 20 + ["a"] * 25 + ["b"] * 15
    return base, cands, strata


def test_same_inputs_give_identical_bits_whatever_the_other_candidates() -> None:
    base, cands, strata = small_data()
    one = stats.paired_differences(base, cands, strata, ["x", "y", "z"], weights={"a": 1, "b": 2})
    two = stats.paired_differences(base, cands, strata, ["x", "y", "z"], weights={"a": 1, "b": 2})
    for field in ("delta", "centre", "se", "df"):
        assert getattr(one, field).tobytes() == getattr(two, field).tobytes()
    assert stats.compare(one) == stats.compare(two)
    # a candidate's interval depends on its own scores only: y alone gets the same numbers
    alone = stats.paired_differences(base, cands[1:2], strata, ["y"], weights={"a": 1, "b": 2})
    for field in ("delta", "centre", "se", "df"):  # up to the order of a sum's rounding
        np.testing.assert_allclose(getattr(alone, field)[:, 0], getattr(one, field)[:, 1], 1e-14)


def test_rows_are_candidate_major_and_strata_in_order_of_first_appearance() -> None:
    base, cands, strata = small_data()
    rows = stats.paired_comparison(base, cands, strata, ["x", "y", "z"], weights={"a": 1, "b": 1})
    assert [(r.candidate, r.stratum) for r in rows] == [
        (c, s) for c in ("x", "y", "z") for s in ("b", "a", "all", "weighted")
    ]
    assert [r.n for r in rows[:4]] == [35, 25, 60, 60]
    frame = stats.to_frame(rows)
    assert frame["delta"].tolist() == [r.delta for r in rows]


def test_a_stratum_uses_only_its_own_questions() -> None:
    # stratum "up": every delta is +0.25; stratum "down": every delta is -0.5 (exact in binary)
    base = np.array([0.0, 0.25, 0.5, 0.75, 0.25, 0.5, 0.75, 1.0, 0.5])
    cand = base + np.array([0.25] * 4 + [-0.5] * 5)
    strata = ["up"] * 4 + ["down"] * 5
    diffs = stats.paired_differences(base, cand[None], strata, ["c"])
    up, down, every = stats.compare(diffs, correction="none")
    assert (up.delta, down.delta) == (0.25, -0.5)
    # each slice's interval is its own questions' (constant differences) plus the floor
    assert diffs.centre[0, 0] == pytest.approx(1.0 / 6, abs=1e-15)  # 4 x 0.25 / (4 + 2)
    assert diffs.centre[1, 0] == pytest.approx(-2.5 / 7, abs=1e-15)  # 5 x -0.5 / (5 + 2)
    assert up.ci_low < up.delta < up.ci_high and down.ci_low < down.delta < down.ci_high
    assert every.delta == pytest.approx((4 * 0.25 - 5 * 0.5) / 9, abs=1e-15)
    # 4 questions that all differ by +0.25 are not enough to exclude 0 honestly; 40 are
    assert up.verdict == "noise"
    many = np.tile(base[:4], 10)
    (big,) = stats.paired_comparison(many, (many + 0.25)[None], ["all"] * 40, ["c"])
    assert big.verdict == "better" and big.ci_low > 0.15


def test_a_single_slice_named_all_is_not_repeated() -> None:
    base, cands, _ = small_data()
    diffs = stats.paired_differences(base, cands[:1], ["all"] * 60, ["x"])
    assert diffs.strata == ("all",)
    weighted = stats.paired_differences(base, cands[:1], ["all"] * 60, ["x"], weights={"all": 2})
    assert weighted.strata == ("all", "weighted")
    np.testing.assert_array_equal(weighted.delta[0], weighted.delta[1])
    np.testing.assert_allclose(weighted.se[0], weighted.se[1], rtol=1e-12)


# --- the traffic-weighted headline ------------------------------------------------------------
def test_weighted_row_is_the_weighted_mean_of_slice_means() -> None:
    base, cands, strata = small_data()
    raw = {"a": 3.0, "b": 1.0, "unused": 5.0}  # normalised over the slices present: 3/4, 1/4
    diffs = stats.paired_differences(base, cands, strata, ["x", "y", "z"], weights=raw)
    assert diffs.strata == ("b", "a", "all", "weighted")
    assert diffs.weights == {"b": 0.25, "a": 0.75}
    is_a = np.array(strata) == "a"
    for j in range(3):
        d = cands[j] - base
        want = 0.75 * d[is_a].mean() + 0.25 * d[~is_a].mean()
        assert diffs.delta[3, j] == pytest.approx(want, abs=1e-15)
        assert diffs.value[3, j] == pytest.approx(
            0.75 * cands[j][is_a].mean() + 0.25 * cands[j][~is_a].mean(), abs=1e-15
        )
        assert diffs.delta[2, j] == pytest.approx(d.mean(), abs=1e-15)  # "all": plain mean
        # the weighted row's standard error is never below the stratified one's
        plain = 0.75**2 * d[is_a].var(ddof=1) / 25 + 0.25**2 * d[~is_a].var(ddof=1) / 35
        assert diffs.se[3, j] >= math.sqrt(plain) * (1 - 1e-12)
    assert diffs.baseline[3] == pytest.approx(
        0.75 * base[is_a].mean() + 0.25 * base[~is_a].mean(), abs=1e-15
    )


# --- intervals, p-values, corrections ---------------------------------------------------------
def test_none_gives_the_plain_interval_and_bonferroni_widens_it() -> None:
    base, cands, strata = small_data()
    diffs = stats.paired_differences(base, cands, strata, ["x", "y", "z"])
    plain = stats.compare(diffs, correction="none")
    wide = stats.compare(diffs, correction="bonferroni")
    for i, (p, w) in enumerate(zip(plain, wide, strict=True)):
        j, r = divmod(i, len(diffs.strata))
        c, se, df = diffs.centre[r, j], diffs.se[r, j], diffs.df[r, j]
        h = scipy.stats.t.ppf(0.975, df) * se
        wh = scipy.stats.t.ppf(1 - 0.05 / 6, df) * se
        assert (p.ci_low, p.ci_high) == pytest.approx((c - h, c + h), abs=1e-12)
        assert p.level == 0.95
        assert (w.ci_low, w.ci_high) == pytest.approx((c - wh, c + wh), abs=1e-12)
        assert w.level == pytest.approx(1 - 0.05 / 3)
        assert w.ci_low < p.ci_low and w.ci_high > p.ci_high
        assert w.p_value == p.p_value and w.p_adjusted == min(1.0, 3 * p.p_value)
        assert p.p_adjusted == p.p_value
        # the p-value and the interval tell the same story
        assert (p.p_value < 0.05) == (p.ci_low > 0 or p.ci_high < 0)
        assert (w.p_adjusted < 0.05) == (w.verdict != "noise")
    one = stats.paired_differences(base, cands[:1], strata, ["x"])
    assert stats.compare(one, correction="bonferroni") == stats.compare(one, correction="none")


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
    diffs = stats.paired_differences(base, cands, ["limits"] * n, names)
    rows = [r for r in stats.compare(diffs, correction="holm") if r.stratum == "limits"]
    plain = [r for r in stats.compare(diffs, correction="none") if r.stratum == "limits"]
    bonf = [r for r in stats.compare(diffs, correction="bonferroni") if r.stratum == "limits"]
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
    z95 = scipy.stats.norm.ppf(0.975)
    # n' = n (z sd / gap)^2 = 80 x (1.959964 x 0.05 / 0.02)^2 = 1920.7... -> 1921
    assert stats.questions_needed(0.05, 80, 0.02, 0.95) == math.ceil(80 * (z95 * 2.5) ** 2)
    assert stats.questions_needed(0.05, 80, 0.02, 0.95) == 1921
    # halving the gap needs four times the questions
    assert stats.questions_needed(0.05, 80, 0.01) == math.ceil(80 * (z95 * 5) ** 2)
    assert stats.questions_needed(0.0, 80) == 2  # an interval needs two questions


def test_resolution_half_width_and_questions_needed_are_consistent() -> None:
    rng = np.random.default_rng(13)
    n = 200
    base = rng.random(n)
    cand = base + rng.normal(0.01, 0.15, n)
    strata = ["a"] * 80 + ["b"] * 120
    diffs = stats.paired_differences(base, cand[None], strata, ["c"])
    plain = stats.compare(diffs, correction="none")
    res = stats.resolution(diffs, correction="none", target_gap=0.02)
    for r, p in zip(res, plain, strict=True):
        assert r.half_width == pytest.approx((p.ci_high - p.ci_low) / 2, abs=1e-15)
        assert r.half_width == pytest.approx(1.96 * r.sd, rel=0.05)  # near-normal data
        assert r.questions_needed == stats.questions_needed(r.sd, r.n, 0.02, 0.95)
        assert r.resolves == (r.half_width <= 0.02)
        # asking for today's half-width needs about today's questions
        assert stats.questions_needed(r.sd, r.n, r.half_width) == pytest.approx(r.n, rel=0.1)
    a = res[0]
    assert a.stratum == "a" and a.n == 80 and not a.resolves
    assert a.questions_needed == pytest.approx(80 * (a.half_width / 0.02) ** 2, rel=0.1)
    # Bonferroni: the resolution follows the widened interval the report shows
    two = stats.paired_differences(base, np.stack([cand, cand]), strata, ["c", "d"])
    wide = stats.resolution(two, correction="bonferroni")
    assert wide[0].level == pytest.approx(1 - 0.05 / 2)
    assert wide[0].half_width > a.half_width
    assert wide[0].questions_needed > a.questions_needed


# --- errors ---------------------------------------------------------------------------------
GOOD = dict(base=np.zeros(4), cands=np.ones((1, 4)), strata=["a", "a", "b", "b"], names=["c"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"correction": "sidak"}, "unknown correction 'sidak'"),
        ({"level": 0.0}, "level must be a number strictly between 0 and 1"),
        ({"level": 1.0}, "strictly between 0 and 1"),
        ({"level": 95}, "strictly between 0 and 1"),
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
        stats.paired_comparison(
            args.pop("base"), args.pop("cands"), args.pop("strata"), args.pop("names"), **args
        )
    assert message in str(err.value)


def test_more_argument_errors() -> None:
    with pytest.raises(UserError, match="must be distinct"):
        stats.paired_comparison(np.zeros(2), np.ones((2, 2)), ["a", "a"], ["c", "c"])
    with pytest.raises(UserError, match="target_gap must be a positive number"):
        stats.questions_needed(0.05, 80, target_gap=0)
    with pytest.raises(UserError, match="same questions"):
        stats.paired_se(np.zeros(3), np.zeros(4))
    diffs = stats.paired_differences(**GOOD)
    with pytest.raises(UserError, match="unknown correction"):
        stats.resolution(diffs, correction="Holm")
    with pytest.raises(UserError, match="strictly between"):
        stats.compare(diffs, level=1.5)
