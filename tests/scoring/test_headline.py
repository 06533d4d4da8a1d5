"""The headline is the traffic-weighted mean of slice means (`eval.traffic_weights`, shares
summing to 1, or divided by their sum with `eval.normalise_weights=true`), in one configuration's
`weighted` row and in a sweep report's `weighted` column; weights that are not what the user
meant are refused, never silently fixed."""

from __future__ import annotations

import pytest

from conftest import CHUNK_SWEEP, WEIGHTS, WEIGHTS_OVERRIDE, quality
from ragsweep.measures import Measure
from toy import TOY

UNWEIGHTED = [o for o in TOY if not o.startswith("eval.traffic_weights=")]
SLICES = list(WEIGHTS)


def normalised(weights: dict[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {s: w / total for s, w in weights.items()}


@pytest.mark.parametrize(
    "weights",
    [
        WEIGHTS,
        # a slice of weight 0 counts for nothing: the headline is the limits slice alone
        {"limits": 1, "exclusions": 0, "procedures": 0, "definitions": 0, "identifiers": 0},
    ],
)
def test_weighted_row_is_the_weighted_mean_of_slice_means(weights):
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    text = "eval.traffic_weights={" + ",".join(f"{k}:{v}" for k, v in weights.items()) + "}"
    flag = "eval.normalise_weights=" + str(sum(weights.values()) != 1).lower()
    result = evaluate(compose([*UNWEIGHTED, text, flag, "cache.dir=null"]))
    pq, summary = result.per_question, result.summary
    assert set(pq["slice"]) == set(SLICES)  # nothing held out: every slice is scored
    w = normalised(weights)
    moved = []
    for m in result.measures:
        col = str(m)
        means = pq.groupby("slice")[col].mean()
        for s in SLICES:
            assert summary.loc[s, col] == pytest.approx(means[s], abs=1e-12), (s, col)
        assert summary.loc["all", col] == pytest.approx(pq[col].mean(), abs=1e-12)
        expected = sum(w[s] * means[s] for s in SLICES)
        assert summary.loc["weighted", col] == pytest.approx(expected, abs=1e-12), col
        if m.diagnostic and m != Measure("unjudged", int(result.config["eval"]["k_prompt"])):
            # unjudged@K at the deeper cutoff stays in the rows, not among the run's metrics
            assert f"{m.key}/weighted" not in result.metrics
        else:
            assert result.metrics[f"{m.key}/weighted"] == pytest.approx(expected, abs=1e-12)
        if abs(expected - means.mean()) > 1e-9:
            moved.append(col)
    # the weights change the headline: it is not the equal-weight mean of the slices
    assert moved, "the weighted row equals the equal-weight mean for every measure"


@pytest.fixture(scope="module")
def chunk_sweep(swept):
    return swept(*CHUNK_SWEEP).ok()


@pytest.mark.slow
def test_a_reports_weighted_delta_is_the_weighted_sum_of_slice_deltas(chunk_sweep, tmp_path):
    from ragsweep.compare.report import read_cells

    store = chunk_sweep.store
    by_value = store.by_value("sweep:chunker.size")
    base = store.measured(by_value.pop("128"))
    assert sorted(by_value, key=int) == ["16", "32", "64"]
    (parent,) = store.runs("sweep:chunker.size", "sweep")
    cells = read_cells(store.download(parent.info.run_id, "report/report.csv", tmp_path))
    w = normalised(WEIGHTS)
    checked, weighting_matters = 0, False
    for value, run in by_value.items():
        numbers = store.measured(run)
        for key in ("recall_at_1", "mrr"):
            # the report's cells (a run logs its deciding measure's as `delta/...` metrics)
            mine = cells[(cells["config"] == value) & (cells["measure"] == str(Measure.parse(key)))]
            deltas = dict(zip(mine["stratum"], mine["delta"], strict=True))
            expected = sum(w[s] * deltas[s] for s in SLICES)
            got = deltas["weighted"]
            assert got == pytest.approx(expected, abs=1e-12), (value, key, deltas)
            # where it decides (recall@1, RR on identifiers) the run's own metric is the cell
            logged = {k: v for k, v in run.data.metrics.items() if k.startswith(f"delta/{key}/")}
            assert logged and all(v == deltas[k.rsplit("/", 1)[1]] for k, v in logged.items())
            # and each slice's delta is the difference of the two runs' slice means
            for s in SLICES:
                diff = numbers[f"{key}/{s}"] - base[f"{key}/{s}"]
                assert deltas[s] == pytest.approx(diff, abs=1e-12), (value, key, s)
            head = numbers[f"{key}/weighted"] - base[f"{key}/weighted"]
            assert got == pytest.approx(head, abs=1e-12)
            weighting_matters |= abs(expected - sum(deltas.values()) / len(deltas)) > 1e-9
            checked += 1
    assert checked == 6
    assert weighting_matters, "the slice deltas are equal: the check cannot tell weights apart"
    # the printed report states the normalised weights it used
    text = " ".join(chunk_sweep.out.split())
    stated = " + ".join(f"{w[s]:.2f} x {s}" for s in SLICES)
    assert f"`weighted` = {stated}" in text


@pytest.mark.slow
def test_the_sweeps_configurations_log_the_weighted_headline(chunk_sweep):
    w = normalised(WEIGHTS)
    for value, run in chunk_sweep.store.by_value("sweep:chunker.size").items():
        m = quality(chunk_sweep.store.measured(run))
        for key in ("recall_at_1", "recall_at_5", "ndcg_at_10"):
            expected = sum(w[s] * m[f"{key}/{s}"] for s in SLICES)
            assert m[f"{key}/weighted"] == pytest.approx(expected, abs=1e-12), (value, key)
    assert WEIGHTS_OVERRIDE in CHUNK_SWEEP


@pytest.mark.parametrize(
    ("weights", "flag", "said"),
    [
        # a typo in a slice name: the weight would be dropped and the rest renormalised
        (
            "{limits:0.35,exclusion:0.15,procedures:0.25,definitions:0.15,identifiers:0.1}",
            [],
            "names slice(s) exclusion that the labelled set does not have",
        ),
        # shares that do not sum to 1
        (WEIGHTS_OVERRIDE.split("=", 1)[1], [], "sum to 20, not 1"),
        # an unknown slice is refused even when normalising is allowed
        (
            "{limits:7,exclusions:3,procedures:5,definitions:3,identifiers:2,billing:1}",
            ["eval.normalise_weights=true"],
            "names slice(s) billing",
        ),
        ("{limits:-1,exclusions:1,procedures:0.5,definitions:0.3,identifiers:0.2}", [], ">= 0"),
    ],
)
def test_weights_that_are_not_what_the_user_meant_are_refused_in_one_line(
    workdir, store, weights, flag, said
):
    from conftest import cli_in

    # after TOY's eval.traffic_weights=null the dict replaces, not merges into, the default
    ran = cli_in(workdir, *TOY, f"eval.traffic_weights={weights}", *flag)
    assert ran.code == 2, ran.err
    (line,) = ran.err.strip().splitlines()
    assert said in line and "eval.traffic_weights" in line, line
    assert not store.exists(), "a refused run left a store behind"


def test_weights_summing_to_1_need_no_flag_and_equal_the_normalised_ones():
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    shares = {s: w / 20 for s, w in WEIGHTS.items()}
    text = "eval.traffic_weights={" + ",".join(f"{k}:{v}" for k, v in shares.items()) + "}"
    a = evaluate(compose([*UNWEIGHTED, text, "cache.dir=null"]))
    b = evaluate(compose([*UNWEIGHTED, WEIGHTS_OVERRIDE, "eval.normalise_weights=true"]))
    assert a.summary.loc["weighted"].to_dict() == pytest.approx(b.summary.loc["weighted"].to_dict())


def test_a_folder_dataset_needs_no_weights_and_gets_equal_shares():
    """`ragsweep data=folder data.path=DIR` as the README writes it: no eval.traffic_weights
    on the command line, and the headline is the plain mean of the slice means."""
    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate

    result = evaluate(compose([*UNWEIGHTED, "cache.dir=null"]))
    assert result.config["eval"]["traffic_weights"] is None
    table = result.summary
    slices = [s for s in table.index if s not in ("all", "weighted")]
    assert len(slices) == 5
    assert table.loc["weighted"].to_numpy() == pytest.approx(table.loc[slices].mean().to_numpy())


def test_the_shares_dataset_json_declares_weigh_the_headline_unless_the_config_says(tmp_path):
    import json
    import shutil

    from ragsweep.config import compose
    from ragsweep.scoring.evaluate import evaluate
    from toy import TINY

    data = tmp_path / "tiny"
    shutil.copytree(TINY, data)
    meta = json.loads((data / "dataset.json").read_text())
    meta["traffic_weights"] = {"limits": 3, "exclusions": 1}  # the others: no traffic
    (data / "dataset.json").write_text(json.dumps(meta))
    base = [o if not o.startswith("data.path=") else f"data.path={data}" for o in UNWEIGHTED]
    declared = evaluate(compose([*base, "cache.dir=null"])).summary
    want = 0.75 * declared.loc["limits"] + 0.25 * declared.loc["exclusions"]
    assert declared.loc["weighted"].to_numpy() == pytest.approx(want.to_numpy())
    assert not declared.loc["weighted"].equals(declared.loc["all"])
    # a weight on the command line still wins over what the dataset declares
    flags = [WEIGHTS_OVERRIDE, "eval.normalise_weights=true"]
    chosen = evaluate(compose([*base, "cache.dir=null", *flags])).summary
    shares = normalised(WEIGHTS)
    want = sum(shares[s] * chosen.loc[s] for s in SLICES)
    assert chosen.loc["weighted"].to_numpy() == pytest.approx(want.to_numpy())
