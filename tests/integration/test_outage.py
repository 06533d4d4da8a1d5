"""A tracking server that goes away in the middle of a sweep (`ragsweep server` on the PostgreSQL
cluster of conftest, started by this module on a port of its own so it can stop it).

- killed (the server and its workers, SIGKILL) for 30 s while the configurations run, then
  started again on the same port and database: the sweep waits (`tracking.wait`, 120 s by
  default) and completes, one FINISHED run per configuration, the parent FINISHED, each metric
  logged once;
- killed for good (`tracking.wait=5`): the sweep ends with one line naming the server and what
  it kept, exit 1, every configuration's results in its sweep folder; once the server is back,
  the same command logs them into the runs the first launch made, chunking nothing again.

The timeline of each is printed (`-s` shows it): the figures of docs/server.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SCRIPT
from integration.conftest import free_port, stop_group, wait_healthy
from procs import descendants, running
from toy import TOY

pytestmark = pytest.mark.slow

STAGES = Path(__file__).parents[1] / "fixtures" / "stages"
#: two chunk sizes chunked by a chunker that sleeps 1 s per document, no stage cache (a
#: relaunch that evaluated again would chunk again), no confirm stage
SWEEP = [
    "-m",
    *TOY,
    "chunker._target_=slowstages.Slow",
    "+chunker.seconds=1.0",
    "confirm.enabled=false",
    "cache.dir=null",
    "chunker.size=64,128",
]
SIZES = ["128", "64"]
OUTAGE_SECONDS = 30.0


class Restartable:
    """`ragsweep server` on one port and one database, stopped and started at will."""

    def __init__(self, pg, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.folder = folder
        self.db = "postgresql://" + pg.uri.partition("://")[2]
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> float:
        """Start it; return the seconds until it answered /health."""
        self.starts += 1
        log = self.folder / f"server{self.starts}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
        env["RAGSWEEP_SERVER_DB"] = self.db
        args = ["server", "--port", str(self.port), "--workers", "1"]
        args += ["--artifacts-destination", str(self.folder / "artifacts")]
        began = time.monotonic()
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [str(SCRIPT), *args],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_healthy(self.url, self.proc, log, 180)
        return time.monotonic() - began

    def crash(self) -> None:
        """Kill it and every process it started (SIGKILL: at once, as a crash or a lost
        machine; a SIGTERM lets it answer for seconds more while its workers drain)."""
        assert self.proc is not None
        family = {self.proc.pid, *descendants(self.proc.pid)}
        for pid in family:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait()
        deadline = time.monotonic() + 10
        while running(family) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert running(family) == set(), "server processes outlived SIGKILL by 10 s"
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            left = stop_group(self.proc, descendants(self.proc.pid))
            assert left == set(), f"server processes left running: {left}"
            self.proc = None

    def client(self):
        from mlflow.tracking import MlflowClient

        return MlflowClient(self.url)


@pytest.fixture(scope="module")
def server(pg, tmp_path_factory):
    srv = Restartable(pg, tmp_path_factory.mktemp("outage-server"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def launch(server: Restartable, folder: Path, *extra: str, mark: Path) -> subprocess.Popen:
    folder.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    paths = [str(STAGES), *filter(None, [os.environ.get("PYTHONPATH")])]
    env.update(
        CI="true",
        PYTHONPATH=os.pathsep.join(paths),
        MLFLOW_TRACKING_URI=server.url,
        SLOWSTAGES_MARK=str(mark),
    )
    return subprocess.Popen(
        [str(SCRIPT), *SWEEP, *extra],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_stage(folder: Path, stage: str, timeout: float = 180) -> None:
    """Until every configuration's progress record says `stage` (both run at once: 2 workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        at = set()
        for path in folder.glob("multirun/*/*/progress/*.json"):
            try:
                if json.loads(path.read_text()).get("stage") == stage:
                    at.add(path.stem)
            except (OSError, ValueError):
                continue
        if at == set(SIZES):
            return
        time.sleep(0.05)
    raise AssertionError(f"the configurations did not all reach {stage!r} within {timeout} s")


def statuses(folder: Path) -> dict[str, dict]:
    """value -> the worker's record, of the latest launch in `folder`."""
    (latest,) = sorted(folder.glob("multirun/*/*"))[-1:]
    return {p.stem: json.loads(p.read_text()) for p in (latest / "results").glob("*.json")}


def sweep_runs(mc, fixed: str) -> tuple[list, list]:
    """(parent runs, configuration runs) of the sweep whose shared overrides hold `fixed`
    (the two tests share the server and the experiment `sweep:chunker.size`)."""
    exp = mc.get_experiment_by_name("sweep:chunker.size")
    assert exp is not None
    runs = mc.search_runs([exp.experiment_id], max_results=1000)
    parents = [
        r
        for r in runs
        if r.data.tags.get("ragsweep.stage") == "sweep"
        and fixed in r.data.params["sweep.fixed"].split()
    ]
    ids = {p.info.run_id for p in parents}
    children = [
        r
        for r in runs
        if r.data.tags.get("ragsweep.stage") == "config"
        and r.data.tags.get("mlflow.parentRunId") in ids
    ]
    return parents, children


def assert_whole(mc, fixed: str) -> None:
    """One FINISHED parent, one FINISHED run per chunk size, each metric logged once."""
    parents, children = sweep_runs(mc, fixed)
    assert [p.info.status for p in parents] == ["FINISHED"]
    assert sorted(r.data.tags["ragsweep.value"] for r in children) == sorted(SIZES)
    assert [r.info.status for r in children] == ["FINISHED", "FINISHED"]
    for run in children:
        assert "ragsweep.recovered" not in run.data.tags
        key = "recall_at_5/weighted"
        assert key in run.data.metrics
        assert len(mc.get_metric_history(run.info.run_id, key)) == 1


def chunked(mark: Path) -> int:
    return len(mark.read_text().splitlines()) if mark.exists() else 0


def test_a_server_stopped_for_30_s_mid_sweep_is_waited_for(server, tmp_path):
    folder, mark = tmp_path / "back", tmp_path / "chunked.txt"
    began = time.monotonic()
    proc = launch(server, folder, "fusion.k=59", mark=mark)
    wait_for_stage(folder, "chunking")
    evaluating = time.monotonic() - began
    server.crash()
    stopped = time.monotonic()
    time.sleep(OUTAGE_SECONDS)
    restart = server.start()
    back = time.monotonic() - stopped
    out, err = proc.communicate(timeout=300)
    ended = time.monotonic() - stopped
    print(
        f"\noutage: configurations running {evaluating:.1f} s after launch; server killed for "
        f"{OUTAGE_SECONDS:.0f} s, answering again {back:.1f} s after the stop (its start took "
        f"{restart:.1f} s); sweep ended {ended:.1f} s after the stop, exit {proc.returncode}"
    )
    assert proc.returncode == 0, err[-3000:]
    assert "Traceback" not in err
    assert "does not answer; trying again for up to 120 s (tracking.wait)" in err
    assert_whole(server.client(), "fusion.k=59")
    assert chunked(mark) == 2 * 4  # each configuration chunked the 4 documents once
    assert {s["status"] for s in statuses(folder).values()} == {"finished"}


def test_a_server_that_does_not_come_back_ends_the_sweep_and_the_relaunch_logs_what_it_kept(
    server, tmp_path
):
    folder, mark = tmp_path / "gone", tmp_path / "chunked.txt"
    args = ("tracking.wait=5", "fusion.k=61")
    began = time.monotonic()
    proc = launch(server, folder, *args, mark=mark)
    wait_for_stage(folder, "chunking")
    server.crash()
    stopped = time.monotonic()
    try:
        out, err = proc.communicate(timeout=300)
    finally:
        restart = server.start()
    ended = time.monotonic() - stopped
    assert proc.returncode == 1, err[-3000:]
    assert "Traceback" not in err
    (line,) = [e for e in err.splitlines() if "kept in" in e]
    assert "did not answer again within 5 s (tracking.wait)" in line
    assert "2 evaluated configuration(s) (chunker.size=64, chunker.size=128)" in line
    assert "launch the same command again" in line
    assert {v: s["status"] for v, s in statuses(folder).items()} == dict.fromkeys(SIZES, "unlogged")
    evaluated = chunked(mark)
    assert evaluated == 2 * 4

    again = launch(server, folder, *args, mark=mark)
    out, err = again.communicate(timeout=300)
    relaunch = time.monotonic() - stopped - ended
    print(
        f"\nnever back (tracking.wait=5): sweep ended {ended:.1f} s after the stop, exit 1; "
        f"server started again in {restart:.1f} s; relaunch took {relaunch:.1f} s, exit "
        f"{again.returncode}, {chunked(mark) - evaluated} documents chunked; "
        f"{time.monotonic() - began:.1f} s in all"
    )
    assert again.returncode == 0, err[-3000:]
    assert chunked(mark) == evaluated  # logged from the sweep folder, nothing evaluated again
    kept = statuses(folder)
    assert {s["status"] for s in kept.values()} == {"finished"}
    assert all("logged_from" in s for s in kept.values())
    assert_whole(server.client(), "fusion.k=61")
