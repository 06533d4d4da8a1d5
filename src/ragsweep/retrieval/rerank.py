"""Second stage: rescore the top `depth` candidates of each query with a costlier model.

The rule every reranker shares (`reorder_head`): the first `depth` candidates of a row (all of
them when the row is shorter) are ordered by the new score, descending; ties keep their
first-stage order (a stable sort), so a reranker that cannot tell two candidates apart defers to
the first stage. Candidates below `depth` keep their first-stage order underneath, their scores
shifted down to sit below the head (the shift keeps their spacing; only the order is meaningful).
`depth` 0 returns the candidates unchanged. A reranker never adds or drops a candidate.

Two models:
- `TermProximityReranker` (default install): a pairwise lexical-and-LSA scorer, see its docstring.
- `MiniLMReranker` (extra [minilm]): cosine of all-MiniLM-L6-v2 embeddings of the query and
  each candidate; `CosineReranker` is the same with any `Embedder`.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragsweep.config import check_protocol
from ragsweep.errors import UserError
from ragsweep.retrieval.base import (
    PAD_ID,
    PAD_SCORE,
    Embedder,
    Ranked,
    check_depth,
    check_texts,
    stage_identity,
)
from ragsweep.retrieval.bm25 import BM25Retriever
from ragsweep.retrieval.dense import LSAEmbedder, MiniLMEmbedder

#: A code-like token: letters or separators mixed with digits (`hm-pw-2025/01`, `5.3`, `a12`).
_CODE = re.compile(r"^(?=.*\d)(?=.*[a-z\-/.]).+$")


def reorder_head(candidates: Ranked, depth: int, head_scores: np.ndarray) -> Ranked:
    """Apply the module's rule: order each row's first `depth` candidates by `head_scores`
    ((n_queries, min(depth, width)) float, ignored where the candidate is padding)."""
    depth = check_depth(depth, "reranker depth", minimum=0)
    h = min(depth, candidates.width)
    if h == 0:
        return candidates
    ids, old = candidates.ids, candidates.scores
    new = np.asarray(head_scores, dtype=np.float64)
    if new.shape != (candidates.n_queries, h):
        raise ValueError(f"head_scores has shape {new.shape}, expected {(candidates.n_queries, h)}")
    real = ids[:, :h] != PAD_ID
    if not np.isfinite(new[real]).all():
        raise ValueError("reranker produced a NaN or infinite score for a real candidate")
    new = np.where(real, new, PAD_SCORE)
    order = np.argsort(-new, axis=1, kind="stable")
    out_ids = ids.copy()
    out_scores = old.copy()
    out_ids[:, :h] = np.take_along_axis(ids[:, :h], order, axis=1)
    out_scores[:, :h] = np.take_along_axis(new, order, axis=1)
    if h < candidates.width:
        tail = out_ids[:, h] != PAD_ID  # rows with candidates below the head
        if tail.any():
            floor = out_scores[tail, h - 1]  # lowest head score (the head is full in these rows)
            shifted = old[tail, h:] + (floor - 1.0 - old[tail, h])[:, None]
            shifted = np.minimum(shifted, floor[:, None])  # guards rounding at huge magnitudes
            out_scores[tail, h:] = np.where(ids[tail, h:] != PAD_ID, shifted, PAD_SCORE)
    return Ranked(out_ids, out_scores)


def _check_inputs(
    queries: Sequence[str], texts: Sequence[str], candidates: Ranked, depth: int
) -> tuple[list[str], list[str], int]:
    queries = check_texts(queries, "queries")
    texts = check_texts(texts, "texts")
    depth = check_depth(depth, "reranker.depth", minimum=0)
    if not isinstance(candidates, Ranked):
        raise ValueError(f"candidates must be a Ranked, got {type(candidates).__name__}")
    if candidates.n_queries != len(queries):
        raise ValueError(f"{candidates.n_queries} candidate lists for {len(queries)} queries")
    if candidates.ids.size and candidates.ids.max() >= len(texts):
        raise ValueError(f"candidate ids reach {candidates.ids.max()}, only {len(texts)} texts")
    return queries, texts, depth


def _corpus_key(texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode())
        h.update(b"\x00")
    return h.hexdigest()


def _nearest_gap(a: np.ndarray, b: np.ndarray) -> int:
    """Smallest |x - y| over x in a, y in b (both sorted, non-empty)."""
    i = np.searchsorted(b, a)
    lo = np.abs(a - b[np.clip(i - 1, 0, len(b) - 1)])
    hi = np.abs(b[np.clip(i, 0, len(b) - 1)] - a)
    return int(min(lo.min(), hi.min()))


class TermProximityReranker:
    """A pairwise scorer for policy wordings that reads each candidate's word positions.

    Five features per (query q, candidate passage d), each scaled to about [0, 1]; tokens are
    those of `ragsweep.retrieval.bm25.Tokenizer`, idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
    over the N indexed texts, and query terms that no text holds are ignored:
      bm25      BM25(q, d) (k1, b) divided by the largest BM25 among q's rescored candidates
      coverage  idf mass of q's distinct terms found in d / idf mass of all of them
      proximity over every pair of distinct query terms, weighted by the smaller idf: the share
                of pair weight whose two terms occur in d within `window` words of each other
      codes     share of q's code-like tokens (a digit plus letters or - / ., e.g.
                `HM-PW-2025/01`, `END-HM-07`, `5.3`) found whole in d; 0 if q quotes none
      dense     cosine of LSA vectors (`LSAEmbedder(dense_dim, seed)` fitted on the texts)
    score = sum of weight * feature. Why these: BM25 is the first stage's evidence; a clause that
    answers a question about a limit or exclusion states its concepts together ("escape of
    water ... excess", "unoccupied ... 30 days"), which proximity rewards and bag-of-words
    ignores; identifier questions need the exact code; LSA adds paraphrase matches. Costlier
    than the first stage (it walks each candidate's token positions per query, and fits LSA
    once per corpus). Deterministic: the only randomness is the seeded SVD.
    `features()` returns the five arrays, to see why a passage moved.
    """

    FEATURES = ("bm25", "coverage", "proximity", "codes", "dense")

    def __init__(
        self,
        bm25_weight: float = 1.0,
        coverage_weight: float = 0.0,
        proximity_weight: float = 0.5,
        codes_weight: float = 1.0,
        dense_weight: float = 0.5,
        window: int = 5,
        k1: float = 1.5,
        b: float = 0.75,
        dense_dim: int = 256,
        seed: int = 0,
        stemmer: str | None = "english",
        stopwords: str | None = "en",
    ) -> None:
        weights = {
            "bm25": bm25_weight,
            "coverage": coverage_weight,
            "proximity": proximity_weight,
            "codes": codes_weight,
            "dense": dense_weight,
        }
        for name, w in weights.items():
            if isinstance(w, bool) or not isinstance(w, int | float) or not 0 <= w < math.inf:
                raise UserError(f"TermProximityReranker {name}_weight must be >= 0, got {w!r}")
        self.weights = {name: float(w) for name, w in weights.items()}
        self.window = check_depth(window, "TermProximityReranker window")
        self._bm25 = BM25Retriever(k1=k1, b=b, stemmer=stemmer, stopwords=stopwords)
        self._lsa = LSAEmbedder(dim=dense_dim, seed=seed)
        self.tokenizer = self._bm25.tokenizer
        self._corpus_key: str | None = None
        self._df: dict[str, int] = {}

    def _fit(self, texts: list[str]) -> None:
        """Index the corpus for BM25, document frequencies and LSA; memoised on its content."""
        key = _corpus_key(texts)
        if self._corpus_key == key:
            return
        self._bm25.index(texts)
        df: dict[str, int] = {}
        for text in texts:
            for tok in set(self.tokenizer(text)):
                df[tok] = df.get(tok, 0) + 1
        self._df = df
        if self.weights["dense"] > 0:
            self._lsa.fit(texts)
        self._corpus_key = key

    def features(
        self, queries: Sequence[str], texts: Sequence[str], candidates: Ranked, depth: int
    ) -> dict[str, np.ndarray]:
        """Each feature as a (n_queries, min(depth, width)) float64 array, 0 at padding."""
        queries, texts, depth = _check_inputs(queries, texts, candidates, depth)
        h = min(depth, candidates.width)
        head = candidates.ids[:, :h]
        real = head != PAD_ID
        out = {name: np.zeros(head.shape) for name in self.FEATURES}
        if not real.any():
            return out
        self._fit(texts)
        safe = np.where(real, head, 0)
        bm25 = self._bm25.score_ids(queries, head)
        bm25 = np.where(np.isfinite(bm25), bm25, 0.0)
        top = bm25.max(axis=1, keepdims=True)
        out["bm25"] = np.divide(bm25, top, out=np.zeros_like(bm25), where=top > 0)
        unique = np.unique(head[real])
        positions = {int(d): self._positions(texts[int(d)]) for d in unique}
        n = len(texts)
        for qi, query in enumerate(queries):
            idf, pairs, codes = self._query_parts(query, n)
            for j in np.flatnonzero(real[qi]):
                cov, prox, code = self._features(idf, pairs, codes, positions[int(head[qi, j])])
                out["coverage"][qi, j] = cov
                out["proximity"][qi, j] = prox
                out["codes"][qi, j] = code
        if self.weights["dense"] > 0:
            qv = self._lsa.encode(queries).astype(np.float64)
            dv = self._lsa.encode([texts[int(d)] for d in unique]).astype(np.float64)
            cos = np.einsum("qd,nd->qn", qv, dv)
            column = np.zeros(n, dtype=np.int64)
            column[unique] = np.arange(len(unique))
            out["dense"] = np.where(real, np.take_along_axis(cos, column[safe], axis=1), 0.0)
        return out

    def rerank(
        self, queries: Sequence[str], texts: Sequence[str], candidates: Ranked, depth: int
    ) -> Ranked:
        """Rescore the top `depth` candidates per query (see the module docstring for the rule)."""
        feats = self.features(queries, texts, candidates, depth)
        h = min(depth, candidates.width)
        if h == 0:
            return candidates
        score = np.zeros((candidates.n_queries, h))
        for name in self.FEATURES:  # fixed order: the same float sums every time
            score += self.weights[name] * feats[name]
        return reorder_head(candidates, h, score)

    def _positions(self, text: str) -> dict[str, np.ndarray]:
        grouped: dict[str, list[int]] = {}
        for tok, pos in self.tokenizer.with_positions(text):
            grouped.setdefault(tok, []).append(pos)
        return {t: np.asarray(p, dtype=np.int64) for t, p in grouped.items()}

    def _query_parts(
        self, query: str, n: int
    ) -> tuple[dict[str, float], list[tuple[str, str, float]], list[str]]:
        """Distinct known terms with idf (in query order); weighted term pairs; code-like tokens."""
        idf: dict[str, float] = {}
        codes: list[str] = []
        for tok in self.tokenizer(query):
            if _CODE.match(tok) and not tok.isdigit() and tok not in codes:
                codes.append(tok)
            f = self._df.get(tok, 0)
            if f > 0 and tok not in idf:
                idf[tok] = math.log(1.0 + (n - f + 0.5) / (f + 0.5))
        terms = list(idf)
        pairs = [(a, b, min(idf[a], idf[b])) for i, a in enumerate(terms) for b in terms[i + 1 :]]
        return idf, pairs, codes

    def _features(
        self,
        idf: dict[str, float],
        pairs: list[tuple[str, str, float]],
        codes: list[str],
        pos: dict[str, np.ndarray],
    ) -> tuple[float, float, float]:
        total = sum(idf.values())
        cov = sum(w for t, w in idf.items() if t in pos) / total if total > 0 else 0.0
        pair_total = sum(w for _, _, w in pairs)
        near = sum(
            w
            for a, b, w in pairs
            if a in pos and b in pos and _nearest_gap(pos[a], pos[b]) <= self.window
        )
        prox = near / pair_total if pair_total > 0 else 0.0
        code = sum(c in pos for c in codes) / len(codes) if codes else 0.0
        return cov, prox, code

    def fingerprint(self) -> dict[str, Any]:
        lsa = {k: v for k, v in self._lsa.fingerprint().items() if k != "embedder"}
        return {
            "reranker": "term_proximity",
            **{f"{name}_weight": w for name, w in self.weights.items()},
            "window": self.window,
            "bm25": {k: v for k, v in self._bm25.fingerprint().items() if k != "retriever"},
            "lsa": lsa,
        }


class CosineReranker:
    """Orders the head by the cosine of `embedder` vectors of the query and each candidate.

    The embedder is fitted on all `texts` (a no-op for pretrained models); the distinct head
    candidates of all queries are embedded together, in text-index order, once per call.
    """

    def __init__(self, embedder: Embedder) -> None:
        check_protocol(
            embedder,
            Embedder,
            "the cosine reranker's embedder (config key reranker.model.embedder)",
        )
        self.embedder = embedder
        self._fitted_on: str | None = None

    def rerank(
        self, queries: Sequence[str], texts: Sequence[str], candidates: Ranked, depth: int
    ) -> Ranked:
        """Rescore the top `depth` candidates per query (see the module docstring for the rule)."""
        queries, texts, depth = _check_inputs(queries, texts, candidates, depth)
        h = min(depth, candidates.width)
        if h == 0:
            return candidates
        head = candidates.ids[:, :h]
        key = _corpus_key(texts)
        if self._fitted_on != key:
            self.embedder.fit(texts)
            self._fitted_on = key
        unique = np.unique(head[head != PAD_ID])
        if not len(unique):
            return candidates
        qv = np.asarray(self.embedder.encode(queries), dtype=np.float64)
        dv = np.asarray(self.embedder.encode([texts[int(d)] for d in unique]), dtype=np.float64)
        cos = np.einsum("qd,nd->qn", qv, dv)  # (queries x distinct candidates)
        column = np.zeros(len(texts), dtype=np.int64)
        column[unique] = np.arange(len(unique))
        scores = np.take_along_axis(cos, column[np.where(head == PAD_ID, unique[0], head)], axis=1)
        return reorder_head(candidates, h, scores)

    def fingerprint(self) -> dict[str, Any]:
        return {"reranker": "cosine", "embedder": stage_identity(self.embedder)}


class MiniLMReranker(CosineReranker):
    """`CosineReranker` with all-MiniLM-L6-v2 (extra [minilm]): a bi-encoder reading each
    candidate's full text (up to 256 word pieces), costlier than a lexical or LSA first stage."""

    def __init__(self, batch_size: int = 64, max_seq_length: int | None = None) -> None:
        super().__init__(MiniLMEmbedder(batch_size=batch_size, max_seq_length=max_seq_length))

    def fingerprint(self) -> dict[str, Any]:
        return {"reranker": "minilm", "embedder": self.embedder.fingerprint()}
