"""Several workers of one sweep log the same dataset inputs at the same moment: MLflow looks a
dataset up and then inserts it, so without the store's lock two of them could both insert it
and one fail on the (experiment, name, digest) key (seen in full test runs: a configuration
FAILED with "UNIQUE constraint failed: datasets.experiment_id, ..."; eight processes calling
`MlflowClient.log_inputs` directly at one barrier: 7 of 8 failed here)."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from ragsweep.experiment import tracking

DATA = [
    tracking.DataInput("race corpus", "a" * 64, "/data/race", "dev"),
    tracking.DataInput("race labels", "b" * 64, "/data/race", "dev", profile={"questions": 3}),
]


def _log(args: tuple[str, str, str, mp.synchronize.Barrier]) -> str:
    uri, experiment_id, run_id, barrier = args
    store = tracking.Store(uri, None)
    mc = tracking.client(store)
    barrier.wait()
    try:
        tracking.log_inputs(store, mc, run_id, [d.entity() for d in DATA])
    except Exception as err:  # the failure this test looks for
        return f"{type(err).__name__}: {str(err)[:200]}"
    return "ok"


@pytest.mark.slow
def test_six_processes_log_the_same_datasets_at_once(tmp_path: Path) -> None:
    store = tracking.resolve_store(workdir=tmp_path)
    experiment_id = tracking.prepare(store, "race")
    runs = [tracking.start_run(store, experiment_id, run_name=f"r{i}", tags={}) for i in range(6)]
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(len(runs))
        with ctx.Pool(len(runs)) as pool:
            results = pool.map(_log, [(store.uri, experiment_id, r, barrier) for r in runs])
    assert results == ["ok"] * len(runs)
    mc = tracking.client(store)
    for run_id in runs:
        inputs = mc.get_run(run_id).inputs.dataset_inputs
        got = sorted((d.dataset.name, d.dataset.digest) for d in inputs)
        assert got == [("race corpus", "a" * 36), ("race labels", "b" * 36)]
