"""Smoke tests of benchmarks/run.py: at --quick sizes it runs, checks agreement with the peers
and prints and saves the table in the documented shape (microbenchmarks, then the end-to-end
rows); the pieces the end-to-end rows are built from (corpus sizes, the floor's chunking, ratio
and target logic) checked against ragsweep itself. Timings are never asserted."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragsweep.chunking.chunkers import FixedTokenChunker, chunk_corpus
from ragsweep.data import load_dataset

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
SCRIPT = BENCHMARKS / "run.py"
sys.path.insert(0, str(BENCHMARKS))

import corpus  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)
import e2e  # noqa: E402
import floor  # noqa: E402

COLUMNS = ["task", "ours (s)", "peer", "peer (s)", "time ratio", "memory ratio"]
E2E_COLUMNS = ["task", "ours", "peer", "peer value", "ratio", "target", "met"]
#: keys of every row, microbenchmark or end-to-end (readers of the JSON rely on them)
ROW_KEYS = {
    "name", "task", "ours_s", "peer", "peer_s", "ours_mib", "peer_mib", "note", "time_ratio",
    "memory_ratio", "ratio", "ratio_of", "target", "direction", "met", "group", "cells",
}  # fmt: skip
# (start of the task label, peer, module the peer needs), in table order. --no-numba leaves out
# the peers that compile with numba (tens of seconds on a cold cache).
EXPECTED = [
    ("scoring 300 q x 20 docs", "pytrec_eval", "pytrec_eval"),
    ("scoring 300 q x 20 docs", "ranx (warm)", "ranx"),
    ("scoring 300 q x 20 docs", "pytrec_eval", "pytrec_eval"),
    ("scoring 300 q x 20 docs", "ranx (warm)", "ranx"),
    ("paired intervals 100 q", "scipy.stats.ttest_rel per candidate x stratum", "scipy"),
    ("validating the built-in sample", "reading the files (json + pandas)", "pandas"),
    ("BM25 index 200 chunks", "bm25s + PyStemmer", "bm25s"),
    ("BM25 search 100 queries", "bm25s numpy backend", "bm25s"),
    ("BM25 search 100 queries", "bm25s numba backend (warm)", "numba"),
    ("dense search", "sklearn NearestNeighbors brute cosine", "sklearn"),
]  # fmt: skip
SKIPPED = {"ranx", "numba"}


def run_script(tmp_path: Path, *args: str, timeout: int) -> tuple[dict, str]:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--no-numba", "--json", str(out), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text()), done.stdout


def check_met(row: dict) -> None:
    """`ratio` follows `ratio_of`, and `met` follows ratio, target and direction."""
    assert ROW_KEYS <= set(row), ROW_KEYS - set(row)
    assert row["name"] == row["task"]
    assert row["direction"] == e2e.DIRECTIONS[row["ratio_of"]]
    ours, peer = row["ours_s"], row["peer_s"]
    expected = {
        "time": None if ours is None or not peer else ours / peer,
        "share": None if ours is None or not peer else ours / peer,
        "memory": row["memory_ratio"],
        "speedup": None if not ours or peer is None else peer / ours,
        "none": None,
    }[row["ratio_of"]]
    assert row["ratio"] == expected
    if row["ratio"] is None or row["target"] is None:
        assert row["met"] is None
    elif row["direction"] == "<=":
        assert row["met"] is (row["ratio"] <= row["target"])
    else:
        assert row["met"] is (row["ratio"] >= row["target"])


@pytest.mark.slow
def test_quick_microbenchmarks_print_and_save_the_ratio_table(tmp_path):
    record, stdout = run_script(tmp_path, "--no-e2e", timeout=120)
    assert record["columns"] == COLUMNS
    assert record["environment"]["quick"] is True
    assert record["environment"]["skipped_peer_modules"] == sorted(SKIPPED)
    assert record["end_to_end"] is None and record["problems"] == []
    rows = record["rows"]
    assert len(rows) == len(EXPECTED)
    got = [(r["task"][: len(t)], r["peer"]) for r, (t, _, _) in zip(rows, EXPECTED, strict=True)]
    assert got == [(t, p) for t, p, _ in EXPECTED]
    assert rows[0]["task"].endswith("gain_arrays + score_gains")
    assert rows[2]["task"].endswith("score_gains alone")

    for row, (_, peer, module) in zip(rows, EXPECTED, strict=True):
        check_met(row)
        assert row["group"] == "microbenchmark" and row["ratio_of"] == "time"
        assert row["target"] is None and row["met"] is None
        cells = row["cells"]
        assert list(cells) == COLUMNS
        assert cells["task"] == row["task"] and cells["peer"] == peer
        assert row["ours_s"] > 0
        if module in SKIPPED or importlib.util.find_spec(module) is None:
            note = "skipped" if module in SKIPPED else "not installed"
            assert row["peer_s"] is None and row["time_ratio"] is None
            assert (cells["peer (s)"], cells["time ratio"], cells["memory ratio"]) == (
                note,
                "-",
                "-",
            )
        else:
            assert row["peer_s"] > 0
            assert row["time_ratio"] == row["ours_s"] / row["peer_s"] == row["ratio"]
            assert cells["time ratio"] == f"{row['time_ratio']:.2f}"
            assert cells["peer (s)"] == f"{row['peer_s']:.4f}"
            if row["memory_ratio"] is not None:
                assert row["memory_ratio"] == row["ours_mib"] / row["peer_mib"]
                assert cells["memory ratio"].startswith(f"{row['memory_ratio']:.2f} (")

    # the same table on stdout: every header, and every row's peer and time ratio cell
    for column in COLUMNS:
        assert column in stdout
    lines = stdout.splitlines()
    for row in rows:
        cells = row["cells"]
        assert any(cells["peer"] in line and cells["time ratio"] in line for line in lines)


def expected_e2e_names(plan: e2e.Plan, stages: list[str]) -> list[str]:
    """The end-to-end row names of `plan` in table order, for ragsweep's timed `stages`."""
    sizes = [f"{c:,}" for c in plan.sizes]
    names = []
    for size in sizes:
        names += [f"one configuration, {size} chunks: wall time",
                  f"one configuration, {size} chunks: peak memory"]  # fmt: skip
    source = {"other": "wall - timed stages", "index_build": "cost/index_build_seconds"}
    for stage in stages:
        label = source.get(stage, f"seconds/{stage}")
        names += [f"stage {stage} ({label}), {size} chunks" for size in sizes]
        names.append(f"stage {stage}: growth exponent, {sizes[0]} to {sizes[-1]} chunks")
    return names


@pytest.mark.slow
def test_quick_end_to_end_rows_have_the_documented_shape(tmp_path):
    plan = e2e.QUICK_PLAN
    record, stdout = run_script(
        tmp_path, "--e2e-only", "--corpora", str(tmp_path / "corpora"), timeout=900
    )
    assert record["problems"] == []
    assert record["e2e_columns"] == E2E_COLUMNS
    env = record["end_to_end"]
    assert env["plan"]["sizes"] == list(plan.sizes)
    assert env["directions"] == {"time": "<=", "memory": "<=", "share": "<=", "speedup": ">="}
    for chunks in {*plan.sizes, plan.fusion_at, plan.chunk_sweep_at}:
        assert env["corpora"][str(chunks)]["chunks"] == chunks
    rows = record["rows"]
    assert all(r["group"] == "end-to-end" for r in rows)
    for row in rows:
        check_met(row)
        assert list(row["cells"]) == E2E_COLUMNS and row["cells"]["task"] == row["name"]
        assert row["cells"]["met"] == {True: "yes", False: "NO", None: "-"}[row["met"]]

    # ragsweep's timed stages (whatever seconds/* it logs), then `other`
    stage = re.compile(r"stage (\S+) \((?!floor only)")
    stages = list(dict.fromkeys(m.group(1) for r in rows if (m := stage.match(r["name"]))))
    assert {"index_build", "other"} <= set(stages) and stages[-1] == "other"
    names = [r["name"] for r in rows]
    head = expected_e2e_names(plan, stages)
    assert names[: len(head)] == head
    by_name = {r["name"]: r for r in rows}
    largest = f"{plan.largest:,}"
    for size in (f"{c:,}" for c in plan.sizes):
        wall = by_name[f"one configuration, {size} chunks: wall time"]
        memory = by_name[f"one configuration, {size} chunks: peak memory"]
        assert wall["ratio_of"] == "time" and memory["ratio_of"] == "memory"
        assert wall["ours_s"] > 0 and wall["peer_s"] > 0 and memory["ours_mib"] > 0
        assert wall["target"] == (e2e.TARGETS.one_config_time if size == largest else None)
        assert memory["target"] == (e2e.TARGETS.one_config_memory if size == largest else None)
        assert abs(wall["details"]["recall@5"]["ours"] - wall["details"]["recall@5"]["floor"]) <= (
            plan.recall_tolerance
        )
    for row in (r for r in rows if ": growth exponent" in r["name"]):
        assert row["ratio_of"] == "none" and row["target"] is None
        assert row["details"]["exponent"] is None or math.isfinite(row["details"]["exponent"])

    rest = [r for r in rows[len(head) :] if "(floor only)" not in r["name"]]
    fusion = f"fusion sweep (sweep=fusion_k, 4 values), {plan.fusion_at:,} chunks"
    values = ",".join(str(v) for v in plan.chunk_sweep_values)
    chunk = f"chunk-size sweep (chunker.size={values}), {plan.chunk_sweep_at:,} chunks"
    sweeps = [fusion, f"{chunk}, 1 worker(s)", f"{chunk}, 2 worker(s)"]
    assert [r["name"] for r in rest] == [
        f"{fusion}: wall time",
        f"{fusion}: peak memory",
        f"{chunk}: 2 workers vs 1",
        *(f"MLflow share of sweep time: {s}" for s in sweeps),
        *(f"confirm stage share of sweep wall: {s}" for s in sweeps),
    ]
    assert [(r["ratio_of"], r["target"]) for r in rest[:3]] == [
        ("time", e2e.TARGETS.fusion_sweep_time),
        ("memory", e2e.TARGETS.fusion_sweep_memory),
        ("speedup", e2e.TARGETS.workers_speedup),
    ]
    assert all(r["ours_s"] > 0 and r["peer_s"] > 0 for r in rest[:3])
    for row in rest[3:6]:
        assert row["ratio_of"] == "share" and row["target"] == e2e.TARGETS.mlflow_share
        if row["ours_s"] is None:  # until the launcher logs it
            assert row["note"] == "not measured: parent run lacks cost/sweep_mlflow_seconds"
    for row in rest[6:]:
        assert row["ratio_of"] == "share" and row["target"] is None
        assert row["details"]["confirm_ran"] is (row["ours_s"] is not None)
        if row["details"]["confirm_ran"]:
            assert row["details"]["after_workers"] is True
        else:
            assert row["note"].startswith("confirm")

    for column in E2E_COLUMNS:
        assert column in stdout


def test_corpus_sizes_are_exact_chunk_counts_of_ragsweeps_chunker(tmp_path):
    # the arithmetic the builder counts with is the chunker's, token count by token count
    chunker = FixedTokenChunker(corpus.CHUNK_SIZE, corpus.CHUNK_OVERLAP)
    for n in [1, 2, 127, 128, 129, 240, 241, 352, 353, 1000]:
        doc = SimpleNamespace(text=" ".join(["w"] * n), doc_id="d", document="d", version="1",
                              product=None)  # fmt: skip
        windows = chunker.chunk(doc)
        assert corpus.chunk_count(n) == len(windows), n
        assert corpus.chunk_count(corpus.max_tokens(len(windows))) == len(windows)
    # a padded built-in sample: ragsweep loads it and cuts exactly the asked number of chunks
    for n in (1200, 300):  # above the sample (padded) and below it (its first wordings)
        built = corpus.build(n, seed=3, cache=tmp_path, source="sample")
        ds = load_dataset(built.path)
        assert len(chunk_corpus(ds.documents, chunker)) == n == built.chunks
        assert len(ds.questions) == built.questions > 0
        assert built.documents == len(ds.documents) == built.source_documents + built.distractors
        assert corpus.build(n, seed=3, cache=tmp_path, source="sample") == built  # cached


def test_the_floor_chunks_and_credits_clauses_as_ragsweep_does(tmp_path):
    built = corpus.build(400, seed=1, cache=tmp_path, source="sample")
    wordings, _, _ = floor.read(built.path)
    texts, covers = floor.chunk(wordings, corpus.CHUNK_SIZE, corpus.CHUNK_OVERLAP)
    ds = load_dataset(built.path)
    chunks = chunk_corpus(ds.documents, FixedTokenChunker(corpus.CHUNK_SIZE, corpus.CHUNK_OVERLAP))
    assert [t.split() for t in texts] == [c.text.split() for c in chunks]
    assert all(covers)  # every window covers some clause (the sample's clauses are short)


def test_met_follows_ratio_target_and_direction():
    row = e2e.E2ERow("t", 2.0, "p", 4.0, ours_mib=300.0, peer_mib=200.0, target=0.6)
    assert (row.ratio, row.direction, row.met) == (0.5, "<=", True)
    memory = e2e.E2ERow("m", 2.0, "p", 4.0, ours_mib=300.0, peer_mib=200.0, ratio_of="memory",
                        target=1.2)  # fmt: skip
    assert (memory.ratio, memory.met) == (1.5, False)
    speedup = e2e.E2ERow("s", 2.0, "p", 3.0, ratio_of="speedup", target=1.6)
    assert (speedup.ratio, speedup.direction, speedup.met) == (1.5, ">=", False)
    missing = e2e.E2ERow("x", None, "p", 3.0, ratio_of="share", target=0.05, note="not measured")
    assert (missing.ratio, missing.met, missing.cells()[1]) == (None, None, "not measured")
    assert e2e.E2ERow("n", 1.0, "p", 1.0, ratio_of="none").record()["met"] is None
    assert e2e.growth_exponent([10, 100], [2.0, 20.0]) == pytest.approx(1.0)
    assert e2e.growth_exponent([10, 40, 90], [1.0, 2.0, 3.0]) == pytest.approx(0.5)
    assert e2e.growth_exponent([10], [1.0]) is None


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's procfs")
def test_a_childs_memory_is_its_own_not_the_benchmarks(tmp_path):
    """A child that allocates nothing reads as a bare interpreter, however much the benchmark
    itself holds (ru_maxrss starts from the forked copy of it: it read the parent's 750 MiB);
    one that allocates 200 MiB reads at least that."""
    held = bytearray(400 * 2**20)  # the benchmark's own peak, touched so it is resident
    held[::4096] = b"x" * len(held[::4096])
    env = {"PATH": "/usr/bin:/bin"}
    idle = e2e.run_child(
        [sys.executable, "-c", "import time; time.sleep(0.5)"], tmp_path, env, "idle"
    )
    busy = e2e.run_child(
        [sys.executable, "-c", "import time; b = bytearray(200 * 2**20); b[::4096] = b'x' * "
         "len(b[::4096]); time.sleep(0.5)"],
        tmp_path,
        env,
        "busy",
    )  # fmt: skip
    assert (idle.returncode, busy.returncode) == (0, 0)
    assert idle.peak_mib is not None and idle.peak_mib < 60, idle.peak_mib
    assert busy.peak_mib is not None and 200 <= busy.peak_mib < 260, busy.peak_mib
    del held
