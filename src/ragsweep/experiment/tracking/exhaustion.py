"""A resource that runs out (a full disk, memory, open files) while a run logs: named after the
store's file or the fullest folder (`exhaustion`), MLflow's 80-line log of it dropped, and the
space a launch keeps beside a local store to end its runs (`Reserve`). docs/server.md.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote, urlparse

from ragsweep.errors import Exhausted, exhausted
from ragsweep.experiment.tracking.store import Store, local_db


def exhaustion(
    err: BaseException, store: Store, *folders: str | Path | None, sweep: bool = True
) -> Exhausted | None:
    """`errors.exhausted` for a run logging to `store` and writing `folders` (the cache's,
    the sweep's): a full disk is named after the store's file or the fullest folder."""
    artifacts = store.artifact_root or ""
    written = [Path(unquote(urlparse(artifacts).path))] if artifacts.startswith("file:") else []
    written += [Path(f) for f in folders if f]
    return exhausted(err, sweep=sweep, store=local_db(store.uri), folders=written)


class Reserve:
    """Space kept beside a local sqlite store for a launch's last writes: on a full disk,
    ending its runs FAILED or KILLED needs room for sqlite's journal, which `free()` gives back
    (a tracking server keeps its own disk: nothing is reserved there). One file per `name` (a
    sweep: one launch of it at a time), reused by a relaunch after a kill. A disk without room
    for it raises (ENOSPC) before the launch runs anything."""

    #: a few dozen sqlite pages: the journal and the tags of marking a sweep's runs
    BYTES = 256 * 1024

    def __init__(self, store: Store, name: str) -> None:
        db = local_db(store.uri)
        self.path = None if db is None else db.parent / f".ragsweep-reserve-{name}"
        if self.path is None:
            return
        try:
            with open(self.path, "wb") as handle:
                handle.write(bytes(self.BYTES))  # written, not sparse: the space is taken
        except OSError:
            self.free()  # nothing left half-made
            raise

    def free(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)


class _UnlessExhausted(logging.Filter):
    """Drops a log record whose error is a resource that ran out (`errors.exhausted`): MLflow
    logs a sqlite error with its traceback (about 80 lines) and then raises it, and a full disk
    is said in one line where it is caught."""

    def filter(self, record: logging.LogRecord) -> bool:
        err = record.exc_info[1] if record.exc_info else None
        return err is None or exhausted(err, sweep=False) is None


def quiet_exhaustion() -> None:
    logger = logging.getLogger("mlflow.store.db.utils")
    if not any(isinstance(f, _UnlessExhausted) for f in logger.filters):
        logger.addFilter(_UnlessExhausted())
