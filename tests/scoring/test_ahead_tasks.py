"""The index builds a sweep runs ahead on its workers (`scoring.stages.ahead_tasks`): one task
per distinct index a configuration does not share, the configurations in the order given and
the dense index first within one; none when no configuration has two indexes of its own (its
job is then the smallest unit already) or when they share their lists (`prebuild` builds those).
`build_ahead` leaves in the cache what the configuration's own run then finds."""

from __future__ import annotations

import pytest

from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.cache import StageCache
from ragsweep.scoring.stages import ahead_tasks, build_ahead
from toy import TINY, TOY


@pytest.fixture(scope="module")
def tiny():
    return load_dataset(TINY)


def cfgs(*values: str) -> list:
    return [compose([*TOY, v]) for v in values]


def test_a_chunk_size_sweep_has_two_tasks_per_configuration_dense_first(tiny):
    sizes = cfgs("chunker.size=64", "chunker.size=128", "chunker.size=256")
    assert ahead_tasks(sizes, tiny) == [
        (0, "dense_index"),
        (0, "bm25_index"),
        (1, "dense_index"),
        (1, "bm25_index"),
        (2, "dense_index"),
        (2, "bm25_index"),
    ]
    # two configurations building the same index: built once
    twice = cfgs("chunker.size=64", "chunker.size=128", "chunker.size=64")
    assert ahead_tasks(twice, tiny) == ahead_tasks(twice[:2], tiny)
    assert len(ahead_tasks(twice, tiny)) == 4


@pytest.mark.parametrize(
    "values",
    [
        ("fusion.k=10", "fusion.k=60"),  # everything shared: prebuilt by the launcher
        ("embedder.dim=16", "embedder.dim=32"),  # one index of its own each: the job is the unit
        ("retriever=bm25", "retriever=dense"),  # one index each
    ],
)
def test_nothing_runs_ahead_when_no_configuration_has_two_indexes_of_its_own(tiny, values):
    assert ahead_tasks(cfgs(*values), tiny) == []
    assert ahead_tasks([], tiny) == []


def test_build_ahead_leaves_what_the_configurations_run_then_finds(tiny, tmp_path):
    cfg = compose([*TOY, "chunker.size=64"])
    cache = StageCache(tmp_path)
    for _, stage in ahead_tasks(cfgs("chunker.size=64", "chunker.size=128"), tiny)[:2]:
        build_ahead(cfg, tiny, cache, stage)
    pipe = pipeline.Pipeline.from_config(cfg)
    keys = pipe.stage_keys(tiny.snapshot_hash)
    assert cache.contains(pipeline.CHUNKS, keys[pipeline.CHUNKS])
    assert cache.contains("dense_index", keys["dense_index"])
    assert cache.contains("bm25_index", keys["bm25_index"])
    found = sorted(p.parent.name for p in tmp_path.glob("*/*.pkl"))
    assert found.count("first_stage_dense_index") == found.count("first_stage_bm25_index") == 1
