"""Stage cache entries carry a checksum of their payload, checked before they are unpickled: an
entry damaged on disk that still unpickles (a flipped byte inside a number), or one cut short,
is named in a one-line warning and recomputed, never returned; an entry written without a
checksum (an older ragsweep) is recomputed quietly. Before, a damaged first-stage list was
returned: a 23-line traceback at best, wrong numbers at worst."""

from __future__ import annotations

import logging
import pickle
import struct
from pathlib import Path

import pytest

from ragsweep.retrieval import cache as cache_module
from ragsweep.retrieval.cache import MAGIC, StageCache, key_of, read_pickle, write_pickle

PARTS = {"snapshot": "s1", "stage": "bm25"}
SCORES = [0.5, 0.25, 0.125, 0.0625]


class Counted:
    """A stage's computation that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> list[float]:
        self.calls += 1
        return list(SCORES)


def flip(path: Path, at: int) -> None:
    """Damage `path` in place, as a disk would; this process forgets the values it kept (a
    file rewritten within one clock tick keeps its size and time: another process reads it)."""
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))
    cache_module._KEPT.clear()


def entry(tmp_path: Path) -> tuple[StageCache, Path, Counted]:
    cache, compute = StageCache(tmp_path), Counted()
    assert cache.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    return cache, cache.path("first_stage_bm25", key_of(PARTS)), compute


def test_a_damaged_entry_that_still_unpickles_is_named_and_recomputed(tmp_path, caplog):
    cache, path, compute = entry(tmp_path)
    # the last byte of 0.25 as pickled (big-endian double): the entry still unpickles, wrongly
    flip(path, path.read_bytes().index(struct.pack(">d", 0.25)) + 7)
    damaged = pickle.loads(path.read_bytes()[len(MAGIC) + 32 :])
    assert damaged[0] == 0.5 and 0.25 != damaged[1] == pytest.approx(0.25)  # wrong, quietly
    with caplog.at_level(logging.WARNING):
        assert cache.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    assert [r.getMessage() for r in caplog.records] == [
        f"cache entry {path} is damaged (checksum mismatch): recomputing it"
    ]
    assert compute.calls == 2
    assert read_pickle(path) == SCORES  # rewritten sound: the next reader takes it
    assert StageCache(tmp_path).get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    assert compute.calls == 2


def test_an_entry_cut_short_or_with_a_damaged_checksum_is_recomputed(tmp_path, caplog):
    cache, path, compute = entry(tmp_path)
    path.write_bytes(path.read_bytes()[:-3])  # a full disk
    cache_module._KEPT.clear()
    with caplog.at_level(logging.WARNING):
        assert cache.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    flip(path, len(MAGIC) + 5)  # the checksum itself
    with caplog.at_level(logging.WARNING):
        assert cache.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    assert compute.calls == 3
    assert len(caplog.records) == 2
    assert all("damaged (checksum mismatch)" in r.getMessage() for r in caplog.records)


def test_an_entry_without_a_checksum_is_recomputed_quietly(tmp_path, caplog):
    cache, path, compute = entry(tmp_path)
    path.write_bytes(pickle.dumps([9.0], protocol=5))  # as an older ragsweep wrote entries
    with caplog.at_level(logging.WARNING):
        assert cache.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    assert compute.calls == 2 and caplog.records == []
    assert read_pickle(path) == SCORES


def test_a_written_entry_reads_back_whole(tmp_path):
    value = {"ids": ["a", "b"], "scores": SCORES, "blob": bytes(range(256)) * 1000}
    write_pickle(tmp_path / "x.pkl", value)
    assert read_pickle(tmp_path / "x.pkl") == value
    assert [p.name for p in tmp_path.iterdir()] == ["x.pkl"]  # no temporary file left


@pytest.mark.slow
def test_a_run_on_a_damaged_cache_prints_the_same_numbers_and_one_line_per_entry(tmp_path):
    """Every entry of a run's cache (chunks, indexes, first-stage lists) damaged by one byte:
    the next run names each in one line, recomputes it and scores exactly as before."""
    from conftest import cli_in
    from toy import SMALL_CHUNKS, TOY

    run = [*TOY, *SMALL_CHUNKS, "tracking.enabled=false"]
    clean = cli_in(tmp_path, *run).ok()
    entries = sorted(tmp_path.glob(".ragsweep_cache/*/*/*.pkl"))
    assert {p.parent.name for p in entries} >= {"chunks", "first_stage_bm25_index"}
    for path in entries:
        flip(path, (len(MAGIC) + 32 + path.stat().st_size) // 2)
    again = cli_in(tmp_path, *run).ok()
    warned = [line for line in again.out.splitlines() if "cache entry" in line]
    assert len(warned) == len(entries), again.out
    assert all(str(p.relative_to(tmp_path)) in "\n".join(warned) for p in entries)
    assert again.out.splitlines()[len(warned) :] == clean.out.splitlines()
    assert all(read_pickle(p) is not None for p in entries)  # rewritten sound


def test_pickled_size_is_the_pickle_length_without_holding_the_pickle():
    import numpy as np

    from ragsweep.retrieval import BM25Retriever, DenseRetriever, LSAEmbedder
    from ragsweep.retrieval.cache import pickled_size

    texts = [f"clause {i} excess £{i}00 END-HM-{i:02d} what is not covered" for i in range(60)]
    bm25, dense = BM25Retriever(), DenseRetriever(LSAEmbedder(dim=8))
    bm25.index(texts)
    dense.index(texts)
    big = {"matrix": np.arange(300_000, dtype=np.float32).reshape(1000, 300), "ids": list("ab")}
    for value in (bm25, dense, big, [], "x"):
        assert pickled_size(value) == len(pickle.dumps(value, protocol=5))


def test_chunks_and_lists_are_read_once_a_process_and_indexes_every_time(tmp_path, monkeypatch):
    cache, path, compute = entry(tmp_path)  # a first-stage list, written
    reads: list[Path] = []
    real_read = cache_module.read_pickle

    def read(target: Path) -> object:
        reads.append(target)
        return real_read(target)

    monkeypatch.setattr(cache_module, "read_pickle", read)
    other = StageCache(tmp_path)  # another configuration of the same process
    assert other.get_or_compute("first_stage_bm25", PARTS, compute) == SCORES
    assert reads == [] and other.hits == ["first_stage_bm25"] and compute.calls == 1
    # an index is read from its file each time: kept, it would sit beside the next build
    assert StageCache(tmp_path).get_or_compute("bm25_index", PARTS, compute) == SCORES
    assert StageCache(tmp_path).get_or_compute("bm25_index", PARTS, compute) == SCORES
    assert len(reads) == 1 and compute.calls == 2
    # the entry rewritten (another process): read again
    write_pickle(path, [1.0])
    assert StageCache(tmp_path).get_or_compute("first_stage_bm25", PARTS, compute) == [1.0]
    assert reads[-1] == path
    # another entry of the stage lets go of the one kept
    second = {**PARTS, "snapshot": "s2"}
    assert StageCache(tmp_path).get_or_compute("first_stage_bm25", second, compute) == SCORES
    kept_path, _, value = cache_module._KEPT["first_stage_bm25"]
    assert kept_path == cache.path("first_stage_bm25", key_of(second)) and value == SCORES


def test_a_kept_first_stage_list_is_read_only_for_every_later_configuration(tmp_path):
    import numpy as np

    from ragsweep.retrieval.base import Ranked
    from ragsweep.retrieval.cache import kept
    from ragsweep.retrieval.pipeline import Searched

    ids = np.array([[2, 0, -1]], dtype=np.int64)
    scores = np.array([[0.9, 0.5, -np.inf]])
    made = Searched(Ranked(ids, scores), 0.1, np.zeros(1), 0.2, 10)
    cache = StageCache(tmp_path)
    parts = {"index": "bm25"}
    got = cache.get_or_compute("first_stage_bm25", parts, lambda: made)
    found, again = kept("first_stage_bm25", cache.path("first_stage_bm25", key_of(parts)))
    assert found and again is got
    # a stage that edits its input in place raises, never changes what the next one sees
    for array in (again.ranked.ids, again.ranked.scores, again.single):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0
    assert again.ranked.scores[0, 0] == 0.9
