"""Errors meant for the user: one line naming the file, the field and the fix; exit code 2.

Also how a command is stopped: SIGTERM and SIGHUP (what `kill`, systemd, `docker stop`, batch
schedulers and a closed terminal send) raise `Stopped` where Ctrl-C raises KeyboardInterrupt
(`stop_signals`), so every command ends on them as it does on Ctrl-C, with exit status
128 + the signal's number (143, 129; Ctrl-C 130).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from pathlib import Path


class UserError(Exception):
    """Bad input from the user. The CLI prints it on one line and exits with code 2."""


class DatasetError(UserError):
    """A dataset file is malformed or inconsistent.

    The message always names the file and, where there is one, the line and the field, and says
    how to fix it: `questions.jsonl:12: field 'slice': unknown slice 'exclusion' (known: ...)`.
    """

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")


#: the signals that stop a command as Ctrl-C does
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop signal (`STOP_SIGNALS`), raised in the main thread as Ctrl-C's KeyboardInterrupt
    is, so whatever cleans up after Ctrl-C cleans up after it too."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def stop_name(stop: KeyboardInterrupt) -> str:
    """What stopped a command, for messages: `SIGTERM`, `SIGHUP` or `Ctrl-C`."""
    return str(stop) if isinstance(stop, Stopped) else "Ctrl-C"


def stop_status(stop: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by `stop`, as a shell reports a process killed by
    the signal: 128 + its number (SIGTERM 143, SIGHUP 129, Ctrl-C 130)."""
    return 128 + (stop.signum if isinstance(stop, Stopped) else signal.SIGINT)


#: the stop signals received inside `stop_signals` (this process has one main thread)
_RECEIVED: list[int] = []


def stop_of(err: BaseException | None) -> KeyboardInterrupt | None:
    """The stop behind `err`: itself when it is a KeyboardInterrupt (Ctrl-C, `Stopped`), else
    the stop signal received inside `stop_signals` (code that catches what is raised inside it,
    an import or a C extension, can turn a `Stopped` into an error of its own), else None."""
    if isinstance(err, KeyboardInterrupt):
        return err
    return Stopped(_RECEIVED[0]) if _RECEIVED else None


@contextlib.contextmanager
def stop_signals() -> Iterator[list[int]]:
    """While inside, the first stop signal raises `Stopped` in the main thread; later ones are
    only recorded (the cleanup the first one started is not cut short: kill -9 remains). Yields
    the list of the signals received (`stop_of` reads it). Outside the main thread, a no-op."""
    received: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return

    def on_stop(signum: int, _frame: object) -> None:
        received.append(signum)
        _RECEIVED.append(signum)
        if len(received) == 1:
            raise Stopped(signum)

    _RECEIVED.clear()
    previous = {sig: signal.signal(sig, on_stop) for sig in STOP_SIGNALS}
    try:
        yield received
    finally:
        _RECEIVED.clear()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
