"""A core the run leaves idle, lent to work that can wait for one.

LSA's SVD runs its BLAS on one thread (`dense`: its bits depend on the thread count) and spends
most of its time outside the interpreter (sparse products, LU and QR factorisations), so on a
machine with two cores the other one sits idle through the SVD: 18 s at 100,000 chunks. Work
that is not on the run's critical path waits for that moment (`Deferred`) instead of competing
for the interpreter with the stages before it (loading, chunking, tokenizing), which it only
slowed down: a single run's import of MLflow and the opening of its store
(`experiment.tracking.opened_meanwhile`), and its stage cache's writes of values it holds anyway
(`cache.StageCache.writing_behind`). Measured at 100,000 chunks: a pure-Python thread beside the
SVD got 0.66 of a core and slowed the SVD by 8% (1.5 s of 18.6 s); a single run took 1.6-2.3 s
less when MLflow's import waited for the SVD.

The work never changes a number: the SVD's BLAS stays on its one thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
#: the work waiting for a core (`Deferred`), and whether one is lent now (`lent_core`)
_WAITING: list[Deferred] = []
_LENT = [False]


@contextmanager
def lent_core() -> Iterator[None]:
    """Around a phase that leaves a core idle: the work waiting for one starts when it begins,
    and work deferred while it lasts starts at once."""
    with _LOCK:
        _LENT[0] = True
        for waiting in _WAITING:
            waiting.start()
    try:
        yield
    finally:
        with _LOCK:
            _LENT[0] = False


class Deferred:
    """`work` run in a thread called `name` from the next `lent_core` (at once while a core is
    lent), or from `finish` if none came first. `finish` waits for it and raises what it
    raised; `drop` lets go of it if it has not started (nothing will have asked for it), and
    runs `dropped` instead (what `work` would have released)."""

    def __init__(
        self, work: Callable[[], None], name: str, dropped: Callable[[], None] | None = None
    ) -> None:
        self._work = work
        self._if_dropped = dropped
        self._ready = threading.Event()
        self._dropped = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()
        with _LOCK:
            _WAITING.append(self)
            if _LENT[0]:
                self.start()

    def start(self) -> None:
        self._ready.set()

    def _run(self) -> None:
        self._ready.wait()
        try:
            if self._dropped.is_set():
                if self._if_dropped is not None:
                    self._if_dropped()
                return
            self._work()
        except BaseException as err:  # raised again by `finish`, in the caller's thread
            self._error = err

    def _end(self) -> None:
        with _LOCK:
            if self in _WAITING:
                _WAITING.remove(self)
        self.start()
        self._thread.join()

    def finish(self) -> None:
        self._end()
        if self._error is not None:
            raise self._error

    def drop(self) -> None:
        self._dropped.set()
        self._end()


@contextmanager
def on_idle_core(work: Callable[[], None], name: str) -> Iterator[None]:
    """`work` as `Deferred` for the block: the block ends once `work` has (raising what it
    raised), and a block that raises drops it if it has not started."""
    deferred = Deferred(work, name)
    try:
        yield
    except BaseException:
        deferred.drop()
        raise
    deferred.finish()
