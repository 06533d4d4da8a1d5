"""`StageCache.writing_behind`, a single run's cache writes: an entry of a value the run holds
anyway (chunks, first-stage lists) is written on the core the SVD lends (`retrieval.idle`) or
when the block ends, holding its entry's lock until then; an index is written at once; a block
that raises writes nothing and lets every lock go; a write's error reaches the caller."""

from __future__ import annotations

import errno
import fcntl
import time
from pathlib import Path

import pytest

from ragsweep.retrieval import cache as cache_module
from ragsweep.retrieval import idle
from ragsweep.retrieval.cache import StageCache, key_of, read_pickle

PARTS = {"snapshot": "s1", "chunker": {"size": 64}}
CHUNKS = [f"passage {i}" for i in range(50)]


def locked_by_someone(target: Path) -> bool:
    """Whether another holder has the entry's lock (a second open file, as another process)."""
    with open(target.with_suffix(".lock"), "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def test_an_entry_is_written_behind_under_its_lock_and_whole_when_the_block_ends(tmp_path):
    cache = StageCache(tmp_path)
    target = cache.path("chunks", key_of(PARTS))
    with cache.writing_behind():
        assert cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS)) == CHUNKS
        assert not target.exists() and locked_by_someone(target)
        index = cache.get_or_compute("bm25_index", PARTS, lambda: {"index": 1})
        index_target = cache.path("bm25_index", key_of(PARTS))
        assert index == {"index": 1} and index_target.exists()  # an index: at once
        assert not locked_by_someone(index_target)
    assert read_pickle(target) == CHUNKS and not locked_by_someone(target)
    assert cache.misses == ["chunks", "bm25_index"]
    cache_module._KEPT.clear()
    again = StageCache(tmp_path)
    assert again.get_or_compute("chunks", PARTS, lambda: pytest.fail("recomputed")) == CHUNKS
    assert again.hits == ["chunks"]


def test_a_lent_core_writes_the_entry_before_the_block_ends(tmp_path):
    cache = StageCache(tmp_path)
    target = cache.path("chunks", key_of(PARTS))
    with cache.writing_behind():
        cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS))
        assert not target.exists()
        with idle.lent_core():
            deadline = 500
            while not target.exists() and deadline:
                time.sleep(0.01)
                deadline -= 1
        assert read_pickle(target) == CHUNKS


def test_a_block_that_raises_writes_nothing_and_lets_the_locks_go(tmp_path):
    cache = StageCache(tmp_path)
    target = cache.path("chunks", key_of(PARTS))
    with pytest.raises(KeyboardInterrupt), cache.writing_behind():
        cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS))
        raise KeyboardInterrupt
    assert not target.exists() and not locked_by_someone(target)
    assert not list(target.parent.glob(".*.tmp*"))


def test_a_write_that_fails_raises_where_the_block_ends_and_lets_the_lock_go(tmp_path, monkeypatch):
    def full(target: Path, value: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module, "write_pickle", full)
    cache = StageCache(tmp_path)
    target = cache.path("chunks", key_of(PARTS))
    lists = cache.path("first_stage_bm25_index", key_of(PARTS))
    with pytest.raises(OSError, match="No space left"), cache.writing_behind():
        cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS))
        cache.get_or_compute("first_stage_bm25_index", PARTS, lambda: [1, 2])
    assert not target.exists() and not locked_by_someone(target)
    assert not lists.exists() and not locked_by_someone(lists)  # the second one too


def test_without_the_block_or_a_directory_nothing_is_behind(tmp_path):
    cache = StageCache(tmp_path)
    cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS))
    assert cache.path("chunks", key_of(PARTS)).exists()
    off = StageCache(None)
    with off.writing_behind():
        assert off.get_or_compute("chunks", PARTS, lambda: list(CHUNKS)) == CHUNKS
    assert off.misses == ["chunks"]


def test_an_entry_asked_for_again_in_the_block_is_written_then_read_not_waited_on(tmp_path):
    import threading

    cache = StageCache(tmp_path)
    target = cache.path("chunks", key_of(PARTS))
    got: list[object] = []
    with cache.writing_behind():
        cache.get_or_compute("chunks", PARTS, lambda: list(CHUNKS))
        cache_module._KEPT.clear()  # as another configuration of the process would find it
        again = threading.Thread(
            target=lambda: got.append(cache.get_or_compute("chunks", PARTS, pytest.fail)),
            daemon=True,
        )
        again.start()
        again.join(30)  # its own lock, held for the write behind, would make it wait forever
        assert not again.is_alive()
        assert read_pickle(target) == CHUNKS
    assert got == [CHUNKS] and cache.hits == ["chunks"] and cache.misses == ["chunks"]


def _take_in_order(directory: str, order: list[str], barrier, done) -> None:
    cache = StageCache(directory)
    with cache.writing_behind():
        for i, stage in enumerate(order):
            cache.get_or_compute(stage, {"stage": stage}, lambda: [1, 2, 3])
            if i == 0:
                barrier.wait(30)  # each holds its first entry's lock for a write behind
    done.put(order[0])


def test_two_processes_taking_the_same_entries_in_another_order_never_wait_on_each_other(
    tmp_path,
):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    barrier, done = ctx.Barrier(2), ctx.Queue()
    stages = ["first_stage_bm25", "first_stage_lsa"]
    runs = [
        ctx.Process(target=_take_in_order, args=(str(tmp_path), order, barrier, done))
        for order in (stages, stages[::-1])
    ]
    for p in runs:
        p.start()
    try:
        for p in runs:
            p.join(60)
        assert not any(p.is_alive() for p in runs), "the two processes wait on each other"
        assert sorted(done.get(timeout=5) for _ in runs) == sorted(stages)
    finally:
        for p in runs:
            p.kill()
            p.join()
    cache = StageCache(tmp_path)
    for stage in stages:
        assert read_pickle(cache.path(stage, key_of({"stage": stage}))) == [1, 2, 3]
