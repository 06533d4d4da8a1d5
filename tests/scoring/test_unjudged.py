"""unjudged@k: the share of the top k that nobody judged for the question, by hand on tiny
inline TREC files (through the clause -> chunk coverage: tests/chunking/test_anchors.py)."""

from __future__ import annotations

import numpy as np
import pytest

from ragsweep.measures import Measure, parse_measures
from ragsweep.scoring.metrics import score_gains
from ragsweep.scoring.trec import Qrels, Run
from ragsweep.scoring.trec import gain_arrays as trec_arrays


def test_the_name_parses_back_and_hole_is_an_alias() -> None:
    m = Measure.parse("unjudged@5")
    assert (str(m), m.key, m.diagnostic) == ("unjudged@5", "unjudged_at_5", True)
    assert Measure.parse("hole@5") == m == Measure.parse("unjudged_at_5")
    assert not Measure.parse("recall@5").diagnostic


def test_trec_run_counted_by_hand() -> None:
    # q1 judges d1 (2) and d2 (0: judged, not relevant); the run ranks d1 d3 d2 d4: d3 and d4
    # nobody judged. q2 judges d5 only; the run holds one document, d6, unjudged.
    qrels = Qrels.from_rows([("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d5", 1)])
    run = Run.from_rows(
        [("q1", d, 4 - i) for i, d in enumerate(["d1", "d3", "d2", "d4"])] + [("q2", "d6", 1.0)]
    )
    a = trec_arrays(qrels, run)
    assert a.unjudged.tolist() == [[False, True, False, True], [True, False, False, False]]
    names = [[run.doc_names[c] if c >= 0 else None for c in row] for row in a.docs.tolist()]
    assert names == [["d1", "d3", "d2", "d4"], ["d6", None, None, None]]
    got = score_gains(
        a.gains,
        a.new_rel,
        a.n_rel,
        a.ideal,
        parse_measures("unjudged@1,unjudged@2,unjudged@4"),
        unjudged=a.unjudged,
    )
    # q1: top 1 = {d1} 0/1, top 2 = {d1, d3} 1/2, top 4 = 2/4; q2: d6 at rank 1, then nothing:
    # 1/1, 1/2, 1/4 (an empty rank is neither judged nor unjudged, as P@k's padding)
    np.testing.assert_allclose(got, [[0, 1 / 2, 2 / 4], [1, 1 / 2, 1 / 4]], atol=1e-12)


def test_asking_for_unjudged_without_the_array_is_a_programming_error() -> None:
    g = np.zeros((1, 2), dtype=int)
    with pytest.raises(ValueError, match="unjudged"):
        score_gains(g, g, np.ones(1, int), g, parse_measures("unjudged@2"))
