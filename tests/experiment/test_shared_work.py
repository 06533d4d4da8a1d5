"""What a sweep does once for all its configurations: the dataset the launcher loaded is the one
every configuration reads, and the values that cut the most passages start first."""

from __future__ import annotations

import json
import shutil

from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.experiment.launch import execution_order
from ragsweep.experiment.plan import SweepFolder, draft, share_dataset, shared_dataset
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
