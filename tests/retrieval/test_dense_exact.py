"""The dense stage's fast paths give the numbers of the plain computation, bit for bit.

- LSA: `fit_encode` (the corpus counted once) and `encode` equal scikit-learn's
  `TfidfVectorizer` + `TruncatedSVD.transform` and a whole-matrix L2 normalisation, the way
  ragsweep computed them before, written out here as the reference, whatever the row blocks
  the projection and the normalisation go through.
- Search: the float32 candidate pass plus the float64 re-score equals scoring every text with
  the float64 einsum and `top_k`, for any batch size and BLAS thread count.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
from ragsweep.data import load_dataset
from ragsweep.retrieval import DenseRetriever, LSAEmbedder, Ranked, top_k
from ragsweep.retrieval import dense as dense_module
from ragsweep.retrieval.base import check_allowed, mask_disallowed
from ragsweep.retrieval.dense import l2_normalise


@pytest.fixture(scope="module")
def sample_chunks() -> list[str]:
    """The built-in sample cut as the main sweep's baseline cuts it (128 words, overlap 16)."""
    ds = load_dataset()
    return [c.text for c in chunk_corpus(ds.documents, FixedTokenChunker(size=128, overlap=16))]


@pytest.fixture(scope="module")
def sample_questions() -> list[str]:
    return list(load_dataset().questions["text"])


def random_corpus(seed: int, n: int = 400) -> list[str]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(300)] + ["Excess", "£1,500", "END-HM-07", "5.3", "the"]
    return [" ".join(rng.choice(words, size=int(rng.integers(0, 60)))) for _ in range(n)]


def reference_lsa(
    texts: list[str], queries: list[str], dim: int, **params: object
) -> tuple[np.ndarray, np.ndarray]:
    """LSA as ragsweep computed it before: TfidfVectorizer.fit_transform, TruncatedSVD.fit, then
    `svd.transform(vectorizer.transform(...))` for the corpus and the queries alike."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        min_df=params.get("min_df", 1),
        sublinear_tf=params.get("sublinear_tf", True),
        ngram_range=(1, params.get("ngram_max", 1)),
        dtype=np.float64,
    )
    x = vectorizer.fit_transform(texts)
    dim = min(dim, *x.shape)
    svd = TruncatedSVD(n_components=dim, algorithm="randomized", random_state=params.get("seed", 0))
    with threadpool_limits(limits=1):
        svd.fit(x)
        texts_z = svd.transform(vectorizer.transform(texts))
        queries_z = svd.transform(vectorizer.transform(queries))
    return plain_normalise(texts_z), plain_normalise(queries_z)


def plain_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows to unit L2 norm on the whole float64 matrix at once (zero rows stay zero), as
    float32: `l2_normalise` as it was before it went block by block."""
    m = np.asarray(matrix, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", m, m))
    out = np.zeros_like(m)
    nonzero = norms > 0
    out[nonzero] = m[nonzero] / norms[nonzero, None]
    return out.astype(np.float32)


@pytest.fixture(scope="module")
def sample_dense(sample_chunks) -> DenseRetriever:
    """The sample's chunks indexed by LSA(256), as the main sweep indexes them."""
    r = DenseRetriever(LSAEmbedder(dim=256))
    r.index(sample_chunks)
    return r


def test_lsa_index_equals_the_vectorizer_and_svd_transform(
    sample_chunks, sample_questions, sample_dense
):
    want_texts, want_queries = reference_lsa(sample_chunks, sample_questions, 256)
    got = sample_dense._matrix
    assert got.dtype == np.float32 and got.shape == want_texts.shape
    assert np.array_equal(got, want_texts)
    lsa = sample_dense.embedder
    assert np.array_equal(lsa.encode(sample_chunks[:50]), want_texts[:50])
    assert np.array_equal(lsa.encode(sample_questions), want_queries)


@pytest.mark.parametrize(
    "params",
    [
        {"seed": 0},
        {"seed": 3, "sublinear_tf": False},
        {"seed": 1, "min_df": 2, "ngram_max": 2},
    ],
)
@pytest.mark.parametrize("block", [None, 48 * 7, 48])  # default, blocks of 7 rows, of 1 row
def test_lsa_fit_encode_equals_the_reference_on_random_corpora(params, block, monkeypatch):
    if block is not None:
        monkeypatch.setattr(dense_module, "BLOCK_ELEMENTS", block)
    texts = random_corpus(params["seed"])
    queries = ["w1 w2 Excess", "", "zzz", "END-HM-07 5.3 the", texts[0]]
    want_texts, want_queries = reference_lsa(texts, queries, 48, **params)
    lsa = LSAEmbedder(dim=48, **params)
    assert np.array_equal(lsa.fit_encode(texts), want_texts)
    assert np.array_equal(lsa.encode(queries), want_queries)
    fitted = LSAEmbedder(dim=48, **params)  # fit then encode, as the proximity reranker does
    fitted.fit(texts)
    assert np.array_equal(fitted.encode(texts), want_texts)
    assert np.array_equal(fitted.encode(queries), want_queries)


@pytest.mark.parametrize("block", [None, 10, 3, 1])
def test_l2_normalise_equals_the_whole_matrix_formula_by_any_blocks(block, monkeypatch):
    if block is not None:
        monkeypatch.setattr(dense_module, "BLOCK_ELEMENTS", block)
    rng = np.random.default_rng(5)
    m = rng.normal(size=(37, 5)) * rng.choice([0.0, 1e-30, 1.0, 1e30], size=(37, 1))
    m[4] = -0.0  # a zero row of negative zeros comes out +0, as before
    got = l2_normalise(m)
    assert got.dtype == np.float32
    assert np.array_equal(got, plain_normalise(m))
    assert np.array_equal(np.signbit(got), np.signbit(plain_normalise(m)))
    assert np.array_equal(l2_normalise(m.astype(np.float32)), plain_normalise(m.astype(np.float32)))


def test_the_first_seen_term_order_matters_so_the_svd_is_fitted_on_it():
    """Why `fit_encode` keeps two term orders: the TF-IDF row norms of fit_transform (terms in
    first-seen order) and of transform (index order) differ in the last bit on some rows, so
    fitting the SVD on the second would change the components."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = random_corpus(5, n=2000)
    vectorizer = TfidfVectorizer(sublinear_tf=True, dtype=np.float64)
    fitted = vectorizer.fit_transform(texts)
    fitted.sort_indices()
    assert not np.array_equal(fitted.data, vectorizer.transform(texts).data)


def test_dense_index_uses_fit_encode_and_equals_fit_then_encode(sample_chunks):
    lsa = LSAEmbedder(dim=64)
    lsa.fit(sample_chunks)
    want = lsa.encode(sample_chunks)
    r = DenseRetriever(LSAEmbedder(dim=64))
    r.index(sample_chunks)
    assert np.array_equal(r._matrix, want)


def test_an_embedder_without_fit_encode_is_fitted_then_encoded():
    class Counting:
        def __init__(self) -> None:
            self.calls: list[str] = []

        def fit(self, texts):
            self.calls.append("fit")

        def encode(self, texts):
            self.calls.append("encode")
            return np.eye(len(texts), 3, dtype=np.float32)

        def fingerprint(self):
            return {}

    emb = Counting()
    r = DenseRetriever(emb)
    r.index(["a", "b"])
    assert emb.calls == ["fit", "encode"]
    assert r.search_embeddings(np.array([[0.0, 1.0, 0.0]]), 2).ids.tolist() == [[1, 0]]


def test_lsa_pickle_keeps_the_projection_and_its_bits(sample_chunks, sample_questions):
    lsa = LSAEmbedder(dim=32)
    lsa.fit(sample_chunks)
    copy = pickle.loads(pickle.dumps(lsa, protocol=5))
    assert np.array_equal(copy.encode(sample_questions), lsa.encode(sample_questions))
    assert copy._projection.flags.c_contiguous


# --------------------------------------------------------------------------- search


def reference_search(matrix: np.ndarray, queries: np.ndarray, depth: int, allowed=None) -> Ranked:
    """Dense search as ragsweep computed it before: every text's cosine by the float64 einsum,
    the filter, then `top_k`."""
    q = np.asarray(queries, dtype=np.float32).astype(np.float64)
    scores = np.einsum("qd,nd->qn", q, np.asarray(matrix, dtype=np.float32).astype(np.float64))
    scores[~q.any(axis=1)] = -np.inf
    mask_disallowed(scores, check_allowed(allowed, len(q), len(matrix)))
    return top_k(scores, depth)


def unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return (rows / np.where(norms > 0, norms, 1)).astype(np.float32)


def near_ties(seed: int, n: int = 3000, dim: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Texts that are copies of 40 directions, most nudged by ~1e-7 (closer than float32 can
    tell apart), some exact twins, some zero; queries that are those directions, random ones,
    a zero vector and twins."""
    rng = np.random.default_rng(seed)
    base = unit(rng.standard_normal((40, dim)))
    nudge = rng.standard_normal((n, dim)) * 1e-7 * (rng.random((n, 1)) < 0.7)
    texts = unit(base[rng.integers(0, 40, n)].astype(np.float64) + nudge)
    texts[rng.random(n) < 0.01] = 0.0
    queries = np.concatenate(
        [base[:10], unit(rng.standard_normal((15, dim))), np.zeros((1, dim)), base[:2]]
    ).astype(np.float32)
    return texts, queries


class Given:
    """An embedder for `index_embeddings` / `search_embeddings` only."""

    def fit(self, texts):
        pass

    def encode(self, texts):
        raise AssertionError("search_embeddings only")

    def fingerprint(self):
        return {}


def indexed(matrix: np.ndarray) -> DenseRetriever:
    r = DenseRetriever(Given())
    r.index_embeddings(matrix)
    return r


def same_bits(a: Ranked, b: Ranked) -> bool:
    return a.ids.tobytes() == b.ids.tobytes() and a.scores.tobytes() == b.scores.tobytes()


@pytest.mark.parametrize("seed,dim", [(0, 64), (1, 256), (2, 3)])
def test_search_equals_the_float64_path_on_near_ties(seed, dim):
    texts, queries = near_ties(seed, dim=dim)
    r = indexed(texts)
    n = len(texts)
    rng = np.random.default_rng(seed)
    filters = [np.sort(rng.choice(n, size=s, replace=False)) for s in (n // 3, 50, 0)]
    allowed = [filters[i % 4] if i % 4 < 3 else None for i in range(len(queries))]
    for depth in (1, 10, 100, n, n + 4):
        assert same_bits(
            r.search_embeddings(queries, depth), reference_search(texts, queries, depth)
        )
        got = r.search_embeddings(queries, depth, allowed)
        assert same_bits(got, reference_search(texts, queries, depth, allowed))
    exact = reference_search(texts, queries, 10)
    assert (exact.scores[:, 1:] == exact.scores[:, :-1]).any(), "the data holds exact ties"
    float32_only = top_k((queries @ texts.T).astype(np.float64), 10)
    assert float32_only.ids.tolist() != exact.ids.tolist(), "float32 alone would rank otherwise"


def test_search_equals_the_float64_path_on_the_sample(sample_dense, sample_questions):
    questions = sample_questions + ["", "unknownword"]
    want = reference_search(sample_dense._matrix, sample_dense.embedder.encode(questions), 100)
    assert same_bits(sample_dense.search(questions, 100), want)
    assert (want.ids[-2:] == -1).all(), "no known term: nothing to compare"


def test_search_bits_do_not_depend_on_threads_or_batch_size(monkeypatch):
    texts, queries = near_ties(4, n=6000, dim=256)
    queries = np.concatenate([queries, unit(texts[:40] + 1e-3)])
    r = indexed(texts)
    with threadpool_limits(limits=1):
        one_thread = r.search_embeddings(queries, 50)
    default = r.search_embeddings(queries, 50)
    assert same_bits(one_thread, default)
    assert same_bits(default, reference_search(texts, queries, 50))
    for size in (1, 7):
        parts = [
            r.search_embeddings(queries[s : s + size], 50) for s in range(0, len(queries), size)
        ]
        assert np.concatenate([p.ids for p in parts]).tobytes() == default.ids.tobytes()
        assert np.concatenate([p.scores for p in parts]).tobytes() == default.scores.tobytes()
    monkeypatch.setattr(dense_module, "CANDIDATE_BLOCK_ELEMENTS", 3 * len(texts))
    assert same_bits(r.search_embeddings(queries, 50), default), "blocks of 3 queries"


def rescored(monkeypatch) -> list[int]:
    """Record how many texts each query re-scores exactly."""
    sizes: list[int] = []
    exact = dense_module._exact_cosines

    def spy(query, matrix, ids):
        sizes.append(len(ids))
        return exact(query, matrix, ids)

    monkeypatch.setattr(dense_module, "_exact_cosines", spy)
    return sizes


def test_only_the_candidates_near_the_cut_are_rescored(monkeypatch):
    rng = np.random.default_rng(5)
    texts = unit(rng.standard_normal((5000, 128)))
    queries = unit(rng.standard_normal((20, 128)))
    sizes = rescored(monkeypatch)
    got = indexed(texts).search_embeddings(queries, 100)
    assert same_bits(got, reference_search(texts, queries, 100))
    assert len(sizes) == 20 and all(100 <= s <= 110 for s in sizes), sizes


def test_a_float32_cosine_outside_the_bound_makes_the_query_score_every_text(monkeypatch):
    """With the bound set to 0, every candidate's float32 cosine is 'outside' it: each query
    then scores all its allowed texts exactly, and the result is still the float64 one."""
    texts, queries = near_ties(6)
    monkeypatch.setattr(dense_module, "ERROR_FACTOR", 0.0)
    sizes = rescored(monkeypatch)
    allowed = [np.arange(0, len(texts), 2)] * len(queries)
    got = indexed(texts).search_embeddings(queries, 20, allowed)
    assert same_bits(got, reference_search(texts, queries, 20, allowed))
    assert len(texts) // 2 in sizes


def test_search_keeps_nothing_per_call_and_pickles_small():
    texts, queries = near_ties(7)
    r = indexed(texts)
    before = pickle.dumps(r, protocol=5)
    r.search_embeddings(queries, 10)
    assert pickle.dumps(r, protocol=5) == before
    assert len(before) < texts.nbytes + 10_000
    assert r._matrix.dtype == np.float32 and r._matrix.flags.c_contiguous
