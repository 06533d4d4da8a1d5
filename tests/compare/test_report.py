"""The paired comparison report: a golden report from inline per-question frames (verdicts, guard
failure despite a better headline, the decision rule, RR on identifiers), refusals, renderers,
and `report_sweep` / `ragsweep report` on a real tiny sweep logged to MLflow."""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy.stats import t as student

from ragsweep.cli import main
from ragsweep.compare.build import build_report
from ragsweep.compare.files import write_report
from ragsweep.compare.format import signed
from ragsweep.compare.html import to_html
from ragsweep.compare.markdown import to_markdown
from ragsweep.compare.plot import forest_plot
from ragsweep.compare.report import BETTER, FAILS_GUARD, NOISE, WORSE, read_cells
from ragsweep.compare.runs import RunRecord, load_run_folder, sweep_report
from ragsweep.compare.summary import (
    HeldOut,
    config_metrics,
    decision_tag,
    decisions_line,
    summary_metrics,
    verdict_tag,
    with_heldout,
)
from ragsweep.compare.text import print_report
from ragsweep.conventions import sweep_measures
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from toy import TOY

WEIGHTS = {"limits": 0.5, "exclusions": 0.3, "identifiers": 0.2}
RECALL5, RR = Measure("recall", 5), Measure("RR")


# --- a golden report from inline frames -------------------------------------------------------
# limits: 20 questions, the baseline finds 10 (l00-l09) and misses 10 (l10-l19);
# exclusions: 20 questions, the baseline finds all; identifiers: 12 questions, all found, with
# reciprocal ranks 1, 1/2, 1/2, 1/3 (three times).
LIMITS = [f"l{i:02d}" for i in range(20)]
EXCL = [f"e{i:02d}" for i in range(20)]
IDS = [f"i{i:02d}" for i in range(12)]
BASE_RR_IDS = [1.0, 0.5, 0.5, 1 / 3] * 3


def frame(limits_hits: set[str], excl_misses: set[str], ids_rr: list[float]) -> pd.DataFrame:
    """Per-question scores: recall@5 1/0 per hit; RR = 1 on a hit outside identifiers."""
    rows = []
    for q in LIMITS:
        hit = float(q in limits_hits)
        rows.append((q, "limits", hit, hit))
    for q in EXCL:
        hit = float(q not in excl_misses)
        rows.append((q, "exclusions", hit, hit))
    for q, rr in zip(IDS, ids_rr, strict=True):
        rows.append((q, "identifiers", 1.0, rr))
    return pd.DataFrame(rows, columns=["qid", "slice", "recall@5", "RR"])


BASE_HITS = set(LIMITS[:10])
ALL_LIMITS = set(LIMITS)
FRAMES = {
    "better": frame(ALL_LIMITS, set(), BASE_RR_IDS),  # fixes the 10 misses
    "worse": frame(set(), set(), BASE_RR_IDS),  # breaks the 10 hits
    "guard_noise": frame(ALL_LIMITS, {"e00"}, BASE_RR_IDS),  # + one exclusion lost
    "guard_beyond": frame(ALL_LIMITS, set(EXCL[:10]), BASE_RR_IDS),  # + ten exclusions lost
    "same": frame(BASE_HITS, set(), BASE_RR_IDS),
    "small": frame(BASE_HITS | {"l10"}, set(), BASE_RR_IDS),  # one more limit found
    "warn": frame(ALL_LIMITS, set(), [0.1] * 12),  # identifiers ranked lower
}


@pytest.fixture(scope="module")
def golden():
    return build_report(
        frame(BASE_HITS, set(), BASE_RR_IDS),
        FRAMES,
        decision="recall@5",
        baseline_name="base",
        slices=["limits", "exclusions", "identifiers"],
        weights=WEIGHTS,
        guard_slices=["exclusions"],
        factor="variant",
    )


def test_cells_hold_the_paired_differences(golden):
    c = golden.cell
    assert golden.strata == ("limits", "exclusions", "identifiers", "all", "weighted")
    assert golden.n == {
        "limits": 20,
        "exclusions": 20,
        "identifiers": 12,
        "all": 52,
        "weighted": 52,
    }
    assert golden.interval_level == pytest.approx(1 - 0.05 / 7)
    better = c("better", RECALL5, "limits")
    assert (better["baseline"], better["value"], better["delta"]) == pytest.approx((0.5, 1.0, 0.5))
    assert better["verdict"] == "better"
    assert c("better", RECALL5, "weighted")["delta"] == pytest.approx(0.5 * 10 / 20)
    assert c("better", RECALL5, "all")["delta"] == pytest.approx(10 / 52)
    assert c("worse", RECALL5, "limits")["delta"] == pytest.approx(-10 / 20)
    assert c("worse", RECALL5, "limits")["verdict"] == "worse"
    assert c("guard_noise", RECALL5, "exclusions")["delta"] == pytest.approx(-1 / 20)
    assert c("guard_noise", RECALL5, "exclusions")["verdict"] == "noise"
    assert c("guard_beyond", RECALL5, "exclusions")["verdict"] == "worse"
    assert c("guard_noise", RECALL5, "weighted")["delta"] == pytest.approx(0.5 * 0.5 - 0.3 / 20)
    assert c("small", RECALL5, "limits")["verdict"] == "noise"
    same = c("same", RECALL5, "weighted")
    # no question differs: no difference seen, but not "resolved to zero" (docs/statistics.md)
    assert same["delta"] == 0.0 and same["ci_low"] == -same["ci_high"] < -0.05
    assert same["verdict"] == "noise" and not same["resolves"]


def test_identifiers_are_decided_on_reciprocal_rank(golden):
    assert golden.deciding("identifiers") == RR
    assert golden.deciding("limits") == RECALL5
    warn = golden.cell("warn", RR, "identifiers")
    assert warn["delta"] == pytest.approx(np.mean(np.array([0.1] * 12) - BASE_RR_IDS))
    assert warn["verdict"] == "worse"
    assert golden.cell("warn", RECALL5, "identifiers")["delta"] == 0.0


def test_decision_rule(golden):
    got = {d.config: d.decision for d in golden.decisions}
    assert got == {
        "better": BETTER,
        "worse": WORSE,
        "guard_noise": FAILS_GUARD,
        "guard_beyond": FAILS_GUARD,
        "same": NOISE,
        "small": NOISE,
        "warn": BETTER,
    }


def test_guard_fails_even_when_the_headline_improves(golden):
    d = golden.decision_of("guard_noise")
    assert d.verdict == "better" and d.delta > 0  # the headline alone would adopt it
    assert d.guard_failed == ("exclusions",)
    assert "within noise" in d.reason and "questions would resolve" in d.reason
    beyond = golden.decision_of("guard_beyond")
    assert "beyond noise" in beyond.reason
    assert golden.decision_of("better").guard == "exclusions recall@5 +0.000 holds"


def test_a_non_guard_slice_worse_beyond_noise_is_a_warning(golden):
    d = golden.decision_of("warn")
    assert len(d.warnings) == 1 and d.warnings[0].startswith("identifiers RR")
    assert golden.decision_of("better").warnings == ()


def _by_hand(
    mean: float, scale2: float, n_eff: float, var_parts: list[float], sizes: list[int]
) -> tuple[float, float, float]:
    """An interval written without `stats` (docs/statistics.md): centre = mean x n/(n + 2),
    variance = max(Student-t's, the sample plus half a question won and half lost by a typical
    disagreement and one tied); t quantile with n - 1 (or Welch's) degrees of freedom."""
    plain = sum(var_parts)  # ddof 1 parts, sum of w^2 s^2 / n_s
    plug = sum(v * (m - 1) / m for v, m in zip(var_parts, sizes, strict=True))
    total = n_eff + 2
    centre = mean * n_eff / total
    second = n_eff * (plug * n_eff + mean**2)
    floor = ((second + scale2) / total - centre**2) / total
    denom = sum(v**2 / (m - 1) for v, m in zip(var_parts, sizes, strict=True) if m > 1)
    df = plain**2 / denom if denom > 0 else n_eff - 1
    return centre, math.sqrt(max(plain, floor)), df


def test_intervals_and_resolution_match_the_formula_by_hand(golden):
    """Every cell's interval is centre +- t(df, Bonferroni-widened level) x se, recomputed here
    from the per-question differences; the questions needed follow n (z se / gap)^2."""
    base = frame(BASE_HITS, set(), BASE_RR_IDS)
    tail = (1 - golden.interval_level) / 2
    z = NormalDist().inv_cdf(1 - tail)
    slices = ("limits", "exclusions", "identifiers")
    checked = 0
    for name, cand in FRAMES.items():
        for measure in ("recall@5", "RR"):
            diff = (cand[measure] - base[measure]).to_numpy()
            where_slice = base["slice"].to_numpy()
            nz = diff[diff != 0]
            scale2 = float((nz**2).mean()) if nz.size else 1.0
            sizes = {s: int((where_slice == s).sum()) for s in slices}
            mean = {s: diff[where_slice == s].mean() for s in slices}
            var1 = {s: diff[where_slice == s].var(ddof=1) for s in slices}
            rows = {s: {s: 1.0} for s in slices}
            rows["all"] = {s: sizes[s] / sum(sizes.values()) for s in slices}
            rows["weighted"] = dict(WEIGHTS)
            for stratum, w in rows.items():
                parts = [w[s] ** 2 * var1[s] / sizes[s] for s in w]
                n_eff = 1 / sum(w[s] ** 2 / sizes[s] for s in w)
                raw = sum(w[s] * mean[s] for s in w)
                centre, se, df = _by_hand(raw, scale2, n_eff, parts, [sizes[s] for s in w])
                half = student.ppf(1 - tail, max(df, 1)) * se
                lo, hi = max(centre - half, -1.0), min(centre + half, 1.0)
                cell = golden.cell(name, measure, stratum)
                at = f"{name} {measure} {stratum}"
                assert (cell["ci_low"], cell["ci_high"]) == pytest.approx((lo, hi), abs=1e-9), at
                assert cell["sd"] == pytest.approx(se, rel=1e-9), at
                assert cell["half_width"] == pytest.approx((cell["ci_high"] - cell["ci_low"]) / 2)
                need = max(2, math.ceil(cell["n"] * (z * cell["sd"] / golden.target_gap) ** 2))
                assert cell["questions_needed"] == need, at
                checked += 1
    assert checked == len(FRAMES) * 2 * 5


def test_row_order_does_not_matter(golden):
    rng = np.random.default_rng(0)
    shuffle = lambda f: f.iloc[rng.permutation(len(f))]  # noqa: E731
    again = build_report(
        shuffle(frame(BASE_HITS, set(), BASE_RR_IDS)),
        {n: shuffle(f) for n, f in FRAMES.items()},
        decision="recall@5",
        baseline_name="base",
        slices=["limits", "exclusions", "identifiers"],
        weights=WEIGHTS,
        guard_slices=["exclusions"],
        factor="variant",
    )
    pd.testing.assert_frame_equal(again.cells, golden.cells)


def _fixes(k: int) -> pd.DataFrame:
    """One slice of 20 questions the baseline misses; this candidate finds the first k."""
    return pd.DataFrame(
        {"qid": LIMITS, "slice": "limits", "recall@5": [float(i < k) for i in range(20)]}
    )


def _holm_by_hand(p: list[float]) -> list[float]:
    """Holm's step-down: the i-th smallest p times (m - i), running maximum, capped at 1."""
    order = sorted(range(len(p)), key=lambda j: p[j])
    out, running = [0.0] * len(p), 0.0
    for rank, j in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[j]))
        out[j] = running
    return out


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_p_values_and_their_adjustment(correction):
    """Fixing k of 20 missed questions: the differences are k ones and 20 - k zeros, so the
    t statistic is (k / 22) / se with se^2 = max(var(ddof 1) / 20, Agresti-Min's
    [(k + 1) / 22 - (k / 22)^2] / 22), and p = 2 P(T_19 > t). The adjustment over the five
    candidates is redone by hand; the verdicts follow the adjusted p."""
    ks = range(2, 11, 2)
    r = build_report(
        _fixes(0),
        {f"k{k}": _fixes(k) for k in ks},
        decision="recall@5",
        guard_slices=(),
        correction=correction,
    )
    assert r.interval_level == pytest.approx(0.99 if correction == "bonferroni" else 0.95)
    by_hand = []
    for k in ks:
        d = np.array([1.0] * k + [0.0] * (20 - k))
        centre = k / 22
        se = math.sqrt(max(d.var(ddof=1) / 20, ((k + 1) / 22 - centre**2) / 22))
        by_hand.append(2 * student.sf(centre / se, 19))
    for stratum in ("limits", "all"):
        cells = [r.cell(f"k{k}", RECALL5, stratum) for k in ks]
        p = [float(c["p_value"]) for c in cells]
        assert p == pytest.approx(by_hand, rel=1e-9)
        want = {
            "holm": _holm_by_hand(p),
            "bonferroni": [min(1.0, 5 * x) for x in p],
            "none": p,
        }[correction]
        assert [float(c["p_adjusted"]) for c in cells] == pytest.approx(want, abs=1e-12)
        verdicts = [c["verdict"] for c in cells]
        assert verdicts == ["better" if a < 0.05 else "noise" for a in want]
        # the data make the test bite: k = 2 is noise, k = 10 (half the slice) is not
        assert verdicts[0] == "noise" and verdicts[-1] == "better"
        if correction == "none":
            assert verdicts.count("better") > 1


# --- measures ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("k", "factor", "shown"),
    [
        (6, "chunker.size", ["recall@6"]),
        (6, "embedder", ["recall@6"]),
        (6, "fusion.k", ["recall@6", "nDCG@10", "recall@5"]),
        (5, "reranker.depth", ["recall@5", "nDCG@10"]),
        (3, "reranker", ["recall@3", "nDCG@10", "recall@5"]),
        (6, None, ["recall@6"]),
    ],
)
def test_sweep_measures(k, factor, shown):
    decision, measures = sweep_measures(k, factor)
    assert decision == Measure("recall", k)
    assert [str(m) for m in measures] == shown


def test_missing_rr_falls_back_to_the_decision_measure_with_a_note():
    base = frame(BASE_HITS, set(), BASE_RR_IDS).drop(columns="RR")
    cand = FRAMES["better"].drop(columns="RR")
    r = build_report(base, {"c": cand}, decision="recall@5")
    assert r.deciding("identifiers") == RECALL5
    assert any("identifiers is decided on recall@5, not RR" in n for n in r.notes)


def test_absent_guard_slice_is_noted_not_ignored():
    base = frame(BASE_HITS, set(), BASE_RR_IDS)
    r = build_report(base, {"c": FRAMES["better"]}, decision="recall@5", guard_slices=["exclusion"])
    assert r.guard_slices == ()
    assert any("exclusion" in n and "not checked" in n for n in r.notes)


def test_one_slice_has_no_weighted_row_and_the_headline_is_all():
    base = pd.DataFrame({"qid": ["a", "b", "c"], "slice": ["all"] * 3, "recall@5": [0.0, 1, 0]})
    cand = base.assign(**{"recall@5": [1.0, 1, 1]})
    r = build_report(base, {"c": cand}, decision="recall@5", weights={"all": 1.0})
    assert r.strata == ("all",) and r.headline == "all"
    # three questions, two won: the interval is honest about it, so no note is needed
    c = r.cell("c", RECALL5, "all")
    assert c["delta"] == pytest.approx(2 / 3) and c["verdict"] == "noise"
    assert c["ci_low"] < 0 < c["ci_high"] and r.notes == ()


# --- refusals ---------------------------------------------------------------------------------
def _base() -> pd.DataFrame:
    return frame(BASE_HITS, set(), BASE_RR_IDS)


@pytest.mark.parametrize(
    ("cand", "needle"),
    [
        (lambda f: f.iloc[1:], "1 only in 'base' (l00)"),
        (lambda f: f.assign(qid=f["qid"].replace("l00", "zz")), "only in 'c' (zz)"),
        (
            lambda f: f.assign(slice=f["slice"].where(f["qid"] != "l03", "exclusions")),
            "puts question 'l03' in slice 'exclusions'",
        ),
        (lambda f: pd.concat([f, f.iloc[:1]]), "l00 appear more than once"),
        (lambda f: f.drop(columns="recall@5"), "no column(s) recall@5"),
        (
            lambda f: f.assign(**{"recall@5": f["recall@5"].where(f["qid"] != "e03")}),
            "missing or non-numeric values for question(s) e03",
        ),
    ],
)
def test_bad_frames_are_refused_with_one_line(cand, needle):
    with pytest.raises(UserError) as err:
        build_report(
            _base(), {"c": cand(FRAMES["better"])}, decision="recall@5", baseline_name="base"
        )
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_other_refusals():
    with pytest.raises(UserError, match="nothing to compare"):
        build_report(_base(), {}, decision="recall@5")
    with pytest.raises(UserError, match="named like the baseline"):
        build_report(_base(), {"baseline": _base()}, decision="recall@5")
    with pytest.raises(UserError, match="unknown correction"):
        build_report(_base(), {"c": _base()}, decision="recall@5", correction="fdr")
    with pytest.raises(UserError, match="unknown measure"):
        build_report(_base(), {"c": _base()}, decision="recal@5")


# --- renderers --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.0, "+0.000"),
        (0.0254, "+0.025"),
        (-0.5, "-0.500"),
        (3e-4, "+<0.001"),
        (-5.4e-6, "-<0.001"),
        (5e-4, "+0.001"),
    ],
)
def test_tiny_nonzero_differences_never_print_as_zero(x, text):
    assert signed(x) == text


def test_files_are_written_and_read_back(golden, tmp_path):
    written = write_report(golden, tmp_path / "out")
    assert sorted(written) == [
        "decisions.csv",
        "flipped.csv",
        "forest.png",
        "report.csv",
        "report.html",
        "report.json",
        "report.md",
    ]
    pd.testing.assert_frame_equal(read_cells(written["report.csv"]), golden.cells)
    decisions = pd.read_csv(written["decisions.csv"], dtype={"config": str})
    assert list(decisions["decision"]) == [d.decision for d in golden.decisions]
    data = json.loads(written["report.json"].read_text())
    assert data["baseline"] == "base" and data["correction"] == "bonferroni"
    assert {r["verdict"] for r in data["rows"]} == {"baseline", "better", "worse", "noise"}
    assert set(data["rows"][0]) == {
        "run",
        "slice",
        "measure",
        "value",
        "delta",
        "ci_low",
        "ci_high",
        "verdict",
    }


def test_png_opens(golden, tmp_path):
    import matplotlib.image

    path = tmp_path / "forest.png"
    path.write_bytes(forest_plot(golden))
    img = matplotlib.image.imread(path)
    assert img.ndim == 3 and img.shape[0] > 300 and img.shape[1] > 600
    assert img[..., :3].std() > 0.05  # not blank


def test_html_is_self_contained_and_holds_the_table(golden):
    page = to_html(golden, {"forest.png": forest_plot(golden)})
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<table>" in page and 'class="d-fails-guard">fails guard</td>' in page
    assert "exclusions (n=20, guard)" in page and "identifiers (n=12, RR)" in page
    assert 'src="data:image/png;base64,' in page
    assert "http://" not in page and "https://" not in page and "<link" not in page


def test_markdown_and_rich_show_verdicts_and_decisions(golden):
    md = to_markdown(golden)
    assert "| guard_noise | **fails guard** |" in md
    rr = f"{np.mean(BASE_RR_IDS):.3f}"  # identifiers: the baseline's RR, not its recall (1.0)
    assert f"| base (baseline) |  | 0.500 | 1.000 | {rr} |" in md
    assert "+0.500 [" in md and "Bonferroni-widened over 7 configurations" in md
    console = Console(record=True, width=250)
    print_report(golden, console)
    text = console.export_text()
    assert "fails guard" in text
    # one word for "no difference beyond the interval" everywhere: the decision and the cells
    assert golden.decision_of("same").decision == "noise"
    assert "| same | **noise** |" in md
    assert "within noise" in text


# --- configuration runs read from their folders (no MLflow) ------------------------------------
def _run_folder(root, value: str, scores: pd.DataFrame) -> Path:
    """A folder laid out like a configuration run's artifacts (results/, config/config.yaml)."""
    folder = root / value.replace("/", "_")
    (folder / "results").mkdir(parents=True)
    (folder / "config").mkdir()
    scores.to_csv(folder / "results" / "per_question.csv", index=False)
    rows = ["limits", "exclusions", "identifiers", "all", "weighted"]
    pd.DataFrame({"slice": rows, "recall_at_5": 0.0}).to_csv(folder / "results" / "summary.csv")
    (folder / "config" / "config.yaml").write_text(
        "eval:\n  k_prompt: 5\n  traffic_weights: null\n"
    )
    return folder


def _record(root, value: str, scores: pd.DataFrame, labels: str = "L") -> RunRecord:
    folder = _run_folder(root, value, scores)
    return load_run_folder(folder, value, f"id-{value}", {"ragsweep.labels": labels})


def test_sweep_report_from_run_folders(tmp_path):
    records = {
        "60": _record(tmp_path, "60", _base()),
        "k=10/x": _record(tmp_path, "k=10/x", FRAMES["better"]),
    }
    r = sweep_report(records, values=["k=10/x", "30", "60"], baseline="60", name="s", factor="x")
    assert (r.baseline, r.configs) == ("60", ("k=10/x",))
    assert r.slices == ("limits", "exclusions", "identifiers")  # summary.csv's order
    assert r.notes[0] == "left out, no FINISHED run: 30"
    assert r.run_ids == {"60": "id-60", "k=10/x": "id-k=10/x"}
    weighted = r.cell("k=10/x", RECALL5, "weighted")
    assert weighted["delta"] == pytest.approx(0.5 / 3)  # null traffic weights: equal weights
    # on the configuration's own run: the deciding measure's cell of each stratum
    metrics = config_metrics(r, "k=10/x")
    assert len(metrics) == 3 * len(r.strata)
    assert metrics["delta/mrr/identifiers"] == r.cell("k=10/x", RR, "identifiers")["delta"]
    assert metrics["ci_high/recall_at_5/weighted"] == weighted["ci_high"]
    assert metrics["ci_low/recall_at_5/weighted"] == weighted["ci_low"]
    every = config_metrics(r, "k=10/x", every_measure=True)  # tracking.metrics=all
    assert len(every) == 3 * len(r.cells) and every.items() >= metrics.items()
    other = r.cell("k=10/x", RECALL5, "identifiers")  # not the measure deciding there
    assert every["delta/recall_at_5/identifiers"] == other["delta"]
    base = config_metrics(r, "60")  # the baseline's difference with itself
    assert set(base) == set(metrics) and set(base.values()) == {0.0}
    assert set(config_metrics(r, "60", every_measure=True)) == set(every)
    assert decisions_line(r) == "k=10/x: better"
    assert (decision_tag(r, "k=10/x"), decision_tag(r, "60")) == ("better", "baseline")
    assert verdict_tag(r, "k=10/x") == "better: weighted recall@5 " + (
        f"{signed(weighted['delta'])} [{signed(weighted['ci_low'])}, {signed(weighted['ci_high'])}]"
    )
    # the parent's few numbers: the baseline's and the winner's deciding measure per column
    summary = summary_metrics(r)
    assert summary["baseline/recall_at_5/weighted"] == weighted["baseline"]
    assert summary["winner/recall_at_5/weighted"] == weighted["value"]
    assert summary["winner/delta/recall_at_5/weighted"] == weighted["delta"]
    assert summary["baseline/mrr/identifiers"] == r.cell("k=10/x", RR, "identifiers")["baseline"]
    assert len(summary) == 2 * len(r.strata) + 3


def test_a_better_decision_is_never_shown_without_the_held_out_verdict(golden, tmp_path):
    better = [d.config for d in golden.decisions if d.decision == BETTER]
    assert better, "the golden report has no better row"
    winner = better[0]
    held = with_heldout(golden, HeldOut(winner, "not confirmed", "weighted recall@5 is noise"))
    assert held.heldout_of(winner) == "not confirmed: weighted recall@5 is noise"
    others = [d.config for d in golden.decisions if d.decision != BETTER]
    assert all(held.heldout_of(c) is None for c in others)
    console = Console(width=250, record=True)
    print_report(held, console)
    text = console.export_text()
    line = next(x for x in text.splitlines() if x.startswith(f"{winner}: better"))
    after = text[text.index(line) :].splitlines()[1]
    assert "held-out: not confirmed: weighted recall@5 is noise" in after
    assert "not confirmed on held-out" in text  # in the table's decision column too
    md = to_markdown(held)
    assert f"| {winner} | **better** | not confirmed: weighted recall@5 is noise |" in md
    assert "**better** (not confirmed on held-out)" in md
    assert "not confirmed on held-out" in to_html(held)
    # no confirmation made: it says so rather than staying silent
    unchecked = with_heldout(golden, None, "confirm.enabled=false")
    assert unchecked.heldout_of(winner) == "not checked: confirm.enabled=false"
    assert "not checked on held-out" in to_markdown(unchecked)


@pytest.mark.parametrize(
    ("have", "values", "needle"),
    [
        (["10"], ["10", "60"], "the baseline x=60 of sweep 's' has no FINISHED run"),
        (["60"], ["10", "60"], "has no FINISHED configuration besides the baseline x=60"),
        (["60", "other"], ["other"], "scored on labelled set M, the baseline 60 on L"),
    ],
)
def test_sweeps_not_to_compare_are_refused_with_one_line(tmp_path, have, values, needle):
    runs = {"60": _base(), "10": FRAMES["better"], "other": FRAMES["better"]}
    records = {v: _record(tmp_path, v, runs[v], "M" if v == "other" else "L") for v in have}
    with pytest.raises(UserError) as err:
        sweep_report(records, values=values, baseline="60", name="s", factor="x")
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_a_folder_without_results_is_refused_with_one_line(tmp_path):
    with pytest.raises(UserError, match=r"^run rid \(e\) has no results/per_question.csv [^\n]*$"):
        load_run_folder(tmp_path, "e", "rid", {})


# --- a real sweep logged to MLflow (a module fixture of 11 s: the full suite's) -----------------
@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A tiny fusion.k sweep (10 questions, baseline 60), run once for this module."""
    from ragsweep.experiment import tracking

    root = tmp_path_factory.mktemp("sweep")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        mp.setenv("CI", "true")
        assert main(["-m", *TOY, "fusion.k=10,30,60", "hydra.launcher.n_jobs=1"]) == 0
    store = tracking.resolve_store(workdir=root)
    return root, store


def _runs(store):
    from ragsweep.experiment import tracking

    mc = tracking.client(store)
    exp = mc.get_experiment_by_name("sweep:fusion.k")
    runs = mc.search_runs([exp.experiment_id], max_results=100)
    parent = next(r for r in runs if r.data.tags.get("ragsweep.stage") == "sweep")
    children = {
        r.data.tags["ragsweep.value"]: r
        for r in runs
        if r.data.tags.get("ragsweep.stage") == "config"
    }
    return mc, parent, children


@pytest.mark.slow
def test_report_sweep_logs_files_and_metrics_to_the_parent(sweep, capsys):
    from ragsweep.experiment.logged import report_sweep

    _, store = sweep
    report = report_sweep("fusion.k", store=store)
    assert "fusion.k" in capsys.readouterr().out
    assert report.baseline == "60" and report.configs == ("10", "30")
    assert [str(m) for m in report.measures] == ["recall@5", "nDCG@10"]  # ordering changed
    assert report.like_for_like and set(report.run_ids) == {"10", "30", "60"}
    mc, parent, children = _runs(store)
    files = {a.path for a in mc.list_artifacts(parent.info.run_id, "report")}
    assert {
        "report/report.md",
        "report/report.html",
        "report/report.csv",
        "report/forest.png",
        "report/forest_ndcg_at_10.png",
        "report/report.json",
    } <= files
    mc, parent, children = _runs(store)  # again: the report logged new values
    for config in ("10", "30"):
        metrics = children[config].data.metrics
        for key in ("recall_at_5/exclusions", "recall_at_5/weighted", "mrr/identifiers"):
            cell_measure, stratum = key.split("/")
            cell = report.cell(config, Measure.parse(cell_measure), stratum)
            assert metrics[f"delta/{key}"] == pytest.approx(cell["delta"])
            assert metrics[f"ci_low/{key}"] == pytest.approx(cell["ci_low"])
            assert metrics[f"ci_high/{key}"] == pytest.approx(cell["ci_high"])
        # nDCG@10, shown beside the decision, decides nowhere: its cells are in report.csv
        compared = {k for k in metrics if k.startswith(("delta/", "ci_low/", "ci_high/"))}
        assert len(compared) == 3 * len(report.strata)
        assert compared == set(config_metrics(report, config))
        assert children[config].data.tags["ragsweep.decision"] == decision_tag(report, config)
    assert children["60"].data.metrics["delta/recall_at_5/weighted"] == 0.0
    # the parent holds a few summary numbers, no per-value copies
    assert not any(k.startswith(("delta/", "ci_low/", "ci_high/")) for k in parent.data.metrics)
    summary = {k: v for k, v in parent.data.metrics.items() if not k.startswith("cost/")}
    assert summary == pytest.approx(summary_metrics(report))
    assert parent.data.metrics["cost/sweep_seconds"] > 0  # what the sweep cost, beside it
    assert parent.data.tags["ragsweep.decisions"] == "; ".join(
        f"{d.config}: {d.decision}" for d in report.decisions
    )
    # the parent's run id finds the same sweep
    again = report_sweep(parent.info.run_id, store=store, print_table=False)
    pd.testing.assert_frame_equal(again.cells, report.cells)


@pytest.mark.slow
def test_report_cli_json_out_and_runs(sweep, tmp_path, capsys):
    root, store = sweep
    uri = ["--tracking-uri", store.uri]
    assert main(["report", "fusion.k", "--format", "json", "--out", str(tmp_path), *uri]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"] == "60" and data["factor"] == "fusion.k"
    assert (tmp_path / "report.html").exists() and (tmp_path / "forest.png").exists()
    _, _, children = _runs(store)
    base, cand = children["60"].info.run_id, children["10"].info.run_id
    assert main(["report", "--runs", base, cand, "--format", "json", *uri]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["baseline"] == "fusion.k=60 (baseline)"
    assert [d["config"] for d in data["decisions"]] == ["fusion.k=10"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["no_such_sweep"], "no sweep named 'no_such_sweep'"),
        ([], "give either a sweep"),
        (["fusion.k", "--runs", "a", "b"], "give either a sweep"),
        (["--runs", "0" * 32, "1" * 32], "no run with id"),
    ],
)
def test_report_cli_errors_are_one_line_exit_2(sweep, capsys, args, needle):
    _, store = sweep
    assert main(["report", *args, "--tracking-uri", store.uri]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err


@pytest.mark.slow
def test_mismatched_labels_are_refused_unless_allowed(sweep, capsys):
    from ragsweep.experiment.logged import report_sweep

    _, store = sweep
    mc, _, children = _runs(store)
    run_id = children["10"].info.run_id
    real = children["10"].data.tags["ragsweep.labels"]
    mc.set_tag(run_id, "ragsweep.labels", "f" * 64)
    try:
        with pytest.raises(UserError, match="not like for like") as err:
            report_sweep("fusion.k", store=store, print_table=False)
        assert "labelled set ffffffffffff" in str(err.value)
        assert main(["report", "fusion.k", "--tracking-uri", store.uri]) == 2
        assert "--allow-mismatch" in capsys.readouterr().err
        report = report_sweep("fusion.k", store=store, print_table=False, allow_mismatch=True)
        assert not report.like_for_like
        assert any(n.startswith("not like for like: 10") for n in report.notes)
        assert "Not like for like" in to_markdown(report)
    finally:
        mc.set_tag(run_id, "ragsweep.labels", real)
