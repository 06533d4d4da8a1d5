"""The retrieval pipeline a config describes, built stage by stage, with what its stages share.

Data flows one way: chunks -> one index per first-stage retriever -> first-stage ranked lists ->
fusion (when there are two lists or more) -> reranker on the top `reranker.depth` -> the final
ranking, `retriever.depth` deep. Every stage is built from its config node's `_target_`
(`Pipeline.from_config`) and checked against its protocol (`Chunker`, `Retriever`, `Fusion`,
`Reranker`); a class of your own module plugs in the same way as a built-in one.

`Pipeline.stage_keys` is the one place that says what determines each stage: its own
fingerprint (class and `fingerprint()`) plus the key of the stage it reads from. Caching
(`ragsweep.retrieval.cache`), the index-build pin and "which stages does a sweep factor touch"
(`shared_stages`) all come from it, so a fusion or reranker sweep never re-chunks, re-embeds or
re-runs first-stage retrieval, and a factor no stage reads is noticed before anything runs.

Tie order: the stages index the chunks in `TieOrder` (by a stable hash of the chunk id, see
`base.tie_order`), not in corpus order, so equal scores are ordered by that hash in every stage
and the final ranking is the same whatever order the corpus files were read in; `rank` maps the
result back to indices into the chunks as given.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from omegaconf import DictConfig

from ragsweep.chunking import Chunk, Chunker
from ragsweep.config import build, check_protocol
from ragsweep.data import admits
from ragsweep.errors import UserError
from ragsweep.retrieval.base import (
    PAD_ID,
    Allowed,
    Fusion,
    Ranked,
    Reranker,
    Retriever,
    stage_identity,
    tie_order,
)
from ragsweep.retrieval.cache import StageCache, key_of, pickled_size

#: stage names of `Pipeline.stage_keys`, besides `<retriever>_index` and `first_stage_<...>`
CHUNKS, FUSION, RERANK = "chunks", "fusion", "rerank"


class FirstStage:
    """The `retriever` config group: one or more first-stage retrievers (keyword arguments,
    each a `Retriever` built from its own `_target_` node), each searched `depth` deep, with
    `filter` keeping only the passages of the question's product and wording version."""

    def __init__(self, depth: int = 100, filter: bool = True, **retrievers: Any) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth <= 0:
            raise UserError(f"retriever.depth must be a positive number of passages, got {depth!r}")
        if not isinstance(filter, bool):
            raise UserError(f"retriever.filter must be true or false, got {filter!r}")
        if not retrievers:
            raise UserError(
                "the retriever config names no first stage; give at least one node with a "
                "_target_ (e.g. retriever=bm25)"
            )
        for name, retriever in retrievers.items():
            check_protocol(retriever, Retriever, f"config key retriever.{name}")
        self.depth = depth
        self.filter = filter
        self.retrievers: dict[str, Retriever] = dict(retrievers)


class Rerank:
    """The `reranker` config group: rescore the top `depth` fused passages with `model` (a
    `Reranker`); depth 0 or no model leaves the fused ranking as it is."""

    def __init__(self, depth: int = 0, model: Any = None) -> None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise UserError(f"reranker.depth must be a whole number >= 0 (0 = none), got {depth!r}")
        if model is not None:
            check_protocol(model, Reranker, "config key reranker.model")
        self.depth = depth
        self.model: Reranker | None = model

    @property
    def active(self) -> bool:
        return self.model is not None and self.depth > 0


def _identity(stage: Any) -> dict[str, Any]:
    """What determines a stage object: its class, its own fingerprint (and the hash of its
    source file when it is the user's; `base.stage_identity`)."""
    return stage_identity(stage)


@dataclass
class Pipeline:
    """Every stage of one configuration, built and checked."""

    chunker: Chunker
    first: FirstStage
    fusion: Fusion
    rerank: Rerank
    #: snapshot -> stage keys, taken from the stages as built: fitting a stage may add keys to
    #: its fingerprint (LSA's `dim_effective`), and a cache key must not move with that
    _keys: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, cfg: DictConfig) -> Pipeline:
        """Build the `chunker`, `retriever`, `fusion` and `reranker` nodes of `cfg`."""
        first = build(cfg.retriever, where="retriever")
        if not isinstance(first, FirstStage):
            raise UserError(
                f"config key retriever must build a {FirstStage.__module__}.FirstStage (its "
                f"first-stage retrievers are its sub-nodes), not {type(first).__qualname__}"
            )
        rerank = build(cfg.reranker, where="reranker")
        if not isinstance(rerank, Rerank):
            raise UserError(
                f"config key reranker must build a {Rerank.__module__}.Rerank (its model is "
                f"reranker.model), not {type(rerank).__qualname__}"
            )
        return cls(
            chunker=build(cfg.chunker, Chunker, where="chunker"),
            first=first,
            fusion=build(cfg.fusion, Fusion, where="fusion"),
            rerank=rerank,
        )

    @property
    def fuses(self) -> bool:
        return len(self.first.retrievers) > 1

    def stage_keys(self, snapshot: str) -> dict[str, dict[str, Any]]:
        """Cache-key parts of every stage this pipeline runs, in data-flow order, each holding
        the key of what it reads (so a change upstream changes every key below it); a stage the
        pipeline skips (fusion of one list, a reranker of depth 0) has no entry. First-stage
        lists also depend on the questions, which the cache adds to their key."""
        if snapshot not in self._keys:
            self._keys[snapshot] = self._stage_keys(snapshot)
        return self._keys[snapshot]

    def _stage_keys(self, snapshot: str) -> dict[str, dict[str, Any]]:
        keys: dict[str, dict[str, Any]] = {
            CHUNKS: {"snapshot": snapshot, "chunker": _identity(self.chunker)}
        }
        chunks = key_of(keys[CHUNKS])
        for name, retriever in self.first.retrievers.items():
            keys[f"{name}_index"] = {"chunks": chunks, "retriever": _identity(retriever)}
        search = {"depth": self.first.depth, "filter": self.first.filter}
        lists = []
        for name in self.first.retrievers:
            stage = f"first_stage_{name}_index"
            keys[stage] = {"index": key_of(keys[f"{name}_index"]), **search}
            lists.append(key_of(keys[stage]))
        head = lists[0]
        if self.fuses:
            keys[FUSION] = {"lists": lists, "fusion": _identity(self.fusion)}
            head = key_of(keys[FUSION])
        if self.rerank.active:
            assert self.rerank.model is not None
            model = _identity(self.rerank.model)
            keys[RERANK] = {"input": head, "depth": self.rerank.depth, "model": model}
        return keys

    def index_keys(self, snapshot: str) -> dict[str, dict[str, Any]]:
        """The parts of `stage_keys` that build the indexes (chunks and one per retriever)."""
        return {
            k: v
            for k, v in self.stage_keys(snapshot).items()
            if k == CHUNKS or (k.endswith("_index") and not k.startswith("first_stage_"))
        }

    def index_build_hash(self, snapshot: str) -> str:
        """Hash of everything that builds the indexes: snapshot, chunker, first-stage models."""
        return hashlib.sha256(
            json.dumps(self.index_keys(snapshot), sort_keys=True, default=str).encode()
        ).hexdigest()


def shared_stages(pipelines: Sequence[Pipeline], snapshot: str) -> list[str]:
    """The stages every pipeline runs with the same key (what a sweep builds once), in
    data-flow order; the others are what the sweep's factor touches."""
    keys = [p.stage_keys(snapshot) for p in pipelines]
    return [st for st, parts in keys[0].items() if all(k.get(st) == parts for k in keys[1:])]


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


@dataclass(frozen=True)
class TieOrder:
    """The chunks in tie order (what the stages index), and the way back.

    `order[j]` is the position, in the chunks as given, of the j-th chunk in tie order;
    `where[i]` is the tie-order position of given chunk i. Build with `TieOrder.of(chunks)`."""

    order: np.ndarray
    where: np.ndarray

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> TieOrder:
        order = tie_order([c.chunk_id for c in chunks])
        where = np.empty_like(order)
        where[order] = np.arange(len(order), dtype=np.int64)
        return cls(order, where)

    def chunks(self, chunks: Sequence[Chunk]) -> list[Chunk]:
        """`chunks` (as given) rearranged into tie order."""
        return [chunks[i] for i in self.order.tolist()]

    def allowed(self, allowed: Allowed) -> list[np.ndarray | None] | None:
        """Each query's allowed chunk indices (as given) as tie-order indices, ascending."""
        if allowed is None:
            return None
        return [
            None if a is None else np.sort(self.where[np.asarray(a, dtype=np.int64)])
            for a in allowed
        ]

    def back(self, ids: np.ndarray) -> np.ndarray:
        """Tie-order indices (-1 padding kept) as indices into the chunks as given."""
        ids = np.asarray(ids, dtype=np.int64)
        return np.where(ids == PAD_ID, PAD_ID, self.order[np.maximum(ids, 0)]).astype(np.int64)


def questions_key(texts: Sequence[str], allowed: Allowed) -> str:
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
    """Per question, the chunk indices of its product and wording version (None: no filter), by
    `ragsweep.data.admits`, the rule the labelled set's relevant labels follow too."""
    kinds = sorted({(c.product, c.version) for c in chunks}, key=repr)
    kind_of = {k: i for i, k in enumerate(kinds)}
    per_chunk = np.array([kind_of[(c.product, c.version)] for c in chunks], dtype=np.int64)
    cache: dict[tuple[str | None, str | None], np.ndarray | None] = {}
    out: list[np.ndarray | None] = []
    for p, v in zip(products, versions, strict=True):
        key = (p, v)
        if key not in cache:
            if p is None and v is None:
                cache[key] = None
            else:
                ok = np.array([admits(p, v, dp, dv) for dp, dv in kinds], dtype=bool)
                cache[key] = np.flatnonzero(ok[per_chunk]).astype(np.int64)
        out.append(cache[key])
    return out


def return_freed_memory(collect: bool = False) -> None:
    """Hand the heap glibc keeps after a big stage back to the system (`malloc_trim`; `gc`
    first when `collect`); elsewhere nothing. After BM25's build and search at 100,000 chunks
    glibc kept 259 MB of freed heap, idle beside the SVD that followed (its arrays are mapped
    apart), so the run's peak carried it."""
    if collect:
        gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _timed_build(retriever: Retriever, texts: list[str]) -> Built:
    t0 = time.perf_counter()
    retriever.index(texts)
    seconds = time.perf_counter() - t0
    return Built(index=retriever, seconds=seconds, size_bytes=pickled_size(retriever))


#: questions whose one-at-a-time search is timed for `cost/latency_*`
LATENCY_QUESTIONS = 24


def latency_picks(n_queries: int, n: int = LATENCY_QUESTIONS) -> np.ndarray:
    """The questions timed for latency: up to `n`, spread evenly through the `n_queries`."""
    if n_queries == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.linspace(0, n_queries - 1, num=min(n, n_queries)).astype(np.int64))


@dataclass
class Searched:
    """One index's first-stage lists with what they cost: the seconds the batch search took,
    the seconds each `latency_picks` question took searched alone on the warm index, and the
    index's build seconds and serialised size (so a run reading cached lists needs no index)."""

    ranked: Ranked
    seconds: float
    single: np.ndarray
    index_seconds: float
    index_bytes: int


def _search(built: Built, queries: Sequence[str], depth: int, allowed: Allowed) -> Searched:
    t0 = time.perf_counter()
    ranked = built.index.search(list(queries), depth, allowed)
    seconds = time.perf_counter() - t0
    picks = latency_picks(len(queries)).tolist()
    single = np.zeros(len(picks))
    for j, i in enumerate(picks[:1] + picks):  # the first call warms up, untimed
        a = None if allowed is None else [allowed[i]]
        t1 = time.perf_counter()
        built.index.search([queries[i]], depth, a)
        if j:
            single[j - 1] = time.perf_counter() - t1
    return Searched(ranked, seconds, single, built.seconds, built.size_bytes)


def first_stage(
    pipe: Pipeline,
    snapshot: str,
    chunks: Sequence[Chunk],
    queries: Sequence[str],
    allowed: Allowed,
    cache: StageCache,
    only: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Searched]:
    """Each first-stage index's lists for `queries` (`<retriever>_index` -> `Searched`),
    cached; an index is built (or read from the cache) only when its lists are not cached.
    `only` restricts them to some of those stages. `chunks` and `allowed` in `TieOrder` (as
    `rank` indexes them), so that what is cached is what `rank` builds."""
    say = progress or (lambda stage: None)
    texts = [c.text for c in chunks]
    keys = pipe.stage_keys(snapshot)
    qkey = questions_key(queries, allowed)
    out = {}
    for name, retriever in pipe.first.retrievers.items():
        stage = f"{name}_index"
        if only is not None and stage not in only:
            continue

        def search(stage: str = stage, retriever: Retriever = retriever) -> Searched:
            say("indexing")
            built = cache.get_or_compute(stage, keys[stage], lambda: _timed_build(retriever, texts))
            say("first-stage retrieval")
            return _search(built, queries, pipe.first.depth, allowed)

        key = {**keys[f"first_stage_{stage}"], "questions": qkey}
        out[stage] = cache.get_or_compute(f"first_stage_{stage}", key, search)
        return_freed_memory()  # the index is gone: its heap must not sit under the next one
    return out


def second_stage(
    pipe: Pipeline, lists: Sequence[Ranked], queries: Sequence[str], texts: Sequence[str]
) -> Ranked:
    """Fuse the first-stage lists (when two or more) and rerank the head if configured."""
    ranked = pipe.fusion.fuse(lists, pipe.first.depth) if len(lists) > 1 else lists[0]
    if pipe.rerank.active:
        assert pipe.rerank.model is not None
        ranked = pipe.rerank.model.rerank(list(queries), list(texts), ranked, pipe.rerank.depth)
    return ranked


def query_latency(
    pipe: Pipeline, searched: Mapping[str, Searched], queries: Sequence[str], texts: Sequence[str]
) -> tuple[float, float]:
    """p50 and p95 seconds to answer one question through every stage, as a served system
    would: per index built and loaded once, each of the `latency_picks` questions is searched
    alone on every index (`Searched.single`, timed when the lists were made, after one warm-up
    search), then fused and reranked alone; its latency is the sum. Timings vary with the
    machine; they are cost indicators beside the metrics, never part of a verdict. The reranker
    is the one the full run used (built and fitted once)."""
    picks = latency_picks(len(queries))
    took = np.sum([s.single for s in searched.values()], axis=0)
    lists = [s.ranked for s in searched.values()]
    for j, i in enumerate(picks):
        one = [Ranked(r.ids[i : i + 1], r.scores[i : i + 1]) for r in lists]
        t0 = time.perf_counter()
        second_stage(pipe, one, [queries[i]], texts)
        took[j] += time.perf_counter() - t0
    return float(np.percentile(took, 50)), float(np.percentile(took, 95))


def rank(
    pipe: Pipeline,
    snapshot: str,
    chunks: Sequence[Chunk],
    queries: Sequence[str],
    allowed: Allowed,
    cache: StageCache | None = None,
    progress: Callable[[str], None] | None = None,
    measure_latency: bool = True,
    rows: np.ndarray | None = None,
) -> Ranking:
    """Run every stage of `pipe` for `queries` over `chunks`; `progress` hears each stage.

    `allowed` and the returned ids index `chunks` as given; the stages see the chunks in
    `TieOrder`, so equal scores rank by the hash of the chunk id whatever order `chunks` is in.
    `rows` (indices into `queries`, default all) are the questions whose final ranking is
    wanted: the first stage searches every query (one cached list serves every split, so the
    confirm stage reuses what the sweep searched), the later stages only those rows. Each
    query is searched on its own terms, so its list does not depend on the others.
    """
    say = progress or (lambda stage: None)
    cache = cache or StageCache(None)
    ties = TieOrder.of(chunks)
    chunks, allowed = ties.chunks(chunks), ties.allowed(allowed)
    texts = [c.text for c in chunks]
    say("first-stage retrieval")
    searched = first_stage(pipe, snapshot, chunks, queries, allowed, cache, progress=say)
    seconds = {f"search_{st.removesuffix('_index')}": s.seconds for st, s in searched.items()}
    rows = np.arange(len(queries)) if rows is None else np.asarray(rows, dtype=np.int64)
    lists = [Ranked(s.ranked.ids[rows], s.ranked.scores[rows]) for s in searched.values()]
    say("fusion and reranking")
    t0 = time.perf_counter()
    ranked = second_stage(pipe, lists, [queries[i] for i in rows], texts)
    seconds["second_stage"] = time.perf_counter() - t0
    cost = {
        "index_build_seconds": float(sum(s.index_seconds for s in searched.values())),
        "index_size_bytes": float(sum(s.index_bytes for s in searched.values())),
    }
    if measure_latency:
        say("measuring latency")
        p50, p95 = query_latency(pipe, searched, queries, texts)
        cost.update({"latency_p50_ms": 1000 * p50, "latency_p95_ms": 1000 * p95})
    return Ranking(ids=ties.back(ranked.ids), scores=ranked.scores, seconds=seconds, cost=cost)
