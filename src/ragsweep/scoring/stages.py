"""The stages before scoring: the stage cache, the chunks and each question's allowed chunks,
and the stages a sweep's configurations share, built once before its workers start
(`prebuild`; docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from ragsweep.chunking.chunkers import Chunk, chunk_corpus
from ragsweep.data import Dataset
from ragsweep.errors import UserError
from ragsweep.provenance import source_hash
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.cache import StageCache


def stage_cache(cfg: DictConfig) -> StageCache:
    """The stage cache `cache.dir` names, one folder per source hash of ragsweep (nothing built
    by other code is reused), or none when it is null."""
    directory = OmegaConf.select(cfg, "cache.dir", default=None)
    return StageCache(None if directory is None else Path(directory) / source_hash()[:16])


def chunk_and_filter(
    pipe: pipeline.Pipeline,
    ds: Dataset,
    questions: pd.DataFrame,
    cache: StageCache | None = None,
) -> tuple[list[Chunk], list[np.ndarray | None] | None]:
    """The chunks of the corpus under the pipeline's chunker (from `cache` when given and
    present: stage `chunks`), and each question's allowed chunks (None when the retriever does
    not filter)."""
    cache = cache or StageCache(None)
    key = pipe.stage_keys(ds.snapshot_hash)[pipeline.CHUNKS]
    chunks = cache.get_or_compute(
        pipeline.CHUNKS, key, lambda: chunk_corpus(ds.documents, pipe.chunker)
    )
    if not chunks:
        raise UserError(f"the chunker produced no passages from {ds.root / 'corpus'}")
    allowed = None
    if pipe.first.filter:
        allowed = pipeline.allowed_chunks(
            chunks, list(questions["product"]), list(questions["version"])
        )
    return chunks, allowed


def question_rows(ds: Dataset, questions: pd.DataFrame) -> np.ndarray:
    """Positions in `ds.questions` of `questions` (a selection of them, in file order)."""
    return np.flatnonzero(ds.questions["qid"].isin(set(questions["qid"])).to_numpy())


def prebuild(cfgs: Sequence[DictConfig], ds: Dataset, cache: StageCache) -> list[str]:
    """Build, once, the stages every configuration in `cfgs` shares (chunks, indexes,
    first-stage lists of every question, held-out ones included, so the confirm stage finds
    them too) into `cache`, so parallel workers read them instead of each building them.
    Returns the stages built or found. Nothing is shared when the chunking differs. The chunks
    and lists are written on the core LSA's SVD leaves idle (`StageCache.writing_behind`), all
    of them before this returns."""
    if cache.directory is None or not cfgs:
        return []
    pipes = [pipeline.Pipeline.from_config(c) for c in cfgs]
    pipe, snapshot = pipes[0], ds.snapshot_hash
    shared = set(pipeline.shared_stages(pipes, snapshot))
    if pipeline.CHUNKS not in shared:
        return []
    with cache.writing_behind():
        chunks, allowed = chunk_and_filter(pipe, ds, ds.questions, cache)
        only = [st for st in pipe.index_keys(snapshot) if f"first_stage_{st}" in shared]
        if only:
            ties = pipeline.TieOrder.of(chunks)  # the order `pipeline.rank` indexes them in
            pipeline.first_stage(
                pipe,
                snapshot,
                ties.chunks(chunks),
                list(ds.questions["text"]),
                ties.allowed(allowed),
                cache,
                only=only,
            )
    return [pipeline.CHUNKS, *sorted(f"first_stage_{st}" for st in only)]


def scores_only(cfgs: Sequence[DictConfig], ds: Dataset) -> bool:
    """Whether `prebuild` leaves every configuration in `cfgs` nothing but to fuse and score:
    they share every first-stage list each of them reads, and none reranks (a reranker costs
    per configuration). Such a configuration takes seconds from the cache (a fusion sweep's),
    less than a worker process takes to start. False without a stage cache."""
    if not cfgs or OmegaConf.select(cfgs[0], "cache.dir", default=None) is None:
        return False
    pipes = [pipeline.Pipeline.from_config(c) for c in cfgs]
    snapshot = ds.snapshot_hash
    shared = set(pipeline.shared_stages(pipes, snapshot))
    return all(
        not p.rerank.active
        and all(st in shared for st in p.stage_keys(snapshot) if st.startswith("first_stage_"))
        for p in pipes
    )
