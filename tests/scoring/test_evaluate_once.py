"""`evaluate(once=True)`, a single run's evaluation: the same numbers as any evaluation, its
dataset not remembered by the loader, and its wordings let go before the indexes are built."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from ragsweep.config import compose
from ragsweep.data import load as load_module
from ragsweep.scoring import evaluate as evaluate_module
from ragsweep.scoring.evaluate import evaluate

TINY = Path(__file__).parents[1] / "fixtures" / "tiny"
ARGS = ["data=folder", f"data.path={TINY}", "cache.dir=null", "data.split.heldout=0"]


def test_once_gives_the_same_numbers_and_lets_the_wordings_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cfg = compose(ARGS)
    expected = evaluate(cfg)
    load_module._LOADED.clear()
    loaded: list[weakref.ref[Any]] = []
    real_load = evaluate_module.load_dataset

    def load(*args: Any, **kwargs: Any) -> Any:
        ds = real_load(*args, **kwargs)
        loaded.extend(weakref.ref(d) for d in ds.documents)
        return ds

    alive_at: dict[str, int] = {}
    frozen_at: dict[str, int] = {}
    frozen_before = gc.get_freeze_count()

    def progress(stage: str) -> None:
        gc.collect()
        alive_at[stage] = sum(r() is not None for r in loaded)
        frozen_at[stage] = gc.get_freeze_count()

    monkeypatch.setattr(evaluate_module, "load_dataset", load)
    got = evaluate(cfg, progress=progress, once=True)
    assert got.metrics == expected.metrics
    assert got.per_question.equals(expected.per_question)
    assert got.rankings == expected.rankings
    assert len(loaded) > 1 and alive_at["chunking"] == len(loaded)
    assert alive_at["indexing"] == 0 and alive_at["scoring"] == 0
    assert not load_module._LOADED  # not remembered for a later load
    # the heap alive once chunked is left out of the collector's passes until it is scored
    assert frozen_at["chunking"] == frozen_before
    assert frozen_at["indexing"] > frozen_before and frozen_at["scoring"] > frozen_before
    assert gc.get_freeze_count() == frozen_before


def test_a_frozen_heap_is_given_back_to_the_collector_however_the_block_ends() -> None:
    from ragsweep.data.gc_pause import heap_frozen

    before = gc.get_freeze_count()
    with pytest.raises(KeyboardInterrupt), heap_frozen():
        assert gc.get_freeze_count() > before
        raise KeyboardInterrupt
    assert gc.get_freeze_count() == before


def test_a_frozen_heap_inside_another_freeze_leaves_that_one_frozen() -> None:
    from ragsweep.data.gc_pause import heap_frozen

    assert gc.get_freeze_count() == 0
    gc.freeze()  # someone else's, before the block
    try:
        outer = gc.get_freeze_count()
        assert outer > 1000
        with heap_frozen(), heap_frozen():
            pass
        # not let go by the block's end (a few frozen objects may die meanwhile)
        assert gc.get_freeze_count() > outer // 2
    finally:
        gc.unfreeze()


def test_without_once_the_loader_remembers_the_dataset() -> None:
    load_module._LOADED.clear()
    evaluate(compose(ARGS))
    assert len(load_module._LOADED) == 1
