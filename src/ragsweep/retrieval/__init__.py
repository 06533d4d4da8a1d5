"""Retrieval stages: BM25 and dense first stages, reciprocal rank fusion, rerankers.

Every stage obeys one small protocol (`Retriever`, `Embedder`, `Reranker` in `base`) and returns
`Ranked` lists with one tie rule; `docs/retrieval.md` describes each stage and its parameters.
Stage classes are imported lazily (`from ragsweep.retrieval import BM25Retriever` works), so
importing the package does not load bm25s, scikit-learn or torch.
"""

from __future__ import annotations

import importlib
from typing import Any

from ragsweep.retrieval.base import Embedder, Fusion, Ranked, Reranker, Retriever, top_k

_LAZY = {
    "Tokenizer": "ragsweep.retrieval.bm25",
    "BM25Retriever": "ragsweep.retrieval.bm25",
    "LSAEmbedder": "ragsweep.retrieval.dense",
    "MiniLMEmbedder": "ragsweep.retrieval.dense",
    "DenseRetriever": "ragsweep.retrieval.dense",
    "SentenceTransformerEmbedder": "ragsweep.retrieval.st",
    "OpenAICompatibleEmbedder": "ragsweep.retrieval.remote",
    "RRF": "ragsweep.retrieval.fusion",
    "rrf": "ragsweep.retrieval.fusion",
    "reorder_head": "ragsweep.retrieval.rerank",
    "TermProximityReranker": "ragsweep.retrieval.rerank",
    "CosineReranker": "ragsweep.retrieval.rerank",
    "MiniLMReranker": "ragsweep.retrieval.rerank",
}

__all__ = ["Embedder", "Fusion", "Ranked", "Reranker", "Retriever", "top_k", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'ragsweep.retrieval' has no attribute {name!r}")
