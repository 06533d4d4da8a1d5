"""Who owns a sweep's RUNNING runs, whether that owner is still alive, and workers that stop when
it dies.

Every run a sweep creates carries the launching process as its owner (`ragsweep.owner` =
`host:pid:start`, where `start` is the process's start time as psutil reads it on Linux and
macOS alike, so a reused pid is not taken for the same process), and the launcher refreshes
`ragsweep.heartbeat` (unix seconds) on its RUNNING runs every `BEAT_SECONDS`. A later launch
(from this folder, another folder or another machine on the same tracking server) decides from
the store alone whether a RUNNING run is orphaned:
- owner on this host: alive while that pid runs with the same start time (exact, immediate);
- owner on another host: alive while its heartbeat is younger than `STALE_SECONDS`.
Only orphaned runs are marked KILLED; a live owner's sweep is left alone (and a second launch of
that same sweep is refused).

Workers watch their launcher (`watch`): when it is gone (kill -9 included) they exit at once,
so nothing keeps evaluating and logging into runs a relaunch is about to mark KILLED.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragsweep import conventions as cv

OWNER_TAG = cv.tag("owner")
HEARTBEAT_TAG = cv.tag("heartbeat")
BEAT_SECONDS = 10.0
STALE_SECONDS = 60.0  # six missed beats
WATCH_SECONDS = 0.5  # how often a worker checks its launcher
#: the exit code of a worker that stops because its launcher is gone
ORPHAN_EXIT = 75


def _start_time(pid: int) -> str | None:
    """When process `pid` started (seconds since the epoch, as psutil reads it from the
    system: /proc on Linux, sysctl on macOS), or None when no such process runs (a zombie
    counts as gone)."""
    import psutil

    try:
        process = psutil.Process(pid)
        if process.status() in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
            return None
        return f"{process.create_time():.2f}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


def me() -> str:
    """This process as an owner: `host:pid:start`."""
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid) or 0}"


def owner_tags(owner: str | None = None) -> dict[str, str]:
    """The tags of a run owned by `owner` (default: this process), its heartbeat fresh."""
    return {OWNER_TAG: owner or me(), HEARTBEAT_TAG: f"{time.time():.0f}"}


@dataclass(frozen=True)
class Owner:
    host: str
    pid: int
    start: str

    @classmethod
    def parse(cls, text: str | None) -> Owner | None:
        host, _, rest = (text or "").rpartition(":")
        host, _, pid = host.rpartition(":")
        if not host or not pid.isdigit():
            return None
        return cls(host, int(pid), rest)

    def local(self) -> bool:
        return self.host == socket.gethostname()

    def running_here(self) -> bool:
        return _start_time(self.pid) == self.start


def alive(tags: dict[str, str], now: float | None = None) -> bool:
    """Whether the owner of a run with these tags is still alive (see the module docstring).
    A run without an owner tag (logged by an older ragsweep) has none."""
    owner = Owner.parse(tags.get(OWNER_TAG))
    if owner is None:
        return False
    if owner.local():
        return owner.running_here()
    try:
        beat = float(tags.get(HEARTBEAT_TAG, "nan"))
    except ValueError:
        return False
    return (time.time() if now is None else now) - beat < STALE_SECONDS


def describe(tags: dict[str, str]) -> str:
    """`pid 123 on host h` for messages."""
    owner = Owner.parse(tags.get(OWNER_TAG))
    return "an unknown process" if owner is None else f"pid {owner.pid} on host {owner.host}"


def mark_killed(mc: Any, run_id: str, why: str) -> None:
    """End a run whose owner or worker is gone: KILLED, with the reason in `ragsweep.recovered`."""
    mc.set_tag(run_id, cv.tag("recovered"), f"killed: {why}")
    mc.set_terminated(run_id, status="KILLED")


class Heartbeat:
    """A daemon thread refreshing `HEARTBEAT_TAG` on this process's RUNNING runs in one
    experiment (`runs()` lists them) every `BEAT_SECONDS`, until `stop()`."""

    def __init__(self, mc: Any, runs: Callable[[], list[str]], every: float = BEAT_SECONDS):
        self.mc, self.runs, self.every = mc, runs, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ragsweep-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def beat(self) -> None:
        stamp = f"{time.time():.0f}"
        for run_id in self.runs():
            self.mc.set_tag(run_id, HEARTBEAT_TAG, stamp)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.beat()
            except Exception:  # noqa: BLE001 (a missed beat is retried; the sweep goes on)
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)


#: the launcher the worker threads of this process watch (updated per job: a reused worker
#: serves the latest launch)
_watched: dict[str, Any] = {}
_watch_lock = threading.Lock()


def watch(owner: str, remote_alive: Callable[[], bool] | None = None) -> None:
    """In a worker: exit this process (code `ORPHAN_EXIT`) as soon as `owner` (the launcher) is
    gone. On the launcher's host that is checked every `WATCH_SECONDS` (its pid and start
    time); elsewhere `remote_alive()` (its heartbeat in the store) is asked every
    `BEAT_SECONDS`."""
    parsed = Owner.parse(owner)
    if parsed is None:
        return
    with _watch_lock:
        _watched.update(owner=parsed, remote=remote_alive)
        if "thread" in _watched:
            return
        thread = threading.Thread(target=_watch_loop, name="ragsweep-watch", daemon=True)
        _watched["thread"] = thread
        thread.start()


def _watch_loop() -> None:
    last_remote = time.monotonic()
    while True:
        time.sleep(WATCH_SECONDS)
        with _watch_lock:
            owner, remote = _watched["owner"], _watched["remote"]
        if owner.local():
            gone = not owner.running_here()
        elif remote is not None and time.monotonic() - last_remote >= BEAT_SECONDS:
            last_remote = time.monotonic()
            try:
                gone = not remote()
            except Exception:  # noqa: BLE001 (the store is unreachable: ask again next beat)
                gone = False
        else:
            gone = False
        if gone:
            os._exit(ORPHAN_EXIT)  # no cleanup: the launcher that owned this work is gone
