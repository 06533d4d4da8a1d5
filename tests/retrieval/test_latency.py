"""`cost/latency_*` is one question's search through every stage on a warm index: the set-up a
served system does once (building, loading, the first call's warm-up) is not in it, and the
batch search of every question is not divided up into it.

A stub retriever makes the cost of each call known: its first search pays a one-off set-up,
every later call pays a fixed amount per call plus a fixed amount per question. It pays them on a
clock of the test's own, which the pipeline reads in place of `time.perf_counter`, so the expected
latencies are exact whatever the machine's load.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from ragsweep.chunking import FixedTokenChunker
from ragsweep.chunking.chunkers import chunk_corpus
from ragsweep.data import load_dataset
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.base import Allowed, Ranked
from ragsweep.retrieval.cache import StageCache
from ragsweep.retrieval.fusion import RRF
from toy import TINY

SETUP, PER_CALL, PER_QUESTION = 0.30, 0.004, 0.002


class Clock:
    """The pipeline's `time`: only `perf_counter` is read, and only `Timed` moves it."""

    now = 0.0

    @classmethod
    def perf_counter(cls) -> float:
        return cls.now


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    monkeypatch.setattr(pipeline, "time", Clock)
    monkeypatch.setattr(Clock, "now", 0.0)


class Timed:
    """Ranks the first chunks in index order; takes the time the module docstring says."""

    def __init__(self) -> None:
        self.n = 0
        self.calls = 0

    def index(self, texts: Sequence[str]) -> None:
        self.n = len(texts)

    def search(self, queries: Sequence[str], depth: int, allowed: Allowed = None) -> Ranked:
        Clock.now += (SETUP if self.calls == 0 else PER_CALL) + PER_QUESTION * len(queries)
        self.calls += 1
        k = min(depth, self.n)
        ids = np.tile(np.arange(k, dtype=np.int64), (len(queries), 1))
        scores = np.tile(-np.arange(k, dtype=np.float64), (len(queries), 1))
        return Ranked(ids, scores)

    def fingerprint(self) -> dict[str, Any]:
        return {"kind": "timed"}


def rank(retrievers: dict[str, Timed], cache: StageCache) -> pipeline.Ranking:
    ds = load_dataset(TINY)
    pipe = pipeline.Pipeline(
        chunker=FixedTokenChunker(64, 8),
        first=pipeline.FirstStage(depth=5, filter=False, **retrievers),
        fusion=RRF(),
        rerank=pipeline.Rerank(0),
    )
    chunks = chunk_corpus(ds.documents, pipe.chunker)
    questions = list(ds.questions["text"]) * 5  # 50 questions
    return pipeline.rank(pipe, ds.snapshot_hash, chunks, questions, None, cache)


def test_latency_is_one_warm_search_per_stage_not_setup_or_a_share_of_the_batch():
    one = rank({"a": Timed()}, StageCache(None))
    single = 1000 * (PER_CALL + PER_QUESTION)
    # the warm-up call (SETUP) is not timed, nor a share of the batch search
    assert one.cost["latency_p50_ms"] == pytest.approx(single, abs=1e-9)
    assert one.cost["latency_p95_ms"] == pytest.approx(single, abs=1e-9)
    # two first stages: a question's latency is its search on both, then the fusion
    two = rank({"a": Timed(), "b": Timed()}, StageCache(None))
    assert two.cost["latency_p50_ms"] == pytest.approx(2 * single, abs=1e-9)


def test_a_run_reading_cached_lists_reports_the_latency_measured_with_them(tmp_path):
    cache = StageCache(tmp_path)
    first = rank({"a": Timed()}, cache)
    again = rank({"a": Timed()}, cache)  # lists from the cache: the index is never searched
    assert cache.hits.count("first_stage_a_index") == 1
    assert again.cost["latency_p50_ms"] == first.cost["latency_p50_ms"] > 0
    assert again.cost["index_build_seconds"] == first.cost["index_build_seconds"]
