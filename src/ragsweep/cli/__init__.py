"""The `ragsweep` console script: a thin shell over the library.

`ragsweep [hydra overrides]` is the Hydra app (`--cfg job`, `--help`, `-m` behave as in any Hydra
app); `ragsweep VERB ...` runs one of the other commands. Each verb lives in its own module with a
`main(argv) -> int`; modules are imported only when their verb is used, so `ragsweep score` never
pays for importing MLflow.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import sys

from ragsweep.errors import UserError, stop_name, stop_of, stop_signals, stop_status
from ragsweep.secrets import mask_text

#: verb -> module holding `main(argv: list[str]) -> int`
VERBS: dict[str, str] = {
    "compare": "ragsweep.cli.compare",
    "confirm": "ragsweep.cli.confirm",
    "data": "ragsweep.cli.data",
    "gate": "ragsweep.cli.gate",
    "labels": "ragsweep.cli.labels",
    "report": "ragsweep.cli.report",
    "reproduce": "ragsweep.cli.reproduce",
    "score": "ragsweep.cli.score",
    "score-passages": "ragsweep.cli.score_passages",
    "server": "ragsweep.cli.server",
    "ui": "ragsweep.cli.ui",
}


def _usage() -> str:
    verbs = ", ".join(sorted(VERBS))
    return (
        "usage: ragsweep [hydra overrides] | ragsweep VERB [options]\n"
        f"verbs: {verbs}\n"
        "`ragsweep --help` lists the Hydra app's config groups; "
        "`ragsweep VERB --help` a verb's options."
    )


#: the verbs that build stages from a config (so may meet the user's own `_target_` classes)
BUILDS_STAGES = ("confirm", "reproduce")


def _user_modules_importable() -> None:
    """The user's modules in the working folder are importable by `_target_` (the console
    script's sys.path does not hold the working folder)."""
    import os

    from ragsweep.config import use_working_folder

    use_working_folder(os.getcwd())


def run_verb(verb: str, argv: list[str]) -> int:
    """Run one verb; user errors become one line on stderr and exit code 2. Ctrl-C, SIGTERM and
    SIGHUP stop it alike: one line, exit status 130, 143, 129 (a run it was logging is KILLED)."""
    if verb in BUILDS_STAGES:
        _user_modules_importable()
    module = importlib.import_module(VERBS[verb])
    with stop_signals():
        try:
            return int(module.main(argv) or 0)
        except UserError as err:
            print(f"ragsweep {verb}: error: {mask_text(str(err))}", file=sys.stderr)
            return 2
        except BaseException as err:
            stop = stop_of(err)  # Ctrl-C, SIGTERM, SIGHUP, whatever error the stop became
            if stop is None:
                raise
            print(f"ragsweep {verb}: stopped ({stop_name(stop)})", file=sys.stderr)
            return stop_status(stop)


def _no_collection_at_exit() -> None:
    """Let the interpreter's shutdown skip its last garbage collection over what is still
    alive: after a run has imported MLflow, SQLAlchemy and scikit-learn and held 100,000 chunks,
    that collection took 1.0-1.5 s of the command's wall time after its last line was printed
    (benchmarks/e2e.py's stage "other"). `gc.freeze` at exit moves every object to the
    permanent generation, which that collection leaves alone; reference counting still frees
    what it frees, and the other exit handlers (logging's flush, MLflow's, temporary folders)
    run as before. Only objects in reference cycles are left to the operating system.
    Registered once however often `main` runs (tests call it in one process)."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def main(argv: list[str] | None = None) -> int:
    _no_collection_at_exit()
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in VERBS:
        return run_verb(args[0], args[1:])
    if args and args[0] in ("-V", "--version"):
        from ragsweep import __version__

        print(f"ragsweep {__version__}")
        return 0
    # a verb is a bare word: `-m`, `key=value` and `~key` (delete a key) are Hydra's
    if args and not args[0].startswith(("-", "~")) and "=" not in args[0]:
        print(f"ragsweep: error: unknown verb {mask_text(args[0])!r}\n{_usage()}", file=sys.stderr)
        return 2
    from ragsweep.cli.app import hydra_main
    from ragsweep.secrets import hide_overrides

    _user_modules_importable()
    # a secret on the command line goes into this process's environment before Hydra sees the
    # arguments: Hydra writes its overrides to files and launch lines we cannot mask
    sys.argv = [sys.argv[0], *hide_overrides(args)]
    return hydra_main()
