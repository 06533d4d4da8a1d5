"""The dense stage's fast paths give the numbers of the plain computation, bit for bit.

- LSA: `fit_encode` (the corpus counted once) and `encode` equal scikit-learn's
  `TfidfVectorizer` + `TruncatedSVD.transform`, the way ragsweep computed them before, written
  out here as the reference.
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
    return l2_normalise(texts_z), l2_normalise(queries_z)


def test_lsa_fit_encode_equals_the_vectorizer_and_svd_transform(sample_chunks, sample_questions):
    want_texts, want_queries = reference_lsa(sample_chunks, sample_questions, 256)
    lsa = LSAEmbedder(dim=256)
    got = lsa.fit_encode(sample_chunks)
    assert got.dtype == np.float32 and got.shape == want_texts.shape
    assert np.array_equal(got, want_texts)
    assert np.array_equal(lsa.encode(sample_chunks[:50]), want_texts[:50])
    assert np.array_equal(lsa.encode(sample_questions), want_queries)
    # fit then encode (what the proximity reranker does) is the same model
    again = LSAEmbedder(dim=256)
    again.fit(sample_chunks)
    assert np.array_equal(again.encode(sample_questions), want_queries)


@pytest.mark.parametrize(
    "params",
    [
        {"seed": 0},
        {"seed": 3, "sublinear_tf": False},
        {"seed": 1, "min_df": 2, "ngram_max": 2},
    ],
)
def test_lsa_fit_encode_equals_the_reference_on_random_corpora(params):
    texts = random_corpus(params["seed"])
    queries = ["w1 w2 Excess", "", "zzz", "END-HM-07 5.3 the", texts[0]]
    want_texts, want_queries = reference_lsa(texts, queries, 48, **params)
    lsa = LSAEmbedder(dim=48, **params)
    assert np.array_equal(lsa.fit_encode(texts), want_texts)
    assert np.array_equal(lsa.encode(queries), want_queries)


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
