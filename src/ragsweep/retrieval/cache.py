"""A content-addressed on-disk cache for pipeline stages shared between configurations.

An entry's key is the sha256 of a JSON description of everything that determines it (snapshot
hash, chunker config, embedder config, ...). Values are pickled (protocol 5, the C pickler:
joblib's pure-Python pickler took 7.4 s to write 100k chunks that this writes in 0.2 s, and
3.3 s to read a 210 MB dense index this reads in 0.2 s) to a temporary file and renamed into
place, so a reader never sees half an entry; a per-entry `fcntl` lock makes
a second worker wanting the same entry wait for the first instead of computing it twice.

Every entry starts with `MAGIC` and the sha256 digest of the pickle that follows, checked
before it is unpickled: an entry damaged on disk (a flipped byte that still unpickles, a file
cut short by a full disk) is named in a one-line warning and recomputed, never returned. An
entry of an older ragsweep (no digest) is recomputed quietly. The check reads the entry twice
(the second time from the page cache): about 1 ms per MB (docs/benchmarks.md).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import pickle
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from ragsweep.data.write import replace_file
from ragsweep.errors import first_line
from ragsweep.retrieval.idle import Deferred

T = TypeVar("T")

DEFAULT_DIR = ".ragsweep_cache"


SUFFIX = ".pkl"
#: the first bytes of an entry, then the digest of the pickle after it
MAGIC = b"ragsweep-entry-1\n"
DIGEST_BYTES = 32

log = logging.getLogger(__name__)


def _new_digest() -> Any:
    """sha256: with the SHA instructions of current CPUs (x86 SHA-NI, ARMv8) about twice as fast
    as blake2b (1.4 against 0.66 GB/s on the 2-core Xeon the tests run on)."""
    return hashlib.sha256()


class DamagedEntry(ValueError):
    """A file whose pickle does not match the digest written with it."""


class UncheckedEntry(ValueError):
    """A pickle written without a digest (by an older ragsweep)."""


class _Summing:
    """A binary file's `write` that also feeds a digest (what `pickle.dump` needs)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.digest = _new_digest()

    def write(self, data: Any) -> int:
        self.digest.update(data)
        return int(self.handle.write(data))


class _Counting:
    """A `write` that keeps only the number of bytes written (`pickled_size`)."""

    def __init__(self) -> None:
        self.bytes = 0

    def write(self, data: Any) -> int:
        n = memoryview(data).nbytes
        self.bytes += n
        return n


def pickled_size(value: Any) -> int:
    """Bytes of `value` pickled as the cache pickles it (protocol 5), counted as the pickler
    streams them: no copy of the pickle is held (`pickle.dumps` of a 200,000-chunk dense index
    held 408 MiB only to take its length)."""
    counting = _Counting()
    pickle.dump(value, counting, protocol=5)
    return counting.bytes


def write_pickle(target: Path, value: Any) -> None:
    """Pickle `value` to `target` after `MAGIC` and the pickle's digest, through a temporary
    file in its folder renamed into place, so a reader sees the whole value or none."""

    def write(tmp: Path) -> None:
        with tmp.open("wb") as handle:
            handle.write(MAGIC + bytes(DIGEST_BYTES))
            summing = _Summing(handle)
            pickle.dump(value, summing, protocol=5)
            handle.seek(len(MAGIC))
            handle.write(summing.digest.digest())

    replace_file(target, write)


def read_pickle(target: Path) -> Any:
    """The value `write_pickle` wrote to `target`, once its digest matches (else
    `DamagedEntry`; `UncheckedEntry` for a file without one); OSError if it cannot be read."""
    with open(target, "rb") as handle:
        head = handle.read(len(MAGIC) + DIGEST_BYTES)
        if not head.startswith(MAGIC):
            if head.startswith(pickle.PROTO):  # an older ragsweep's entry
                raise UncheckedEntry(f"{target} has no checksum")
            raise DamagedEntry(f"{target} does not start as a ragsweep entry does")
        if hashlib.file_digest(handle, _new_digest).digest() != head[len(MAGIC) :]:
            raise DamagedEntry(f"{target} does not match its checksum")
        handle.seek(len(head))
        return pickle.load(handle)


#: Values this process last wrote or read, by stage (`keep`, `kept`): (entry, its file's
#: identity, value).
#: A sweep's launcher builds the chunks and the first-stage lists, then, when it runs the
#: configurations itself (`experiment.launch.in_launcher`), each one read them back: 1.4 s of
#: unpickling 100,000 chunks a configuration. Only those stages are kept, one entry a stage
#: (an index held here would sit beside the next one's build), and only while the file on
#: disk is the one they came from (same inode, size and modification time).
_KEPT: dict[str, tuple[Path, tuple[int, int, int], Any]] = {}


def _kept_stage(stage: str) -> bool:
    """Whether `stage`'s values are kept in `_KEPT`: chunks and first-stage lists, not indexes."""
    return not stage.endswith("_index") or stage.startswith("first_stage_")


def _identity(target: Path) -> tuple[int, int, int] | None:
    try:
        st = target.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def keep(stage: str, target: Path, value: Any) -> None:
    """Keep `value`, just read from or written to `target`, as `stage`'s last value, its arrays
    made read-only (`_read_only`)."""
    _KEPT.pop(stage, None)
    identity = _identity(target)
    if _kept_stage(stage) and identity is not None:
        _KEPT[stage] = (target, identity, _read_only(value))


def _read_only(value: Any, depth: int = 3) -> Any:
    """`value` with every numpy array in it or in its dataclass fields (to `depth`: a
    `Searched`'s lists) set read-only: a kept value is the very object every later
    configuration of the process gets, so a stage of one (a user's fusion or reranker) that
    edited its input in place would change what the next one sees; it raises instead."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif depth and is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            _read_only(getattr(value, f.name), depth - 1)
    return value


def kept(stage: str, target: Path) -> tuple[bool, Any]:
    """(True, value) when `stage`'s kept value is `target`'s, whose file has not changed since;
    else (False, None), and a kept value of another entry of `stage` is let go."""
    entry = _KEPT.get(stage)
    if entry is None:
        return False, None
    path, identity, value = entry
    if path == target and _identity(target) == identity:
        return True, value
    del _KEPT[stage]
    return False, None


def let_go_kept() -> None:
    """Let go of every kept value: for a process that will not run a configuration itself (a
    sweep's launcher whose workers run them), which would hold them beside the workers."""
    _KEPT.clear()


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
        #: entries written behind (`writing_behind`) by path, each holding its lock until written
        self._behind: dict[Path, Deferred] | None = None

    def path(self, stage: str, key: str) -> Path:
        assert self.directory is not None
        return self.directory / stage / f"{key}{SUFFIX}"

    @contextmanager
    def writing_behind(self) -> Iterator[None]:
        """Within the block, an entry computed for a value the run holds anyway (chunks and
        first-stage lists, not an index, which is let go after its search) is written on the
        core the run leaves idle (`idle.lent_core`: LSA's SVD) instead of when it is computed,
        holding its entry's lock until it is written: writing 100,000 chunks took 0.6 s of a
        single run's critical path (0.2 s since a chunk pickles as a call). Every entry is
        written when the block ends (raising a write's error, a full disk say), or dropped
        unwritten if the block raises. For a single run's evaluation and a sweep's prebuild,
        which never read back an entry they computed; another process waits on its lock."""
        if self.directory is None or self._behind is not None:
            yield
            return
        self._behind = {}
        try:
            yield
        except BaseException:
            self._settle(write=False)
            raise
        else:
            self._settle(write=True)
        finally:
            self._behind = None

    def _settle(self, *, write: bool) -> None:
        """Write (or drop unwritten) every entry written behind so far, each one even when
        another fails (so every lock is let go), then raise the first failure."""
        behind, failed = self._behind or {}, []
        while behind:
            deferred = behind.pop(next(iter(behind)))
            try:
                if write:
                    deferred.finish()
                else:
                    deferred.drop()
            except BaseException as err:
                failed.append(err)
        if failed:
            raise failed[0]

    def _lock(self, target: Path) -> IO[str]:
        """Entry `target`'s lock. While this process holds entries' locks for writes behind,
        it never waits on another process holding this one: it writes them first, so two
        processes taking the same entries in another order never wait on each other."""
        if self._behind:
            handle = _locked(target, wait=False)
            if handle is not None:
                return handle
            self._settle(write=True)
        handle = _locked(target)
        assert handle is not None  # waited for it
        return handle

    def _load(self, target: Path, locked: bool) -> tuple[bool, Any]:
        """(True, value) for a sound entry; else (False, None), and when `locked` (the entry's
        lock held: nobody is writing it) a damaged entry is named and removed."""
        if not target.exists():
            return False, None
        problem = None
        try:
            return True, read_pickle(target)
        except FileNotFoundError:  # removed meanwhile
            return False, None
        except UncheckedEntry:
            pass  # written by an older ragsweep: recomputed
        except DamagedEntry:
            problem = "damaged (checksum mismatch)"
        except Exception as err:  # a matching digest that does not unpickle: a class changed
            problem = f"unreadable ({first_line(err)})"
        if locked:
            if problem is not None:
                log.warning("cache entry %s is %s: recomputing it", target, problem)
            target.unlink(missing_ok=True)
        return False, None

    def contains(self, stage: str, parts: Mapping[str, Any]) -> bool:
        return self.directory is not None and self.path(stage, key_of(parts)).exists()

    def get_or_compute(self, stage: str, parts: Mapping[str, Any], fn: Callable[[], T]) -> T:
        if self.directory is None:
            self.misses.append(stage)
            return fn()
        target = self.path(stage, key_of(parts))
        if self._behind is not None and target in self._behind:
            # asked again before it was written: write it now (its lock is this process's)
            self._behind.pop(target).finish()
        found, value = kept(stage, target)
        if not found:
            found, value = self._load(target, locked=False)
        if found:
            self.hits.append(stage)
            keep(stage, target, value)
            return value
        handle = self._lock(target)
        try:
            found, value = self._load(target, locked=True)  # another worker may have built it
            if found:
                self.hits.append(stage)
                keep(stage, target, value)
                return value
            value = fn()
            self.misses.append(stage)
            if self._behind is not None and _kept_stage(stage):
                held, handle = handle, None  # the entry's lock goes with its write
                self._behind[target] = Deferred(
                    _writer(stage, target, value, held), stage, lambda: _unlock(held)
                )
                return value
            write_pickle(target, value)
            keep(stage, target, value)
            return value
        finally:
            if handle is not None:
                _unlock(handle)


def _locked(target: Path, *, wait: bool = True) -> IO[str] | None:
    """The open lock file of entry `target`, locked (waiting for another process's lock; with
    `wait` False, None when another process holds it)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = open(target.with_suffix(".lock"), "a+")  # noqa: SIM115 - closed by `_unlock`
    try:
        fcntl.flock(handle, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    except BaseException:
        handle.close()
        raise
    return handle


def _unlock(handle: IO[str]) -> None:
    try:
        fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        handle.close()


def _writer(stage: str, target: Path, value: Any, handle: IO[str]) -> Callable[[], None]:
    """Write `value` to `target` and let go of its entry's lock (`handle`), however it ends."""

    def write() -> None:
        try:
            write_pickle(target, value)
            keep(stage, target, value)
        finally:
            _unlock(handle)

    return write
