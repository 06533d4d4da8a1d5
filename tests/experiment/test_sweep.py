"""One-factor sweeps: refusals, parallel logging into a brand-new store, shared work done once,
failure isolation, resume, recovery after kill -9, and every sweep file at toy size."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from conftest import SWEEP_FILES
from ragsweep.cli import main
from toy import TOY


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["fusion.k=10,60", "chunker.size=64,128"], ["chunker.size", "fusion.k"]),
        (["sweep=fusion_k", "chunker.size=64,128"], ["fusion.k", "chunker.size"]),
        (["sweep=fusion_k,chunk_size"], ["one sweep file"]),
        (["eval.split=dev,all"], ["split"]),
        (["eval.min_overlap=0.5,0.1"], ["how results are scored"]),
        (["report.level=0.9,0.95"], ["does not change results"]),
        (["reranker.depth=10,20"], ["would change nothing", "reranker=none"]),
        (["retriever=bm25", "fusion.k=10,60"], ["would change nothing"]),
        ([], ["nothing to sweep"]),
        (["sweep=no_such_sweep"], ["unknown sweep"]),
        (["data.path=???", "fusion.k=10,60"], ["data.path must be set"]),
        (["tracking.uri=bogus://x", "fusion.k=10,60"], ["cannot open the tracking store"]),
        (["tracking.metrics=every", "fusion.k=10,60"], ["tracking.metrics must be decision or"]),
    ],
)
def test_refused_before_anything_runs(workdir, store, capsys, args, needles):
    assert main(["-m", *TOY, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err
    assert not store.exists()
    assert not (workdir / "multirun").exists()


@pytest.mark.slow
def test_eight_configurations_two_workers_new_store(workdir, store, capsys):
    values = "10,20,30,40,50,60,70,80"
    code = main(["-m", *TOY, f"fusion.k={values}", "hydra.launcher.n_jobs=2"])
    assert code == 0, capsys.readouterr().err
    parents, children = store.sweep("sweep:fusion.k")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert len(children) == 8
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parents[0].info.run_id}
    assert sorted(r.info.run_name for r in children) == sorted(
        f"fusion.k={v}" + (" (baseline)" if v == "60" else "") for v in values.split(",")
    )
    assert all(r.info.status == "FINISHED" for r in children)
    default = store.client.search_runs(["0"])
    assert default == []
    # the chunks, indexes and first-stage lists were built once, before the jobs: every job
    # read the chunks and the lists from the cache, and never needed to load an index
    for r in children:
        hits = r.data.tags["ragsweep.cache_hits"].split(",")
        assert sorted(hits) == ["chunks", "first_stage_bm25_index", "first_stage_dense_index"]
    cache = workdir / ".ragsweep_cache"
    assert len(list(cache.glob("*/bm25_index/*.pkl"))) == 1
    assert len(list(cache.glob("*/dense_index/*.pkl"))) == 1
    # the parent is pinned and carries summary metrics the UI can chart
    tags = parents[0].data.tags
    for pin in ("snapshot", "labels", "split", "index_build"):
        assert tags[f"ragsweep.{pin}"] == children[0].data.tags[f"ragsweep.{pin}"]
    base = next(r for r in children if r.data.tags["ragsweep.value"] == "60")
    assert (
        parents[0].data.metrics["baseline/recall_at_5/weighted"]
        == (base.data.metrics["recall_at_5/weighted"])
    )
    assert not any(k.endswith("/60") for k in parents[0].data.metrics)  # no per-value copies
    assert all("delta/recall_at_5/weighted" in r.data.metrics for r in children)
    # the tiny fixture scores every fusion.k the same: nothing beats the baseline, so the
    # confirm stage says so instead of confirming anything
    assert parents[0].data.tags["ragsweep.confirm"] == "no winner"


@pytest.mark.slow
def test_failure_is_isolated_and_resume_runs_only_the_rest(workdir, store, capsys):
    # LSA cannot keep terms found in 1000 chunks of the toy's 8: that fails when the embedder
    # is fitted, inside the job (its config builds, so the plan lets it through)
    sweep = ["-m", *TOY, "embedder.min_df=2,1000"]
    assert main(sweep) == 1
    err = capsys.readouterr().err
    assert "embedder.min_df=1000 (failed)" in err
    parents, children = store.sweep("sweep:embedder.min_df")
    by_name = {r.info.run_name: r for r in children}
    assert by_name["embedder.min_df=2"].info.status == "FINISHED"
    assert by_name["embedder.min_df=1 (baseline)"].info.status == "FINISHED"  # added
    failed = by_name["embedder.min_df=1000"]
    assert failed.info.status == "FAILED"
    assert "min_df" in failed.data.tags["ragsweep.error"]
    arts = store.client.list_artifacts(failed.info.run_id, "error")
    assert [a.path for a in arts] == ["error/traceback.txt"]
    assert parents[0].info.status == "FAILED"
    # launching again (with fewer workers: not part of the sweep's identity) skips the
    # finished configurations and retries only the failed one
    assert main([*sweep, "hydra.launcher.n_jobs=1"]) == 1
    parents2, children2 = store.sweep("sweep:embedder.min_df")
    assert [p.info.run_id for p in parents2] == [parents[0].info.run_id]
    names = sorted(r.info.run_name for r in children2)
    assert names == [
        "embedder.min_df=1 (baseline)",
        "embedder.min_df=1000",
        "embedder.min_df=1000",
        "embedder.min_df=2",
    ]
    # values a stage refuses when built are refused before anything runs
    capsys.readouterr()
    assert main(["-m", *TOY, "chunker.size=64,8"]) == 2
    assert "chunker.overlap" in capsys.readouterr().err
    assert main(["-m", *TOY, "retriever.bm25.k1=1.2,-1"]) == 2
    assert "k1" in capsys.readouterr().err
    assert [p.info.run_id for p in store.runs("sweep:embedder.min_df", "sweep")] == [
        parents[0].info.run_id
    ]


@pytest.mark.slow
def test_killed_sweep_is_recovered_on_the_next_launch(workdir, store):
    script = Path(sys.executable).parent / "ragsweep"
    args = [str(script), "-m", *TOY, "chunker.size=24,32,48,64", "hydra.launcher.n_jobs=1"]
    proc = subprocess.Popen(
        args,
        cwd=workdir,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "CI": "true"},
    )
    # kill as soon as a worker reports a stage mid-evaluation: its child run is RUNNING then
    deadline = time.monotonic() + 120
    busy = []
    while not busy and time.monotonic() < deadline and proc.poll() is None:
        for path in workdir.glob("multirun/**/progress/*.json"):
            try:
                stage = json.loads(path.read_text())["stage"]
            except (OSError, ValueError):
                continue
            if stage in ("chunking", "indexing", "first-stage retrieval", "scoring"):
                busy.append(stage)
        time.sleep(0.01)
    assert busy, "no configuration was mid-way before the deadline"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _, children = store.sweep("sweep:chunker.size")
    assert any(r.info.status == "RUNNING" for r in children)  # left dangling by kill -9
    env = {**os.environ, "CI": "true"}
    done = subprocess.run(args, cwd=workdir, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "left RUNNING" in done.stdout
    parents, children = store.sweep("sweep:chunker.size")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    statuses = sorted(r.info.status for r in children)
    assert statuses.count("KILLED") >= 1
    finished = {r.data.tags["ragsweep.value"] for r in children if r.info.status == "FINISHED"}
    assert finished == {str(v) for v in (24, 32, 48, 64, 128)}


@pytest.mark.slow
@pytest.mark.parametrize("name", SWEEP_FILES)
def test_every_sweep_file_runs_at_toy_size(sweep_file, name):
    done = sweep_file(name).ok()
    cfg_values = OmegaConf.load(Path(__file__).parents[2] / "sweeps" / f"{name}.yaml").sweep
    parents, children = done.store.sweep(f"sweep:{name}")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert all(r.info.status == "FINISHED" for r in children)
    assert sorted(r.data.tags["ragsweep.value"] for r in children) == sorted(
        str(v) for v in cfg_values["values"]
    )
    baseline = [r for r in children if r.data.tags["ragsweep.baseline"] == "true"]
    assert [r.data.tags["ragsweep.value"] for r in baseline] == [str(cfg_values.baseline)]


@pytest.mark.parametrize("name", SWEEP_FILES)
def test_every_sweep_file_varies_a_key_of_the_config_from_its_baseline(name):
    """Each file of sweeps/ names a factor the composed config has (a key, or a config group
    whose options the values are), lists distinct values that each compose to a configuration
    setting that factor, and has its baseline among them."""
    from ragsweep.config import compose

    cfg = compose([f"sweep={name}"], hydra=True)
    sweep = cfg.sweep
    assert sweep.name == name
    factor, baseline = str(sweep.factor), str(sweep.baseline)
    values = [str(v) for v in sweep["values"]]
    assert len(values) >= 2 and len(set(values)) == len(values), values
    assert baseline in values
    group = factor in cfg.hydra.runtime.choices
    if not group:
        node = OmegaConf.select(cfg, factor, default="<missing>")
        assert node != "<missing>", f"{name}: {factor} is not a key of the composed config"
        assert not OmegaConf.is_config(node), f"{name}: {factor} is a whole block, not a setting"
    for value in values:
        one = compose([f"sweep={name}", f"{factor}={value}"], hydra=True)
        got = one.hydra.runtime.choices[factor] if group else OmegaConf.select(one, factor)
        assert str(got) == value, (name, factor, value, got)
