"""`retrieval.idle`: work deferred to the core LSA's SVD leaves idle starts when it is lent (or
when its caller finishes it), raises where it is finished, can be dropped, and never changes a
number."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ragsweep.retrieval import idle
from ragsweep.retrieval.dense import LSAEmbedder

TEXTS = [
    f"clause {i} covers water damage up to {i * 100} euros unless the pipe froze in winter"
    if i % 2
    else f"section {i} excludes wear and tear, mould and gradual leaks after {i} days"
    for i in range(60)
]


def test_work_waits_for_a_lent_core_and_starts_when_one_is() -> None:
    started = threading.Event()
    deferred = idle.Deferred(started.set, "test-waits")
    assert not started.wait(0.2)
    with idle.lent_core():
        assert started.wait(5)
    deferred.finish()


def test_work_deferred_while_a_core_is_lent_starts_at_once() -> None:
    started = threading.Event()
    with idle.lent_core():
        deferred = idle.Deferred(started.set, "test-at-once")
        assert started.wait(5)
    deferred.finish()
    later = threading.Event()
    after = idle.Deferred(later.set, "test-after")
    assert not later.wait(0.2)  # the core is lent no more
    after.finish()
    assert later.is_set()


def test_finish_runs_work_no_core_was_lent_for_and_raises_its_error() -> None:
    ran: list[str] = []
    idle.Deferred(lambda: ran.append("ran"), "test-finish").finish()
    assert ran == ["ran"]

    def fails() -> None:
        raise OSError(28, "No space left on device")

    deferred = idle.Deferred(fails, "test-fails")
    with pytest.raises(OSError, match="No space left"):
        deferred.finish()


def test_dropped_work_does_not_run_and_releases_what_it_held() -> None:
    ran: list[str] = []
    deferred = idle.Deferred(lambda: ran.append("work"), "test-drop", lambda: ran.append("freed"))
    deferred.drop()
    assert ran == ["freed"]
    with (
        pytest.raises(RuntimeError, match="evaluation failed"),
        idle.on_idle_core(lambda: ran.append("block work"), "test-block"),
    ):
        raise RuntimeError("the evaluation failed")
    assert ran == ["freed"]
    assert not [t for t in threading.enumerate() if t.name.startswith("test-")]


def test_lsa_lends_its_core_around_its_svd_and_its_vectors_keep_their_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sklearn.decomposition import TruncatedSVD

    expected = LSAEmbedder(dim=8, seed=3).fit_encode(TEXTS)
    lent_at_fit: list[bool] = []
    real_fit = TruncatedSVD.fit

    def fit(self: TruncatedSVD, *args: object, **kwargs: object) -> TruncatedSVD:
        lent_at_fit.append(idle._LENT[0])
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(TruncatedSVD, "fit", fit)
    stop = threading.Event()

    def spin() -> None:  # pure-Python work beside the SVD, as MLflow's import is
        n = 0
        while not stop.is_set() and n < 10**8:
            n += 1

    deferred = idle.Deferred(spin, "test-spin")
    got = LSAEmbedder(dim=8, seed=3).fit_encode(TEXTS)
    stop.set()
    deferred.finish()
    assert lent_at_fit == [True] and not idle._LENT[0]
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype
