"""Start a sweep's worker processes early, while the launcher prepares the sweep.

A fresh worker process spends about 3 s importing MLflow (and more importing ragsweep, numpy,
scikit-learn) and 1-2 s opening the store before its first configuration can log a run: on a
2-worker sweep that was most of the sweep's time in MLflow. Hydra's joblib launcher runs its
jobs on loky's reusable executor, which outlives one `joblib.Parallel` call: `Warmup.start`
asks for the same executor Hydra will (the composed `hydra.launcher` settings, loky, as
Hydra's launcher sets them) from a background thread, and each worker process imports the
worker's modules, then, once the launcher has created and migrated the store (`store_ready`:
a brand-new sqlite store migrated by two processes at once breaks), opens it, while the
launcher goes on with the parent run and the shared stages (a fusion sweep's indexes: the
longest part). `join` waits for it
before Hydra launches. Any other launcher (Ray, Submitit) gets nothing: its workers are not
ours to start.
This process imports MLflow in its own main thread: two threads importing MLflow at once break
its protobuf modules ("Couldn't build proto file into descriptor pool").

Every loky worker a launcher starts, from the warm-up's first on, watches it from its first
instant (`watch_workers`: the executor runs `owners.watch` in each new worker before any task),
so kill -9 of the launcher while it plans or prebuilds leaves no idle worker behind for loky's
5-minute idle timeout; loky's resource trackers end with the last worker. SIGTERM or SIGHUP
sent to the whole process group ends the workers after the launcher has stopped the sweep.
"""

from __future__ import annotations

import importlib
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Any

from ragsweep.experiment.lifecycle import owners

JOBLIB_LAUNCHER = "hydra_plugins.hydra_joblib_launcher.joblib_launcher.JoblibLauncher"
#: what a configuration job runs (`ragsweep.cli.app` hands each job to it)
WORKER_MODULE = "ragsweep.experiment.worker"


def _import_mlflow() -> None:
    import mlflow.tracking  # noqa: F401


#: seconds a warm-up task waits for the other workers to hold one (`_import_worker_modules`)
MEET_TIMEOUT = 30.0


def _import_worker_modules(meeting: str, n: int) -> int:
    """In a worker process: import what a configuration job needs, then wait until `n` workers
    have each taken one of the warm-up's `n` tasks (a file per worker in the folder `meeting`),
    or `MEET_TIMEOUT` seconds. Without the wait, a worker that came up first could finish its
    imports and take a second task before a slower one started (a loaded machine, CI), and
    that one would import on its first job. By name: the warm-up loads the job's module ahead
    of its first job and uses nothing of it (the job imports this package)."""
    importlib.import_module(WORKER_MODULE)

    _import_mlflow()
    pid = os.getpid()
    with open(os.path.join(meeting, str(pid)), "w"):
        pass
    deadline = time.monotonic() + MEET_TIMEOUT
    while len(os.listdir(meeting)) < n and time.monotonic() < deadline:
        time.sleep(0.02)
    return pid


def _open_store(store: Any) -> int:
    """In a worker process: open the store, which the launcher has created and migrated by
    now (MLflow then keeps it open for the process's later clients)."""
    from mlflow.tracking import MlflowClient

    MlflowClient(tracking_uri=store.uri)
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
    settings = joblib_arguments(args)
    if settings is None or settings.get("n_jobs") in (None, 1):
        return None
    return settings


def joblib_arguments(args: Sequence[str]) -> dict[str, Any] | None:
    """The `joblib.Parallel` arguments Hydra's joblib launcher will use for `args`, or None
    when the sweep runs on another launcher."""
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
    return {str(k): v for k, v in settings.items()}


#: seconds a worker given SIGTERM or SIGHUP lives on (`_end_soon`)
STOP_GRACE = 3.0


#: bytes a worker's resident memory may grow past what it held after its first task (the
#: warm-up's imports) before loky takes it for a leak and replaces it (loky's own: 300 MB)
LEAK_ALLOWANCE = 8 << 30


def _worker_starts(owner: str) -> None:
    """In each new loky worker, before any task: watch the launcher `owner` (exit when it is
    gone), end on SIGTERM or SIGHUP a moment later rather than at once (`_end_soon`), and do
    not let loky replace the worker for holding a configuration's memory: it measures a
    worker after its first task and replaced one that had since grown 300 MB, which every
    job or index build at 30,000 chunks does (its heap, the modules it imported), and the
    replacement started cold, importing everything again (a UserWarning "A worker stopped
    while some jobs were given to the executor", in each 2-worker chunk-size sweep at 30k)."""
    owners.watch(owner)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _end_soon)
    from joblib.externals.loky import process_executor

    # loky's own setting, not public: a loky without it replaces workers at its own rule
    if isinstance(getattr(process_executor, "_MAX_MEMORY_LEAK_SIZE", None), int):
        process_executor._MAX_MEMORY_LEAK_SIZE = max(
            process_executor._MAX_MEMORY_LEAK_SIZE, LEAK_ALLOWANCE
        )


def _end_soon(signum: int, _frame: object) -> None:
    """A stop signal sent to the whole process group (a terminal's, `kill -TERM -PGID`) reached
    the launcher too, which ends this worker itself, in order: SIGKILL when it stops the pool,
    or its exit, which `owners.watch` sees. Dying at once instead made loky's cleanup in the
    launcher print warnings and tracebacks. Sent to this worker alone, it ends it `STOP_GRACE`
    seconds later, with the exit status of that signal."""
    threading.Timer(STOP_GRACE, os._exit, args=(128 + signum,)).start()


def watch_workers() -> None:
    """From now on, every worker process joblib's loky backend starts in this process (the
    warm-up's, Hydra's joblib launcher's: one reusable executor, started with the same
    arguments) first runs `_worker_starts`: it exits as soon as this process is gone, whatever
    the launch was doing, and a stop signal sent to the process group ends it after this
    process's own cleanup. For the rest of this process's life (its owner never
    changes): a notebook's later sweeps reuse the same executor."""
    from joblib import register_parallel_backend
    from joblib._parallel_backends import LokyBackend

    class WatchedLoky(LokyBackend):
        def configure(self, *args: Any, **kwargs: Any) -> int:
            kwargs.update(initializer=_worker_starts, initargs=(owner,))
            return int(super().configure(*args, **kwargs))

    owner = owners.me()
    register_parallel_backend("loky", WatchedLoky)


class Warmup:
    """`Warmup(args).start()` reads the launcher's settings here (Hydra's global state is not
    for threads) and begins; `join()` waits. It never raises: a warm-up that fails only leaves
    the workers to import what they need themselves."""

    def __init__(self, args: Sequence[str]) -> None:
        self.args = list(args)
        self.pids: list[int] = []
        self._thread: threading.Thread | None = None
        self._store: Any = None
        self._ready = threading.Event()

    def _run(self, settings: dict[str, Any]) -> None:
        from joblib import Parallel, delayed

        # what this thread starts (the executor's threads, its workers, loky's two resource
        # trackers) starts with SIGHUP blocked: the trackers ignore SIGINT and SIGTERM but not
        # SIGHUP, and a hang-up sent to the whole process group (a closed terminal) killed them
        # mid-cleanup, the one loky started again printing a traceback per resource. The
        # launcher still gets SIGHUP, and its workers end with it (`owners.watch`)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
        n = int(settings["n_jobs"])
        if n < 0:  # joblib's convention: -1 all cores, -2 all but one
            n = max(1, (os.cpu_count() or 1) + 1 + n)
        meeting = tempfile.mkdtemp(prefix="ragsweep-warmup-")
        try:
            tasks = (delayed(_import_worker_modules)(meeting, n) for _ in range(n))
            self.pids = Parallel(**settings)(tasks)
            self._ready.wait()
            if self._store is not None:
                Parallel(**settings)(delayed(_open_store)(self._store) for _ in range(n))
        except Exception:  # the sweep itself reports what is wrong with its workers
            self.pids = []
        finally:
            shutil.rmtree(meeting, ignore_errors=True)

    def start(self) -> Warmup:
        try:
            settings = joblib_settings(self.args)
        except Exception:  # a bad override: the launch refuses it with its own message
            settings = None
        if settings is not None:
            self._thread = threading.Thread(
                target=self._run, args=(settings,), name="ragsweep-warmup", daemon=True
            )
            self._thread.start()
        return self

    def store_ready(self, store: Any) -> None:
        """The launcher has created (or found) and migrated `store`: the workers may open it."""
        self._store = store
        self._ready.set()

    def stop(self) -> None:
        """The launch was stopped (Ctrl-C, SIGTERM, SIGHUP) or refused before any job: end the
        workers now (SIGKILL, as joblib ends a stopped pool's) rather than wait, on the way out,
        for them to finish importing, and stop the warm-up (the workers open no store)."""
        from joblib.externals.loky import reusable_executor

        self._ready.set()
        executor = reusable_executor._executor
        if executor is not None:
            executor.shutdown(wait=False, kill_workers=True)
        self.join()

    def join(self) -> None:
        self._ready.set()  # a launch that never got as far as the store opens none
        if self._thread is not None:
            self._thread.join()
