"""Pausing Python's cyclic garbage collector over work that makes many objects and no cycles."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block: work that makes millions of
    small objects and no cycle among them (loading 100,000 wordings, cutting them into chunks,
    tokenizing the chunks, building an index) starts the collector again and again by their
    number, and each time it walks them all for nothing: more than half the time of loading
    100,000 wordings, 0.2 s of chunking them and 0.5 s of tokenizing their chunks. Reference
    counting still frees everything as usual, and the collector's state is restored on the
    way out, error or not."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def heap_frozen() -> Iterator[None]:
    """Leave the objects alive when the block starts out of the cyclic collector's passes
    until it ends (`gc.freeze`, then `gc.unfreeze`): a single run's chunks, clause table and
    frames (1.2 million objects at 200,000 chunks) made each full collection in the rest of the
    run walk them all, 0.2-0.45 s a time: four times while MLflow was imported beside the SVD,
    and, by its times (0.32 s against 0.06 s in two runs of three, gone with this), inside the
    score stage. Reference counting still frees them as
    usual; a cycle among them that becomes garbage during the block is collected after it.
    Entered with objects frozen already (nested, or after someone else's `gc.freeze`), it does
    nothing: `gc.unfreeze` would let go of those too."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
