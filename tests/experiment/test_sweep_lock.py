"""One launch of a sweep at a time: a second launch while the first runs is refused (exit 2,
one line naming the lock) before it touches the store, and the first finishes undisturbed (the
second does not mark its live runs KILLED, as it would runs left by a killed launch)."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from conftest import SCRIPT, cli_in
from toy import TOY

#: five configurations one at a time: long enough for a second launch to find the first running
SWEEP = ["-m", *TOY, "chunker.size=24,32,48,64", "hydra.launcher.n_jobs=1"]


@pytest.mark.slow
def test_a_second_launch_of_a_running_sweep_is_refused(workdir, store):
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    first = subprocess.Popen(
        [str(SCRIPT), *SWEEP],
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "CI": "true"},
    )
    try:
        # wait until the first launch has planned the sweep and a worker reports a stage
        deadline = time.monotonic() + 180
        while not list(workdir.glob("multirun/**/progress/*.json")):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first launch never started a configuration"
            time.sleep(0.05)
        second = cli_in(workdir, *SWEEP)
        still_running = first.poll() is None
        out, err = first.communicate(timeout=600)
    finally:
        if first.poll() is None:
            first.kill()
    assert still_running, "the first launch finished before the second was refused: inconclusive"
    assert second.code == 2, second.out[-2000:]
    refusal = second.err.strip()
    assert len(refusal.splitlines()) == 1, refusal
    assert "already running" in refusal and "lock" in refusal
    assert "KILLED" not in second.out
    # the first launch went on and finished every configuration, none marked KILLED
    assert first.returncode == 0, err[-3000:]
    parents, children = store.sweep("sweep:chunker.size")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert sorted(r.info.status for r in children) == ["FINISHED"] * 5
    assert not any("ragsweep.recovered" in r.data.tags for r in [*parents, *children])
    # and the lock is released with it: the same sweep launches again (and finds it all done)
    again = cli_in(workdir, *SWEEP)
    assert again.code == 0, again.err[-2000:]
    _, children = store.sweep("sweep:chunker.size")
    assert len(children) == 5
