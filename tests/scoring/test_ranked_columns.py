"""`score_ranked`'s rank-level outputs (the `ranked` and `clauses` columns, `rankings`,
`clause_rankings`), the per-slice table and the counts, checked against a rank-by-rank reading of
the same coverage on the toy set, with holes (-1) inside the rankings, padded tails and chunks
ranked twice: in 128-word windows (a chunk covers up to 4 clauses, so clauses repeat down a
ranking) and in 16-word ones (some chunks cover nothing)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from ragsweep import conventions as cv
from ragsweep.chunking.anchors import coverage
from ragsweep.chunking.chunkers import chunk_corpus
from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.measures import Measure
from ragsweep.retrieval.pipeline import Pipeline
from ragsweep.scoring.eval_config import scoring
from ragsweep.scoring.ranked import score_ranked, stored_depth, summarise
from toy import SMALL_CHUNKS, TINY, TOY


@pytest.mark.parametrize(("chunking", "most"), [([], 4), (SMALL_CHUNKS, 1)], ids=["128", "16"])
def test_rank_level_outputs_follow_each_rank_and_each_first_appearance(
    chunking: list[str], most: int
) -> None:
    ds = load_dataset(TINY)
    cfg = compose([*TOY, *chunking, "cache.dir=null"])
    how = scoring(cfg, ds)
    chunks = chunk_corpus(ds.documents, Pipeline.from_config(cfg).chunker)
    rng = np.random.default_rng(7)
    nq, depth = len(how.questions), 14
    ranked = rng.integers(0, len(chunks), size=(nq, depth))  # repeats within a row, on purpose
    ranked[rng.random((nq, depth)) < 0.2] = -1  # holes
    ranked[0, 3:] = -1  # a padded tail inside the stored depth
    ranked[1, :] = -1  # nothing ranked
    scored = score_ranked(ds, how, chunks, ranked)

    covered = coverage(ds.documents, chunks, how.min_overlap).clauses_of(np.arange(len(chunks)))
    top = stored_depth(how.measures)
    assert top < depth  # ranks below the stored depth count for the rankings only
    pq = scored.per_question
    for q, (qid, row) in enumerate(zip(how.questions["qid"], ranked.tolist(), strict=True)):
        kept = [i for i in row if i >= 0]
        assert scored.rankings[qid] == [chunks[i].chunk_id for i in kept]
        distinct: list[str] = []
        for i in kept:
            distinct += [c for c in covered[i] if c not in distinct]
        assert scored.clause_rankings[qid] == distinct
        shown = row[:top]
        while shown and shown[-1] < 0:
            shown.pop()
        assert json.loads(pq.at[q, "clauses"]) == [covered[i] if i >= 0 else [] for i in shown]
        assert json.loads(pq.at[q, "ranked"]) == [chunks[i].chunk_id for i in shown if i >= 0]
    assert scored.rankings[how.questions["qid"].iloc[1]] == []
    assert json.loads(pq.at[1, "clauses"]) == []
    assert max(map(len, covered.values())) == most
    assert len(set(map(len, scored.rankings.values()))) > 2

    cols = [str(m) for m in how.measures]
    means = pq.groupby("slice")[cols].mean()
    table = scored.summary
    for s in means.index:
        assert table.loc[s, cols].tolist() == means.loc[s].tolist()
    assert table.loc[cv.ALL, cols].tolist() == pq[cols].mean().tolist()
    slices = [s for s in ds.slices if s in means.index]
    weighted = sum(how.weights[s] * means.loc[s].to_numpy() for s in slices)
    np.testing.assert_allclose(table.loc[cv.WEIGHTED, cols].to_numpy(dtype=float), weighted)
    assert list(table.index) == [*slices, cv.ALL, cv.WEIGHTED]
    assert scored.counts == {s: int((pq["slice"] == s).sum()) for s in how.weights}
    assert sum(scored.counts.values()) == nq


def test_an_unsliced_set_has_one_all_row_the_mean_over_all_questions() -> None:
    # the only slice of an unsliced set is named `all`: its row is the mean of every question
    # (not a second `all` row beside it), then the weighted headline
    per_q = pd.DataFrame({"slice": ["all"] * 3, "recall@5": [0.0, 0.5, 1.0]})
    table = summarise(per_q, [Measure.parse("recall@5")], ["all"], {"all": 0.5})
    assert list(table.index) == [cv.ALL, cv.WEIGHTED]
    assert table["recall@5"].tolist() == [0.5, 0.25]


def test_slices_keep_the_dataset_order_and_empty_ones_are_left_out() -> None:
    per_q = pd.DataFrame({"slice": ["b", "a", "b"], "RR": [1.0, 0.5, 0.0]})
    table = summarise(per_q, [Measure.parse("RR")], ["a", "c", "b"], {"a": 0.25, "b": 0.75})
    assert list(table.index) == ["a", "b", cv.ALL, cv.WEIGHTED]
    assert table["RR"].tolist() == [0.5, 0.5, 0.5, 0.25 * 0.5 + 0.75 * 0.5]
