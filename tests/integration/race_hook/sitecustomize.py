"""Loaded at start-up by every Python process of a launch the tests race (PYTHONPATH): the
launch's first `tracking.prepare` call sleeps until the unix time in RAGSWEEP_TEST_RACE_AT, so
two launches started together reach the store within milliseconds of each other, instead of
hundreds of milliseconds apart (a window that the unlocked code of before slipped through by
luck: run at that moment, it ran one sweep twice). A launch already late prints `RACE: late`."""

import os
import time

_AT = os.environ.get("RAGSWEEP_TEST_RACE_AT")
if _AT:
    from ragsweep.experiment import tracking

    _prepare = tracking.prepare
    _done: list[bool] = []

    def _raced_prepare(*args, **kwargs):
        if not _done:
            _done.append(True)
            delay = float(_AT) - time.time()
            if delay > 0:
                time.sleep(delay)
            else:
                print(f"RACE: late by {-delay:.2f} s", flush=True)
        return _prepare(*args, **kwargs)

    tracking.prepare = _raced_prepare
