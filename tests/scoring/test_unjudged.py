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


def test_unjudged_matches_trec_eval_counts_on_random_runs() -> None:
    """trec_eval has no judged@k, but counts the judged documents of a run: num_rel_ret +
    num_nonrel_judged_ret. Fed each query's top k as we rank it, unjudged@k is
    (num_ret - judged) / k, per query, to the last bit."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(40)]
    qrels_rows, run_rows = [], []
    for q in (f"q{i}" for i in range(60)):
        for d in rng.choice(docs, size=int(rng.integers(1, 12)), replace=False):
            # grades 0..2: trec_eval's counts leave negative grades out, ragsweep judges them
            qrels_rows.append((q, str(d), int(rng.integers(0, 3))))
        for d in rng.choice(docs, size=int(rng.integers(1, 20)), replace=False):
            run_rows.append((q, str(d), float(rng.integers(0, 5))))  # many ties
    qrels, run = Qrels.from_rows(qrels_rows), Run.from_rows(run_rows)
    a = trec_arrays(qrels, run)
    for k in (1, 5, 10):
        ours = score_gains(
            a.gains,
            a.new_rel,
            a.n_rel,
            a.ideal,
            [Measure("unjudged", k)],
            unjudged=a.unjudged,
        )[:, 0]
        top = {
            q: {run.doc_names[c]: float(k - r) for r, c in enumerate(row[:k]) if c >= 0}
            for q, row in zip(a.qids, a.docs.tolist(), strict=True)
        }
        judged: dict[str, dict[str, int]] = {}
        for q, d, g in qrels_rows:
            judged.setdefault(q, {})[d] = g
        ev = pytrec_eval.RelevanceEvaluator(
            judged, {"num_ret", "num_rel_ret", "num_nonrel_judged_ret"}
        )
        counts = ev.evaluate({q: r for q, r in top.items() if r})
        for i, q in enumerate(a.qids):
            c = counts.get(q, {"num_ret": 0, "num_rel_ret": 0, "num_nonrel_judged_ret": 0})
            unjudged = c["num_ret"] - c["num_rel_ret"] - c["num_nonrel_judged_ret"]
            assert ours[i] == unjudged / k, (q, k)
