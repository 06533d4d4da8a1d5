"""The tracking server's process, as `ragsweep ui` and `ragsweep server` run it: a port free to
bind, the server asked whether it answers, and the server stopped with every process of its
group (it runs in a process group of its own, so its workers stop with it). docs/server.md.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request


def port_free(host: str, port: int) -> bool:
    """Whether `port` on `host` can be bound now (another server holds it otherwise). As the
    server binds it (SO_REUSEADDR): a connection of a server stopped a moment ago, still in
    TIME_WAIT, does not hold it."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 (the server we started)
            return bool(r.status == 200)
    except OSError:
        return False


def signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """Stop the server and every process it started (uvicorn workers): SIGTERM to its process
    group, SIGKILL after `grace` seconds."""
    if proc.poll() is not None:
        return
    signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        signal_group(proc, signal.SIGKILL)
        proc.wait()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_tree(proc: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """Stop the server and every process of its group: SIGTERM, then SIGKILL after `grace`
    seconds. Its uvicorn workers outlive the main process by up to ~10 s after SIGTERM, so
    this waits for the group, not only for the process."""
    stop_group(proc, grace)
    deadline = time.monotonic() + grace
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(proc.pid):
        signal_group(proc, signal.SIGKILL)
