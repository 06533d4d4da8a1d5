"""Fault injection, as a user meets faults: many processes at once on a brand-new store, two
sweeps at once, kill -9 of a sweep's launcher or of one of its workers and a relaunch, two
folders sharing one store. Nothing is lost, nothing is mislabelled, nothing keeps running.

Every command runs as the console script in its own process (the way users start them). A
chunker that sleeps per document (tests/fixtures/stages/slowstages.py) keeps each
configuration running long enough to be killed in the middle. Secrets on the command line are
grepped for in tests/experiment/test_secrets.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from procs import descendants, running
from toy import TOY

SCRIPT = Path(sys.executable).parent / "ragsweep"
STAGES = Path(__file__).parents[1] / "fixtures" / "stages"
#: the toy data with a chunker that sleeps 0.6 s per document (4 documents: about 2.4 s of
#: chunking per configuration), swept over two chunk sizes, no confirm stage
SLOW_SWEEP = [
    "-m",
    *TOY,
    "chunker._target_=slowstages.Slow",
    "+chunker.seconds=0.6",
    "confirm.enabled=false",
    "chunker.size=64,128",
]
SIZES = ("64", "128")


def env_for(uri: str | None = None) -> dict[str, str]:
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(STAGES)}
    env.pop("MLFLOW_TRACKING_URI", None)
    if uri:
        env["MLFLOW_TRACKING_URI"] = uri
    return env


def start(folder: Path, *args: str, uri: str | None = None) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=folder,
        env=env_for(uri),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 600) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def client(folder: Path) -> MlflowClient:
    return MlflowClient(f"sqlite:///{folder / 'mlruns' / 'mlflow.db'}")


def runs_by_experiment(mc: MlflowClient) -> dict[str, list]:
    return {e.name: mc.search_runs([e.experiment_id]) for e in mc.search_experiments()}


def sweep_runs(mc: MlflowClient, name: str, stage: str = "config") -> list:
    exp = mc.get_experiment_by_name(f"sweep:{name}")
    assert exp is not None, f"no experiment sweep:{name}"
    runs = mc.search_runs([exp.experiment_id], max_results=1000)
    return [r for r in runs if r.data.tags.get("ragsweep.stage") == stage]


def wait_for_stage(folder: Path, stage: str, timeout: float = 120) -> dict[str, Any]:
    """The first progress record (value, stage, pid) of a sweep under `folder` at `stage`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in folder.glob("multirun/*/*/progress/*.json"):
            try:
                record = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if record.get("stage") == stage:
                return record
        time.sleep(0.05)
    raise AssertionError(f"no configuration reached {stage!r} within {timeout} s")


def assert_each_size_finished_once(mc: MlflowClient) -> list:
    children = sweep_runs(mc, "chunker.size")
    finished = [r for r in children if r.info.status == "FINISHED"]
    assert sorted(r.data.tags["ragsweep.value"] for r in finished) == sorted(SIZES)
    tagged = [r.info.run_name for r in finished if "ragsweep.recovered" in r.data.tags]
    assert tagged == [], f"FINISHED runs tagged as killed: {tagged}"
    for parent in sweep_runs(mc, "chunker.size", "sweep"):
        assert "ragsweep.recovered" not in parent.data.tags
    return children


@pytest.mark.slow
def test_eight_single_runs_started_together_on_a_fresh_store_all_land(tmp_path):
    sizes = (24, 32, 40, 48, 56, 64, 96, 128)
    procs = [start(tmp_path, *TOY, f"chunker.size={n}") for n in sizes]
    results = [finish(p) for p in procs]
    assert [code for code, _, _ in results] == [0] * len(sizes), [e for _, _, e in results]
    runs = runs_by_experiment(client(tmp_path))
    assert runs["Default"] == []
    names = sorted(r.info.run_name.rsplit(",", 1)[-1] for r in runs["ragsweep"])
    assert names == sorted(f"chunker.size={n}" for n in sizes)
    assert all(r.info.status == "FINISHED" for r in runs["ragsweep"])


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(5))
def test_two_different_sweeps_started_together_on_a_fresh_store_both_land(tmp_path, trial):
    one_job = ("confirm.enabled=false", "hydra.launcher.n_jobs=1")
    procs = [
        start(tmp_path, "-m", *TOY, *one_job, "fusion.k=10,60"),
        start(tmp_path, "-m", *TOY, *one_job, "chunker.size=64,128"),
    ]
    results = [finish(p) for p in procs]
    assert [code for code, _, _ in results] == [0, 0], [e for _, _, e in results]
    mc = client(tmp_path)
    assert runs_by_experiment(mc)["Default"] == []
    for factor, values in (("fusion.k", ("10", "60")), ("chunker.size", SIZES)):
        children = sweep_runs(mc, factor)
        assert sorted(r.data.tags["ragsweep.value"] for r in children) == sorted(values)
        assert all(r.info.status == "FINISHED" for r in children)


@pytest.mark.slow
def test_kill_9_of_the_launcher_stops_its_workers_and_the_relaunch_completes(tmp_path):
    launcher = start(tmp_path, *SLOW_SWEEP)
    wait_for_stage(tmp_path, "chunking")  # a configuration run is RUNNING in a worker
    family = descendants(launcher.pid)
    assert family, "the sweep has no worker processes to watch"
    launcher.send_signal(signal.SIGKILL)
    launcher.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while running(family) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert running(family) == set(), "processes of the killed sweep still run 10 s later"

    code, out, err = finish(start(tmp_path, *SLOW_SWEEP))
    assert code == 0, err[-3000:]
    assert "left RUNNING by an interrupted launch as KILLED" in out
    children = assert_each_size_finished_once(client(tmp_path))
    killed = [r for r in children if r.info.status == "KILLED"]
    assert killed, "the kill hit no running configuration: the test proved nothing"
    for run in killed:
        assert "its owner (pid" in run.data.tags["ragsweep.recovered"]


@pytest.mark.slow
def test_kill_9_of_a_worker_names_the_configuration_and_the_relaunch_completes(tmp_path):
    launcher = start(tmp_path, *SLOW_SWEEP)
    record = wait_for_stage(tmp_path, "chunking")
    os.kill(record["pid"], signal.SIGKILL)
    code, _, err = finish(launcher)
    assert code == 1, err[-3000:]
    (summary,) = [line for line in err.splitlines() if "did not finish" in line]
    assert f"chunker.size={record['value']} (its worker died during chunking)" in summary
    assert "a worker process died (exit code SIGKILL(-9))" in summary
    assert "tracebacks" not in summary  # no run FAILED: there is no traceback to point at
    assert "Traceback" not in err
    mc = client(tmp_path)
    # the killed worker's configuration, and any other the broken pool was running (the warm
    # workers start both configurations at once), end KILLED, each named in the summary
    dead = {
        r.data.tags["ragsweep.value"]: r
        for r in sweep_runs(mc, "chunker.size")
        if r.info.status == "KILLED"
    }
    assert record["value"] in dead
    assert (
        "the worker process running it died"
        in dead[record["value"]].data.tags["ragsweep.recovered"]
    )
    for value, run in dead.items():
        assert f"chunker.size={value} (" in summary
        assert run.data.tags["ragsweep.recovered"]

    code, _, err = finish(start(tmp_path, *SLOW_SWEEP))
    assert code == 0, err[-3000:]
    assert_each_size_finished_once(mc)


@pytest.mark.slow
def test_two_folders_sharing_one_store_never_kill_each_others_live_runs(tmp_path):
    uri = f"sqlite:///{tmp_path / 'shared' / 'mlflow.db'}"
    # 3 s per document: the first sweep still runs while the other two start up and claim
    slower = [o.replace("seconds=0.6", "seconds=3") for o in SLOW_SWEEP]
    first = start(tmp_path / "a", *slower, uri=uri)
    wait_for_stage(tmp_path / "a", "chunking")
    # the same sweep from another folder: its local lock is not the first one's, the store's is
    same = start(tmp_path / "b", *slower, uri=uri)
    # the same factor with another fixed setting: one experiment, another sweep; it runs, and
    # its recovery leaves the first sweep's live runs alone
    other = start(tmp_path / "c", *SLOW_SWEEP, "fusion.k=30", uri=uri)
    code, _, err = finish(same)
    assert code == 2, err[-3000:]
    (line,) = err.strip().splitlines()
    assert "this sweep is already running" in line and "launched by pid" in line
    for proc in (other, first):
        code, _, err = finish(proc)
        assert code == 0, err[-3000:]
    mc = MlflowClient(uri)
    children = sweep_runs(mc, "chunker.size")
    assert sorted(r.info.status for r in children) == ["FINISHED"] * 4
    assert [r for r in children if "ragsweep.recovered" in r.data.tags] == []
    assert len({r.data.tags["mlflow.parentRunId"] for r in children}) == 2
