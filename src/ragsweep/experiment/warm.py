"""Start a sweep's worker processes early, while the launcher loads and plans.

A fresh worker process spends about 3 s importing MLflow (and more importing ragsweep, numpy,
scikit-learn) before its first configuration can log a run: on a 2-worker sweep that was most
of the sweep's time in MLflow. Hydra's joblib launcher runs its jobs on loky's reusable
executor, which outlives one `joblib.Parallel` call: `start` asks for the same executor Hydra
will (the composed `hydra.launcher` settings, loky, as Hydra's launcher sets them) from a
background thread and imports the worker's modules in each worker process, while the launcher
reads the dataset and prepares the sweep on this process's core. `join` waits for it before
Hydra launches. Any other launcher (Ray, Submitit) gets nothing: its workers are not ours to
start.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from typing import Any

JOBLIB_LAUNCHER = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"


def _open_existing(store: Any) -> None:
    """Import MLflow and, when the store exists already, open it: MLflow keeps one store per
    URI and process, so this process's own clients open at once. A local store that does not
    exist yet is left alone: the launcher creates it, under its lock, once the sweep is
    accepted (a refused sweep leaves no store behind)."""
    from mlflow.tracking import MlflowClient

    from ragsweep.experiment import tracking

    db = tracking._local_db(store.uri)
    if db is None or db.exists():
        MlflowClient(tracking_uri=store.uri)


def open_in_background(store: Any) -> threading.Thread:
    """`_open_existing(store)` in a daemon thread (a failure is left to the real open)."""

    def run() -> None:
        with contextlib.suppress(Exception):
            _open_existing(store)

    thread = threading.Thread(target=run, name="ragsweep-open-store", daemon=True)
    thread.start()
    return thread


def _import_worker_modules(store: Any) -> int:
    """In a worker process: import what a configuration job needs, and open the store."""
    import ragsweep.experiment.worker  # noqa: F401

    _open_existing(store)
    return os.getpid()


def _fixed(args: Sequence[str]) -> list[str]:
    """The overrides of a multirun command line that are not swept (every job shares them)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = [a for a in args if a not in ("-m", "--multirun")]
    parsed = OverridesParser.create().parse_overrides(overrides)
    return [o.input_line for o in parsed if not o.is_sweep_override()]


def joblib_settings(args: Sequence[str]) -> dict[str, Any] | None:
    """The `joblib.Parallel` arguments Hydra's joblib launcher will use for `args` (a multirun
    command line), or None when the sweep runs on another launcher or on one worker."""
    from hydra.core.utils import setup_globals
    from hydra_plugins.hydra_joblib_launcher import _core
    from omegaconf import OmegaConf

    from ragsweep.config import compose

    setup_globals()  # the resolvers Hydra's own config uses (${now:...})
    launcher = compose(_fixed(args), hydra=True).hydra.launcher
    if launcher.get("_target_") != JOBLIB_LAUNCHER:
        return None
    settings = OmegaConf.to_container(launcher, resolve=True)
    assert isinstance(settings, dict)
    settings.pop("_target_", None)
    settings["backend"] = "loky"
    _core.process_joblib_cfg(settings)
    if settings.get("n_jobs") in (None, 1):
        return None
    return {str(k): v for k, v in settings.items()}


def _store(args: Sequence[str]) -> Any:
    """The tracking store the sweep will log to (`tracking.uri`, else $MLFLOW_TRACKING_URI,
    else ./mlruns)."""
    from ragsweep.config import compose
    from ragsweep.experiment import tracking

    return tracking.configured_store(compose(_fixed(args)).tracking)


class Warmup:
    """`Warmup(args).start()` reads the launcher's settings here (Hydra's global state is not
    for threads) and begins; `join()` waits. It never raises: a warm-up that fails only leaves
    the workers to import what they need themselves."""

    def __init__(self, args: Sequence[str]) -> None:
        self.args = list(args)
        self.pids: list[int] = []
        self._thread: threading.Thread | None = None

    def _run(self, settings: dict[str, Any], store: Any) -> None:
        from joblib import Parallel, delayed

        n = int(settings["n_jobs"])
        if n < 0:  # joblib's convention: -1 all cores, -2 all but one
            n = max(1, (os.cpu_count() or 1) + 1 + n)
        try:
            _open_existing(store)  # this process logs too (the parent run, the confirm run)
            jobs = (delayed(_import_worker_modules)(store) for _ in range(n))
            self.pids = Parallel(**settings)(jobs)
        except Exception:  # the sweep itself reports what is wrong with its workers
            self.pids = []

    def start(self) -> Warmup:
        try:
            settings = joblib_settings(self.args)
            store = _store(self.args) if settings is not None else None
        except Exception:  # a bad override: the launch refuses it with its own message
            settings = None
        if settings is not None:
            self._thread = threading.Thread(
                target=self._run, args=(settings, store), name="ragsweep-warmup", daemon=True
            )
            self._thread.start()
        return self

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()
