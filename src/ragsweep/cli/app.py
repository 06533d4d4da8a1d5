"""The Hydra app behind bare `ragsweep [overrides]`: one configuration, evaluated and logged."""

from __future__ import annotations

import io
import logging
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import hydra
from omegaconf import DictConfig

from ragsweep import conventions as cv
from ragsweep.config import check_complete, check_group_choices
from ragsweep.errors import Exhausted, UserError, stop_name, stop_of, stop_signals, stop_status
from ragsweep.secrets import mask_text


@hydra.main(version_base="1.3", config_path="pkg://ragsweep.conf", config_name="config")
def _app(cfg: DictConfig) -> float | None:
    # bm25s sets its logger to DEBUG when imported and logs every index build; import it first
    # so the quieter level sticks (users want the table, not that)
    import bm25s  # noqa: F401
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from ragsweep.experiment.single import run

    _HELD.release()  # the job has started: Hydra composed the config
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    hc = HydraConfig.get()
    overrides = list(hc.overrides.task)
    hydra_dir = Path(hc.runtime.output_dir) / hc.output_subdir if hc.output_subdir else None
    try:
        check_complete(cfg)  # a key left ??? (data.path): one line, before any work
        if hc.mode == RunMode.MULTIRUN:
            from ragsweep.experiment.worker import run_job

            run_job(cfg, hc.sweep.dir, overrides, hydra_dir)
            return None
        result = run(cfg, overrides=overrides, hydra_dir=hydra_dir)
    except UserError as err:
        if hc.mode != RunMode.MULTIRUN:
            _remove_run_dir(Path(hc.runtime.output_dir), hc.job.name)
        print(f"ragsweep: error: {mask_text(str(err))}", file=sys.stderr)
        sys.exit(2)
    except Exhausted as stop:  # a full disk, memory, open files: one line (a sweep's job: raised)
        if hc.mode == RunMode.MULTIRUN:
            raise
        print(stop.told(), file=sys.stderr)
        sys.exit(1)
    decision = cv.decision_measure(int(cfg.eval.k_prompt))
    return float(result.summary.loc[cv.WEIGHTED, str(decision)])


def _remove_run_dir(folder: Path, job: str) -> None:
    """A refused single run leaves no output: its Hydra folder goes, if it holds only what
    Hydra wrote there (.hydra/ and the job's log), and so do the date folders left empty."""
    if not folder.is_dir() or {p.name for p in folder.iterdir()} - {".hydra", f"{job}.log"}:
        return
    shutil.rmtree(folder, ignore_errors=True)
    top = Path.cwd() / "outputs"
    parent = folder.parent
    while parent != top.parent and parent.is_relative_to(top) and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


#: Hydra flags that print something and run no job
_INFO_FLAGS = ("--cfg", "-c", "--help", "-h", "--hydra-help", "--info", "-i", "--shell-completion")


def _run_hydra() -> int:
    try:
        _app()
    except SystemExit as exit_:
        code = exit_.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


class _Held:
    """stderr held back while Hydra composes a single run's config: when Hydra refuses it,
    what it wrote is dropped for ragsweep's one line (`_single_run`); once the job starts, it
    is written out and stderr is the terminal's again."""

    def __init__(self) -> None:
        self.buffer: io.StringIO | None = None
        self.real: TextIO | None = None
        self.started = False

    def hold(self) -> None:
        self.buffer, self.real, self.started = io.StringIO(), sys.stderr, False
        sys.stderr = self.buffer

    def release(self, keep: bool = True) -> str:
        """stderr back; what was held is written out when `keep` (the job started), else
        returned."""
        self.started = self.started or keep
        if self.buffer is None or self.real is None:
            return ""
        if sys.stderr is self.buffer:
            sys.stderr = self.real
        # nothing of stderr is kept: Hydra pickles `_app`, and these globals with it, into a
        # later sweep's tasks (a notebook, a test run), and a stream does not pickle
        real, held = self.real, self.buffer.getvalue()
        self.buffer = self.real = None
        if keep:
            real.write(held)
            return ""
        return held


_HELD = _Held()


def _single_run(args: Sequence[str]) -> int:
    """One configuration, its config composed once, by Hydra. A config Hydra refuses (an
    unknown key, a value of the wrong type, a grammar error) is composed again by
    `ragsweep.config.compose` for ragsweep's one-line message and exit code 2."""
    _HELD.hold()
    try:
        code = _run_hydra()
    finally:
        started = _HELD.started
        held = _HELD.release(keep=started)
    if started or code == 0:
        return code
    from ragsweep.config import compose

    compose(args)  # raises the one-line UserError
    sys.stderr.write(held)  # Hydra refused what ragsweep composes: its reason, as it wrote it
    return code


def hydra_main() -> int:
    """Entry point used by `ragsweep.cli`; `sys.argv` holds the Hydra arguments.

    A multirun is planned, checked and prepared here first (`ragsweep.experiment.launch`), then
    run by Hydra's launcher (`ragsweep.experiment.worker` in each job), then summarised
    (`ragsweep.experiment.finish`). SIGTERM and SIGHUP stop it as Ctrl-C does
    (`ragsweep.errors.stop_signals`), with the signal's exit status.
    """
    with stop_signals():
        try:
            return _hydra_main()
        except BaseException as err:  # a single run (a sweep says more: `_hydra_main`)
            stop = stop_of(err)
            if stop is None:
                raise
            print(f"ragsweep: stopped ({stop_name(stop)})", file=sys.stderr)
            return stop_status(stop)


def _hydra_main() -> int:
    args = sys.argv[1:]
    multirun = any(a in ("-m", "--multirun") for a in args)
    try:
        check_group_choices(args)
        if any(a.split("=")[0] in _INFO_FLAGS for a in args) or any(
            a.startswith("-") and a not in ("-m", "--multirun") for a in args
        ):
            return _run_hydra()  # Hydra's own flags: Hydra handles them as usual
        if not multirun:
            return _single_run(args)
        from ragsweep.cli.progress import SweepProgress
        from ragsweep.experiment.finish import finish
        from ragsweep.experiment.launch import launch

        plan, hydra_args, lock = launch(args)
    except UserError as err:
        print(f"ragsweep: error: {mask_text(str(err))}", file=sys.stderr)
        return 2
    except Exhausted as stop:  # a full disk, memory, open files while preparing the sweep
        print(stop.told(), file=sys.stderr)
        return 1
    except BaseException as err:
        stop = stop_of(err)  # Ctrl-C, SIGTERM, SIGHUP, whatever error the stop became
        if stop is None or not multirun:
            raise
        print(
            f"ragsweep: stopped ({stop_name(stop)}) before the sweep's configurations started; "
            "launch the same command again",
            file=sys.stderr,
        )
        return stop_status(stop)
    print(
        f"sweep {plan.name}: {len(plan.values)} configurations of {plan.factor} "
        f"({', '.join(plan.values)}), baseline {plan.baseline}; folder {plan.sweep_dir}"
    )
    sys.argv = [sys.argv[0], *hydra_args]
    display = SweepProgress(plan.sweep_dir, {v: plan.label(v) for v in plan.values})
    interrupted: BaseException | None = None
    # Hydra prints a failure of its launcher as a 40-line traceback and exits 1; let it reach
    # us instead, so the finish step can say what happened (a worker died: which configurations)
    full_error = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:  # a stop anywhere in here, the display's end included, goes to the finish step
        display.start()
        code = _run_hydra()
        if code:
            interrupted = RuntimeError(f"Hydra exited with code {code}")
        display.stop()
    except BaseException as err:  # KeyboardInterrupt, Stopped, a crashed worker pool
        interrupted = err
        display.stop()  # (a second stop signal is ignored: `stop_signals`)
    if full_error is None:
        os.environ.pop("HYDRA_FULL_ERROR", None)
    else:
        os.environ["HYDRA_FULL_ERROR"] = full_error
    # a stop sent to the process group: the pool may have failed first, or it became an error
    interrupted = stop_of(interrupted) or interrupted
    return finish(plan, lock, interrupted)  # 130, 143 or 129 when stopped
