"""`scoring.bounds`: the per-question `clauses` and `labels` columns score every ranking again
exactly (labels alone give the run's own numbers), and the optimistic side never scores lower."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ragsweep.config import compose
from ragsweep.measures import Measure
from ragsweep.scoring.bounds import _rescore, if_relevant
from ragsweep.scoring.evaluate import evaluate
from toy import SMALL_CHUNKS, TOY


@pytest.fixture(scope="module")
def result():
    return evaluate(compose([*TOY, *SMALL_CHUNKS, "cache.dir=null"]))


def test_the_columns_score_the_run_again_exactly(result) -> None:
    pq = result.per_question
    qids = list(pq["qid"])
    ranks = {q: json.loads(c) for q, c in zip(qids, pq["clauses"], strict=True)}
    labels = {q: json.loads(v) for q, v in zip(qids, pq["labels"], strict=True)}
    assert all(labels.values())  # every question carries its labels
    measures = [m for m in result.measures if not m.diagnostic and m.k is not None]
    again = _rescore(ranks, labels, qids, measures, "exp")
    for j, m in enumerate(measures):
        np.testing.assert_allclose(again[:, j], pq[str(m)], atol=1e-12, err_msg=str(m))


def test_unjudged_as_relevant_by_hand_on_a_single_run(result) -> None:
    pq = result.per_question
    measures = [Measure("recall", 5), Measure("RR")]
    optimistic = if_relevant({"run": pq}, measures)["run"]
    # recall@5: the clauses of the top 5's unjudged chunks (covering no labelled clause) join
    # both the found and the relevant
    expected = []
    for clauses, labels in zip(pq["clauses"], pq["labels"], strict=True):
        judged = json.loads(labels)
        top = {c for covered in json.loads(clauses)[:5] for c in covered}
        pool = {
            c
            for covered in json.loads(clauses)[:5]
            if not set(covered) & set(judged)
            for c in covered
        }
        relevant = {c for c, g in judged.items() if g >= 1}
        expected.append((len(top & relevant) + len(pool)) / (len(relevant) + len(pool)))
    np.testing.assert_allclose(optimistic["recall@5"], expected, atol=1e-12)
    assert (np.array(expected) != pq["recall@5"].to_numpy()).any()  # the toy has unjudged ones
    # RR can only move up: a relevant passage is never taken away
    assert (optimistic["RR"].to_numpy() >= pq["RR"].to_numpy()).all()


def test_ap_without_a_cutoff_keeps_what_lies_below_the_stored_ranks() -> None:
    # a, x, b stored (ranks 1-3); c relevant at rank 6, below the stored ranks
    own = (1 / 1 + 2 / 3 + 3 / 6) / 3
    labels = json.dumps({"a": 1, "b": 1, "c": 1, "x": 0})
    judged = pd.DataFrame(
        {"qid": ["q"], "slice": ["s"], "AP": [own], "clauses": ['[["a"], ["x"], ["b"]]']}
    )
    judged["labels"] = labels
    # every stored rank judged: nothing to assume, the run's own AP back
    got = if_relevant({"run": judged}, [Measure("AP")])["run"]["AP"].to_numpy()
    np.testing.assert_allclose(got, [own], atol=1e-12)
    # u unjudged at rank 2, assumed relevant: the stored ranks give (1 + 2/2 + 3/3) over 4
    # relevant, and c keeps its own precision 3/6 (a lower estimate: u above it makes it 4/6)
    unjudged = judged.assign(clauses='[["a"], ["u"], ["b"]]')
    got = if_relevant({"run": unjudged}, [Measure("AP")])["run"]["AP"].to_numpy()
    np.testing.assert_allclose(got, [(1 + 1 + 1 + 3 / 6) / 4], atol=1e-12)
