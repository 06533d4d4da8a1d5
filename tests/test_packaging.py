"""What `pip install .` ships: every package and config folder is listed, the wheel carries the
repository's `conf/` and `sweeps/` inside `ragsweep/conf`, and an installed (not editable) copy
runs a sweep file from an unrelated folder."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from toy import TOY

ROOT = Path(__file__).parents[1]


def listed_packages() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]


def test_every_package_and_config_group_is_listed():
    on_disk = {
        ".".join(p.relative_to(ROOT / "src").parts)
        for p in (ROOT / "src" / "ragsweep").rglob("*")
        if p.is_dir() and "__pycache__" not in p.parts
    }
    on_disk |= {"ragsweep", "ragsweep.conf", "ragsweep.conf.sweep"}
    on_disk |= {
        ".".join(("ragsweep", "conf", *p.relative_to(ROOT / "conf").parts))
        for p in (ROOT / "conf").rglob("*")
        if p.is_dir() and "__pycache__" not in p.parts
    }
    assert sorted(on_disk) == sorted(listed_packages())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (path,) = out.glob("ragsweep-*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_carries_conf_and_sweeps_once(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for p in (ROOT / "conf").rglob("*.yaml"):
        assert f"ragsweep/conf/{p.relative_to(ROOT / 'conf').as_posix()}" in names
    for p in (ROOT / "sweeps").glob("*.yaml"):
        assert f"ragsweep/conf/sweep/{p.name}" in names
    assert "ragsweep/data/sample/dataset.json" in names
    assert not [n for n in names if n.startswith(("conf/", "sweeps/"))]


@pytest.mark.slow
def test_an_installed_copy_runs_a_sweep_file_from_an_unrelated_folder(wheel, tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "CI": "true"}
    env.pop("MLFLOW_TRACKING_URI", None)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import ragsweep.cli, sys; sys.exit(ragsweep.cli.main())",
            "-m",
            "sweep=fusion_k",
            *TOY,
            "hydra.launcher.n_jobs=1",
            "confirm.enabled=false",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sweep fusion_k: 4 configurations of fusion.k (10, 30, 60, 100)" in done.stdout
    # the code that ran is the installed copy, not the checkout
    probe = subprocess.run(
        [sys.executable, "-c", "import ragsweep.conf as c; print(c.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().startswith(str(site))
    assert (elsewhere / "mlruns" / "mlflow.db").exists()
