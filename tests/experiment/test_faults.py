"""Fault injection, as a user meets faults: many processes at once on a brand-new store, two
sweeps at once, kill -9 of a sweep's launcher or of one of its workers and a relaunch, kill -9
and SIGTERM of a launcher in each phase of a launch, two folders sharing one store. Nothing is
lost, nothing is mislabelled, nothing keeps running.

Every command runs as the console script in its own process (the way users start them). A
chunker that sleeps per document and a reranker that pauses per batch of questions
(tests/fixtures/stages/slowstages.py) keep a phase going long enough to be stopped in the
middle. Secrets on the command line are grepped for in tests/experiment/test_secrets.py.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from mlflow.tracking import MlflowClient

from procs import descendants, marked, running
from toy import HELDOUT_WINNER, TOY

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
    # the sources under test first when they are not the installed ones (a worktree)
    path = os.pathsep.join(filter(None, [str(STAGES), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "CI": "true", "PYTHONPATH": path}
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
@pytest.mark.parametrize("trial", range(2))  # 5 when the fresh-store race was open (issue 11)
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
    deadline = time.monotonic() + 5
    while running(family) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert running(family) == set(), "processes of the killed sweep still run 5 s later"

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
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[-3000:]
    (line,) = lines
    assert "this sweep is already running" in line and "launched by pid" in line
    for proc in (other, first):
        code, _, err = finish(proc)
        assert code == 0, err[-3000:]
    mc = MlflowClient(uri)
    children = sweep_runs(mc, "chunker.size")
    assert sorted(r.info.status for r in children) == ["FINISHED"] * 4
    assert [r for r in children if "ragsweep.recovered" in r.data.tags] == []
    assert len({r.data.tags["mlflow.parentRunId"] for r in children}) == 2


#: the environment variable marking every process one launch starts
MARK = "RAGSWEEP_TEST_LAUNCH"
PHASES = ("planning", "prebuild", "running", "finishing", "confirm")


def phased_sweep(folder: Path) -> list[str]:
    """The toy sweep over the fusion constant with a dev winner for the confirm stage, its
    phases made long enough to stop in: its configurations share their chunks, so the launcher
    prebuilds them with the slow chunker (0.3 s per document, 4 documents), and a reranker that
    keeps the fused order pauses 1 s per batch of questions, in the workers while they run a
    configuration and in the launcher while its confirm stage scores the held-out questions
    (appending `pid questions` to `folder`/pauses.log first)."""
    return [
        "-m",
        *HELDOUT_WINNER,
        "chunker._target_=slowstages.Slow",
        "+chunker.seconds=0.3",
        "reranker=proximity",
        "reranker.model._target_=slowstages.Pause",
        "+reranker.model.seconds=1",
        f"+reranker.model.log={folder / 'pauses.log'}",
        "fusion.k=1,60",
    ]


class Launch:
    """One launch of `phased_sweep` in `folder`, in a sweep folder of its own and in a process
    group of its own (a stop can go to the whole group, as a terminal's does); every process it
    starts carries `MARK` in its environment, so it is found after its launcher is gone."""

    def __init__(self, folder: Path, n: int, *extra: str) -> None:
        self.folder, self.mark = folder, uuid.uuid4().hex
        self.sweep = folder / "multirun" / str(n)
        self.out, self.err = folder / f"{n}.out", folder / f"{n}.err"
        with self.out.open("w") as out, self.err.open("w") as err:
            self.proc = subprocess.Popen(
                [str(SCRIPT), *phased_sweep(folder), *extra, f"hydra.sweep.dir={self.sweep}"],
                cwd=folder,
                env={**env_for(), MARK: self.mark},
                stdout=out,  # files, not pipes: a process left alive would hold a pipe open
                stderr=err,
                start_new_session=True,
            )

    def processes(self) -> set[int]:
        return marked(MARK, self.mark)

    def paused(self) -> set[int]:
        log = self.folder / "pauses.log"
        lines = log.read_text().splitlines() if log.exists() else []
        return {int(line.split()[0]) for line in lines}

    def reached(self, phase: str) -> bool:
        """Whether the launch is in `phase` (planning: the test holds the store's lock, which the
        launcher waits for with its warm-up workers started)."""
        launcher = self.proc.pid
        if phase == "planning":
            return sum(b"LokyProcess" in cmdline(pid) for pid in self.processes()) >= 2
        if phase == "prebuild":
            return (self.sweep / "ragsweep_plan.json").exists()
        if phase == "running":
            return bool(self.paused() & (self.processes() - {launcher}))
        if phase == "finishing":
            done = len(list(self.sweep.glob("results/*.json")))
            return done == 2 and launcher not in self.paused()
        return launcher in self.paused()  # confirm

    def stop_in(self, phase: str, sig: signal.Signals, group: bool) -> tuple[int, set[int]]:
        """Wait for `phase`, send `sig` to the launcher (or its whole process group); return its
        exit status and the processes of the launch still alive 5 s later (none once gone)."""
        deadline = time.monotonic() + 120
        while not self.reached(phase):
            assert self.proc.poll() is None, f"the launch ended before {phase}: {self.text()}"
            assert time.monotonic() < deadline, f"no {phase} within 120 s"
            time.sleep(0.05)
        if phase == "planning":
            time.sleep(1)  # the warm-up workers import what a job needs, then wait for the store
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        deadline = time.monotonic() + 5
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        return code, self.processes()

    def text(self) -> str:
        return self.out.read_text() + self.err.read_text()


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def running_runs(mc: MlflowClient) -> list[str]:
    return [
        f"{r.info.run_name} ({r.data.tags.get('ragsweep.stage')})"
        for e in mc.search_experiments()
        for r in mc.search_runs([e.experiment_id], filter_string="attributes.status = 'RUNNING'")
    ]


@pytest.mark.slow
def test_kill_9_or_sigterm_in_every_phase_leaves_no_process_and_the_relaunch_completes(tmp_path):
    """kill -9 and SIGTERM of the launcher while it plans (its warm-up workers started), while
    it prebuilds the shared chunks, while the configurations run (kill -9 there: the test
    above), while it finishes and while its confirm stage runs: 0 processes of the launch 5 s
    later; SIGTERM ends it as Ctrl-C does (exit 143, no traceback, no run left RUNNING; sent to
    the whole process group, where the workers get it too, where they run); each launch
    resumes the one before, and the last completes with one FINISHED run per configuration and
    one confirm run. Before the workers watched their launcher from their first instant, kill
    -9 or SIGTERM while planning or prebuilding left both workers and loky's two resource
    trackers alive for over 5 minutes."""
    store_lock = tmp_path / "mlruns" / "mlflow.db.lock"
    store_lock.parent.mkdir(parents=True)
    n = 0
    for phase in PHASES:
        for sig in (signal.SIGKILL, signal.SIGTERM):
            if (phase, sig) == ("running", signal.SIGKILL):
                continue  # test_kill_9_of_the_launcher_stops_its_workers_and_the_relaunch_...
            n += 1
            with store_lock.open("a+") as lock:
                if phase == "planning":  # the launcher waits for the store while it plans
                    fcntl.flock(lock, fcntl.LOCK_EX)
                launch = Launch(tmp_path, n)
                group = sig == signal.SIGTERM and phase in ("planning", "running")
                code, left = launch.stop_in(phase, sig, group)
            where = f"{sig.name} while {phase}"
            alive = [cmdline(p)[:80] for p in left]
            assert left == set(), f"{where}: {alive} still alive 5 s later"
            if sig == signal.SIGKILL:
                assert code == -signal.SIGKILL
                continue
            text = launch.text()
            assert code == 143, f"{where}: exit {code}\n{text[-3000:]}"
            assert "Traceback" not in text, f"{where}:\n{text[-3000:]}"
            assert "(SIGTERM)" in text, f"{where}: nothing says the sweep was stopped"
            assert running_runs(client(tmp_path)) == [], f"{where}: runs left RUNNING"
            if phase == "running":  # the summary, as after Ctrl-C
                assert "the sweep was stopped (SIGTERM): their runs are marked KILLED" in text

    last = Launch(tmp_path, n + 1)
    code = last.proc.wait(timeout=300)
    assert code == 0, last.text()[-3000:]
    assert "confirm: 1 is" in last.text()
    mc = client(tmp_path)
    assert running_runs(mc) == []
    runs = sweep_runs(mc, "fusion.k", "config")
    finished = sorted(r.data.tags["ragsweep.value"] for r in runs if r.info.status == "FINISHED")
    assert finished == ["1", "60"]
    stopped = [r.data.tags["ragsweep.recovered"] for r in runs if r.info.status == "KILLED"]
    assert any("the sweep was stopped (SIGTERM)" in why for why in stopped)
    assert [r.info.status for r in sweep_runs(mc, "fusion.k", "confirm")] == ["FINISHED"]
    assert [r.info.status for r in sweep_runs(mc, "fusion.k", "sweep")] == ["FINISHED"]


@pytest.mark.slow
def test_a_sweep_its_launcher_runs_itself_stops_in_a_configuration_and_the_relaunch_completes(
    tmp_path,
):
    """The phased sweep on one worker: the launcher runs each configuration itself, as it does
    a fusion sweep's (`launch.in_launcher`). SIGTERM while it reranks the first configuration's
    questions ends it as Ctrl-C does (exit 143, no traceback, no run left RUNNING); kill -9
    there leaves no process; the relaunch completes every configuration and the confirm run."""
    one = "hydra.launcher.n_jobs=1"
    for n, sig in enumerate((signal.SIGTERM, signal.SIGKILL), start=1):
        launch = Launch(tmp_path, n, one)
        deadline = time.monotonic() + 120
        # running: the launcher pauses in a configuration before any has a result
        while launch.proc.pid not in launch.paused() or list(launch.sweep.glob("results/*")):
            assert launch.proc.poll() is None, f"the launch ended first: {launch.text()}"
            assert time.monotonic() < deadline, "no configuration ran within 120 s"
            time.sleep(0.05)
        launch.proc.send_signal(sig)
        code = launch.proc.wait(timeout=120)
        deadline = time.monotonic() + 5
        while launch.processes() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert launch.processes() == set(), f"{sig.name}: processes still alive 5 s later"
        (tmp_path / "pauses.log").unlink()
        if sig == signal.SIGKILL:
            assert code == -signal.SIGKILL
            continue
        text = launch.text()
        assert code == 143, f"exit {code}\n{text[-3000:]}"
        assert "Traceback" not in text, text[-3000:]
        assert "the sweep was stopped (SIGTERM): their runs are marked KILLED" in text, text
        assert running_runs(client(tmp_path)) == []
    last = Launch(tmp_path, 3, one)
    assert last.proc.wait(timeout=300) == 0, last.text()[-3000:]
    assert "confirm: 1 is" in last.text()
    mc = client(tmp_path)
    assert running_runs(mc) == []
    runs = sweep_runs(mc, "fusion.k", "config")
    assert sorted(r.data.tags["ragsweep.value"] for r in runs if r.info.status == "FINISHED") == [
        "1",
        "60",
    ]
    assert [r.info.status for r in sweep_runs(mc, "fusion.k", "confirm")] == ["FINISHED"]
