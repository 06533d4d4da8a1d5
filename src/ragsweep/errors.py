"""Errors meant for the user: one line naming the file, the field and the fix; exit code 2.

A resource that ran out (disk, memory, open files) is one line too (`exhausted`), exit code 1.

Also how a command is stopped: SIGTERM and SIGHUP (what `kill`, systemd, `docker stop`, batch
schedulers and a closed terminal send) raise `Stopped` where Ctrl-C raises KeyboardInterrupt
(`stop_signals`), so every command ends on them as it does on Ctrl-C, with exit status
128 + the signal's number (143, 129; Ctrl-C 130).
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import signal
import sqlite3
import threading
import traceback
from collections.abc import Iterator, Sequence
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


def not_yaml(
    path: str | Path | None, err: Exception, fix: str, *, starts_at: int = 1
) -> DatasetError:
    """A YAML parse error as one `DatasetError`: the file (`path`, else the file PyYAML names),
    the line (the YAML starting at line `starts_at` of the file, for front matter), what is
    wrong, and `fix`."""
    mark = getattr(err, "problem_mark", None)
    source = path if path is not None else getattr(mark, "name", None) or "a YAML file"
    line = None if mark is None else mark.line + starts_at
    problem = getattr(err, "problem", None) or first_line(err)
    return DatasetError(source, f"not valid YAML ({problem}); {fix}", line=line)


def first_line(err: BaseException) -> str:
    """The first line of an error's message, else its type's name."""
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


class Exhausted(BaseException):  # noqa: N818 (named for what happened, like KeyboardInterrupt)
    """A resource of the machine ran out: disk space, memory, open files. Its message is the one
    line the CLI prints (resource, path, fix), and the exit code is 1.

    It derives from BaseException, like KeyboardInterrupt, so that it passes the handlers that
    turn one configuration's failure into a FAILED run while the others go on: on a full disk
    every configuration fails the same way, so the launch stops. Build it with `exhausted`.
    `detail` is the traceback of the error it stands for (kept as text: it crosses from a
    worker process to the launcher), printed only when asked.
    """

    def __init__(self, line: str, detail: str = "") -> None:
        super().__init__(line, detail)
        self.detail = detail

    def __str__(self) -> str:
        return str(self.args[0])

    def told(self) -> str:
        """What the CLI prints: `ragsweep: error: LINE`, after the traceback it stands for when
        asked (`HYDRA_FULL_ERROR=1`, Hydra's switch for full tracebacks)."""
        line = f"ragsweep: error: {self}"
        if os.environ.get("HYDRA_FULL_ERROR") == "1" and self.detail:
            return f"{self.detail.rstrip()}\n{line}"
        return line


#: OSError numbers of a full disk, an exceeded quota, and too many open files (process, system)
_DISK = {errno.ENOSPC: "no space left on device", errno.EDQUOT: "disk quota exceeded"}
_FILES = {errno.EMFILE, errno.ENFILE}
#: what sqlite says when a write finds the disk full (SQLITE_FULL)
_SQLITE_FULL = "database or disk is full"


def exhausted(
    err: BaseException,
    *,
    sweep: bool,
    store: Path | None = None,
    folders: Sequence[Path] = (),
) -> Exhausted | None:
    """`err` as an `Exhausted` when it, or an error it was raised from or while handling, says
    a resource ran out (ENOSPC, EDQUOT, EMFILE, ENFILE, MemoryError, sqlite's "database or disk
    is full"); else None.

    The line names the path: the file the OSError names, else `store` (a sqlite store's file)
    for sqlite's error, else the one of `folders` (those the run writes: the store's, the
    cache's, the sweep's) with the least free space. `sweep` words the fix for a launch of a
    sweep (relaunch: finished configurations are kept) or a single run.
    """
    for e in _chain(err):
        if isinstance(e, Exhausted):
            return e
        if isinstance(e, MemoryError):
            return Exhausted(_line("out of memory", _MEMORY_FIX[sweep], sweep), _detail(err))
        code = e.errno if isinstance(e, OSError) else None
        if code in _FILES:
            return Exhausted(_line(_files(code), _FILES_FIX[sweep], sweep), _detail(err))
        full = code in _DISK or (isinstance(e, sqlite3.Error) and _SQLITE_FULL in str(e))
        if full:
            what = _DISK[errno.EDQUOT if code == errno.EDQUOT else errno.ENOSPC]
            named = getattr(e, "filename", None)
            if named:
                what += f" writing {named}"
            elif isinstance(e, sqlite3.Error) and store is not None:
                what += f" writing {store}"
            elif (fullest := _fullest([*([store] if store else []), *folders])) is not None:
                what += f" under {fullest}"
            settings = "hydra.sweep.dir" if sweep else "hydra.run.dir"
            fix = f"free space there, or point cache.dir, {settings} or the store elsewhere"
            return Exhausted(_line(what, fix, sweep), _detail(err))
    return None


def _detail(err: BaseException) -> str:
    return "".join(traceback.format_exception(err))


_MEMORY_FIX = {
    True: "run fewer configurations at once (hydra.launcher.n_jobs=1) or close other programs",
    False: "close other programs, or run on a machine with more memory",
}
_FILES_FIX = {
    True: "raise the limit (`ulimit -n`) or run fewer configurations at once "
    "(hydra.launcher.n_jobs=1)",
    False: "raise the limit (`ulimit -n`) or close other programs",
}


def _files(code: int | None) -> str:
    if code == errno.ENFILE:
        return "too many open files on this machine (its system-wide limit)"
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return f"too many open files (this process's limit is {soft})"


def _line(what: str, fix: str, sweep: bool) -> str:
    again = (
        "then launch the same command again: configurations that finished are kept"
        if sweep
        else "then run it again"
    )
    return f"{what} ({fix}), {again}"


def _chain(err: BaseException) -> Iterator[BaseException]:
    """`err`, then the errors it was raised from or while handling, each once."""
    seen: set[int] = set()
    todo = [err]
    while todo:
        e = todo.pop(0)
        if id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo.extend(c for c in (e.__cause__, e.__context__) if c is not None)


def _fullest(paths: Sequence[Path]) -> Path | None:
    """Of `paths` (or, for one not made yet, its nearest existing folder), the one with the
    least free space."""
    free: dict[Path, int] = {}
    for path in paths:
        here = Path(path)
        while not here.exists() and here != here.parent:
            here = here.parent
        if here.is_file():
            here = here.parent
        with contextlib.suppress(OSError):
            free.setdefault(here, shutil.disk_usage(here).free)
    return min(free, key=free.__getitem__) if free else None


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
