"""`anchors.gain_arrays` on random corpora, rankings and labels, against the counted-once rule
written out question by question (module docstring of ragsweep.chunking.anchors): each label is
credited at the first rank whose chunk covers its clause, the gain there is the highest grade
first credited, and a rank is judged when its chunk covers any clause labelled for the question."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_coverage_keys import random_corpus, reference_relation

from ragsweep.chunking.anchors import coverage, gain_arrays, label_matrix


def reference(ranked, relation, labels: pd.DataFrame, qids, rel_level: int):
    """gains, new_rel, judged and n_rel per question, pair by pair."""
    out = []
    for q, row in zip(qids, ranked.tolist(), strict=True):
        mine = labels[labels["qid"] == q]
        gains, new_rel, judged = [0] * len(row), [0] * len(row), [False] * len(row)
        for cid, g in zip(mine["clause_id"], mine["grade"], strict=True):
            ranks = [r for r, c in enumerate(row) if c >= 0 and cid in relation[c]]
            for r in ranks:
                judged[r] = True
            if ranks and g != 0:
                gains[ranks[0]] = max(gains[ranks[0]], int(g))
            if ranks and g >= rel_level:
                new_rel[ranks[0]] += 1
        out.append((gains, new_rel, judged, int((mine["grade"] >= rel_level).sum())))
    return out


@pytest.mark.parametrize("seed", range(30))
def test_gain_arrays_follow_the_counted_once_rule(seed: int) -> None:
    docs, chunks = random_corpus(seed)
    rng = np.random.default_rng(3000 + seed)
    ids = sorted(c.clause_id for d in docs for c in d.clauses) + ["nowhere/1@v"]
    qids = [f"q{i}" for i in range(8)]
    rows = [(q, c, int(rng.integers(0, 3))) for q in qids for c in ids if rng.random() < 0.3]
    rows += [rows[int(rng.integers(len(rows)))] for _ in range(2)] if rows else []  # repeats
    labels = pd.DataFrame(rows, columns=["qid", "clause_id", "grade"])
    # rankings with padding anywhere and a chunk ranked twice
    ranked = (
        rng.integers(-1, max(len(chunks), 1), (len(qids), 7)) if chunks else np.full((8, 7), -1)
    )
    if chunks:
        ranked[0, 3] = ranked[0, 1]
    relation = {i: set(v) for i, v in reference_relation(docs, chunks, 0.5).items()}
    for only in (None, ranked[ranked >= 0]):
        cov = coverage(docs, chunks, only=only)
        clause, grade = label_matrix(qids, labels, cov.clause_ids)
        for rel_level in (1, 2):
            a = gain_arrays(ranked, cov, clause, grade, rel_level)
            want = reference(ranked, relation, labels, qids, rel_level)
            assert a.gains.tolist() == [w[0] for w in want]
            assert a.new_rel.tolist() == [w[1] for w in want]
            assert a.unjudged.tolist() == [
                [c >= 0 and not j for c, j in zip(row, w[2], strict=True)]
                for row, w in zip(ranked.tolist(), want, strict=True)
            ]
            assert a.n_rel.tolist() == [w[3] for w in want]
            width = clause.shape[1]
            assert a.ideal.tolist() == [
                sorted(labels.loc[labels["qid"] == q, "grade"].tolist(), reverse=True)
                + [0] * (width - int((labels["qid"] == q).sum()))
                for q in qids
            ]
