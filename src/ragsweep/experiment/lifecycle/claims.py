"""What a sweep's launch holds and claims: its lock in this folder (`SweepLock`), its runs in the
store (`taking_over`: a live owner's refused, a dead owner's marked KILLED), the heartbeat on
the runs it owns, and, at the end, the runs its dead workers left RUNNING (`kill_orphans`).
docs/architecture.md, README "Killed launches, shared stores".
"""

from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError
from ragsweep.experiment.lifecycle import owners, storelock
from ragsweep.experiment.tracking.exhaustion import Reserve
from ragsweep.experiment.tracking.opening import client
from ragsweep.experiment.tracking.outage import seconds_in_mlflow
from ragsweep.experiment.tracking.store import Store


class SweepLock:
    """What a launch holds for the sweep's lifetime: an exclusive lock per sweep in this folder
    (a second launch of a running sweep is refused at once instead of 'recovering' the first
    one's live runs) and, once the runs are claimed, the heartbeat on them in the store (which is
    what launches from other folders or machines sharing the store go by), and the space kept
    for marking them on a full disk (`tracking.Reserve`)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(path, "a+")  # noqa: SIM115 (held for the sweep's lifetime)
        self.heartbeat: owners.Heartbeat | None = None
        self.reserve: Reserve | None = None
        #: when the launch began, and this process's seconds in MLflow by then
        self.began = (time.perf_counter(), seconds_in_mlflow())
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            raise UserError(
                f"this sweep is already running (lock {path}); wait for it or stop it first"
            ) from None

    def beat(self, store: Store, experiment_id: str) -> None:
        """Keep a heartbeat on the RUNNING runs of `experiment_id` this process owns."""
        mc = client(store)
        self.heartbeat = owners.Heartbeat(mc, _beat_on(mc, experiment_id, owners.me())).start()

    def release(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.stop()
        if self.reserve is not None:
            self.reserve.free()
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _running(mc: Any, experiment_id: str) -> list[Any]:
    from mlflow.entities import ViewType

    return list(
        mc.search_runs(
            [experiment_id],
            filter_string="attributes.status = 'RUNNING'",
            run_view_type=ViewType.ACTIVE_ONLY,
            max_results=5000,
        )
    )


def _recover(mc: Any, running: list[Any], ours: Callable[[Any], bool]) -> int:
    """Mark the RUNNING runs whose owner is gone (a launch killed with -9, a machine lost) as
    KILLED; runs of a live launch, from any folder or machine, are left alone, and so is the
    run `ours` picks (this sweep's own parent run), which this launch takes over (resume)."""
    orphaned = [r for r in running if not owners.alive(r.data.tags) and not ours(r)]
    for run in orphaned:
        who = owners.describe(run.data.tags)
        owners.mark_killed(
            mc, run.info.run_id, f"found RUNNING at the next launch, its owner ({who}) gone"
        )
    return len(orphaned)


def _refuse_if_live(running: list[Any], ours: Callable[[Any], bool]) -> None:
    """Another launch of this very sweep is alive (from another folder or machine sharing the
    store): refuse, rather than run its configurations twice."""
    for run in running:
        tags = run.data.tags
        if ours(run) and owners.alive(tags):
            raise UserError(
                f"this sweep is already running (parent run {run.info.run_id}, launched by "
                f"{owners.describe(tags)}); wait for it, or stop that process first"
            )


@contextmanager
def taking_over(store: Store, experiment_id: str, ours: Callable[[Any], bool]) -> Iterator[None]:
    """Under the store's lock (`storelock.claim_lock`) for the block: refuse when the run `ours`
    picks (this sweep's parent run) has a live owner, and mark KILLED the RUNNING runs of
    `experiment_id` whose owner is gone; the block then takes over or creates its runs."""
    mc = client(store)
    # the store's lock, on a tracking server too: launches from other folders or machines that
    # read the RUNNING runs at the same instant would both create (or both take) the parent
    with storelock.claim_lock(store, f"claim:{experiment_id}"):
        running = _running(mc, experiment_id)
        _refuse_if_live(running, ours)
        recovered = _recover(mc, running, ours)
        if recovered:
            print(f"marked {recovered} run(s) left RUNNING by an interrupted launch as KILLED")
        yield


def _beat_on(mc: Any, experiment_id: str, me: str) -> Callable[[], list[str]]:
    """The RUNNING runs of `experiment_id` this process owns (the heartbeat's list)."""

    def runs() -> list[str]:
        return [
            r.info.run_id
            for r in _running(mc, experiment_id)
            if r.data.tags.get(owners.OWNER_TAG) == me
        ]

    return runs


def kill_orphans(
    store: Store, experiment_id: str, parent_run_id: str, owner: str, why: str
) -> list[str]:
    """Mark the child runs of `parent_run_id` that `owner` (a launch) owns and that are still
    RUNNING (their worker died) as KILLED; return their names."""
    mc = client(store)
    running = mc.search_runs(
        [experiment_id],
        filter_string=(
            f"tags.`mlflow.parentRunId` = '{parent_run_id}' and attributes.status = 'RUNNING'"
        ),
        max_results=5000,
    )
    names = []
    for run in running:
        if run.data.tags.get(owners.OWNER_TAG) != owner:
            continue
        owners.mark_killed(mc, run.info.run_id, why)
        names.append(str(run.info.run_name))
    return names
