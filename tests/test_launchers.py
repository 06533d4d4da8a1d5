"""Every launcher composes with ragsweep's config: the default joblib one (two workers,
`hydra.launcher.n_jobs=N`), Ray's (`hydra/launcher=ray`, the [ray] extra) and Slurm's
(`hydra/launcher=submitit_slurm`, the [slurm] extra), without Hydra's deprecation warnings."""

from __future__ import annotations

import importlib.util
import warnings
from dataclasses import fields

import pytest
import yaml
from omegaconf import OmegaConf

from conftest import ragsweep
from ragsweep.config import compose
from ragsweep.experiment.lifecycle import cluster, warm
from toy import TOY

NO_RAY = "hydra/launcher=ray needs the [ray] extra (hydra_plugins.hydra_ray_launcher)"
NO_SLURM = "hydra/launcher=submitit_slurm needs the [slurm] extra (hydra_submitit_launcher)"
SLURM_LAUNCHER = "hydra_plugins.hydra_submitit_launcher.submitit_launcher.SlurmLauncher"


def has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


needs_ray = pytest.mark.skipif(not has("hydra_plugins.hydra_ray_launcher"), reason=NO_RAY)
needs_slurm = pytest.mark.skipif(not has("hydra_plugins.hydra_submitit_launcher"), reason=NO_SLURM)


def launcher(*overrides: str):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Hydra's schema-matching deprecation would be one
        return compose(list(overrides), hydra=True).hydra.launcher


def test_the_default_launcher_is_joblibs_with_two_workers_and_its_other_defaults():
    from hydra_plugins.hydra_joblib_launcher.config import JobLibLauncherConf

    got = OmegaConf.to_container(launcher())
    plugin = {f.name: f.default for f in fields(JobLibLauncherConf)}
    assert got == {**plugin, "n_jobs": 2}
    assert launcher("hydra.launcher.n_jobs=3").n_jobs == 3
    assert launcher("hydra/launcher=joblib").n_jobs == -1  # the plugin's own: all cores


def test_a_worker_count_of_the_wrong_type_is_refused_in_one_line():
    from ragsweep.errors import UserError

    with pytest.raises(UserError, match=r"^bad override: .*hydra\.launcher\.n_jobs=two"):
        launcher("hydra.launcher.n_jobs=two")


@needs_ray
def test_the_ray_launcher_composes_with_an_address_and_no_joblib_keys():
    got = launcher("hydra/launcher=ray", "hydra.launcher.ray.init.address=10.0.0.5:6379")
    assert got._target_ == cluster.RAY_LAUNCHER
    assert OmegaConf.to_container(got.ray) == {"init": {"address": "10.0.0.5:6379"}, "remote": {}}
    assert "n_jobs" not in got
    assert cluster.ray_launcher(["hydra/launcher=ray"]) is not None
    assert cluster.ray_launcher(["hydra.launcher.n_jobs=2"]) is None


@needs_ray
@needs_slurm
def test_the_warm_up_starts_no_workers_on_ray_or_slurm():
    sweep = ["-m", *TOY, "chunker.size=32,64"]
    assert warm.joblib_settings(sweep) is not None
    assert warm.joblib_settings([*sweep, "hydra/launcher=ray"]) is None
    assert warm.joblib_settings([*sweep, "hydra/launcher=submitit_slurm"]) is None


@needs_slurm
def test_the_slurm_launcher_composes_on_the_command_line(tmp_path):
    # Hydra prints a multirun's config without -m (it refuses -m with --cfg)
    ran = ragsweep(
        tmp_path,
        *TOY,
        "hydra/launcher=submitit_slurm",
        "hydra.launcher.partition=cpu",
        "hydra.launcher.timeout_min=30",
        "hydra.launcher.cpus_per_task=2",
        "--cfg",
        "hydra",
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    printed = yaml.safe_load(ran.stdout[ran.stdout.index("hydra:") :])["hydra"]
    got = printed["launcher"]
    assert got["_target_"] == SLURM_LAUNCHER
    assert (got["partition"], got["timeout_min"], got["cpus_per_task"]) == ("cpu", 30, 2)
    assert "n_jobs" not in got
    assert printed["runtime"]["choices"]["hydra/launcher"] == "submitit_slurm"
    assert not list(tmp_path.iterdir())  # printing the config runs nothing
