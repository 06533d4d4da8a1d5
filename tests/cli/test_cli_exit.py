"""The `ragsweep` process ends without the interpreter's last garbage collection (1.0-1.5 s
after a run that imported MLflow), and still runs its exit handlers."""

from __future__ import annotations

import subprocess
import sys

#: a child holding an object in a reference cycle until exit, whose finalizer says when the
#: shutdown's collection reached it; it calls `ragsweep --version` twice when asked to (each
#: `gc.freeze` call is written out), and leaves an exit handler that must still run
CHILD = """
import atexit, gc, os, sys

freeze = gc.freeze

def told():
    os.write(1, b"froze\\n")
    freeze()

gc.freeze = told

class Loud:
    def __del__(self):
        os.write(1, b"collected\\n")

kept = Loud()
kept.me = kept
atexit.register(lambda: os.write(1, b"exit handler ran\\n"))
if sys.argv[1] == "main":
    from ragsweep.cli import main
    main(["--version"])
    main(["--version"])
"""


def child_output(mode: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_shutdown_collects_cycles_in_a_plain_process():
    # the control: without ragsweep's main, the shutdown's collection finalizes the cycle
    assert child_output("plain").splitlines() == ["exit handler ran", "collected"]


def test_main_leaves_the_shutdown_collection_out_and_exit_handlers_in():
    lines = child_output("main").splitlines()
    assert len([line for line in lines if line.startswith("ragsweep ")]) == 2
    # frozen once at exit however often main ran, and before the earlier exit handler
    assert [line for line in lines if not line.startswith("ragsweep ")] == [
        "froze",
        "exit handler ran",
    ]
