"""`ragsweep ui` started the way a user starts it, for the tests and docs/screenshots/make.py:
the console script in a folder (its default store), on a free loopback port, in a session of
its own, and waited for until it prints the page to open (`ready: <what> at <link>`, printed
once the server answers)."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from procs import descendants, running

#: the console script of the environment running the tests
SCRIPT = Path(sys.executable).parent / "ragsweep"
READY = re.compile(r"^ready: (?P<what>.+) at (?P<link>http://\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class Served:
    """A running `ragsweep ui`: its process, base URL, and the page it printed."""

    proc: subprocess.Popen
    base: str
    what: str
    link: str
    log: IO[bytes]

    def output(self) -> str:
        """What it (and its server) printed so far."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_ui(folder: str | Path, *args: str, timeout: float = 180) -> Served:
    """`ragsweep ui *args` in `folder` once it printed its ready line; RuntimeError with its
    output if it exits or times out first."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    log = tempfile.TemporaryFile()  # not a pipe: the server's warnings never block it
    proc = subprocess.Popen(
        [str(SCRIPT), "ui", "--port", str(port), *args],
        cwd=folder,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    served = Served(proc, f"http://127.0.0.1:{port}", "", "", log)
    deadline = time.monotonic() + timeout
    while (found := READY.search(served.output())) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_ui(proc)
            raise RuntimeError(f"`ragsweep ui` did not come up:\n{served.output()[-3000:]}")
        time.sleep(0.2)
    return Served(proc, served.base, found["what"], found["link"], log)


def stop_ui(proc: subprocess.Popen, grace: float = 30) -> int | None:
    """SIGTERM to `ragsweep ui` alone (it stops its server); whatever is left after `grace`
    seconds is killed. Its exit code (None: it had to be killed)."""
    family = descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    try:
        code: int | None = proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        code = None
    for pid in running(family):
        os.kill(pid, signal.SIGKILL)
    return code
