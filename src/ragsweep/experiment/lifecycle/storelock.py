"""A lock held in the tracking store itself, for launches on different folders or machines.

A local sqlite store is locked by a file beside it (`tracking.store_lock`). A tracking server
has no file two machines share, so the lock is kept in the store: a claim is a RUNNING run in
the experiment `ragsweep.locks` tagged with the lock's name and its owner (`owners`: host, pid,
start time, heartbeat). To take the lock a process
1. waits until no live claim of that name is left (claims whose owner is gone do not count);
2. records its claim, then reads every claim of that name;
3. holds the lock when no other live claim is there; else, when an older claim is there, it
   withdraws its own and goes back to 1 (the oldest contender keeps its claim and reads again).
This is race-free on any store that shows a write to every read begun after it (one database
behind one or many server workers does; a lagging read replica, `mlflow server
--read-replica-backend-store-uri`, does not): of two contenders, whichever reads last sees the
other's claim, so they never both hold it. A contender whose claim another one ended (taken for
dead: no heartbeat for `owners.STALE_SECONDS`) starts again. Dead owners never block it for
long (on this host: at once; elsewhere: after `owners.STALE_SECONDS` without a heartbeat, which
the holder and a waiting contender keep fresh); a claim left by a dead owner is withdrawn by the
next contender.

A withdrawn or released claim is ended (FINISHED, or KILLED for a dead owner's) and deleted, so
the `ragsweep.locks` experiment holds no RUNNING run while nobody launches; `mlflow gc` purges
the deleted ones.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from ragsweep import conventions as cv
from ragsweep.errors import UserError
from ragsweep.experiment.lifecycle import owners
from ragsweep.experiment.tracking.opening import client, prepare, store_lock
from ragsweep.experiment.tracking.store import Store, local_db

#: the experiment holding the claims (one RUNNING run per live claim)
LOCKS_EXPERIMENT = "ragsweep.locks"
LOCK_TAG = cv.tag("lock")
#: how long a contender waits for a live holder before refusing
WAIT_SECONDS = 300.0
#: how often a waiting contender reads the claims again (seconds, randomised up to twice this)
POLL_SECONDS = 0.25


def claim_lock(store: Store, name: str) -> AbstractContextManager[None]:
    """The lock named `name` in `store`: the file lock beside a local sqlite store, else a
    lock recorded in the store itself (`store_held`)."""
    if local_db(store.uri) is not None:
        return store_lock(store)
    return store_held(store, name)


def _claims(mc: Any, experiment_id: str, name: str) -> list[Any]:
    from mlflow.entities import ViewType

    return list(
        mc.search_runs(
            [experiment_id],
            filter_string=f"tags.`{LOCK_TAG}` = '{name}' and attributes.status = 'RUNNING'",
            run_view_type=ViewType.ACTIVE_ONLY,
            max_results=1000,
        )
    )


def _order(run: Any) -> tuple[int, str]:
    """Claims by age: start time (ms), then run id (the same order for every reader)."""
    return int(run.info.start_time or 0), str(run.info.run_id)


def _withdraw(mc: Any, run_id: str, status: str = "FINISHED") -> None:
    from mlflow.exceptions import MlflowException

    try:
        mc.set_terminated(run_id, status=status)
        mc.delete_run(run_id)
    except MlflowException:  # another contender withdrew it first
        pass


def _live_others(mc: Any, claims: list[Any], mine: str | None) -> list[Any]:
    """The live claims among `claims` other than `mine`; a dead owner's claim is withdrawn."""
    live = []
    for run in claims:
        if run.info.run_id == mine:
            continue
        if owners.alive(run.data.tags):
            live.append(run)
        else:
            _withdraw(mc, run.info.run_id, "KILLED")
    return live


def _refuse(name: str, holder: Any, waited: float) -> UserError:
    return UserError(
        f"the tracking store's lock {name!r} is still held by {owners.describe(holder.data.tags)} "
        f"after {waited:.0f} s (its claim is run {holder.info.run_id} in the experiment "
        f"{LOCKS_EXPERIMENT}); wait for that launch to get going, or stop that process"
    )


def _take(mc: Any, experiment_id: str, name: str, wait: float, poll: float) -> str:
    """Record a claim of `name` and return its run id once it holds (module docstring)."""
    began = time.monotonic()
    while True:
        others = _live_others(mc, _claims(mc, experiment_id, name), None)
        if not others:
            tags = {LOCK_TAG: name, **owners.owner_tags()}
            claim = mc.create_run(experiment_id, run_name=f"lock {name}", tags=tags)
            mine, beat = str(claim.info.run_id), time.monotonic()
            try:
                while True:
                    claims = _claims(mc, experiment_id, name)
                    if mine not in {r.info.run_id for r in claims}:
                        break  # another contender took ours for dead (no beat): start again
                    others = _live_others(mc, claims, mine)
                    if not others:
                        return mine  # no other live claim after ours was recorded: held
                    if min(map(_order, others)) < _order(claim):
                        _withdraw(mc, mine)  # an older claim goes first
                        break
                    if time.monotonic() - began > wait:
                        raise _refuse(name, min(others, key=_order), time.monotonic() - began)
                    if time.monotonic() - beat > owners.BEAT_SECONDS:  # the oldest waits on
                        mc.set_tag(mine, owners.HEARTBEAT_TAG, f"{time.time():.0f}")
                        beat = time.monotonic()
                    time.sleep(poll * random.uniform(0.5, 1.0))  # the younger ones withdraw
            except BaseException:
                _withdraw(mc, mine)
                raise
        if others and time.monotonic() - began > wait:
            raise _refuse(name, min(others, key=_order), time.monotonic() - began)
        time.sleep(poll * random.uniform(1.0, 2.0))


@contextmanager
def store_held(
    store: Store, name: str, wait: float = WAIT_SECONDS, poll: float = POLL_SECONDS
) -> Iterator[None]:
    """Hold the lock `name` recorded in `store` (see the module docstring) for the block;
    refuse with a one-line `UserError` after `wait` seconds behind a live holder."""
    mc = client(store)
    experiment_id = prepare(store, LOCKS_EXPERIMENT)
    mine = _take(mc, experiment_id, name, wait, poll)
    beat = owners.Heartbeat(mc, lambda: [mine]).start()
    try:
        yield
    finally:
        beat.stop()
        _withdraw(mc, mine)
