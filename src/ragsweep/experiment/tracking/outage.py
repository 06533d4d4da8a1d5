"""Talking to a tracking server that may go away, and timing every MLflow call.

A tracking server is asked once per process whether it answers (`reach`); once it has answered, a
call that meets it gone is retried for up to `Store.wait` seconds, then ends in
`StoreUnreachable` (`TimedClient`). docs/server.md, "When the server goes away".
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ragsweep.experiment.tracking.store import Store, StoreUnreachable, is_server
from ragsweep.secrets import mask_text

#: how long (seconds) the first question to a tracking server waits for an answer (`reach`)
REACH_SECONDS = 5.0


#: tracking servers that answered this process (`reach`), and those it gave up on
_REACHED: set[str] = set()


_LOST: set[str] = set()


def _silence(uri: str) -> str | None:
    """Why nothing answers at the tracking server `uri` (None: it answered). Any HTTP answer
    counts, a refusal of our missing credentials too, and so does a TLS failure (MLflow may
    trust a certificate we do not)."""
    import ssl
    import urllib.error
    import urllib.request
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(uri)
    netloc = parts.netloc.rpartition("@")[2]  # urllib takes user:password@ for the host name
    health = urlunsplit((parts.scheme, netloc, parts.path.rstrip("/") + "/health", "", ""))
    try:
        with urllib.request.urlopen(health, timeout=REACH_SECONDS):  # noqa: S310
            return None
    except urllib.error.HTTPError:
        return None  # it answered
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return None if isinstance(reason, ssl.SSLError) else str(reason)


def reach(store: Store) -> None:
    """Refuse in one line (`StoreUnreachable`) a tracking server that does not answer, within
    `REACH_SECONDS`: MLflow's client would retry for minutes, then report a missing run. Asked
    once per process and store; a local store needs nothing."""
    if not is_server(store.uri) or store.uri in _REACHED:
        return
    why = _silence(store.uri)
    if why is not None:
        raise StoreUnreachable(
            f"cannot reach the tracking server at {mask_text(store.uri)} ({mask_text(why)})",
            "start it (`ragsweep server`, docs/server.md) or correct the URI where it is set "
            "(--uri, --tracking-uri, tracking.uri or MLFLOW_TRACKING_URI)",
        )
    _REACHED.add(store.uri)


def reached_before(store: Store) -> None:
    """Another process of this launch reached `store` already (a sweep's launcher, for its
    workers): an outage met from here on is waited through, not refused at once."""
    if is_server(store.uri):
        _REACHED.add(store.uri)


_SPENT_LOCK = threading.Lock()


_SPENT = [0.0]  # seconds this process spent in MLflow calls made through `client`


def seconds_in_mlflow() -> float:
    """Seconds this process has spent so far in MLflow calls (opening clients included)."""
    return _SPENT[0]


@contextmanager
def in_mlflow() -> Iterator[None]:
    """Count the block's wall time as time in MLflow (`seconds_in_mlflow`)."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        took = time.perf_counter() - t0
        with _SPENT_LOCK:
            _SPENT[0] += took


class TimedClient:
    """An MlflowClient whose method calls add their wall time to `seconds_in_mlflow`; on a
    tracking server, a call that finds it gone is retried for up to `store.wait` seconds, then
    raises `StoreUnreachable` (`_patiently`)."""

    def __init__(self, mc: Any, store: Store | None = None) -> None:
        self._mc = mc
        self._store = store if store is not None and is_server(store.uri) else None

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._mc, name)
        if not callable(attr) or name.startswith("__"):
            return attr
        store = self._store
        if store is not None and name == "create_run":
            attr = _once(self._mc, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with in_mlflow():
                if store is None:
                    return attr(*args, **kwargs)
                return _patiently(store, attr, args, kwargs)

        return timed


#: the tag a run created on a tracking server carries so that a creation retried after a lost
#: answer finds the run the first attempt made instead of making a second one
CREATED_TAG = "ragsweep.created"


def _once(mc: Any, create_run: Any) -> Any:
    """`create_run` that makes one run however often it is retried: the run carries a fresh
    `CREATED_TAG`, and a retry first looks for a run with it."""
    token = uuid.uuid4().hex
    tried = [False]

    def create(experiment_id: str, *args: Any, tags: Mapping[str, str] | None = None, **kw: Any):
        if tried[0]:
            flt = f"tags.`{CREATED_TAG}` = '{token}'"
            found = mc.search_runs([experiment_id], filter_string=flt, max_results=1)
            if found:
                return found[0]
        tried[0] = True
        return create_run(experiment_id, *args, tags={**(tags or {}), CREATED_TAG: token}, **kw)

    return create


def _transient(err: BaseException) -> bool:
    """Whether `err` (or what it was raised from) says the server is not there right now: no
    connection, a timeout, or 429/5xx answers (MLflow's own retry codes). A TLS failure is
    not: waiting does not mend it."""
    import requests

    seen: BaseException | None = err
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, requests.exceptions.SSLError):
            return False
        if isinstance(
            seen,
            requests.exceptions.ConnectionError
            | requests.exceptions.Timeout
            | requests.exceptions.RetryError,
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


#: tracking servers this process is waiting for (it says so once per outage)
_WAITING: set[str] = set()


#: seconds between two attempts at a server that is not answering (doubling up to the last)
_PAUSES = (0.5, 1.0, 2.0, 4.0)


def _patiently(store: Store, call: Any, args: Any, kwargs: Any) -> Any:
    """`call(*args, **kwargs)` on a tracking server, retried while it is not there, for up to
    `store.wait` seconds; then `StoreUnreachable`. A server this process gave up on already is
    asked once (`_silence`) before any waiting, so the next calls fail at once while it stays
    gone."""
    began = time.monotonic()
    for attempt in itertools.count():
        try:
            result = call(*args, **kwargs)
        except Exception as err:
            if not _transient(err):
                raise
            waited = time.monotonic() - began
            if store.uri in _LOST:
                if _silence(store.uri) is not None:
                    raise _gone(store) from None
                _LOST.discard(store.uri)
            if waited >= store.wait:
                _LOST.add(store.uri)
                raise _gone(store) from None
            if store.uri not in _WAITING:
                _WAITING.add(store.uri)
                print(
                    f"ragsweep: the tracking server at {mask_text(store.uri)} does not answer; "
                    f"trying again for up to {store.wait:.0f} s (tracking.wait)",
                    file=sys.stderr,
                    flush=True,
                )
            pause = _PAUSES[min(attempt, len(_PAUSES) - 1)]
            time.sleep(max(0.0, min(pause, store.wait - waited)))
            continue
        _LOST.discard(store.uri)
        _WAITING.discard(store.uri)
        return result
    raise AssertionError("itertools.count() ended")


def _gone(store: Store) -> StoreUnreachable:
    return StoreUnreachable(
        f"the tracking server at {mask_text(store.uri)} stopped answering and did not answer "
        f"again within {store.wait:g} s (tracking.wait)",
        "start it again (`ragsweep server`, docs/server.md), then run the same command again",
    )


def given_up(store: Store) -> None:
    """Another process of this launch waited `store.wait` for this tracking server in vain:
    while it stays silent, calls from here fail at once instead of waiting again."""
    if is_server(store.uri):
        _LOST.add(store.uri)
