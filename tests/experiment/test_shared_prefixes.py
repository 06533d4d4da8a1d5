"""Shared prefixes run once: the stages every configuration of a sweep shares (chunks, indexes,
first-stage ranked lists) are built into the cache before the jobs start, and every job finds
them there (tag `ragsweep.cache_hits`) instead of re-chunking, re-embedding or re-searching; a
job whose lists are cached does not even load the index they came from."""

from __future__ import annotations

import pytest

FIRST_STAGE = {"first_stage_bm25_index", "first_stage_dense_index"}


def hits(run) -> set[str]:
    return set(run.data.tags["ragsweep.cache_hits"].split(","))


def cached(folder, stage: str) -> list:
    return sorted((folder / ".ragsweep_cache").glob(f"*/{stage}/*.pkl"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["reranker_depth", "fusion_k"])
def test_a_sweep_after_the_first_stage_builds_indexes_and_lists_once(sweep_file, name):
    done = sweep_file(name).ok()
    by_value = done.store.by_value(f"sweep:{name}")
    assert len(by_value) == 4
    for value, run in by_value.items():
        assert hits(run) == {"chunks"} | FIRST_STAGE, (value, hits(run))
    assert len(cached(done.folder, "chunks")) == 1
    assert len(cached(done.folder, "bm25_index")) == 1
    assert len(cached(done.folder, "dense_index")) == 1


@pytest.mark.slow
@pytest.mark.minilm
def test_an_embedder_sweep_shares_the_bm25_stage_only(sweep_file):
    done = sweep_file("embedder").ok()  # skipped without the [minilm] extra
    by_value = done.store.by_value("sweep:embedder")
    assert sorted(by_value) == ["lsa", "minilm"]
    for value, run in by_value.items():
        assert {"chunks", "first_stage_bm25_index"} <= hits(run), (value, hits(run))
        # each embedder builds its own dense index and list in its job: nothing to find
        assert not {"dense_index", "first_stage_dense_index"} & hits(run), (value, hits(run))
    assert len(cached(done.folder, "bm25_index")) == 1
    assert len(cached(done.folder, "dense_index")) == 2
