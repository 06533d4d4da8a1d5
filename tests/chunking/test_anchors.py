"""The clause -> chunk rule: coverage threshold, chunk grade, each clause counted once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_chunking import make_doc

from ragsweep.chunking.anchors import coverage, gain_arrays, label_matrix
from ragsweep.chunking.chunkers import FixedTokenChunker, SectionChunker
from ragsweep.errors import UserError
from ragsweep.measures import parse_measures
from ragsweep.scoring.metrics import score_gains

DOC = make_doc([10, 10, 10])  # clauses home/1.1, 1.2, 1.3 @2025, ten words each
LABELS = pd.DataFrame(
    {
        "qid": ["q1", "q1", "q1"],
        "clause_id": ["home/1.1@2025", "home/1.3@2025", "home/1.2@2025"],
        "grade": [2, 1, 0],
    }
)


def arrays(chunker, ranked_chunks):
    chunks = chunker.chunk(DOC)
    cov = coverage([DOC], chunks)
    clause, grade = label_matrix(["q1"], LABELS, cov.clause_ids)
    return gain_arrays(np.array([ranked_chunks]), cov, clause, grade), chunks, cov


def test_clause_split_over_two_chunks_counts_once():
    # size 5: clause 1.1 is chunks 0 and 1, 1.2 is 2 and 3, 1.3 is 4 and 5
    a, _, _ = arrays(SectionChunker(size=5), [0, 1, 4, 5])
    assert a.gains.tolist() == [[2, 0, 1, 0]]
    assert a.new_rel.tolist() == [[1, 0, 1, 0]]
    assert a.n_rel.tolist() == [2]
    assert a.ideal.tolist() == [[2, 1, 0]]


def test_chunk_holding_two_relevant_clauses_credits_both_for_recall():
    a, chunks, cov = arrays(FixedTokenChunker(size=30, overlap=0), [0])
    assert len(chunks) == 1
    assert cov.chunk_clauses(0) == ["home/1.1@2025", "home/1.2@2025", "home/1.3@2025"]
    assert a.gains.tolist() == [[2]]  # the chunk's grade: the highest of the clauses it covers
    assert a.new_rel.tolist() == [[2]]  # both relevant clauses are now found


def test_a_chunk_clipping_a_clause_does_not_cover_it():
    # windows of 12 words overlapping by 0: chunk 0 = 1.1 + two words of 1.2 (20% of 1.2)
    chunks = FixedTokenChunker(size=12, overlap=0).chunk(DOC)
    cov = coverage([DOC], chunks)
    assert cov.chunk_clauses(0) == ["home/1.1@2025"]
    # chunk 1 holds 8 words of 1.2 (80%) and 4 of 1.3 (40% of the shorter span, the clause)
    assert cov.chunk_clauses(1) == ["home/1.2@2025"]
    assert cov.chunk_clauses(2) == ["home/1.3@2025"]
    looser = coverage([DOC], chunks, min_overlap=0.3)
    assert looser.chunk_clauses(1) == ["home/1.2@2025", "home/1.3@2025"]


def test_padding_and_repeated_chunks_credit_nothing():
    a, _, _ = arrays(SectionChunker(), [2, 2, 0, -1])
    # rank 1 holds 1.3 (grade 1), rank 2 repeats it, rank 3 finds 1.1 (grade 2), rank 4 is padding
    assert a.gains.tolist() == [[1, 0, 2, 0]]
    assert a.new_rel.tolist() == [[1, 0, 1, 0]]


def test_clauses_as_chunks_reduce_to_trec_grades():
    rng = np.random.default_rng(0)
    doc = make_doc([4] * 12)
    chunks = SectionChunker().chunk(doc)
    cov = coverage([doc], chunks)
    qids = [f"q{i}" for i in range(30)]
    rows = []
    for q in qids:
        for c in rng.choice(12, size=4, replace=False):
            rows.append((q, doc.clauses[c].clause_id, int(rng.integers(0, 3))))
    labels = pd.DataFrame(rows, columns=["qid", "clause_id", "grade"])
    clause, grade = label_matrix(qids, labels, cov.clause_ids)
    ranked = np.array([rng.permutation(12)[:8] for _ in qids])
    a = gain_arrays(ranked, cov, clause, grade)
    lookup = {(q, c): g for q, c, g in rows}
    # one chunk per clause: chunk i covers exactly clause i
    assert [cov.chunk_clauses(i) for i in range(12)] == [[c.clause_id] for c in doc.clauses]
    expected = np.array(
        [
            [lookup.get((q, doc.clauses[i].clause_id), 0) for i in row]
            for q, row in zip(qids, ranked, strict=True)
        ]
    )
    assert (a.gains == expected).all()
    assert (a.new_rel == (expected >= 1)).all()


def test_min_overlap_must_be_a_share():
    with pytest.raises(UserError, match="min_overlap"):
        coverage([DOC], SectionChunker().chunk(DOC), min_overlap=0)


def test_explicit_zero_grades_count_as_judged_through_chunk_coverage() -> None:
    doc = make_doc([10, 10, 10, 10])  # clauses home/1.1 .. 1.4 @2025, one chunk each
    chunks = SectionChunker().chunk(doc)
    cov = coverage([doc], chunks)
    labels = pd.DataFrame(
        {"qid": ["q", "q"], "clause_id": ["home/1.1@2025", "home/1.3@2025"], "grade": [0, 2]}
    )
    clause, grade = label_matrix(["q"], labels, cov.clause_ids)
    # ranks: 1.2 (unjudged), 1.1 (judged 0), 1.4 (unjudged), 1.3 (judged 2), then padding
    a = gain_arrays(np.array([[1, 0, 3, 2, -1]]), cov, clause, grade)
    assert a.unjudged.tolist() == [[True, False, True, False, False]]
    got = score_gains(
        a.gains,
        a.new_rel,
        a.n_rel,
        a.ideal,
        parse_measures("unjudged@2,unjudged@5,recall@5"),
        unjudged=a.unjudged,
    )[0]
    np.testing.assert_allclose(got, [1 / 2, 2 / 5, 1.0], atol=1e-12)
