"""Measures, the vectorised core, and TREC ranking: golden values, edge cases, and parity with
pytrec_eval (trec_eval's conventions, linear gain) and ranx (exponential gain)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragsweep.errors import UserError
from ragsweep.measures import Measure, parse_measures
from ragsweep.scoring.metrics import score_gains
from ragsweep.scoring.trec import Qrels, Run, gain_arrays

L2 = math.log2

# --- the chapter's example: labels {c2: 2, c9: 1}, ranking [c7, c2, c4, c9, c1] -----------------
CHAPTER_GAINS = np.array([[0, 2, 0, 1, 0]])
CHAPTER_MEASURES = parse_measures("recall@3,P@3,RR,nDCG@5")
# DCG@5 = gain(2)/log2(3) + gain(1)/log2(5); IDCG@5 = gain(2)/log2(2) + gain(1)/log2(3)
EXP_NDCG5 = (3 / L2(3) + 1 / L2(5)) / (3 + 1 / L2(3))
LINEAR_NDCG5 = (2 / L2(3) + 1 / L2(5)) / (2 + 1 / L2(3))


def score_chapter(gain: str) -> np.ndarray:
    g = CHAPTER_GAINS
    return score_gains(
        g, (g >= 1).astype(int), np.array([2]), np.array([[2, 1]]), CHAPTER_MEASURES, gain
    )[0]


@pytest.mark.parametrize(("gain", "ndcg"), [("exp", EXP_NDCG5), ("linear", LINEAR_NDCG5)])
def test_chapter_example(gain: str, ndcg: float) -> None:
    np.testing.assert_allclose(score_chapter(gain), [1 / 2, 1 / 3, 1 / 2, ndcg], rtol=0, atol=1e-12)


def test_chapter_example_published_numbers() -> None:
    assert round(score_chapter("exp")[3], 6) == 0.639909
    assert round(score_chapter("linear")[3], 6) == 0.643322


def test_chapter_example_through_trec_ranking() -> None:
    qrels = Qrels.from_rows([("q", "c2", 2), ("q", "c9", 1)])
    run = Run.from_rows([("q", d, 5 - i) for i, d in enumerate(["c7", "c2", "c4", "c9", "c1"])])
    a = gain_arrays(qrels, run)
    np.testing.assert_array_equal(a.gains, CHAPTER_GAINS)
    got = score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, CHAPTER_MEASURES, "exp")[0]
    np.testing.assert_allclose(got, [1 / 2, 1 / 3, 1 / 2, EXP_NDCG5], atol=1e-12)


# --- Measure ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "canonical", "key"),
    [
        ("recall@10", "recall@10", "recall_at_10"),
        ("R@10", "recall@10", "recall_at_10"),
        ("Recall@6", "recall@6", "recall_at_6"),
        ("P@10", "P@10", "precision_at_10"),
        ("precision@10", "P@10", "precision_at_10"),
        ("RR", "RR", "mrr"),
        ("MRR", "RR", "mrr"),
        ("mrr", "RR", "mrr"),
        ("RR@10", "RR@10", "mrr_at_10"),
        ("MRR@10", "RR@10", "mrr_at_10"),
        ("nDCG@10", "nDCG@10", "ndcg_at_10"),
        ("ndcg@10", "nDCG@10", "ndcg_at_10"),
        ("NDCG@10", "nDCG@10", "ndcg_at_10"),
        (" nDCG@5 ", "nDCG@5", "ndcg_at_5"),
        ("ndcg_at_10", "nDCG@10", "ndcg_at_10"),  # MLflow keys lead back to their measure
        ("mrr_at_3", "RR@3", "mrr_at_3"),
        ("AP", "AP", "map"),
        ("MAP", "AP", "map"),
        ("ap@10", "AP@10", "map_at_10"),
        ("MAP@10", "AP@10", "map_at_10"),
        ("map_at_5", "AP@5", "map_at_5"),
    ],
)
def test_measure_parse_str_key(text: str, canonical: str, key: str) -> None:
    m = Measure.parse(text)
    assert str(m) == canonical
    assert m.key == key
    assert Measure.parse(str(m)) == m
    assert Measure.parse(m.key) == m
    assert eval(repr(m), {"Measure": Measure}) == m


def test_measure_is_hashable_and_equal_across_spellings() -> None:
    spellings = ["recall@10", "R@10", "RECALL@10", "recall_at_10"]
    assert len({Measure.parse(s) for s in spellings}) == 1
    assert Measure.parse("RR") != Measure.parse("RR@10")
    assert Measure("nDCG", 10) == Measure.parse("ndcg@10")
    assert Measure.parse("P@5").k == 5 and Measure.parse("MRR").k is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("recall@0", "positive integer"),
        ("P@-3", "positive integer"),
        ("nDCG@0", "positive integer"),
        ("recall@1.5", "not an integer"),
        ("recall@", "not an integer"),
        ("recall@ten", "not an integer"),
        ("recall", "needs a cutoff"),
        ("nDCG", "needs a cutoff"),
        ("precision", "needs a cutoff"),
        ("MAPP@10", "unknown measure"),
        ("AP@0", "positive integer"),
        ("ndcg10", "unknown measure"),
        ("", "unknown measure"),
        ("recall@10@2", "not an integer"),
    ],
)
def test_measure_parse_rejects(text: str, fragment: str) -> None:
    with pytest.raises(UserError) as err:
        Measure.parse(text)
    message = str(err.value)
    assert fragment in message
    assert repr(text) in message
    assert "\n" not in message


def test_measure_error_lists_accepted_forms() -> None:
    with pytest.raises(UserError, match=r"recall@K.*P@K.*RR.*AP or AP@K.*MAP@K.*nDCG@K"):
        Measure.parse("ERR@10")


@pytest.mark.parametrize(
    ("name", "k"), [("recall", 0), ("RR", -1), ("AP", 0), ("nDCG", None), ("map", 3)]
)
def test_measure_constructor_validates(name: str, k: int | None) -> None:
    with pytest.raises(UserError):
        Measure(name, k)


def test_parse_measures_list() -> None:
    assert parse_measures("recall@10, P@10,RR,nDCG@10") == (
        Measure("recall", 10),
        Measure("P", 10),
        Measure("RR"),
        Measure("nDCG", 10),
    )
    for bad in ("", "recall@10,", "recall@10,,P@5"):
        with pytest.raises(UserError, match="empty item"):
            parse_measures(bad)


# --- score_gains: conventions ----------------------------------------------------------------
def one(
    gains: list[int],
    ideal: list[int],
    measures: str,
    gain: str = "exp",
    new_rel: list[int] | None = None,
    n_rel: int | None = None,
) -> np.ndarray:
    """Score one question given as plain lists."""
    g = np.array([gains])
    nr = np.array([new_rel]) if new_rel is not None else (g >= 1).astype(int)
    n = n_rel if n_rel is not None else sum(x >= 1 for x in ideal)
    return score_gains(g, nr, np.array([n]), np.array([ideal]), parse_measures(measures), gain)[0]


def test_question_without_relevant_labels_scores_zero() -> None:
    # judged, but nothing relevant (grade 0 and -1): recall and nDCG are 0, not NaN
    got = one([0, 0, -1], [0, -1], "recall@3,P@3,RR,nDCG@3")
    np.testing.assert_array_equal(got, [0, 0, 0, 0])


def test_short_list_is_padded_with_non_relevant() -> None:
    # 2 relevant in a 3-long list: P@10 = 2/10, recall@10 = 2/2, RR = 1/1
    got = one([1, 0, 2], [2, 1], "P@10,recall@10,RR,RR@10,nDCG@10", "linear")
    idcg = 2 + 1 / L2(3)
    np.testing.assert_allclose(got, [2 / 10, 1, 1, 1, (1 + 2 / L2(4)) / idcg], atol=1e-12)


def test_cutoffs_only_look_within_k() -> None:
    got = one([0, 0, 1], [1], "RR@2,RR@3,recall@2,recall@3,P@2,nDCG@2,nDCG@3", "linear")
    np.testing.assert_allclose(got, [0, 1 / 3, 0, 1, 0, 0, 1 / L2(4)], atol=1e-12)


def test_ideal_is_cut_at_k() -> None:
    # three relevant, k = 2: IDCG@2 uses only the two best grades
    got = one([2, 0, 0], [2, 2, 1], "nDCG@2", "exp")
    assert got[0] == pytest.approx(3 / (3 + 3 / L2(3)), abs=1e-12)


def test_negative_grades_gain_zero_in_both_gains() -> None:
    # a document graded -1 at rank 1 neither adds nor subtracts (trec_eval: linear; ranx: exp)
    for gain, g in (("exp", lambda x: 2**x - 1), ("linear", lambda x: x)):
        got = one([-1, 2], [2, -1], "nDCG@2,P@2,RR", gain)
        np.testing.assert_allclose(got, [(g(2) / L2(3)) / g(2), 1 / 2, 1 / 2], atol=1e-12)


def test_one_rank_can_credit_two_units() -> None:
    # chunk pipeline: the chunk at rank 1 covers two labelled clauses (grades 2 and 1)
    got = one([2, 0], [2, 1, 1], "recall@1,P@1,recall@2", new_rel=[2, 0], n_rel=3)
    np.testing.assert_allclose(got, [2 / 3, 1, 2 / 3], atol=1e-12)


def test_cutoff_beyond_array_width_reads_as_padding() -> None:
    got = one([1], [1], "P@100,recall@100,nDCG@100,RR@100")
    np.testing.assert_allclose(got, [1 / 100, 1, 1, 1], atol=1e-12)


def test_shapes_and_empty_inputs() -> None:
    ms = parse_measures("recall@5,RR,nDCG@5")
    out = score_gains(
        np.zeros((0, 3), int), np.zeros((0, 3), int), np.zeros(0, int), np.zeros((0, 2), int), ms
    )
    assert out.shape == (0, 3) and out.dtype == np.float64
    out = score_gains(
        np.zeros((2, 0), int), np.zeros((2, 0), int), np.array([1, 0]), np.array([[1], [0]]), ms
    )
    np.testing.assert_array_equal(out, np.zeros((2, 3)))
    assert score_gains(
        np.ones((2, 2), int), np.ones((2, 2), int), np.ones(2, int), np.ones((2, 1), int), []
    ).shape == (2, 0)


def test_bad_inputs() -> None:
    g = np.ones((2, 3), int)
    ms = parse_measures("RR")
    with pytest.raises(ValueError, match="same shape|one shape"):
        score_gains(g, np.ones((2, 2), int), np.ones(2, int), g, ms)
    with pytest.raises(ValueError, match="n_rel"):
        score_gains(g, g, np.ones(3, int), g, ms)
    with pytest.raises(UserError, match="exp, linear"):
        score_gains(g, g, np.ones(2, int), g, ms, gain="exponential")  # type: ignore[arg-type]


def reference(
    gains: np.ndarray,
    new_rel: np.ndarray,
    n_rel: np.ndarray,
    ideal: np.ndarray,
    m: Measure,
    gain: str,
) -> list[float]:
    """The definitions, one question and one rank at a time, in plain Python."""

    def g(x: int) -> float:
        x = max(int(x), 0)
        return 2.0**x - 1 if gain == "exp" else float(x)

    out = []
    for q in range(gains.shape[0]):
        row, k = [int(x) for x in gains[q]], m.k
        top = row[:k] if k is not None else row
        if m.name == "recall":
            out.append(sum(int(x) for x in new_rel[q][:k]) / n_rel[q] if n_rel[q] else 0.0)
        elif m.name == "P":
            out.append(sum(1 for x in top if x >= 1) / k)
        elif m.name == "RR":
            out.append(next((1 / (i + 1) for i, x in enumerate(top) if x >= 1), 0.0))
        else:
            dcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(top))
            best = sorted((int(x) for x in ideal[q]), reverse=True)[:k]
            idcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(best))
            out.append(dcg / idcg if idcg > 0 else 0.0)
    return out


@pytest.mark.parametrize("gain", ["exp", "linear"])
def test_matches_plain_python_definitions(gain: str) -> None:
    # chunk-style inputs: some ranks credit 2 units, some credit a grade but no relevant unit
    rng = np.random.default_rng(7)
    nq, depth = 60, 12
    gains = rng.choice([-1, 0, 0, 0, 1, 2, 3], size=(nq, depth))
    new_rel = np.where(gains >= 1, rng.integers(1, 3, size=(nq, depth)), 0)
    ideal = -np.sort(-rng.choice([0, 1, 2, 3, -1], size=(nq, 5)), axis=1)
    n_rel = (ideal >= 1).sum(axis=1) + rng.integers(0, 2, size=nq)
    measures = parse_measures("recall@1,recall@5,recall@20,P@3,P@15,RR,RR@4,nDCG@1,nDCG@7,nDCG@30")
    got = score_gains(gains, new_rel, n_rel, ideal, measures, gain)
    for j, m in enumerate(measures):
        np.testing.assert_allclose(
            got[:, j],
            reference(gains, new_rel, n_rel, ideal, m, gain),
            rtol=0,
            atol=1e-12,
            err_msg=str(m),
        )


# --- TREC ranking conventions ----------------------------------------------------------------
def test_ties_are_broken_by_docid_descending_in_string_order() -> None:
    # all tied: trec_eval order is d7 > d10 > d1 (string compare), so d7 comes first
    qrels = Qrels.from_rows([("q", "d1", 1), ("q", "d10", 2), ("q", "d7", 0)])
    run = Run.from_rows([("q", "d1", 1.0), ("q", "d10", 1.0), ("q", "d7", 1.0), ("q", "x", 2.0)])
    a = gain_arrays(qrels, run)
    np.testing.assert_array_equal(a.gains, [[0, 0, 2, 1]])  # x, d7, d10, d1


def test_rank_column_and_file_order_are_ignored() -> None:
    rows = [("q", "a", 0.1), ("q", "b", 0.9), ("q", "c", 0.5)]
    qrels = Qrels.from_rows([("q", "a", 1), ("q", "b", 2)])
    forward = gain_arrays(qrels, Run.from_rows(rows))
    backward = gain_arrays(qrels, Run.from_rows(rows[::-1]))
    np.testing.assert_array_equal(forward.gains, [[2, 0, 1]])
    np.testing.assert_array_equal(backward.gains, forward.gains)


def test_duplicate_run_lines_count_once_at_the_highest_score() -> None:
    qrels = Qrels.from_rows([("q", "a", 1)])
    run = Run.from_rows([("q", "b", 0.5), ("q", "a", 0.1), ("q", "a", 0.9), ("q", "a", 0.2)])
    a = gain_arrays(qrels, run)
    np.testing.assert_array_equal(a.gains, [[1, 0]])
    assert a.n_duplicates == 2
    got = score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, parse_measures("recall@5,P@5,RR"))
    np.testing.assert_allclose(got, [[1, 1 / 5, 1]])


def test_missing_and_extra_queries() -> None:
    qrels = Qrels.from_rows([("q2", "a", 1), ("q1", "a", 2), ("q3", "z", 0)])
    run = Run.from_rows([("q1", "a", 1.0), ("zz", "a", 1.0), ("q0", "a", 1.0)])
    a = gain_arrays(qrels, run)
    assert a.qids == ("q1", "q2", "q3")  # the qrels' queries, in string order
    np.testing.assert_array_equal(a.in_run, [True, False, False])
    assert a.ignored_qids == ("q0", "zz")
    np.testing.assert_array_equal(a.n_rel, [1, 1, 0])
    got = score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, parse_measures("recall@1,nDCG@1"))
    np.testing.assert_array_equal(got, [[1, 1], [0, 0], [0, 0]])
    # the mean counts the missing query q2 and the query without relevant documents q3
    assert got.mean(axis=0).tolist() == [1 / 3, 1 / 3]


def test_depth_keeps_only_the_first_ranks() -> None:
    qrels = Qrels.from_rows([("q", f"d{i}", i % 3) for i in range(8)])
    run = Run.from_rows([("q", f"d{i}", -i) for i in range(8)])
    full, cut = gain_arrays(qrels, run), gain_arrays(qrels, run, depth=3)
    assert cut.gains.shape == (1, 3) and cut.ideal.shape == (1, 3)
    np.testing.assert_array_equal(cut.gains, full.gains[:, :3])
    np.testing.assert_array_equal(full.ideal, [[2, 2, 1, 1, 1, 0, 0, 0]])
    ms = parse_measures("recall@3,P@3,nDCG@3,RR@3")
    np.testing.assert_array_equal(
        score_gains(cut.gains, cut.new_rel, cut.n_rel, cut.ideal, ms),
        score_gains(full.gains, full.new_rel, full.n_rel, full.ideal, ms),
    )


# --- parity with pytrec_eval (trec_eval) and ranx --------------------------------------------
CUTOFFS = (1, 3, 5, 10, 20)


GRADES = (-1, 0, 0, 1, 1, 2)
#: grades up to 3, so relevance levels 1, 2 and 3 each leave some queries without a relevant one
GRADES_TO_3 = (-1, 0, 0, 1, 1, 2, 2, 3)


def random_collection(seed: int, ties: bool, grades: tuple[int, ...] = GRADES) -> tuple[list, list]:
    """>= 200 queries of qrels graded from `grades` and a run with the awkward cases mixed in.

    Queries without relevant documents, queries the run lacks, run queries missing from the
    qrels, empty and short rankings, long rankings, duplicate (qid, docid) lines with different
    scores, and (when `ties`) many tied scores. Doc ids such as d7 / d10 make string order differ
    from numeric order.
    """
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(240):
        qid = f"q{q}"
        pool = [f"d{i}" for i in rng.choice(60, size=30, replace=False)]
        n_judged = int(rng.integers(1, 12))
        drawn = rng.choice(grades, size=n_judged)
        if q % 9 == 0:
            drawn = np.minimum(drawn, 0)  # no relevant document
        qrels += [(qid, d, int(g)) for d, g in zip(pool[:n_judged], drawn, strict=True)]
        if q % 11 == 0:
            continue  # the run lacks this query: it must score 0
        length = int(rng.choice([1, 2, 4, 8, 15, 25, 30]))
        docs = list(rng.permutation(pool)[:length])
        if ties:
            scores = rng.integers(0, 4, size=length) / 2  # many ties
        else:
            scores = rng.permutation(1000)[:length] / 7  # distinct
        run += [(qid, d, float(s)) for d, s in zip(docs, scores, strict=True)]
        if q % 5 == 0 and length > 1:
            # the same document again, with a lower score: kept once, at its higher score
            run.append((qid, docs[0], float(scores[0]) - 10))
    run += [("extra", "d1", 1.0), ("extra", "d2", 0.5)]  # not in the qrels: ignored
    return qrels, run


def nested(rows: list, keep: str = "max") -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for qid, doc, value in rows:
        d = out.setdefault(qid, {})
        d[doc] = max(d.get(doc, -math.inf), value) if keep == "max" else value
    return out


def ours(
    qrels_rows: list, run_rows: list, measures: tuple[Measure, ...], gain: str, rel_level: int = 1
) -> dict[str, np.ndarray]:
    a = gain_arrays(Qrels.from_rows(qrels_rows), Run.from_rows(run_rows), rel_level=rel_level)
    scores = score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, measures, gain, rel_level=rel_level)
    return dict(zip(a.qids, scores, strict=True))


@pytest.mark.parametrize("ties", [True, False])
def test_parity_with_pytrec_eval(ties: bool) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_rows, run_rows = random_collection(seed=1 + ties, ties=ties)
    measures = tuple(Measure(n, k) for k in CUTOFFS for n in ("recall", "P", "nDCG")) + (
        Measure("RR"),
    )
    names = {"recall": "recall_{k}", "P": "P_{k}", "nDCG": "ndcg_cut_{k}", "RR": "recip_rank"}
    trec_names = [names[m.name].format(k=m.k) for m in measures]
    qrels, run = nested(qrels_rows, keep="last"), nested(run_rows)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(trec_names)).evaluate(run)
    mine = ours(qrels_rows, run_rows, measures, "linear")

    assert len(mine) == len(qrels) >= 200
    both = set(qrels) & set(run)
    assert set(theirs) == both  # pytrec_eval scores only queries present in both
    assert sum(min(v for v in qrels[q].values()) < 0 for q in qrels) > 20  # negatives present
    assert sum(max(qrels[q].values()) < 1 for q in both) >= 10  # no relevant document
    for qid in sorted(qrels):
        expected = [theirs[qid][t] for t in trec_names] if qid in both else [0.0] * len(measures)
        np.testing.assert_allclose(mine[qid], expected, rtol=0, atol=1e-9, err_msg=qid)


#: pytrec_eval's name of each measure (trec_eval's `map_cut_k` is AP@k)
TREC_NAMES = {
    "recall": "recall_{k}",
    "P": "P_{k}",
    "nDCG": "ndcg_cut_{k}",
    "RR": "recip_rank",
    "AP": "map_cut_{k}",
}


@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_ap_and_relevance_level_match_pytrec_eval(ties: bool, level: int) -> None:
    """AP (`map`), AP@k (`map_cut_k`) and every binary measure at relevance level 1, 2, 3
    (trec_eval's -l, pytrec_eval's relevance_level); nDCG reads the grades at any level."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_rows, run_rows = random_collection(seed=10 * level + ties, ties=ties, grades=GRADES_TO_3)
    measures = (Measure("AP"), Measure("RR")) + tuple(
        Measure(n, k) for k in CUTOFFS for n in ("AP", "recall", "P", "nDCG")
    )
    trec_names = [
        "map" if m.name == "AP" and m.k is None else TREC_NAMES[m.name].format(k=m.k)
        for m in measures
    ]
    qrels, run = nested(qrels_rows, keep="last"), nested(run_rows)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(trec_names), relevance_level=level)
    theirs = evaluator.evaluate(run)
    mine = ours(qrels_rows, run_rows, measures, "linear", rel_level=level)

    both = set(qrels) & set(run)
    assert set(theirs) == both
    # the level matters: queries with a document graded 1 or 2 but none at the level
    assert sum(0 < max(qrels[q].values()) < level for q in both) >= (10 if level > 1 else 0)
    assert sum(max(qrels[q].values()) >= level for q in both) >= 20
    for qid in sorted(qrels):
        expected = [theirs[qid][t] for t in trec_names] if qid in both else [0.0] * len(measures)
        np.testing.assert_allclose(mine[qid], expected, rtol=0, atol=1e-12, err_msg=qid)


def test_ap_on_the_chapter_example() -> None:
    g = CHAPTER_GAINS
    got = score_gains(
        g, (g >= 1).astype(int), np.array([2]), np.array([[2, 1]]), parse_measures("AP,AP@3,AP@50")
    )[0]
    # relevant at ranks 2 (c2) and 4 (c9): AP = (1/2 + 2/4) / 2; AP@3 still divides by both
    np.testing.assert_allclose(got, [(1 / 2 + 2 / 4) / 2, (1 / 2) / 2, (1 / 2 + 2 / 4) / 2])


def test_relevance_level_2_on_the_chapter_example() -> None:
    qrels = Qrels.from_rows([("q", "c2", 2), ("q", "c9", 1)])
    run = Run.from_rows([("q", d, 5 - i) for i, d in enumerate(["c7", "c2", "c4", "c9", "c1"])])
    a = gain_arrays(qrels, run, rel_level=2)
    assert a.n_rel.tolist() == [1] and a.new_rel.tolist() == [[0, 1, 0, 0, 0]]
    ms = parse_measures("AP,P@5,RR,recall@3,nDCG@5")
    got = score_gains(a.gains, a.new_rel, a.n_rel, a.ideal, ms, "linear", rel_level=2)[0]
    # only c2 (rank 2) counts as relevant; nDCG keeps both grades
    np.testing.assert_allclose(got, [1 / 2, 1 / 5, 1 / 2, 1.0, LINEAR_NDCG5], atol=1e-12)


def test_ap_of_chunks_crediting_several_clauses() -> None:
    # rank 1 credits two relevant clauses, rank 2 only clauses credited already, rank 3 one more
    gains, new_rel = np.array([[2, 0, 1, 0]]), np.array([[2, 0, 1, 0]])
    got = score_gains(
        gains, new_rel, np.array([4]), np.array([[2, 2, 1, 1]]), parse_measures("AP,AP@2")
    )[0]
    # each clause found adds the precision at its rank, P@1 = 1 and P@3 = 2/3, over 4 clauses
    np.testing.assert_allclose(got, [(1 + 1 + 2 / 3) / 4, (1 + 1) / 4], atol=1e-12)


def test_ap_is_zero_without_ranks_or_relevant_units() -> None:
    empty = np.zeros((2, 0), dtype=np.int64)
    got = score_gains(empty, empty, np.array([0, 3]), np.zeros((2, 0)), parse_measures("AP,AP@5"))
    np.testing.assert_array_equal(got, np.zeros((2, 2)))
    gains = np.array([[0, 0, 0]])
    got = score_gains(gains, gains, np.array([0]), np.array([[0]]), parse_measures("AP"))
    np.testing.assert_array_equal(got, [[0.0]])


@pytest.mark.parametrize("level", [0, -1, 1.5, True, None])
def test_a_relevance_level_below_1_is_refused(level: object) -> None:
    qrels, run = Qrels.from_rows([("q", "a", 1)]), Run.from_rows([("q", "a", 1.0)])
    with pytest.raises(UserError, match=r"relevance level .*must be an integer >= 1, got"):
        gain_arrays(qrels, run, rel_level=level)  # type: ignore[arg-type]
    g = np.array([[1]])
    with pytest.raises(UserError, match=r"relevance level .*must be an integer >= 1, got"):
        score_gains(g, g, np.array([1]), g, parse_measures("AP"), rel_level=level)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def ranx():
    """ranx, imported once per session: its first use compiles with numba (~40 s cold)."""
    import warnings

    module = pytest.importorskip("ranx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.evaluate(
            module.Qrels.from_dict({"q": {"a": 1}}),
            module.Run.from_dict({"q": {"a": 1.0}}),
            ["ndcg_burges@1"],
        )
    return module


@pytest.mark.slow
def test_parity_with_ranx(ranx) -> None:
    import warnings

    # ranx does not break score ties by document id, so this run has none
    qrels_rows, run_rows = random_collection(seed=5, ties=False)
    measures = tuple(Measure(n, k) for k in CUTOFFS for n in ("recall", "P", "nDCG", "RR")) + (
        Measure("RR"),
    )
    names = {
        "recall": "recall@{k}",
        "P": "precision@{k}",
        "nDCG": "ndcg_burges@{k}",
        "RR": "mrr@{k}",
    }
    ranx_names = [names[m.name].format(k=m.k) if m.k else "mrr" for m in measures]
    qrels = ranx.Qrels.from_dict(nested(qrels_rows, keep="last"))
    run = ranx.Run.from_dict(nested(run_rows)).make_comparable(qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's uint64 -> int64 cast warning
        ranx.evaluate(qrels, run, ranx_names, return_mean=False)
        linear = ranx.evaluate(qrels, run, [f"ndcg@{k}" for k in CUTOFFS], return_mean=False)
    mine = ours(qrels_rows, run_rows, measures, "exp")
    mine_linear = ours(qrels_rows, run_rows, tuple(Measure("nDCG", k) for k in CUTOFFS), "linear")

    assert len(mine) >= 200
    assert sorted(run.scores[ranx_names[0]]) == sorted(mine)
    for qid in sorted(mine):
        expected = [run.scores[n][qid] for n in ranx_names]
        np.testing.assert_allclose(mine[qid], expected, rtol=0, atol=1e-9, err_msg=qid)
    order = list(run.get_query_ids())
    for j, k in enumerate(CUTOFFS):  # ranx's `ndcg` is the linear gain
        expected = linear[f"ndcg@{k}"]
        np.testing.assert_allclose([mine_linear[q][j] for q in order], expected, atol=1e-9)


def test_lexsort_fallback_orders_like_the_composite_key(monkeypatch: pytest.MonkeyPatch) -> None:
    import ragsweep.scoring.trec as trec

    qrels_rows, run_rows = random_collection(seed=3, ties=True)
    qrels, run = Qrels.from_rows(qrels_rows), Run.from_rows(run_rows)
    composite = gain_arrays(qrels, run)
    monkeypatch.setattr(trec, "_COMPOSITE_LIMIT", 0)  # too many combinations: three-key lexsort
    fallback = gain_arrays(qrels, run)
    np.testing.assert_array_equal(fallback.gains, composite.gains)
    assert fallback.n_duplicates == composite.n_duplicates > 0
