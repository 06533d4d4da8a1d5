"""The launcher starts a sweep's workers early and they import MLflow before their first job."""

from __future__ import annotations

import json
import os
import threading

import pytest

from conftest import cli_in
from ragsweep.experiment.lifecycle import warm
from toy import TOY


def test_joblib_settings_are_what_hydras_launcher_passes_and_none_for_one_worker():
    settings = warm.joblib_settings(["-m", *TOY, "chunker.size=32,64", "hydra.launcher.n_jobs=3"])
    assert settings is not None
    assert (settings["n_jobs"], settings["backend"], settings["prefer"]) == (3, "loky", "processes")
    assert warm.joblib_settings(["-m", *TOY, "hydra.launcher.n_jobs=1"]) is None


def test_a_warm_up_task_holds_its_worker_until_every_worker_has_one(tmp_path):
    """A worker that finished its imports first cannot take a second task: the task waits for
    the other worker's file (the race a loaded CI machine lost: both tasks in one worker)."""
    returned: list[int] = []
    task = threading.Thread(
        target=lambda: returned.append(warm._import_worker_modules(str(tmp_path), 2))
    )
    task.start()
    task.join(timeout=1.0)
    assert task.is_alive() and returned == []
    (tmp_path / "another-worker").touch()
    task.join(timeout=5.0)
    assert returned == [os.getpid()]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["another-worker", str(os.getpid())]
    )


@pytest.mark.slow
def test_a_sweeps_jobs_run_in_the_workers_the_launcher_warmed(workdir, monkeypatch):
    started: list[warm.Warmup] = []
    original = warm.Warmup.start

    def start(self: warm.Warmup) -> warm.Warmup:
        started.append(self)
        return original(self)

    monkeypatch.setattr(warm.Warmup, "start", start)
    try:
        ran = cli_in(workdir, "-m", *TOY, "chunker.size=32,64", "confirm.enabled=false")
    finally:
        # its workers' working folder is this test's: a later sweep of this process, launched
        # in another folder, must not find them (its own sweep files are not there)
        from joblib.externals.loky import reusable_executor

        if reusable_executor._executor is not None:
            reusable_executor._executor.shutdown(wait=True, kill_workers=True)
    assert ran.code == 0, ran.err
    (warmup,) = started
    assert len(warmup.pids) == 2 and len(set(warmup.pids)) == 2
    progress = [json.loads(p.read_text()) for p in workdir.glob("multirun/*/*/progress/*.json")]
    assert len(progress) == 3  # the two values and the baseline
    assert {p["pid"] for p in progress} <= set(warmup.pids)


def _leak_allowance() -> int:
    from joblib.externals.loky import process_executor

    return int(process_executor._MAX_MEMORY_LEAK_SIZE)


def test_a_sweeps_workers_are_not_replaced_for_holding_a_configurations_memory(workdir):
    """loky replaces a worker whose memory grew 300 MB past its first task, and the new one
    starts cold: the sweep's workers (our loky backend, `watch_workers`) allow
    `LEAK_ALLOWANCE` instead, which a 30k-chunk job's heap passed every time."""
    from joblib import Parallel, delayed

    warm.watch_workers()
    seen = Parallel(n_jobs=2, backend="loky")(delayed(_leak_allowance)() for _ in range(2))
    assert seen == [warm.LEAK_ALLOWANCE] * 2
    assert warm.LEAK_ALLOWANCE >= 4 << 30
