"""Tie order: equal scores rank by a stable hash of the chunk id, never by corpus order; each run
counts the questions whose prompt cut (`eval.k_prompt`) falls inside a score tie.

The tie key is written out independently here (blake2b, 8 bytes, big-endian); the twin test runs
the whole pipeline on the tiny dataset (whose 2024 and 2025 wordings share word-for-word clauses)
with the version filter off, once with the wordings in file order and once reversed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragsweep.chunking import SectionChunker
from ragsweep.chunking.chunkers import chunk_corpus
from ragsweep.config import compose
from ragsweep.data import load_dataset
from ragsweep.experiment.single import read_measured, write_payload
from ragsweep.retrieval import pipeline
from ragsweep.retrieval.base import tie_keys, tie_order, ties_across
from ragsweep.scoring.evaluate import evaluate, tie_counts
from toy import TINY, TOY

#: the version filter off, so both versions of a twin clause compete for the same question
NO_FILTER = [*TOY, "chunker=section", "retriever.filter=false", "cache.dir=null"]
STAGES = {
    "bm25": ["retriever=bm25"],
    "hybrid": ["retriever=hybrid"],  # BM25 + LSA fused by RRF
    "hybrid+proximity": ["retriever=hybrid", "reranker=proximity", "reranker.depth=5"],
}


def key(chunk_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(chunk_id.encode(), digest_size=8).digest(), "big")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(shutil.copytree(TINY, tmp_path_factory.mktemp("ties") / "tiny"))


def ranked_ids(
    overrides: list[str], root: Path, reverse: bool
) -> tuple[list[list[str]], np.ndarray, list[str]]:
    """The final ranking (chunk ids per question, and the scores) over the chunks of `root`,
    with the wordings in file order or reversed; also the chunk ids in the order indexed."""
    cfg = compose([*NO_FILTER, f"data.path={root}", *overrides])
    ds = load_dataset(root)
    docs = tuple(reversed(ds.documents)) if reverse else ds.documents
    pipe = pipeline.Pipeline.from_config(cfg)
    chunks = chunk_corpus(docs, pipe.chunker)
    questions = list(ds.questions["text"])
    got = pipeline.rank(pipe, ds.snapshot_hash, chunks, questions, None, measure_latency=False)
    ids = [[chunks[i].chunk_id for i in row if i >= 0] for row in got.ids.tolist()]
    return ids, got.scores, [c.chunk_id for c in chunks]


def twins(root: Path) -> dict[str, str]:
    """Chunk id -> chunk id of its word-for-word twin in the other version (section chunks)."""
    ds = load_dataset(root)
    chunks = chunk_corpus(ds.documents, SectionChunker())
    by_text: dict[tuple[str | None, str], list[str]] = {}
    for c in chunks:
        by_text.setdefault((c.product, c.text), []).append(c.chunk_id)
    return {a: b for ids in by_text.values() if len(ids) == 2 for a, b in (ids, ids[::-1])}


def test_tie_key_is_blake2b_of_the_id_and_orders_ascending():
    ids = ["home@2025#0", "home@2024#0", "motor@2024#3", "motor@2025#3", "a", ""]
    assert tie_keys(ids).tolist() == [key(i) for i in ids]
    assert tie_keys(ids).dtype == np.uint64
    order = tie_order(ids)
    assert [ids[i] for i in order] == sorted(ids, key=lambda i: (key(i), i))
    assert tie_order([]).tolist() == []
    # equal ids (no chunker makes them, but the order must still be total): input position
    assert tie_order(["x", "x", "x"]).tolist() == [0, 1, 2]


def test_tie_order_maps_filters_and_ids_back():
    class C:
        def __init__(self, chunk_id: str) -> None:
            self.chunk_id = chunk_id

    chunks = [C(f"d#{i}") for i in range(6)]
    ties = pipeline.TieOrder.of(chunks)  # type: ignore[arg-type]
    inside = ties.chunks(chunks)  # type: ignore[arg-type]
    assert [c.chunk_id for c in inside] == sorted(
        (c.chunk_id for c in chunks), key=lambda i: (key(i), i)
    )
    allowed = ties.allowed([np.array([4, 1]), None])
    assert allowed is not None and allowed[1] is None
    assert sorted(inside[j].chunk_id for j in allowed[0]) == ["d#1", "d#4"]
    assert np.all(np.diff(allowed[0]) > 0)
    back = ties.back(np.array([[allowed[0][1], allowed[0][0], -1]]))
    assert sorted(back[0, :2].tolist()) == [1, 4] and back[0, 2] == -1
    assert ties.allowed(None) is None


@pytest.mark.parametrize("stages", list(STAGES), ids=list(STAGES))
def test_twins_rank_the_same_whatever_the_corpus_order(tiny: Path, stages: str):
    forward, f_scores, f_order = ranked_ids(STAGES[stages], tiny, reverse=False)
    backward, b_scores, b_order = ranked_ids(STAGES[stages], tiny, reverse=True)
    assert f_order != b_order  # the stages were handed the chunks in two different orders
    assert forward == backward
    assert f_scores.tobytes() == b_scores.tobytes()

    # Twin texts score the same in every stage, so the first stage ties them and every later
    # stage keeps (fusion: the better ranks of the lower key) or defers to (rerank) that order.
    twin = twins(tiny)
    assert len(twin) >= 10  # the tiny wordings share several clauses word for word
    pairs, tied, first_2025 = 0, 0, 0
    for row, scores in zip(forward, f_scores, strict=False):
        pos = {cid: r for r, cid in enumerate(row)}
        for a, b in twin.items():
            if a in pos and b in pos and pos[a] < pos[b]:
                pairs += 1
                assert key(a) < key(b), (a, b)  # twins in the order of the chunk id's hash
                tied += bool(scores[pos[a]] == scores[pos[b]])
                first_2025 += "@2025" in a
    assert pairs >= 20
    assert 0 < first_2025 < pairs  # neither version always first: no file-order artefact
    if stages == "bm25":
        assert tied == pairs  # one stage: identical texts, identical scores


def test_same_ranking_twice_bit_for_bit(tiny: Path):
    one = ranked_ids(STAGES["hybrid"], tiny, reverse=False)
    two = ranked_ids(STAGES["hybrid"], tiny, reverse=False)
    assert one[0] == two[0] and one[1].tobytes() == two[1].tobytes()


def test_ties_across_the_cut_are_counted():
    inf = -np.inf
    ids = np.array(
        [
            [3, 1, 2, 0],  # rank 2 and 3 tie: across a cut at 2
            [3, 1, 2, 0],  # ranks 1 and 2 tie (inside the prompt), 2 and 3 differ
            [3, 1, -1, -1],  # rank 3 is padding: nothing to tie with
            [3, 1, 2, -1],  # all three tie
            [0, 1, 2, 3],  # ranks 3 and 4 tie: below the cut
        ],
        dtype=np.int64,
    )
    scores = np.array(
        [
            [3.0, 2.0, 2.0, 1.0],
            [3.0, 3.0, 2.0, 1.0],
            [2.0, 1.0, inf, inf],
            [1.5, 1.5, 1.5, inf],
            [4.0, 3.0, 2.0, 2.0],
        ]
    )
    assert ties_across(ids, scores, 2).tolist() == [True, False, False, True, False]
    assert ties_across(ids, scores, 1).tolist() == [False, True, False, True, False]
    assert ties_across(ids, scores, 3).tolist() == [False, False, False, False, True]
    assert ties_across(ids, scores, 4).tolist() == [False] * 5  # no rank 5
    assert tie_counts(ids, scores, 2) == {"k_prompt": 2.0, "k_prompt_share": 2 / 5}
    assert tie_counts(ids[:0], scores[:0], 2) == {"k_prompt": 0.0, "k_prompt_share": 0.0}


def test_each_run_logs_its_ties_at_k_prompt(tiny: Path, tmp_path: Path):
    overrides = [*NO_FILTER, f"data.path={tiny}", "retriever=bm25", "eval.k_prompt=3"]
    cfg = compose(overrides)
    result = evaluate(cfg)
    # counted again from the final ranking, by hand
    pipe = pipeline.Pipeline.from_config(cfg)
    ds = load_dataset(tiny)
    chunks = chunk_corpus(ds.documents, pipe.chunker)
    got = pipeline.rank(
        pipe, ds.snapshot_hash, chunks, list(ds.questions["text"]), None, measure_latency=False
    )
    tied = sum(
        1 for row, s in zip(got.ids, got.scores, strict=True) if row[3] >= 0 and s[2] == s[3]
    )
    assert tied >= 1  # the twins make ties on the tiny set
    assert result.ties == {"k_prompt": float(tied), "k_prompt_share": tied / 10}
    # in the run's table of every number (logged as metrics with tracking.metrics=all)
    measured = write_payload(result, cfg, tmp_path).measured
    written = read_measured(tmp_path / "results")
    assert written == measured  # the file gives back every number, bit for bit
    assert written["ties/k_prompt"] == float(tied)
    assert written["ties/k_prompt_share"] == tied / 10


def test_evaluate_and_the_prebuilt_cache_agree_whatever_the_corpus_order(
    tiny: Path, tmp_path: Path
):
    from ragsweep.scoring.stages import prebuild, stage_cache

    cfg = compose([*NO_FILTER, f"data.path={tiny}", "retriever=hybrid"])
    ds = load_dataset(tiny)
    reversed_ds = dataclasses.replace(ds, documents=tuple(reversed(ds.documents)))
    plain = evaluate(cfg, dataset=ds)
    assert evaluate(cfg, dataset=reversed_ds).rankings == plain.rankings
    cached = compose([*NO_FILTER, f"data.path={tiny}", "retriever=hybrid", f"cache.dir={tmp_path}"])
    built = prebuild([cached], reversed_ds, stage_cache(cached))
    assert "first_stage_dense_index" in built
    again = evaluate(cached, dataset=ds)  # the stages the reversed corpus cached, reused
    assert "first_stage_dense_index" in again.tags["ragsweep.cache_hits"]
    assert again.rankings == plain.rankings and again.ties == plain.ties
