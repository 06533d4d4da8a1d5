"""Secrets on the command line (a secret-looking key, or an API-key-shaped value under any key)
never reach the tracking store: not as params, tags, run names or in any artifact file (the
resolved config, Hydra's files, results, reports), for one run and for a sweep's parent and child
runs alike; nor any file in the working folder (the sweep folder, Hydra's files, the database)
or a printed line."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import SCRIPT, Ran, Store, cli_in, ragsweep
from toy import HELDOUT_WINNER, TOY

SECRETS = ("sk-abc123", "sk-bearer555", "zzz")
OVERRIDES = ["+tracking.token=sk-abc123", "+x.bearer=sk-bearer555", "+x.api_key=zzz"]


def text_of(path: Path) -> str:
    """A downloaded artifact as text; images and the base64 pictures inside the HTML report
    are left out (three z's turn up in compressed bytes by chance)."""
    if path.suffix == ".png":
        return path.read_bytes().decode("latin-1").replace("zzz", "")  # sk-abc123 still checked
    text = path.read_text(encoding="utf-8")
    return re.sub(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=]+", "", text)


def leaks(store, run, folder: Path) -> list[str]:
    """Where a run holds a secret: 'param k', 'tag k', 'run name', 'artifact path'."""
    found = []
    for kind, items in (("param", run.data.params), ("tag", run.data.tags)):
        for key, value in items.items():
            if any(s in key or s in str(value) for s in SECRETS):
                found.append(f"{kind} {key}={value[:200]}")
    if any(s in (run.info.run_name or "") for s in SECRETS):
        found.append(f"run name {run.info.run_name}")
    local = Path(store.client.download_artifacts(run.info.run_id, "", str(folder)))
    files = [p for p in local.rglob("*") if p.is_file()]
    assert files, "the run has no artifacts to check"
    for path in files:
        if any(s in text_of(path) for s in SECRETS):
            found.append(f"artifact {path.relative_to(local)}")
    return found


def test_one_run_logs_no_secret(workdir, store):
    cli_in(workdir, *TOY, *OVERRIDES).ok()
    run = store.only_run()
    local = store.download(run.info.run_id, "", workdir / "dl")
    assert {"config", "hydra", "results", "trec"} <= {p.name for p in local.iterdir()}
    # the secrets were set: the keys are in the logged config, masked
    config = (local / "config" / "config.yaml").read_text()
    for key in ("token", "bearer", "api_key"):
        assert re.search(rf"{key}: '?\*\*\*'?", config), key
    assert leaks(store, run, workdir / "check") == []


def files_holding_secrets(folder: Path) -> list[str]:
    """Every file under `folder` (the database and artifacts included) holding a secret."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and any(s.encode() in p.read_bytes() for s in SECRETS[:2])
    )


@pytest.fixture(scope="module")
def secret_sweep(tmp_path_factory):
    """A sweep with secrets, as a user launches it (a fresh process: its workers inherit the
    environment the secrets were moved into)."""
    folder = tmp_path_factory.mktemp("secret-sweep")
    done = ragsweep(folder, "-m", *TOY, *OVERRIDES, "confirm.enabled=false", "fusion.k=10,60")
    return Ran(folder, done.returncode, done.stdout, done.stderr).ok()


@pytest.mark.slow
def test_no_file_and_no_printed_line_of_a_sweep_holds_a_secret(secret_sweep):
    assert "#0 : " in secret_sweep.out  # Hydra's launch lines were printed, masked
    printed = secret_sweep.out + secret_sweep.err
    assert [s for s in SECRETS[:2] if s in printed] == []
    assert files_holding_secrets(secret_sweep.folder) == []


@pytest.mark.slow
def test_a_sweeps_configuration_runs_log_no_secret(secret_sweep, tmp_path):
    store = secret_sweep.store
    _, children = store.sweep("sweep:fusion.k")
    assert len(children) == 2
    for run in children:
        assert leaks(store, run, tmp_path / run.info.run_id) == [], run.info.run_name


@pytest.mark.slow
def test_a_sweeps_parent_run_logs_no_secret(secret_sweep, tmp_path):
    store = secret_sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    assert leaks(store, parent, tmp_path / "parent") == []


# A password inside the tracking URI (a server behind basic authentication): the plan file the
# workers read holds it masked, and they take the real URI from the environment they inherit.
PASSWORD = "s3cretPW42"


@pytest.fixture(scope="module")
def password_store(tmp_path_factory):
    """An MLflow server on a free loopback port over a store in its own folder (what `ragsweep
    ui` runs); it ignores the credentials a URI carries, which MLflow's client sends along.
    Yields (its URI with a password inside, its folder)."""
    from ragsweep.cli.ui import build_command, server_env
    from ragsweep.experiment import tracking
    from ragsweep.experiment.lifecycle import answers, stop_group
    from served import free_port

    folder = tmp_path_factory.mktemp("server")
    port = free_port()
    store = tracking.resolve_store(workdir=folder)
    (folder / "mlruns").mkdir()
    cmd = build_command(store, "127.0.0.1", port)
    with open(folder / "server.log", "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=folder,
            env=server_env(False),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 180
        while not answers(f"http://127.0.0.1:{port}/health"):
            assert proc.poll() is None and time.monotonic() < deadline, (
                folder / "server.log"
            ).read_text()[-3000:]
            time.sleep(0.25)
        yield f"http://alice:{PASSWORD}@127.0.0.1:{port}", folder
    finally:
        stop_group(proc)


def launched(folder: Path, *args: str, uri: str | None = None) -> subprocess.Popen:
    """The console script started in `folder`, in CI, MLFLOW_TRACKING_URI set to `uri`."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["CI"] = "true"
    if uri is not None:
        env["MLFLOW_TRACKING_URI"] = uri
    return subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=folder,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finished(proc: subprocess.Popen, folder: Path) -> Ran:
    out, err = proc.communicate(timeout=900)
    return Ran(folder, proc.returncode, out, err).ok()


@pytest.mark.slow
def test_a_password_in_the_tracking_uri_is_written_nowhere(password_store, tmp_path):
    uri, server_folder = password_store
    sweep_dir, run_dir = tmp_path / "sweep", tmp_path / "run"
    sweep_dir.mkdir()
    run_dir.mkdir()
    # a sweep whose store comes from MLFLOW_TRACKING_URI with the default tracking=local (its
    # dev winner re-scored by the confirm stage), and beside it a single run given the URI on
    # its command line (in this process, while the sweep runs: no second MLflow import)
    sweep = launched(sweep_dir, "-m", *HELDOUT_WINNER, "fusion.k=1,60", uri=uri)
    single = cli_in(run_dir, *TOY, f"tracking.uri={uri}").ok()
    ran = [finished(sweep, sweep_dir), single]
    ran.append(cli_in(sweep_dir, "report", "fusion.k", "--out", "report", "--tracking-uri", uri))
    assert "confirmed" in ran[0].out  # the confirm stage ran
    assert (sweep_dir / "report" / "report.md").exists()
    # the plan names the store, masked: the workers found the real one
    (plan,) = sweep_dir.glob("multirun/*/*/ragsweep_plan.json")
    assert f"http://alice:***@127.0.0.1:{uri.rsplit(':', 1)[1]}" in plan.read_text()
    # the server's database holds every run, with its params and tags: none holds it
    client = Store(server_folder).client
    names = {e.name for e in client.search_experiments()}
    assert {"sweep:fusion.k", "ragsweep"} <= names
    runs = client.search_runs([client.get_experiment_by_name("sweep:fusion.k").experiment_id])
    assert len(runs) == 4, [r.info.run_name for r in runs]  # parent, 2 configurations, confirm
    printed = "".join(r.out + r.err for r in ran)
    assert PASSWORD not in printed
    holding = [
        str(p)
        for folder in (sweep_dir, run_dir, server_folder)
        for p in folder.rglob("*")
        if p.is_file() and PASSWORD.encode() in p.read_bytes()
    ]
    assert holding == []


def test_a_password_written_in_a_config_file_is_refused_before_anything_runs(tmp_path):
    """The workers could not read it back from their environment: one line, nothing written."""
    (tmp_path / "sweeps").mkdir()
    (tmp_path / "sweeps" / "mine.yaml").write_text(
        "# @package _global_\nsweep: {name: mine, factor: fusion.k, values: [10, 60], "
        f"baseline: 60}}\ntracking: {{uri: 'http://ann:{PASSWORD}@127.0.0.1:9'}}\n"
    )
    ran = cli_in(tmp_path, "-m", "sweep=mine", *TOY)
    assert ran.code == 2
    assert ran.err.strip().splitlines() == [
        "ragsweep: error: the tracking URI http://ann:***@127.0.0.1:9 holds a password written "
        "in a config file, which a sweep's workers cannot read back from their environment: "
        "give the URI in MLFLOW_TRACKING_URI or on the command line (tracking.uri=...), or "
        "better, the credentials in MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweeps"]
