"""Many processes starting at once on a brand-new local store: every result lands.

MLflow 3.x migrates a new sqlite store in whichever process opens it first; several at once
corrupt it, and the loser of an experiment-creation race logs to Default. ragsweep creates the
store and experiments under a lock beside the database (`experiment.tracking`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from toy import TOY

SCRIPT = Path(sys.executable).parent / "ragsweep"


def start(workdir: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CI": "true"}
    env.pop("MLFLOW_TRACKING_URI", None)
    return subprocess.Popen(
        [str(SCRIPT), *TOY, *args],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def runs_by_experiment(workdir: Path) -> dict[str, list]:
    mc = MlflowClient(f"sqlite:///{workdir / 'mlruns' / 'mlflow.db'}")
    return {e.name: mc.search_runs([e.experiment_id]) for e in mc.search_experiments()}


@pytest.mark.slow
def test_single_runs_started_together_on_a_fresh_store_all_land(tmp_path):
    sizes = (24, 32, 40, 48, 64, 128)
    procs = [start(tmp_path, f"chunker.size={n}") for n in sizes]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * len(sizes), outputs
    runs = runs_by_experiment(tmp_path)
    assert runs["Default"] == []
    names = sorted(r.info.run_name.rsplit(",", 1)[-1] for r in runs["ragsweep"])
    assert names == sorted(f"chunker.size={n}" for n in sizes)
    assert all(r.info.status == "FINISHED" for r in runs["ragsweep"])


@pytest.mark.slow
def test_two_different_sweeps_started_together_on_a_fresh_store_both_land(tmp_path):
    procs = [
        start(tmp_path, "-m", "fusion.k=10,60", "hydra.launcher.n_jobs=1"),
        start(tmp_path, "-m", "chunker.size=64,128", "hydra.launcher.n_jobs=1"),
    ]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    runs = runs_by_experiment(tmp_path)
    assert runs["Default"] == []
    for name, values in (("sweep:fusion.k", (10, 60)), ("sweep:chunker.size", (64, 128))):
        children = [r for r in runs[name] if r.data.tags.get("ragsweep.stage") == "config"]
        factor = name.removeprefix("sweep:")
        assert sorted(r.info.run_name for r in children) == sorted(f"{factor}={v}" for v in values)
        assert all(r.info.status == "FINISHED" for r in children)
