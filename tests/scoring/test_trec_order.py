"""`trec.gain_arrays` ranks a run the trec_eval way whatever its row order: a run already in that
order (checked, not sorted) and the same run shuffled give identical arrays, and ties in the wrong
order are sorted. The reference is the plain-Python definition (score descending, then document
id descending in string order, first occurrence of a (qid, docid) kept)."""

from __future__ import annotations

import numpy as np
import pytest

import ragsweep.scoring.trec as trec
from ragsweep.scoring.trec import Qrels, Run, TrecArrays, gain_arrays


def reference_gains(qrels_rows: list, run_rows: list) -> list[list[int]]:
    """Grade at each rank of each qrels query (string order), by the definition, unpadded."""
    judged = {(q, d): g for q, d, g in qrels_rows}
    by_query: dict[str, list[tuple[float, str]]] = {}
    for q, d, s in run_rows:
        by_query.setdefault(q, []).append((s, d))
    out = []
    for q in sorted({q for q, _, _ in qrels_rows}):
        seen: set[str] = set()
        grades = []
        for _, d in sorted(by_query.get(q, []), reverse=True):  # score, then docid, descending
            if d not in seen:
                seen.add(d)
                grades.append(judged.get((q, d), 0))
        out.append(grades)
    return out


def padded(rows: list[list[int]]) -> np.ndarray:
    width = max(map(len, rows), default=0)
    return np.array([r + [0] * (width - len(r)) for r in rows], dtype=np.int64).reshape(-1, width)


def tied_collection(seed: int) -> tuple[list, list]:
    """Queries with many tied scores (-0.0 and 0.0 among them), ids whose string order differs
    from their numeric order (d7 > d10 > d1), repeated (qid, docid) lines, a query the run lacks
    and one the qrels lack. The run is in trec_eval order."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(40):
        qid = f"q{q}"
        pool = [f"d{i}" for i in rng.choice(30, size=12, replace=False)]
        qrels += [(qid, d, int(rng.integers(-1, 3))) for d in pool[:5]]
        if q == 7:
            continue
        length = int(rng.integers(1, 12))
        scores = rng.choice([1.0, 0.5, 0.0, -0.0, -1.0], size=length)
        run += [(qid, d, float(s)) for d, s in zip(pool[:length], scores, strict=True)]
        if length > 2:
            run.append((qid, pool[0], float(scores[0]) - 3))  # again, lower: counts once
    run.append(("zz", "d1", 1.0))
    run.sort(key=lambda r: (r[0], -r[2], [-ord(c) for c in r[1]] + [1]))  # trec_eval order
    return qrels, run


def assert_same(a: TrecArrays, b: TrecArrays) -> None:
    for field in ("gains", "new_rel", "n_rel", "ideal", "in_run", "unjudged"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype, field
        np.testing.assert_array_equal(x, y, err_msg=field)
    assert (a.qids, a.n_duplicates, a.ignored_qids) == (b.qids, b.n_duplicates, b.ignored_qids)


def test_an_ordered_run_and_its_shuffles_give_the_definitions_arrays() -> None:
    qrels_rows, run_rows = tied_collection(seed=0)
    qrels = Qrels.from_rows(qrels_rows)
    ordered = gain_arrays(qrels, Run.from_rows(run_rows))
    expected = padded(reference_gains(qrels_rows, run_rows))
    np.testing.assert_array_equal(ordered.gains, expected)
    assert ordered.n_duplicates > 0 and ordered.ignored_qids == ("zz",)
    rng = np.random.default_rng(1)
    for _ in range(3):
        shuffled = [run_rows[i] for i in rng.permutation(len(run_rows))]
        assert_same(gain_arrays(qrels, Run.from_rows(shuffled)), ordered)
    # grouped by query, queries in reverse order, each query's rows still in trec order
    reversed_queries = sorted(run_rows, key=lambda r: r[0], reverse=True)
    assert_same(gain_arrays(qrels, Run.from_rows(reversed_queries)), ordered)
    assert_same(gain_arrays(qrels, Run.from_rows(run_rows), depth=3), _cut(ordered, 3))


def _cut(a: TrecArrays, depth: int) -> TrecArrays:
    return TrecArrays(
        a.qids,
        a.gains[:, :depth],
        a.new_rel[:, :depth],
        a.n_rel,
        a.ideal[:, :depth],
        a.in_run,
        a.n_duplicates,
        a.ignored_qids,
        a.unjudged[:, :depth],
        a.docs[:, :depth],
    )


def test_a_run_in_trec_order_is_checked_not_sorted(monkeypatch: pytest.MonkeyPatch) -> None:
    qrels_rows, run_rows = tied_collection(seed=2)
    qrels = Qrels.from_rows(qrels_rows)
    sorts: list[int] = []
    real = trec.trec_order

    def counting(*args: np.ndarray) -> np.ndarray:
        sorts.append(args[0].size)
        return real(*args)

    monkeypatch.setattr(trec, "trec_order", counting)
    ordered = gain_arrays(qrels, Run.from_rows(run_rows))
    assert sorts == []
    shuffled = gain_arrays(qrels, Run.from_rows(run_rows[::-1]))
    assert len(sorts) == 1
    assert_same(shuffled, ordered)


@pytest.mark.parametrize(
    ("rows", "gains"),
    [
        # no ties, a score rising within the query
        ([("q", "a", 0.5), ("q", "c", 0.2), ("q", "b", 2.0)], [[2, 1, 0]]),
        # tied ids in ascending order: trec_eval ranks b before a
        ([("q", "a", 1.0), ("q", "b", 1.0), ("q", "c", 0.5)], [[2, 1, 0]]),
        # string order, not numeric: d7 > d10 > d1
        ([("q", "d1", 1.0), ("q", "d7", 1.0), ("q", "d10", 1.0)], [[0, 3, 4]]),
        # scores descending but one tie pair out of order at the end of the list
        ([("q", "c", 2.0), ("q", "a", 0.0), ("q", "b", -0.0)], [[0, 2, 1]]),
    ],
)
def test_rows_or_ties_in_the_wrong_order_are_sorted(rows: list, gains: list) -> None:
    judged = [("q", "a", 1), ("q", "b", 2), ("q", "d1", 4), ("q", "d10", 3)]
    got = gain_arrays(Qrels.from_rows(judged), Run.from_rows(rows))
    np.testing.assert_array_equal(got.gains, gains)
    np.testing.assert_array_equal(got.gains, padded(reference_gains(judged, rows)))
