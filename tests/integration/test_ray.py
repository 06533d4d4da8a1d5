"""Sweeps on Hydra's Ray launcher (`hydra/launcher=ray`, the [ray] extra).

- On a local Ray instance (2 CPUs) the packaged fusion sweep at toy size logs every configuration
  as a FINISHED child of its parent run, from Ray worker processes, with metrics equal bit for bit
  to the same sweep on the default joblib launcher.
- On a Ray cluster given by address (`ray start --head` here, the launcher in a mount namespace of
  its own), the launch check refuses, in one line and before anything is created, a dataset
  folder or a cache dir that the Ray workers see only as an empty folder of the same name (the
  launcher's copy is mounted where they cannot see it, as on a machine without the shared
  filesystem). (Both launches join the cluster and run the check on its node; a whole sweep
  by address costs another ~40 s here, so the local-instance sweep above stands for it.)
- A Ray worker exits when its launcher is gone: on the launcher's host seen through /proc, on
  another host through the store's heartbeat.
- Every Ray process these tests started is gone at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the Ray tests need the [ray] extra (ray is not importable)")
pytest.importorskip(
    "hydra_plugins.hydra_ray_launcher",
    reason="the Ray tests need the [ray] extra (hydra-ray-launcher is not importable)",
)

from conftest import SCRIPT, Ran, quality, ragsweep, sweep_file_overrides  # noqa: E402
from toy import TINY, TOY  # noqa: E402

pytestmark = pytest.mark.slow

FUSION = "sweep:fusion_k"
#: where the Ray instances of these tests keep their sessions (not /tmp/ray; removed at the end;
#: short: Ray's socket paths live below it)
RAY_TEMP = Path(f"/tmp/rs-ray-{os.getpid()}")
LOCAL_RAY = [
    "hydra/launcher=ray",
    "+hydra.launcher.ray.init.num_cpus=2",
    f"+hydra.launcher.ray.init._temp_dir={RAY_TEMP / 'local'}",
]
#: what a Ray worker's log says for each task of Hydra's Ray launcher it runs
RAY_TASK = ":task_name:_run_job"
#: the processes a Ray instance runs besides its workers
RAY_DAEMONS = ("raylet", "gcs_server", "ray::IDLE", "dashboard", "log_monitor", "ray/_private")


def ray_processes() -> dict[int, str]:
    """pid -> command line of every Ray process on this machine."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if any(d in cmd for d in RAY_DAEMONS) or cmd.startswith("ray::"):
            found[int(proc.name)] = cmd.strip()
    return found


def run(folder: Path, *args: str) -> Ran:
    done = ragsweep(folder, *args)
    return Ran(folder, done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def before() -> Iterator[dict[int, str]]:
    """The Ray processes that ran before these tests (none of them is ours to judge)."""
    yield ray_processes()
    shutil.rmtree(RAY_TEMP, ignore_errors=True)


@pytest.fixture(scope="module")
def fusion(before, tmp_path_factory):
    """The packaged fusion sweep at toy size on a local Ray instance, and on joblib."""
    args = ["-m", *sweep_file_overrides("fusion_k")]
    on_ray = run(tmp_path_factory.mktemp("ray"), *args, *LOCAL_RAY)
    on_joblib = run(tmp_path_factory.mktemp("joblib"), *args)
    return on_ray.ok(), on_joblib.ok()


def test_every_configuration_lands_finished_under_its_parent_from_ray_workers(fusion):
    on_ray, _ = fusion
    (parent,), children = on_ray.store.sweep(FUSION)
    assert parent.info.status == "FINISHED"
    assert sorted(int(r.data.tags["ragsweep.value"]) for r in children) == [10, 30, 60, 100]
    assert {r.info.status for r in children} == {"FINISHED"}
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parent.info.run_id}
    # each job ran in a Ray worker process: one whose log (worker-<id>-<job>-<pid>.out, in the
    # local instance's session) names the Ray launcher's task
    logs = (RAY_TEMP / "local").glob("session_*/logs/worker-*.out")
    ray_pids = {int(log.stem.rsplit("-", 1)[1]) for log in logs if RAY_TASK in log.read_text()}
    progress = list(on_ray.folder.glob("multirun/*/*/progress/*.json"))
    job_pids = {json.loads(p.read_text())["pid"] for p in progress}
    assert len(progress) == 4 and job_pids and job_pids <= ray_pids


def test_metrics_equal_the_joblib_launchers_bit_for_bit(fusion):
    on_ray, on_joblib = fusion
    ray_runs, joblib_runs = on_ray.store.by_value(FUSION), on_joblib.store.by_value(FUSION)
    assert sorted(ray_runs) == sorted(joblib_runs) == ["10", "100", "30", "60"]
    for value, run_ in ray_runs.items():
        got, want = quality(run_.data.metrics), quality(joblib_runs[value].data.metrics)
        assert "recall_at_5/all" in got and "delta/recall_at_5/weighted" in got
        assert got == want, value
        # and every number each measured (the runs log only the deciding few as metrics)
        got = quality(on_ray.store.measured(run_))
        assert got == quality(on_joblib.store.measured(joblib_runs[value])), value
        decided = run_.data.tags["ragsweep.decision"]
        assert decided == joblib_runs[value].data.tags["ragsweep.decision"], value
    (ray_parent,), _ = on_ray.store.sweep(FUSION)
    (joblib_parent,), _ = on_joblib.store.sweep(FUSION)
    assert quality(ray_parent.data.metrics) == quality(joblib_parent.data.metrics)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def ray_cluster(before, tmp_path):
    """A one-node Ray cluster, `ray start --head --block` in a session of its own (its own temp
    dir, so no local `ray.init()` joins it): its address. Stopped by ending that process, which
    stops what it started (`ray stop` would stop every Ray on the machine)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("the launch check test mounts folders in a namespace: needs root and unshare")
    port = _free_port()
    log = tmp_path / "ray-start.log"
    head = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "ray"),
            "start",
            "--head",
            "--block",
            f"--port={port}",
            "--num-cpus=2",
            "--include-dashboard=false",
            f"--temp-dir={RAY_TEMP / 'cluster'}",
            "--disable-usage-stats",
        ],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"},
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text():
            assert head.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()


def in_namespace(folder: Path, mounts: list[str], *args: str) -> Ran:
    """`ragsweep *args` in `folder`, in a mount namespace of its own where `mounts` (shell
    commands) have run: the Ray workers, started outside it, do not see those mounts."""
    env = {k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "RAY_ADDRESS")}
    env["CI"] = "true"
    env["RAY_AUTH_MODE"] = "token"  # a cluster started by `ray start` asks for its token
    script = " && ".join([*mounts, 'exec "$0" "$@"'])
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, str(SCRIPT), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return Ran(folder, done.returncode, done.stdout, done.stderr)


def _refused(ran: Ran) -> str:
    """The one line a refused launch printed (Ray's own lines aside), checked to be alone."""
    ours = [line for line in ran.err.splitlines() if line.startswith("ragsweep:")]
    assert ran.code == 2 and len(ours) == 1, ran.err[-3000:]
    assert not (ran.folder / "mlruns").exists()  # nothing was created
    assert not (ran.folder / "multirun").exists()
    return ours[0]


def test_the_launch_check_refuses_a_dataset_or_cache_the_workers_cannot_reach(
    ray_cluster, tmp_path
):
    sweep = ["-m", *TOY, "fusion.k=10,60", "confirm.enabled=false", "hydra/launcher=ray"]
    at = f"hydra.launcher.ray.init.address={ray_cluster}"
    # a dataset folder whose files only the launcher sees (workers: an empty folder)
    data, hidden = tmp_path / "data", tmp_path / "data-hidden"
    data.mkdir()
    shutil.copytree(TINY, hidden)
    ran = in_namespace(
        tmp_path,
        [f"mount --bind {hidden} {data}"],
        *[o for o in sweep if not o.startswith("data.path=")],
        f"data.path={data}",
        at,
    )
    line = _refused(ran)
    assert line.startswith("ragsweep: error: the Ray worker on node ")
    assert f" (host {socket.gethostname()}) " in line
    assert f" sees the dataset folder {data} without its dataset.json; " in line
    # a cache dir that is the launcher's own disk (workers: an empty folder of that name)
    cache = tmp_path / "cache"
    cache.mkdir()
    ran = in_namespace(
        tmp_path, [f"mount -t tmpfs tmpfs {cache}"], *sweep, f"cache.dir={cache}", at
    )
    line = _refused(ran)
    assert f" sees a cache dir (cache.dir) {cache} that is not the launcher's " in line


def _watching(owner: str, gone_flag: str) -> int:
    """In a Ray worker: watch `owner` as a sweep's job watches its launcher, the store's
    heartbeat (asked every 0.2 s here) standing for an owner on another host as "alive until
    `gone_flag` exists"; return this worker's pid."""
    from ragsweep.experiment.lifecycle import owners

    owners.BEAT_SECONDS = 0.2
    owners.watch(owner, lambda: not Path(gone_flag).exists())
    return os.getpid()


def _gone_within(pid: int, start: str | None, seconds: float) -> bool:
    from ragsweep.experiment.lifecycle.owners import _start_time

    deadline = time.monotonic() + seconds
    while _start_time(pid) == start:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.fixture
def local_ray(before):
    import ray
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # _watching, for the workers
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=78_643_200,
        log_to_driver=False,
        _temp_dir=str(RAY_TEMP / "watch"),
    )
    yield ray
    ray.shutdown()
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def _watched_by_a_ray_worker(ray, host: str, flag: Path) -> None:
    """A stand-in launcher (a `sleep`) on `host`, watched by a Ray worker: the worker lives
    while it does, and exits once it is gone (killed, when on this host; its heartbeat stale,
    `flag`, when on another)."""
    from ragsweep.experiment.lifecycle.owners import _start_time

    launcher = subprocess.Popen(["sleep", "600"])
    owner = f"{host}:{launcher.pid}:{_start_time(launcher.pid)}"
    try:
        worker = ray.get(ray.remote(_watching).remote(owner, str(flag)), timeout=120)
        start = _start_time(worker)
        assert start is not None and worker != os.getpid()
        assert not _gone_within(worker, start, 2.0), host  # the launcher lives: so does it
        if host == socket.gethostname():
            launcher.kill()  # seen through /proc
        else:
            flag.touch()  # the launcher's heartbeat in the store went stale
        assert _gone_within(worker, start, 5.0), host
    finally:
        launcher.kill()
        launcher.wait()


def test_a_ray_worker_exits_when_its_launcher_is_gone(local_ray, tmp_path):
    _watched_by_a_ray_worker(local_ray, socket.gethostname(), tmp_path / "unused")
    _watched_by_a_ray_worker(local_ray, "another-host", tmp_path / "heartbeat-stale")


def test_no_ray_process_is_left_behind(before, fusion):
    deadline = time.monotonic() + 30
    while (left := set(ray_processes()) - set(before)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left, [ray_processes().get(p) for p in left]
