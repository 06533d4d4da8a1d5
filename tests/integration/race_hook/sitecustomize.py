"""Loaded at start-up by every Python process of a launch the tests race (PYTHONPATH): the
launch's first `tracking.prepare` call waits at a rendezvous in the folder
RAGSWEEP_TEST_RACE_DIR until RAGSWEEP_TEST_RACE_N launches have arrived, so launches started
together reach the store within milliseconds of each other, instead of hundreds of milliseconds
apart (a window the unlocked code of before slipped through by luck: forced this way, it ran one
sweep twice). A launch that waits 120 s alone prints `RACE: alone` and goes on."""

import os
import time
from pathlib import Path

_DIR = os.environ.get("RAGSWEEP_TEST_RACE_DIR")
if _DIR:
    from ragsweep.experiment import tracking

    _prepare = tracking.prepare
    _done: list[bool] = []

    def _raced_prepare(*args, **kwargs):
        if not _done:
            _done.append(True)
            folder, wanted = Path(_DIR), int(os.environ.get("RAGSWEEP_TEST_RACE_N", "2"))
            (folder / str(os.getpid())).touch()
            deadline = time.monotonic() + 120
            while len(list(folder.iterdir())) < wanted:
                if time.monotonic() > deadline:
                    print("RACE: alone", flush=True)
                    break
                time.sleep(0.005)
        return _prepare(*args, **kwargs)

    tracking.prepare = _raced_prepare
