"""Whether a run's owner is alive, decided the same way on Linux and on a system without /proc
(macOS): pid plus start time through psutil, never a file under /proc read by ragsweep."""

from __future__ import annotations

import builtins
import os
import socket
import subprocess
import sys
import time

import psutil
import pytest

from ragsweep.experiment.lifecycle import owners


def test_a_live_process_is_alive_and_an_ended_one_is_not():
    me = owners.Owner.parse(owners.me())
    assert me is not None and me.pid == os.getpid() and me.host == socket.gethostname()
    assert me.running_here()
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    owner = f"{socket.gethostname()}:{child.pid}:{owners._start_time(child.pid)}"
    assert owners.alive({owners.OWNER_TAG: owner})
    child.kill()
    deadline = time.monotonic() + 5
    while owners.alive({owners.OWNER_TAG: owner}) and time.monotonic() < deadline:
        time.sleep(0.05)  # the signal is delivered
    assert not owners.alive({owners.OWNER_TAG: owner})  # killed, not yet reaped: a zombie
    child.wait()
    assert not owners.alive({owners.OWNER_TAG: owner})  # reaped: gone
    reused = f"{socket.gethostname()}:{os.getpid()}:{float(me.start) - 5:.2f}"
    assert not owners.alive({owners.OWNER_TAG: reused})  # this pid, another start: not the owner


class _NoProc:
    """A system without /proc: opening anything under it fails, as on macOS."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        real_open = builtins.open

        def guarded(file, *args, **kwargs):
            if str(file).startswith("/proc"):
                raise FileNotFoundError(2, "No such file or directory", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", guarded)


def test_liveness_works_without_proc(monkeypatch):
    """Before, a live launcher was written as `host:pid:0` without /proc, every worker exited
    within 0.5 s and a second launch marked the live sweep KILLED. psutil answers from the
    system (here a stand-in for macOS's, which reads no /proc)."""
    started = {os.getpid(): 1796000000.25, 4242: 1796000100.5}

    class FakeProcess:
        def __init__(self, pid: int) -> None:
            if pid not in started:
                raise psutil.NoSuchProcess(pid)
            self.pid = pid

        def status(self) -> str:
            return psutil.STATUS_RUNNING

        def create_time(self) -> float:
            return started[self.pid]

    _NoProc(monkeypatch)
    monkeypatch.setattr(psutil, "Process", FakeProcess)
    me = owners.me()
    assert me == f"{socket.gethostname()}:{os.getpid()}:1796000000.25"  # not ':0'
    assert owners.alive({owners.OWNER_TAG: me})
    assert owners.alive({owners.OWNER_TAG: f"{socket.gethostname()}:4242:1796000100.50"})
    del started[4242]
    assert not owners.alive({owners.OWNER_TAG: f"{socket.gethostname()}:4242:1796000100.50"})
