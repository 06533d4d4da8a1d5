"""A resource that runs out ends a launch in one line: a full disk (on a small tmpfs, filled
while a configuration runs), memory, too many open files (`errors.exhausted`, the one place
that recognises them and words the line). The store stays consistent (no run left RUNNING)
and a relaunch after space is freed completes.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient
from test_faults import SIZES, SLOW_SWEEP, STAGES, assert_each_size_finished_once, wait_for_stage

from ragsweep.cli import main
from ragsweep.errors import Exhausted, exhausted
from toy import TOY

SCRIPT = Path(sys.executable).parent / "ragsweep"
RELAUNCH = "then launch the same command again: configurations that finished are kept"
#: the slow sweep of test_faults, chunking for 0.8 s per configuration: long enough to fill the
#: disk while a configuration runs (any later write of the job then meets the full disk)
SWEEP = [o.replace("seconds=0.6", "seconds=0.2") for o in SLOW_SWEEP]


def test_a_full_disk_names_the_file_and_the_fix():
    err = OSError(errno.ENOSPC, "No space left on device", "/x/y.pkl")
    line = str(exhausted(err, sweep=True))
    assert line == (
        "no space left on device writing /x/y.pkl (free space there, or point cache.dir, "
        f"hydra.sweep.dir or the store elsewhere), {RELAUNCH}"
    )
    quota = str(exhausted(OSError(errno.EDQUOT, "Disk quota exceeded", "/q"), sweep=False))
    assert quota.startswith("disk quota exceeded writing /q (free space there, or point ")
    assert quota.endswith("hydra.run.dir or the store elsewhere), then run it again")


def test_sqlite_full_deep_in_a_chain_names_the_store_file():
    try:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.Error as inner:
            raise RuntimeError("(sqlite3.OperationalError) wrapped by MLflow") from inner
    except RuntimeError as outer:
        line = str(exhausted(outer, sweep=True, store=Path("/s/mlflow.db")))
    assert line.startswith("no space left on device writing /s/mlflow.db (")


def test_no_path_names_the_fullest_written_folder(tmp_path):
    # a write that fails says no file: the line names the written folder with least room
    line = str(exhausted(OSError(errno.ENOSPC, "full"), sweep=True, folders=[tmp_path / "new"]))
    assert line.startswith(f"no space left on device under {tmp_path} (")


def test_memory_and_open_files_are_named_with_their_fix():
    assert str(exhausted(MemoryError(), sweep=True)) == (
        "out of memory (run fewer configurations at once (hydra.launcher.n_jobs=1) or close "
        f"other programs), {RELAUNCH}"
    )
    files = str(exhausted(OSError(errno.EMFILE, "Too many open files"), sweep=True))
    assert files.startswith("too many open files (this process's limit is ")
    assert "raise the limit (`ulimit -n`)" in files
    system = str(exhausted(OSError(errno.ENFILE, "Too many open files in system"), sweep=False))
    assert system.startswith("too many open files on this machine (its system-wide limit) (")


def test_other_errors_are_not_exhaustion():
    assert exhausted(OSError(errno.EACCES, "Permission denied", "/x"), sweep=True) is None
    assert exhausted(sqlite3.OperationalError("database is locked"), sweep=True) is None
    assert exhausted(ValueError("no space left on device"), sweep=True) is None


def test_the_line_crosses_processes_and_shows_its_traceback_only_when_asked(monkeypatch):
    try:
        raise OSError(errno.ENOSPC, "No space left on device", "/x/y")
    except OSError as err:
        stop = exhausted(err, sweep=True)
    assert stop is not None
    back = pickle.loads(pickle.dumps(stop))  # a worker's line, as the launcher gets it
    assert (str(back), back.detail) == (str(stop), stop.detail)
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    assert back.told() == f"ragsweep: error: {stop}"
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    told = back.told().splitlines()
    assert told[0] == "Traceback (most recent call last):"
    assert "OSError: [Errno 28] No space left on device: '/x/y'" in told
    assert told[-1] == f"ragsweep: error: {stop}"
    # an Exhausted passes `except Exception`: one configuration's handler does not swallow it
    assert not issubclass(Exhausted, Exception)


def test_a_single_run_out_of_a_resource_prints_one_line_and_exits_1(workdir, monkeypatch, capsys):
    error = OSError(errno.EMFILE, "Too many open files")  # memory: the same path

    def fail(*args, **kwargs):
        raise error

    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    monkeypatch.setattr("ragsweep.experiment.single.evaluate", fail)
    code = main([*TOY, "tracking.enabled=false"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.splitlines() == [str(exhausted(error, sweep=False).told())]


# -- a full disk, end to end -------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 20 MB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        if subprocess.run(["umount", str(disk)], capture_output=True).returncode:
            subprocess.run(["umount", "--lazy", str(disk)], check=True)


def fill(disk: Path) -> Path:
    """Take every free byte of `disk` (smaller writes last, to the last page)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (1 << 20, 1 << 16, 1 << 12):
            with contextlib.suppress(OSError):
                while True:
                    handle.write(bytes(size))
    return filler


def launch(folder: Path) -> subprocess.Popen:
    env = {**os.environ, "CI": "true"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(STAGES), env.get("PYTHONPATH")]))
    env.pop("MLFLOW_TRACKING_URI", None)
    env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.Popen(
        [str(SCRIPT), *SWEEP],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_a_disk_full_while_running_ends_the_launch_in_one_line_and_the_relaunch_completes(
    small_disk,
):
    # store, cache and sweep folder on the small disk; the store made first (MLflow says two
    # lines on stderr when it creates one, which no launch on an existing store meets)
    mc = MlflowClient(f"sqlite:///{small_disk / 'mlruns' / 'mlflow.db'}")
    mc.search_experiments()
    launcher = launch(small_disk)
    wait_for_stage(small_disk, "chunking", timeout=60)  # a configuration runs: the disk fills
    filler = fill(small_disk)
    out, err = launcher.communicate(timeout=120)
    assert launcher.returncode == 1, err[-3000:]
    (line,) = err.splitlines()
    assert line.startswith("ragsweep: error: no space left on device ")
    assert f" {small_disk}/" in line  # the store's file, or the folder it is in
    assert line.endswith(RELAUNCH)
    experiments = [e.experiment_id for e in mc.search_experiments()]
    statuses = {r.info.status for r in mc.search_runs(experiments)}
    assert "RUNNING" not in statuses and "FAILED" in statuses, statuses
    assert sqlite3.connect(small_disk / "mlruns" / "mlflow.db").execute(
        "pragma integrity_check"
    ).fetchall() == [("ok",)]

    filler.unlink()
    relaunch = launch(small_disk)
    out, err = relaunch.communicate(timeout=300)
    assert relaunch.returncode == 0, err[-3000:]
    assert len(assert_each_size_finished_once(mc)) >= len(SIZES)
