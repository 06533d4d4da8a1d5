"""Secrets on the command line (a secret-looking key, or an API-key-shaped value under any key)
never reach the tracking store: not as params, tags, run names or in any artifact file (the
resolved config, Hydra's files, results, reports), for one run and for a sweep's parent and child
runs alike; nor any file in the working folder (the sweep folder, Hydra's files, the database)
or a printed line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import Ran, cli_in, ragsweep
from toy import TOY

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
