"""Every factor of the packaged sweeps changes the numbers on the toy data, so a sweep test
notices a factor the pipeline ignores (a fusion constant that is not passed on, a reranker
depth that is dropped). At the toy's default 128-word chunks every fusion.k scores the same;
the sweeps here run on 16-word chunks (toy.SMALL_CHUNKS), where the orderings differ."""

from __future__ import annotations

import json

import pytest

from conftest import SWEEP_FILES, quality


@pytest.mark.slow
@pytest.mark.parametrize("name", SWEEP_FILES)
def test_a_sweep_files_configurations_do_not_all_score_the_same(sweep_file, name):
    done = sweep_file(name).ok()
    by_value = done.store.by_value(f"sweep:{name}")
    assert len(by_value) >= 2
    scores = {v: quality(done.store.measured(r)) for v, r in by_value.items()}
    assert all(scores.values())
    distinct = {json.dumps(s, sort_keys=True) for s in scores.values()}
    assert len(distinct) > 1, f"every {name} configuration scored the same: {scores}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "value", "keys"),
    [
        # reciprocal rank fusion with k=10 weights the top ranks more than k=60 (the baseline)
        ("fusion_k", "10", ["mrr/all", "ndcg_at_10/all"]),
        # the proximity reranker rescoring the top 10 moves answers up against no reranking
        ("reranker_depth", "10", ["recall_at_1/all", "mrr/all", "ndcg_at_10/all"]),
    ],
)
def test_ordering_factors_change_the_ranking_against_the_baseline(
    sweep_file, tmp_path, name, value, keys
):
    done = sweep_file(name).ok()
    by_value = done.store.by_value(f"sweep:{name}")
    (base,) = [r for r in by_value.values() if r.data.tags["ragsweep.baseline"] == "true"]
    cand = by_value[value]
    numbers = {"cand": done.store.measured(cand), "base": done.store.measured(base)}
    for key in keys:
        assert numbers["cand"][key] != numbers["base"][key], key
    # the rankings themselves differ, question by question
    ranked = {
        label: done.store.per_question(run.info.run_id, tmp_path / label).set_index("qid")["ranked"]
        for label, run in (("base", base), ("cand", cand))
    }
    assert list(ranked["base"].index) == list(ranked["cand"].index)
    assert (ranked["base"] != ranked["cand"]).any()
