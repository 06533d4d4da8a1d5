"""What a sweep does once for all its configurations: the dataset the launcher loaded is the one
every configuration reads, and the values that cut the most passages start first."""

from __future__ import annotations

import json
import shutil

from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.experiment.launch import execution_order
from ragsweep.experiment.plan import SweepFolder, draft, share_dataset, shared_dataset
from ragsweep.retrieval.cache import write_pickle
from toy import TINY, TOY


def test_smaller_chunks_start_first_and_other_factors_keep_their_order():
    sizes = draft(["-m", *TOY, "chunker.size=128,64,256"])
    assert execution_order(sizes) == ["64", "128", "256"]
    fusion = draft(["-m", *TOY, "fusion.k=60,10,30"])
    assert execution_order(fusion) == ["60", "10", "30"]


def test_configurations_read_the_dataset_the_launcher_loaded(tmp_path):
    data = tmp_path / "tiny"
    shutil.copytree(TINY, data)
    ds = load_dataset(data)
    folder = SweepFolder(tmp_path / "sweep")
    share_dataset(folder, ds)
    # the folder changes after the launch: the sweep still scores the snapshot it pinned
    (data / "questions.jsonl").write_text("")
    cfg = compose(["data=folder", f"data.path={data}"])
    shared = shared_dataset(folder, cfg)
    assert shared is not None and shared is not ds
    assert shared.snapshot_hash == ds.snapshot_hash and shared.labels_hash == ds.labels_hash
    assert shared.questions.equals(ds.questions)
    # another dataset folder, or a damaged file: the configuration loads its folder itself
    assert shared_dataset(folder, compose(["data=folder", f"data.path={TINY}"])) is None
    folder.dataset.write_bytes(b"not a pickle")
    assert shared_dataset(folder, cfg) is None
    assert not list(folder.root.glob(".dataset-*")), "a temporary file was left behind"


def test_the_shared_dataset_holds_no_query_log_text(tmp_path):
    """dataset.pkl is written into every sweep folder: the raw log stays in its file."""
    texts = [json.loads(line)["text"] for line in (TINY / "query_log.jsonl").open()]
    assert len(texts) == 20 and any("Jane Doe" in t for t in texts)
    ds = load_dataset(TINY)
    assert ds.log_entries == 20
    folder = SweepFolder(tmp_path / "sweep")
    share_dataset(folder, ds)
    pickled = folder.dataset.read_bytes()
    assert b"Jane Doe" not in pickled and b"POL-00412345" not in pickled
    assert [t for t in texts if t.encode("utf-8") in pickled] == []


def test_a_sweep_that_only_scores_what_the_launcher_built_runs_in_the_launcher():
    from ragsweep.experiment.launch import ONE_WORKER, in_launcher

    def args_of(*sweep: str) -> list[str]:
        args = ["-m", *TOY, *sweep]
        return in_launcher(args, draft(args))

    # a fusion sweep shares every first-stage list: its configurations only fuse and score
    assert args_of("fusion.k=10,60")[-1] == ONE_WORKER
    # each builds its own indexes or reranks: the workers run them
    for sweep in (
        ("chunker.size=64,128",),
        ("retriever.bm25.k1=0.9,1.5",),
        ("fusion.k=10,60", "reranker=proximity"),
    ):
        assert ONE_WORKER not in args_of(*sweep), sweep
    # workers chosen on the command line, or no cache to build into: left as given
    for given in ("hydra.launcher.n_jobs=2", "cache.dir=null"):
        assert ONE_WORKER not in args_of("fusion.k=10,60", given), given


def test_a_fusion_sweep_runs_in_the_launcher_and_leaves_its_logging_as_it_was(workdir, store):
    import logging

    import yaml

    from ragsweep.cli import main

    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    assert main(["-m", *TOY, "confirm.enabled=false", "fusion.k=10,60"]) == 0
    assert (list(root.handlers), root.level) == before  # no job's INFO lines on the launcher
    (record,) = workdir.glob("multirun/**/multirun.yaml")
    assert yaml.safe_load(record.read_text())["hydra"]["launcher"]["n_jobs"] == 1
    parents, children = store.sweep("sweep:fusion.k")
    assert [p.info.status for p in parents] == ["FINISHED"]
    assert sorted(r.data.tags["ragsweep.value"] for r in children) == ["10", "60"]
    for r in children:  # each read what the launcher built, as a worker does
        hits = r.data.tags["ragsweep.cache_hits"].split(",")
        assert sorted(hits) == ["chunks", "first_stage_bm25_index", "first_stage_dense_index"]


def test_a_process_reads_the_shared_dataset_once_and_each_configuration_gets_its_own_frames(
    tmp_path, monkeypatch
):
    from ragsweep.experiment import plan as plan_module

    ds = load_dataset(TINY)
    folder = SweepFolder(tmp_path / "sweep")
    share_dataset(folder, ds)  # the launcher wrote it: kept for the jobs it runs itself
    reads = []
    real_read = plan_module.read_pickle
    monkeypatch.setattr(plan_module, "read_pickle", lambda p: reads.append(p) or real_read(p))
    cfg = compose(["data=folder", f"data.path={TINY}"])
    first, second = shared_dataset(folder, cfg), shared_dataset(folder, cfg)
    assert reads == []
    assert first is not None and second is not None and first is not second
    assert first.documents is ds.documents  # the frozen wordings are shared, not copied
    first.questions.loc[0, "text"] = "changed by one configuration"
    assert second.questions.equals(ds.questions)  # not seen by the next one
    # written again by another process (a relaunch in the same folder): read again
    write_pickle(folder.dataset, load_dataset(TINY))
    assert shared_dataset(folder, cfg) is not None and reads == [folder.dataset]


def test_a_launcher_whose_workers_run_the_sweep_keeps_no_chunks_beside_them(workdir, store):
    from ragsweep.cli import main
    from ragsweep.retrieval import cache as cache_module

    cache_module.let_go_kept()
    assert main(["-m", *TOY, "confirm.enabled=false", "retriever.bm25.k1=0.9,1.5"]) == 0
    _, children = store.sweep("sweep:retriever.bm25.k1")
    assert len(children) == 2
    # the prebuild built the chunks and the dense lists here; the workers read them from disk
    # (the dataset, which the launcher holds anyway, may stay)
    assert set(cache_module._KEPT) <= {"dataset"}
