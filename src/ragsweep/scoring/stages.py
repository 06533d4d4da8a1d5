"""The stages before scoring: the stage cache, the chunks and each question's allowed chunks,
the stages a sweep's configurations share, built once before its workers start (`prebuild`),
and the indexes its workers can build ahead of the jobs, one per task (`ahead_tasks`,
`build_ahead`; docs/architecture.md).
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
from ragsweep.retrieval.cache import StageCache, key_of


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
    Returns the stages built or found. Nothing is shared when the chunking differs."""
    if cache.directory is None or not cfgs:
        return []
    pipes = [pipeline.Pipeline.from_config(c) for c in cfgs]
    pipe, snapshot = pipes[0], ds.snapshot_hash
    shared = set(pipeline.shared_stages(pipes, snapshot))
    if pipeline.CHUNKS not in shared:
        return []
    only = [st for st in pipe.index_keys(snapshot) if f"first_stage_{st}" in shared]
    _first_stage_lists(pipe, ds, cache, only)
    return [pipeline.CHUNKS, *sorted(f"first_stage_{st}" for st in only)]


def _first_stage_lists(
    pipe: pipeline.Pipeline, ds: Dataset, cache: StageCache, only: Sequence[str]
) -> None:
    """The chunks, and the `only` indexes' first-stage lists of every question, into `cache`:
    as `pipeline.rank` builds them, so a configuration's job finds them."""
    chunks, allowed = chunk_and_filter(pipe, ds, ds.questions, cache)
    if only:
        ties = pipeline.TieOrder.of(chunks)  # the order `pipeline.rank` indexes them in
        pipeline.first_stage(
            pipe,
            ds.snapshot_hash,
            ties.chunks(chunks),
            list(ds.questions["text"]),
            ties.allowed(allowed),
            cache,
            only=list(only),
        )


#: the index built first of a configuration's own (the costlier: the SVD, or a model)
_COSTLIER = "dense_index"


def ahead_tasks(cfgs: Sequence[DictConfig], ds: Dataset) -> list[tuple[int, str]]:
    """The index builds a sweep can run ahead on its workers, one per task: (position in
    `cfgs`, index stage), one per distinct first-stage key, in the order `cfgs` come (the
    launcher's, longest first) and a configuration's dense index before its BM25 one. Only
    what `prebuild` does not build (what is not shared), and only when some configuration
    has two indexes of its own: otherwise its job is already the smallest unit of work. A
    chunk-size sweep on 2 workers ran its 3 configurations as 3 jobs, the longest beside the
    other two; as 6 index builds both workers stay busy."""
    if not cfgs:
        return []
    pipes = [pipeline.Pipeline.from_config(c) for c in cfgs]
    snapshot = ds.snapshot_hash
    shared = set(pipeline.shared_stages(pipes, snapshot))
    tasks: list[tuple[int, str]] = []
    seen: set[str] = set()
    widest = 0
    for i, pipe in enumerate(pipes):
        keys = pipe.stage_keys(snapshot)
        own = [
            st
            for st in pipe.index_keys(snapshot)
            if st != pipeline.CHUNKS and f"first_stage_{st}" not in shared
        ]
        widest = max(widest, len(own))
        for st in sorted(own, key=lambda st: st != _COSTLIER):
            key = key_of(keys[f"first_stage_{st}"])
            if key not in seen:
                seen.add(key)
                tasks.append((i, st))
    return tasks if widest >= 2 else []


def build_ahead(cfg: DictConfig, ds: Dataset, cache: StageCache, stage: str) -> None:
    """One of `ahead_tasks`: the chunks of `cfg` (built, or waited for while another task
    builds them) and its index `stage`'s first-stage lists of every question, into `cache`."""
    _first_stage_lists(pipeline.Pipeline.from_config(cfg), ds, cache, [stage])
