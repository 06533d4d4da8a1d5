"""Compose the retrieval stages a config names, caching what configurations share.

Data flows one way: chunks -> indexes (BM25 and/or dense) -> first-stage ranked lists -> RRF
fusion (when two lists) -> reranker on the top `reranker.depth` -> final ranking of
`retriever.depth` chunks. Each stage's cache key holds exactly what determines it:

| stage        | key                                                           |
|--------------|---------------------------------------------------------------|
| bm25_index   | snapshot + chunker + retriever.bm25                           |
| dense_index  | snapshot + chunker + embedder                                 |
| first_stage  | index key + questions (text, product, version) + depth + filter |

so a fusion or reranker sweep never re-chunks, re-embeds or re-runs first-stage retrieval.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from omegaconf import DictConfig, OmegaConf

from ragsweep.chunking.chunkers import Chunk
from ragsweep.config import build
from ragsweep.errors import UserError
from ragsweep.retrieval.cache import StageCache, key_of

KINDS = ("bm25", "dense", "hybrid")
RERANKERS = ("none", "proximity", "minilm")


@dataclass
class Built:
    """A built index with what it cost (seconds and serialised bytes)."""

    index: Any
    seconds: float
    size_bytes: int


@dataclass
class Ranking:
    """Final ranked chunk indices per question, with what it cost to get them."""

    ids: np.ndarray  # (nq, depth) int64, -1 padded
    scores: np.ndarray  # (nq, depth) float64
    seconds: dict[str, float] = field(default_factory=dict)
    cost: dict[str, float] = field(default_factory=dict)


def _plain(node: Any) -> Any:
    return OmegaConf.to_container(node, resolve=True) if isinstance(node, DictConfig) else node


def uses(cfg: DictConfig) -> tuple[bool, bool]:
    """(uses BM25, uses the dense embedder) for this retriever config."""
    kind = cfg.retriever.kind
    if kind not in KINDS:
        raise UserError(f"retriever.kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind in ("bm25", "hybrid"), kind in ("dense", "hybrid")


def index_parts(cfg: DictConfig, snapshot: str) -> dict[str, dict[str, Any]]:
    """Cache-key parts of each index this config builds (stage name -> parts)."""
    use_bm25, use_dense = uses(cfg)
    parts: dict[str, dict[str, Any]] = {}
    base = {"snapshot": snapshot, "chunker": _plain(cfg.chunker)}
    if use_bm25:
        parts["bm25_index"] = {**base, "bm25": _plain(cfg.retriever.bm25)}
    if use_dense:
        parts["dense_index"] = {**base, "embedder": _plain(cfg.embedder)}
    return parts


def index_build_hash(cfg: DictConfig, snapshot: str) -> str:
    """Hash of everything that builds the index: snapshot, chunker and the first-stage models."""
    return hashlib.sha256(
        json.dumps(index_parts(cfg, snapshot), sort_keys=True).encode()
    ).hexdigest()


def questions_key(texts: Sequence[str], allowed: Sequence[np.ndarray | None] | None) -> str:
    """Hash of the questions and their filters (first-stage lists depend on these too)."""
    h = hashlib.sha256()
    for i, t in enumerate(texts):
        h.update(t.encode())
        a = None if allowed is None else allowed[i]
        h.update(b"\0*" if a is None else b"\0" + np.asarray(a, dtype=np.int64).tobytes())
        h.update(b"\1")
    return h.hexdigest()


def allowed_chunks(
    chunks: Sequence[Chunk], products: Sequence[str | None], versions: Sequence[str | None]
) -> list[np.ndarray | None]:
    """Per question, the chunk indices of its product and wording version (None: no filter)."""
    prod = np.array([c.product for c in chunks], dtype=object)
    vers = np.array([c.version for c in chunks], dtype=object)
    cache: dict[tuple[str | None, str | None], np.ndarray | None] = {}
    out: list[np.ndarray | None] = []
    for p, v in zip(products, versions, strict=True):
        key = (p, v)
        if key not in cache:
            if p is None and v is None:
                cache[key] = None
            else:
                mask = np.ones(len(chunks), dtype=bool)
                if p is not None:
                    mask &= prod == p
                if v is not None:
                    mask &= vers == v
                cache[key] = np.flatnonzero(mask).astype(np.int64)
        out.append(cache[key])
    return out


def _timed_build(make: Any, texts: list[str]) -> Built:
    t0 = time.perf_counter()
    index = make()
    index.index(texts)
    seconds = time.perf_counter() - t0
    return Built(index=index, seconds=seconds, size_bytes=len(pickle.dumps(index, protocol=5)))


def build_indexes(
    cfg: DictConfig,
    snapshot: str,
    chunks: Sequence[Chunk],
    cache: StageCache,
    only: set[str] | None = None,
) -> dict[str, Built]:
    """The first-stage indexes of `cfg` (stage name -> Built), from the cache when present;
    `only` restricts them to some stages (`bm25_index`, `dense_index`)."""
    from ragsweep.retrieval.dense import DenseRetriever

    texts = [c.text for c in chunks]
    makers = {
        "bm25_index": lambda: build(cfg.retriever.bm25),
        "dense_index": lambda: DenseRetriever(build(cfg.embedder)),
    }
    return {
        stage: cache.get_or_compute(stage, parts, lambda s=stage: _timed_build(makers[s], texts))
        for stage, parts in index_parts(cfg, snapshot).items()
        if only is None or stage in only
    }


def _depth(cfg: DictConfig) -> int:
    depth = cfg.retriever.depth
    if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
        raise UserError(f"retriever.depth must be a positive number of passages, got {depth!r}")
    return depth


def first_stage(
    cfg: DictConfig,
    snapshot: str,
    indexes: dict[str, Built],
    queries: Sequence[str],
    allowed: Sequence[np.ndarray | None] | None,
    cache: StageCache,
) -> tuple[list[Any], dict[str, float]]:
    """Each index's ranked list for `queries` (cached), and the seconds each search took."""
    depth = _depth(cfg)
    qkey = questions_key(queries, allowed)
    parts = index_parts(cfg, snapshot)
    lists, seconds = [], {}
    for stage, built in indexes.items():

        def search(built: Built = built) -> tuple[Any, float]:
            t0 = time.perf_counter()
            ranked = built.index.search(list(queries), depth, allowed)
            return ranked, time.perf_counter() - t0

        key = {"index": key_of(parts[stage]), "questions": qkey, "depth": depth}
        ranked, took = cache.get_or_compute(f"first_stage_{stage}", key, search)
        lists.append(ranked)
        seconds[f"search_{stage.removesuffix('_index')}"] = took
    return lists, seconds


def _check_reranker(cfg: DictConfig) -> tuple[str, int]:
    name = cfg.reranker.name
    if name not in RERANKERS:
        raise UserError(f"reranker must be one of {', '.join(RERANKERS)}, got {name!r}")
    rdepth = cfg.reranker.depth
    if isinstance(rdepth, bool) or not isinstance(rdepth, int) or rdepth < 0:
        raise UserError(f"reranker.depth must be a whole number >= 0 (0 = none), got {rdepth!r}")
    return name, rdepth


def second_stage(
    cfg: DictConfig,
    lists: Sequence[Any],
    queries: Sequence[str],
    texts: Sequence[str],
    reranker: Any = None,
) -> Any:
    """Fuse the first-stage lists (RRF when two) and rerank the head if configured."""
    from ragsweep.retrieval.fusion import rrf

    depth = _depth(cfg)
    ranked = lists[0] if len(lists) == 1 else rrf(lists, k=float(cfg.fusion.k), depth=depth)
    name, rdepth = _check_reranker(cfg)
    if name != "none" and rdepth > 0:
        model = reranker if reranker is not None else build(cfg.reranker.model)
        ranked = model.rerank(list(queries), list(texts), ranked, rdepth)
    return ranked


def query_latency(
    cfg: DictConfig,
    indexes: dict[str, Built],
    queries: Sequence[str],
    allowed: Sequence[np.ndarray | None] | None,
    texts: Sequence[str],
    reranker: Any = None,
    n: int = 24,
) -> tuple[float, float]:
    """p50 and p95 seconds to answer one question end to end (all stages), over up to `n`
    questions spread evenly through the set, one at a time. Timings vary with the machine; they
    are cost indicators beside the metrics, never part of a comparison's verdict. `reranker` is
    the model the full run used (built and fitted once)."""
    depth = _depth(cfg)
    picks = np.unique(np.linspace(0, len(queries) - 1, num=min(n, len(queries))).astype(int))
    took = []
    for i in picks:
        q = [queries[i]]
        a = None if allowed is None else [allowed[i]]
        t0 = time.perf_counter()
        lists = [b.index.search(q, depth, a) for b in indexes.values()]
        second_stage(cfg, lists, q, texts, reranker)
        took.append(time.perf_counter() - t0)
    return float(np.percentile(took, 50)), float(np.percentile(took, 95))


def rank(
    cfg: DictConfig,
    snapshot: str,
    chunks: Sequence[Chunk],
    queries: Sequence[str],
    allowed: Sequence[np.ndarray | None] | None,
    cache: StageCache | None = None,
    progress: Callable[[str], None] | None = None,
    measure_latency: bool = True,
) -> Ranking:
    """Run every configured stage for `queries` over `chunks`; `progress` hears each stage."""
    say = progress or (lambda stage: None)
    cache = cache or StageCache(None)
    _depth(cfg)
    name, rdepth = _check_reranker(cfg)
    reranker = build(cfg.reranker.model) if name != "none" and rdepth > 0 else None
    texts = [c.text for c in chunks]
    say("indexing")
    indexes = build_indexes(cfg, snapshot, chunks, cache)
    say("first-stage retrieval")
    lists, seconds = first_stage(cfg, snapshot, indexes, queries, allowed, cache)
    say("fusion and reranking")
    t0 = time.perf_counter()
    ranked = second_stage(cfg, lists, queries, texts, reranker)
    seconds["second_stage"] = time.perf_counter() - t0
    cost = {
        "index_build_seconds": float(sum(b.seconds for b in indexes.values())),
        "index_size_bytes": float(sum(b.size_bytes for b in indexes.values())),
    }
    if measure_latency:
        say("measuring latency")
        p50, p95 = query_latency(cfg, indexes, queries, allowed, texts, reranker)
        cost.update({"latency_p50_ms": 1000 * p50, "latency_p95_ms": 1000 * p95})
    return Ranking(ids=ranked.ids, scores=ranked.scores, seconds=seconds, cost=cost)
