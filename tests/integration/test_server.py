"""Sweeps through a real tracking server: `ragsweep server` on a PostgreSQL cluster (conftest).

- a 2-worker sweep logs every run through the server (none in Default, none on a local disk),
  with the metrics the same sweep logs into a local sqlite store, and no credential anywhere;
- the same sweep launched from two folders at the same moment runs once: the second launch is
  refused in one line by the claim it finds in the store;
- two sweeps of one experiment launched at the same moment from two machines (the second in a
  UTS namespace of its own, so its host name differs and liveness goes by heartbeat) both land
  every run, and neither marks the other's live runs KILLED;
- the store-level lock itself: one holder at a time, a dead owner's claim does not block, a live
  holder makes a waiter refuse in one line;
- `ragsweep server`'s bad input is one line and exit 2; `--postgres-dir` starts a cluster and
  stops it with the server, nothing left running, the password never printed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import SCRIPT, Store, quality, ragsweep
from integration.conftest import (
    free_port,
    launch_on_server,
    on_server,
    public_dir,
    stop_group,
    wait_healthy,
)
from procs import descendants
from ragsweep.cli import main
from ragsweep.experiment.single import run_measured
from toy import TOY

pytestmark = pytest.mark.slow

#: the MLflow credentials every client here runs with: they must show up nowhere
USERNAME = f"it-user-{secrets.token_hex(4)}"
PASSWORD = f"it-pass-{secrets.token_hex(8)}"
CREDENTIALS = {"MLFLOW_TRACKING_USERNAME": USERNAME, "MLFLOW_TRACKING_PASSWORD": PASSWORD}
#: chunk sizes from 16 words: the default overlap (16) must shrink
ON_SERVER = [*TOY, "chunker.overlap=4", "tracking=server", "confirm.enabled=false"]
RACE_HOOK = Path(__file__).parent / "race_hook"
OTHER_HOST = "ragsweep-it-other-host"


def sweep_file(folder: Path, name: str, values: list[int], baseline: int = 128) -> Path:
    """A sweep file of chunk sizes in `folder/sweeps/` (`ragsweep -m sweep=NAME` finds it)."""
    (folder / "sweeps").mkdir(parents=True, exist_ok=True)
    listed = ", ".join(str(v) for v in values)
    (folder / "sweeps" / f"{name}.yaml").write_text(
        "# @package _global_\n"
        f"sweep:\n  name: {name}\n  factor: chunker.size\n  values: [{listed}]\n"
        f"  baseline: {baseline}\n"
    )
    return folder


def experiment_runs(mc, name: str) -> list:
    exp = mc.get_experiment_by_name(name)
    assert exp is not None, f"no experiment {name!r} on the server"
    return list(mc.search_runs([exp.experiment_id], max_results=1000))


def split(runs: list) -> tuple[list, list]:
    """(parent runs, configuration runs)."""
    stage = [r.data.tags.get("ragsweep.stage") for r in runs]
    parents = [r for r, s in zip(runs, stage, strict=True) if s == "sweep"]
    children = [r for r, s in zip(runs, stage, strict=True) if s == "config"]
    return parents, children


def everything_logged(mc, runs: list, dest: Path) -> str:
    """Every param, tag and metric key and every artifact file of `runs`, as one text."""
    parts = []
    for run in runs:
        parts += [f"{k}={v}" for k, v in run.data.params.items()]
        parts += [f"{k}={v}" for k, v in run.data.tags.items()]
        parts += list(run.data.metrics)
        folder = Path(mc.download_artifacts(run.info.run_id, "", str(dest / run.info.run_id)))
        parts += [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
    return "\n".join(parts)


def no_claim_left(mc) -> bool:
    """The store-level lock is released: no RUNNING claim in `ragsweep.locks`."""
    exp = mc.get_experiment_by_name("ragsweep.locks")
    running = "attributes.status = 'RUNNING'"
    return exp is None or not mc.search_runs([exp.experiment_id], filter_string=running)


def at_the_same_moment(folder: Path) -> dict[str, str]:
    """The environment that makes two launches reach the store together (race_hook), meeting
    in `folder` (made here, empty)."""
    folder.mkdir()
    return {
        "PYTHONPATH": os.pathsep.join([str(RACE_HOOK), os.environ.get("PYTHONPATH", "")]),
        "RAGSWEEP_TEST_RACE_DIR": str(folder),
        "RAGSWEEP_TEST_RACE_N": "2",
    }


def other_host(args: list[str]) -> list[str]:
    """`args` run as if on another machine: a UTS namespace whose host name differs (root
    only); on this host otherwise."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return args
    probe = subprocess.run(["unshare", "--uts", "true"], capture_output=True)
    if probe.returncode != 0:
        return args
    return ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', OTHER_HOST, *args]


# ----------------------------------------------------------------------------- sweeps


def test_a_two_worker_sweep_logs_every_run_through_the_server(server, tmp_path):
    remote = sweep_file(tmp_path / "remote", "it_workers", [16, 32])
    local = sweep_file(tmp_path / "local", "it_workers", [16, 32])
    args = ["-m", "sweep=it_workers", "hydra.launcher.n_jobs=2"]
    t0 = time.monotonic()
    code, out, err = on_server(server, remote, *args, *ON_SERVER, **CREDENTIALS)
    took = time.monotonic() - t0
    assert code == 0, err[-3000:]
    mc = server.client()
    runs = experiment_runs(mc, "sweep:it_workers")
    parents, children = split(runs)
    assert len(runs) == len(parents) + len(children) == 4
    (parent,) = parents
    assert parent.info.status == "FINISHED"
    assert sorted(r.data.tags["ragsweep.value"] for r in children) == ["128", "16", "32"]
    assert {r.info.status for r in children} == {"FINISHED"}
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parent.info.run_id}
    assert "View run" not in out  # MLflow's two lines per ended run are off
    assert mc.search_runs(["0"]) == []  # nothing in Default
    assert not (remote / "mlruns").exists()  # nothing in a local store
    # artifacts went through the server into its destination: the client wrote no file there
    for run in children:
        assert run.info.artifact_uri.startswith("mlflow-artifacts:/"), run.info.artifact_uri
        stored = list(server.artifacts.rglob(f"{run.info.run_id}/artifacts/results/*.csv"))
        assert {p.name for p in stored} == {"per_question.csv", "summary.csv", "metrics.csv"}
    assert no_claim_left(mc)
    # the same sweep on a local sqlite store scores the same
    here = ragsweep(local, *args, *TOY, "chunker.overlap=4", "confirm.enabled=false")
    assert here.returncode == 0, here.stderr[-3000:]
    by_value = Store(local).by_value("sweep:it_workers")
    # every number each run measured (its results/metrics.csv), and the few it logged
    assert {r.data.tags["ragsweep.value"]: quality(r.data.metrics) for r in children} == {
        v: quality(r.data.metrics) for v, r in by_value.items()
    }
    assert {r.data.tags["ragsweep.value"]: quality(run_measured(mc, r)) for r in children} == {
        v: quality(Store(local).measured(r)) for v, r in by_value.items()
    }
    (local_parent,) = Store(local).runs("sweep:it_workers", "sweep")
    assert quality(parent.data.metrics) == quality(local_parent.data.metrics)
    # no credential, and not the database's password, in any param, tag, artifact or line
    logged = everything_logged(mc, runs, tmp_path / "artifacts")
    printed = out + err + (server.log.read_text(errors="replace"))
    for secret in (PASSWORD, USERNAME, server.password):
        assert secret not in logged and secret not in printed
    swept = [p.read_text(errors="replace") for p in (remote / "multirun").rglob("*") if p.is_file()]
    assert not any(PASSWORD in text or server.password in text for text in swept)
    print(
        f"\n2-worker sweep through the server: {took:.1f} s; checks {time.monotonic() - t0:.1f} s"
    )


def test_the_same_sweep_from_two_folders_at_once_runs_once(server, tmp_path):
    args = ["-m", "sweep=it_twice", "hydra.launcher.n_jobs=1", *ON_SERVER]
    folders = [sweep_file(tmp_path / name, "it_twice", [16, 32]) for name in ("a", "b")]
    race = at_the_same_moment(tmp_path / "rendezvous")
    procs = [
        launch_on_server(server, folders[0], *args, **race),
        launch_on_server(server, folders[1], *args, prefix=other_host, **race),
    ]
    done = [(p, *p.communicate(timeout=600)) for p in procs]
    assert not any("RACE: alone" in out for _, out, _ in done), "not at the same moment"
    codes = sorted(p.returncode for p, _, _ in done)
    assert codes == [0, 2], [err[-2000:] for _, _, err in done]
    ((winner, won_out, _),) = [d for d in done if d[0].returncode == 0]
    ((_, lost_out, lost_err),) = [d for d in done if d[0].returncode == 2]
    mc = server.client()
    parents, children = split(experiment_runs(mc, "sweep:it_twice"))
    (parent,) = parents
    (line,) = lost_err.strip().splitlines()
    assert f"this sweep is already running (parent run {parent.info.run_id}" in line
    assert f"launched by pid {winner.pid} on host" in line
    assert parent.info.status == "FINISHED"
    assert sorted(r.data.tags["ragsweep.value"] for r in children) == ["128", "16", "32"]
    assert {r.info.status for r in children} == {"FINISHED"}
    assert not any("ragsweep.recovered" in r.data.tags for r in [parent, *children])
    assert "KILLED" not in won_out + lost_out
    assert no_claim_left(mc)


def test_two_sweeps_from_two_machines_at_once_both_land(server, tmp_path):
    """One experiment (`sweep:it_shared`), two sweeps of it (other values), two machines."""
    args = ["-m", "sweep=it_shared", "hydra.launcher.n_jobs=1", *ON_SERVER]
    here = sweep_file(tmp_path / "here", "it_shared", [16, 32])
    there = sweep_file(tmp_path / "there", "it_shared", [48, 64])
    t0 = time.monotonic()
    race = at_the_same_moment(tmp_path / "rendezvous")
    procs = [
        launch_on_server(server, here, *args, **race),
        launch_on_server(server, there, *args, prefix=other_host, **race),
    ]
    done = [(p, *p.communicate(timeout=600)) for p in procs]
    took = time.monotonic() - t0
    assert not any("RACE: alone" in out for _, out, _ in done), "not at the same moment"
    assert [p.returncode for p, _, _ in done] == [0, 0], [err[-2000:] for _, _, err in done]
    mc = server.client()
    parents, children = split(experiment_runs(mc, "sweep:it_shared"))
    assert len(parents) == 2 and {r.info.status for r in parents} == {"FINISHED"}
    hosts = {r.data.tags["ragsweep.owner"].rsplit(":", 2)[0] for r in parents}
    assert len(hosts) == (2 if other_host(["x"]) != ["x"] else 1)
    by_parent = {
        p.info.run_id: sorted(
            c.data.tags["ragsweep.value"]
            for c in children
            if c.data.tags["mlflow.parentRunId"] == p.info.run_id
        )
        for p in parents
    }
    assert sorted(by_parent.values()) == [["128", "16", "32"], ["128", "48", "64"]]
    assert {r.info.status for r in children} == {"FINISHED"}
    assert not any("ragsweep.recovered" in r.data.tags for r in [*parents, *children])
    assert not any("KILLED" in out for _, out, _ in done)
    assert no_claim_left(mc)
    print(f"\ntwo sweeps from two machines at once: {took:.1f} s")


# ----------------------------------------------------------------------------- the lock


def test_the_store_lock_admits_one_holder_at_a_time(server):
    from ragsweep.experiment import tracking
    from ragsweep.experiment.lifecycle import storelock

    store = tracking.Store(server.url, None)
    spans: list[tuple[float, float]] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def contender() -> None:
        start.wait()
        try:
            with storelock.store_held(store, "it-mutex", poll=0.05):
                began = time.monotonic()
                time.sleep(0.3)
                spans.append((began, time.monotonic()))
        except BaseException as err:  # noqa: BLE001 (reported below)
            errors.append(err)

    threads = [threading.Thread(target=contender) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == [] and len(spans) == 4
    spans.sort()
    overlaps = [(a, b) for a, b in zip(spans, spans[1:], strict=False) if b[0] < a[1]]
    assert overlaps == []
    assert no_claim_left(server.client())


def test_a_dead_owners_claim_is_withdrawn_and_a_live_one_makes_a_waiter_refuse(server):
    from ragsweep.errors import UserError
    from ragsweep.experiment import tracking
    from ragsweep.experiment.lifecycle import owners, storelock

    store = tracking.Store(server.url, None)
    mc = server.client()
    exp_id = tracking.prepare(store, storelock.LOCKS_EXPERIMENT)
    now = time.time()
    dead = {  # this pid with another start time (a reused pid), and a silent remote host
        f"{socket.gethostname()}:{os.getpid()}:0": now,
        "elsewhere:123:456": now - owners.STALE_SECONDS - 5,
    }
    stale = [
        mc.create_run(
            exp_id,
            tags={
                storelock.LOCK_TAG: "it-dead",
                owners.OWNER_TAG: owner,
                owners.HEARTBEAT_TAG: f"{beat:.0f}",
            },
        ).info.run_id
        for owner, beat in dead.items()
    ]
    t0 = time.monotonic()
    with storelock.store_held(store, "it-dead", wait=5):
        waited = time.monotonic() - t0
        # a live holder: a second contender waits, then refuses in one line naming it
        with pytest.raises(UserError) as refused:
            with storelock.store_held(store, "it-dead", wait=1.0, poll=0.05):
                pass
    assert waited < 5
    assert [mc.get_run(r).info.status for r in stale] == ["KILLED", "KILLED"]
    message = str(refused.value)
    assert "\n" not in message
    assert f"held by pid {os.getpid()} on host {socket.gethostname()}" in message
    assert no_claim_left(mc)


# ----------------------------------------------------------------------------- the verb


def verb(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "RAGSWEEP_SERVER_DB"}
    return subprocess.run(
        [str(SCRIPT), "server", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def one_line(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("ragsweep server: error: ")
    return line


def test_the_verb_refuses_bad_input_in_one_line(pg, tmp_path):
    secret = f"pw-{secrets.token_hex(8)}"
    nowhere = f"postgresql://ragsweep:{secret}@127.0.0.1:{free_port()}/mlflow"
    line = one_line(verb())
    assert "RAGSWEEP_SERVER_DB" in line and "--db" in line and "--postgres-dir" in line
    line = one_line(verb(env={"RAGSWEEP_SERVER_DB": nowhere}))
    assert "cannot reach the database" in line and "given by RAGSWEEP_SERVER_DB" in line
    assert secret not in line and "ragsweep:***@127.0.0.1" in line
    wrong = pg.uri.replace(pg.password, secret)
    line = one_line(verb("--db", wrong))
    assert "given by --db" in line and "password authentication failed" in line
    assert secret not in line and pg.password not in line
    line = one_line(verb("--db", "mysql://u@db/x"))
    assert "--db must be a PostgreSQL URI" in line
    line = one_line(verb("--db", pg.uri, "--postgres-dir", str(tmp_path)))
    assert "not both" in line
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_line(verb("--port", str(port), env={"RAGSWEEP_SERVER_DB": pg.uri}))
    assert f"--port {port} on 127.0.0.1 is in use" in line
    if os.geteuid() == 0:  # pytest's tmp_path (mode 700) is out of the postgres user's reach
        line = one_line(verb("--postgres-dir", str(tmp_path / "pg")))
        assert f"--postgres-dir {(tmp_path / 'pg').resolve()}: the `postgres` user" in line


def test_missing_postgresql_or_driver_is_one_line(tmp_path, monkeypatch, capsys):
    import ragsweep.experiment.server as verb_module

    monkeypatch.setattr(verb_module.shutil, "which", lambda name: None)
    monkeypatch.setattr(verb_module.glob, "glob", lambda pattern: [])
    assert main(["server", "--postgres-dir", str(tmp_path / "pg")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "initdb, pg_ctl" in line and "apt-get install -y postgresql" in line
    monkeypatch.setitem(sys.modules, "psycopg2", None)  # `import psycopg2` fails
    assert main(["server", "--db", "postgresql://u@h/db"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "psycopg2" in line and "pip install 'ragsweep[server]'" in line


def test_postgres_dir_runs_a_cluster_and_stops_it_with_the_server(tmp_path):
    pytest.importorskip("psycopg2")
    from ragsweep.errors import UserError
    from ragsweep.experiment.server import postgres_bindir

    try:
        postgres_bindir()
    except UserError as err:
        pytest.skip(f"PostgreSQL is not installed: {err}")
    folder = public_dir("ragsweep-it-pgdir-")
    port, log = free_port(), tmp_path / "server.log"
    args = ["server", "--postgres-dir", str(folder / "pg"), "--port", str(port)]
    args += ["--workers", "1", "--artifacts-destination", str(tmp_path / "artifacts")]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFLOW_", "RAGSWEEP_"))}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(SCRIPT), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    family: set[int] = set()
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, log, 180)
        family = descendants(proc.pid)
        password = (folder / "pg" / "password").read_text().strip()
        pid_file = folder / "pg" / "data" / "postmaster.pid"
        db_port = int(pid_file.read_text().splitlines()[3])
        cmdlines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in family]
        assert cmdlines and not any(password.encode() in c for c in cmdlines)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
        left = stop_group(proc, family)
        assert left == set(), "server processes outlived `ragsweep server`"
        assert not pid_file.exists(), "the cluster was not stopped"
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", db_port)) != 0
        printed = log.read_text(errors="replace")
        assert f"PostgreSQL in {folder / 'pg'} on 127.0.0.1:{db_port}" in printed
        assert f"runs in postgresql+psycopg2://ragsweep:***@127.0.0.1:{db_port}/mlflow" in printed
        assert password not in printed
    finally:
        stop_group(proc, family | descendants(proc.pid))
        if (folder / "pg" / "data" / "postmaster.pid").exists():
            subprocess.run(
                [
                    "runuser",
                    "-u",
                    "postgres",
                    "--",
                    str(postgres_bindir() / "pg_ctl"),
                    "-D",
                    str(folder / "pg" / "data"),
                    "-m",
                    "immediate",
                    "stop",
                ],
                capture_output=True,
                check=False,
            )
        shutil.rmtree(folder, ignore_errors=True)


def test_the_server_keeps_the_database_password_off_command_lines_and_output(server):
    family = descendants(server.proc.pid)
    cmdlines = [Path(f"/proc/{pid}/cmdline").read_bytes() for pid in family]
    assert any(b"mlflow" in c for c in cmdlines)
    assert not any(server.password.encode() in c for c in cmdlines)
    printed = server.log.read_text(errors="replace")
    assert "runs in postgresql+psycopg2://ragsweep:***@127.0.0.1:" in printed
    assert server.password not in printed
