"""Smoke tests of benchmarks/run.py: at --quick sizes it runs, checks agreement with the peers
and prints and saves the table in the documented shape (microbenchmarks, then the end-to-end
rows); the pieces the end-to-end rows are built from (corpus sizes, the floor's chunking, ratio
and target logic) checked against ragsweep itself. Timings are never asserted."""

from __future__ import annotations

import importlib.util
import json
import math
import re
import statistics
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
E2E_COLUMNS = ["task", "ours", "peer", "peer value", "ratio", "spread", "target", "met"]
#: keys of every row, microbenchmark or end-to-end (readers of the JSON rely on them)
ROW_KEYS = {
    "name", "task", "ours_s", "peer", "peer_s", "ours_mib", "peer_mib", "note", "time_ratio",
    "memory_ratio", "ratio", "ratio_of", "target", "direction", "met", "group", "cells",
}  # fmt: skip
#: and of every end-to-end row: its runs (each with its own ratio) and their spread
E2E_ROW_KEYS = ROW_KEYS | {"runs", "spread", "details"}
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


def formed(kind: str, values: dict) -> float | None:
    """The ratio of `kind` written out from a row's (or a run's) values."""
    ours, peer = values["ours_s"], values["peer_s"]
    mine, theirs = values["ours_mib"], values["peer_mib"]
    return {
        "time": None if ours is None or not peer else ours / peer,
        "share": None if ours is None or not peer else ours / peer,
        "memory": None if mine is None or not theirs else mine / theirs,
        "speedup": None if not ours or peer is None else peer / ours,
        "none": None,
    }[kind]


def median_of(values: list) -> float | None:
    got = [v for v in values if v is not None]
    return statistics.median(got) if got else None


def check_met(row: dict) -> None:
    """`ratio` follows `ratio_of` (for a row of runs: the median of the runs' own ratios, the
    values the medians of theirs, the spread their lowest and highest), and `met` follows
    ratio, target and direction."""
    assert ROW_KEYS <= set(row), ROW_KEYS - set(row)
    assert row["name"] == row["task"]
    assert row["direction"] == e2e.DIRECTIONS[row["ratio_of"]]
    runs = row.get("runs") or []
    if runs:
        for run in runs:
            assert run["ratio"] == formed(row["ratio_of"], run)
        for key in ("ours_s", "peer_s", "ours_mib", "peer_mib"):
            assert row[key] == median_of([run[key] for run in runs]), key
        ratios = [run["ratio"] for run in runs if run["ratio"] is not None]
        expected = median_of(ratios)
        assert row["spread"] == ([min(ratios), max(ratios)] if len(ratios) >= 2 else None)
    elif row["ratio_of"] == "memory":
        expected = row["memory_ratio"]
    else:
        expected = formed(row["ratio_of"], row)
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
    assert (env["plan"]["runs"], env["plan"]["rows"]) == (1, list(e2e.ROWS))  # --quick: 1 run
    assert env["selection"] == {"sizes": None, "rows": None, "runs": None, "whole_plan": True}
    assert env["directions"] == {"time": "<=", "memory": "<=", "share": "<=", "speedup": ">="}
    for chunks in {*plan.sizes, plan.fusion_at, plan.chunk_sweep_at}:
        assert env["corpora"][str(chunks)]["chunks"] == chunks
    # the floor and one configuration at each size, the fusion sweep, the chunk-size sweep on
    # 1 and 2 workers: each child once, in that order, with the load average before it started
    children = env["measurements"]
    assert [m["what"].split(" at ")[0].split(" (")[0] for m in children] == [
        "the floor", "one configuration", "the floor", "one configuration", "fusion sweep",
        "chunk-size sweep", "chunk-size sweep",
    ]  # fmt: skip
    assert all(m["returncode"] == 0 and m["load_1min"] >= 0 for m in children)
    assert [m["started"] for m in children] == sorted(m["started"] for m in children)
    rows = record["rows"]
    assert all(r["group"] == "end-to-end" for r in rows)
    for row in rows:
        check_met(row)
        assert E2E_ROW_KEYS <= set(row), E2E_ROW_KEYS - set(row)
        assert list(row["cells"]) == E2E_COLUMNS and row["cells"]["task"] == row["name"]
        assert row["cells"]["met"] == {True: "yes", False: "NO", None: "-"}[row["met"]]
        assert len(row["runs"]) == (0 if row["ratio_of"] == "none" else 1)
        assert row["spread"] is None and row["cells"]["spread"] == "-"  # one run: no spread

    # ragsweep's timed stages (whatever seconds/* it logs), then `other`
    stage = re.compile(r"stage (\S+) \((?!floor only)")
    stages = list(dict.fromkeys(m.group(1) for r in rows if (m := stage.match(r["name"]))))
    assert {"index_build", "score", "other"} <= set(stages) and stages[-1] == "other"
    names = [r["name"] for r in rows]
    head = expected_e2e_names(plan, stages)
    assert names[: len(head)] == head
    by_name = {r["name"]: r for r in rows}
    for chunks in plan.sizes:
        size, judged = f"{chunks:,}", chunks >= plan.judged_from
        wall = by_name[f"one configuration, {size} chunks: wall time"]
        memory = by_name[f"one configuration, {size} chunks: peak memory"]
        assert wall["ratio_of"] == "time" and memory["ratio_of"] == "memory"
        assert wall["ours_s"] > 0 and wall["peer_s"] > 0 and memory["ours_mib"] > 0
        assert wall["target"] == (e2e.TARGETS.one_config_time if judged else None)
        assert memory["target"] == (e2e.TARGETS.one_config_memory if judged else None)
        score = by_name[f"stage score (seconds/score), {size} chunks"]
        other = by_name[f"stage other (wall - timed stages), {size} chunks"]
        assert score["target"] == (e2e.TARGETS.stage_score_time if judged else None)
        assert other["target"] == (e2e.TARGETS.stage_other_time if judged else None)
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


@pytest.mark.slow
def test_runs_are_interleaved_and_rows_report_their_median_and_spread(tmp_path):
    """Two runs of one size, the one-configuration rows only: floor, ours, floor, ours; each
    row holds both runs (values, ratio, load at start) and reports their median and spread."""
    record, stdout = run_script(
        tmp_path, "--e2e-only", "--corpora", str(tmp_path / "corpora"), "--sizes", "500",
        "--rows", "single", "--runs", "2", timeout=600,
    )  # fmt: skip
    assert record["problems"] == []
    env = record["end_to_end"]
    assert (env["plan"]["sizes"], env["plan"]["rows"], env["plan"]["runs"]) == (
        [500],
        ["single"],
        2,
    )
    assert env["selection"] == {"sizes": [500], "rows": ["single"], "runs": 2, "whole_plan": False}
    assert [m["what"] for m in env["measurements"]] == [
        "the floor at 500 chunks, run 1/2", "one configuration at 500 chunks, run 1/2",
        "the floor at 500 chunks, run 2/2", "one configuration at 500 chunks, run 2/2",
    ]  # fmt: skip
    children = env["measurements"]
    rows = record["rows"]
    names = [r["name"] for r in rows]
    assert names[:2] == ["one configuration, 500 chunks: wall time",
                         "one configuration, 500 chunks: peak memory"]  # fmt: skip
    # stage rows and no sweep rows; one size: no growth exponents
    assert all(n.startswith("stage ") and "growth" not in n for n in names[2:])
    for row in rows:
        check_met(row)
        if row["ratio_of"] == "none":
            continue
        assert len(row["runs"]) == 2 and row["target"] is None  # 500 < judged_from
        if row["ratio"] is not None:
            low, high = row["spread"]
            assert low <= row["ratio"] <= high
            assert row["cells"]["spread"] == f"{low:.2f}-{high:.2f}"
    wall = rows[0]
    for run, theirs, ours in zip(wall["runs"], children[0::2], children[1::2], strict=True):
        assert (run["peer_s"], run["ours_s"]) == (theirs["seconds"], ours["seconds"])
        assert (run["peer_load"], run["ours_load"]) == (theirs["load_1min"], ours["load_1min"])
        assert run["peer_started"] < run["ours_started"]
    assert wall["ratio"] == pytest.approx(sum(r["ratio"] for r in wall["runs"]) / 2)
    assert "spread" in stdout and wall["cells"]["spread"] in stdout


def test_the_median_of_the_runs_is_judged_and_their_spread_reported():
    # hand-made ratios: the median is judged against the target, not the best or worst run
    got = e2e.summarize([1.0, 1.2, 1.04], 1.05, "<=")
    assert (got.median, got.spread, got.met, got.n) == (1.04, (1.0, 1.2), True, 3)
    assert e2e.summarize([1.0, 1.2, 1.06], 1.05, "<=").met is False  # one fast run is not enough
    assert e2e.summarize([1.5, 1.7, 1.62], 1.6, ">=").met is True
    assert e2e.summarize([1.0, 1.1], 1.05, "<=").median == pytest.approx(1.05)  # even: the mean
    assert e2e.summarize([1.2, None, 1.0], 1.05, "<=") == e2e.Verdict(1.1, (1.0, 1.2), False, 2)
    assert e2e.summarize([1.3], 1.05, "<=") == e2e.Verdict(1.3, None, False, 1)  # no spread
    assert e2e.summarize([None], 1.05, "<=") == e2e.Verdict(None, None, None, 0)
    assert e2e.summarize([0.9, 1.1, 1.0], None, None).met is None  # no target

    # a row of runs: values are the runs' medians, the ratio the median of the runs' ratios
    runs = [e2e.Run(10.0, 10.0), e2e.Run(13.0, 10.0), e2e.Run(10.0, 9.0)]
    row = e2e.E2ERow.of("t", "p", runs, target=1.15)
    assert (row.ours_s, row.peer_s) == (10.0, 10.0)
    assert row.ratio == pytest.approx(10.0 / 9.0) and row.spread == (1.0, 1.3)
    assert row.met is True
    cells = dict(zip(e2e.E2E_COLUMNS, row.cells(), strict=True))
    assert (cells["ratio"], cells["spread"], cells["target"], cells["met"]) == (
        "1.11", "1.00-1.30", "time <= 1.15", "yes"
    )  # fmt: skip
    record = row.record()
    assert [r["ratio"] for r in record["runs"]] == [1.0, 1.3, pytest.approx(10.0 / 9.0)]
    assert record["spread"] == [1.0, 1.3] and record["met"] is True
    share = e2e.E2ERow.of("s", "p", [e2e.Run(1.0, 40.0), e2e.Run(1.2, 40.0)], ratio_of="share",
                          target=0.03)  # fmt: skip
    assert share.cells()[4:] == ("0.028", "0.025-0.030", "share <= 0.03", "yes")


def child(seconds: float, mib: float, started: float) -> e2e.Measured:
    return e2e.Measured(seconds, mib, 0, Path("out"), Path("err"), started, 0.5)


def test_one_configuration_and_stage_targets_apply_from_100k_chunks_on_the_median():
    """single_rows and stage_rows on hand-made runs at three of the full plan's sizes: targets
    at 100k and 200k only, judged on the median of three runs; growth from the sizes' medians."""
    plan = e2e.FULL_PLAN
    assert plan.judged_from == 100_000 and plan.sizes[-2:] == (100_000, 200_000)
    result = {"questions": 225, "recall@5": 0.1, "recall@10": 0.2, "evaluator": "pytrec_eval",
              "seconds": {"score": 1.0}}  # fmt: skip

    def single(chunks: int, ours_s: float, floor_s: float, score_s: float) -> e2e.Single:
        metrics = {"seconds/score": score_s, "recall_at_5/all": 0.1, "recall_at_10/all": 0.2}
        return e2e.Single(chunks, child(ours_s, 1000.0, ours_s), child(floor_s, 950.0, 0.0),
                          metrics, result)  # fmt: skip

    # per run at each size (times scaled by k): wall ratios 1.00, 1.20, 1.04 (median 1.04:
    # met); score ratios 2, 4, 2.5 (median 2.5: met)
    runs = ((100.0, 100.0, 2.0), (120.0, 100.0, 4.0), (104.0, 100.0, 2.5))
    singles = {c: [single(c, o * k, f * k, score) for o, f, score in runs]
               for c, k in ((30_000, 0.3), (100_000, 1.0), (200_000, 2.0))}  # fmt: skip
    rows = {r.task: r for r in e2e.single_rows(singles, plan.judged_from)}
    rows |= {r.task: r for r in e2e.stage_rows(singles, plan.judged_from)}
    for chunks, k in ((30_000, 0.3), (100_000, 1.0), (200_000, 2.0)):
        size, judged = f"{chunks:,}", chunks >= plan.judged_from
        wall = rows[f"one configuration, {size} chunks: wall time"]
        assert wall.ratio == pytest.approx(1.04) and wall.spread == pytest.approx((1.0, 1.2))
        assert (wall.target, wall.met) == ((1.05, True) if judged else (None, None))
        memory = rows[f"one configuration, {size} chunks: peak memory"]
        assert memory.ratio == pytest.approx(1000 / 950)
        assert (memory.target, memory.met) == ((1.10, True) if judged else (None, None))
        score = rows[f"stage score (seconds/score), {size} chunks"]
        assert (score.ratio, score.spread) == (2.5, (2.0, 4.0))
        assert (score.target, score.met) == ((3.0, True) if judged else (None, None))
        # other: our wall outside seconds/score against the floor's outside its 1 s of score
        other = rows[f"stage other (wall - timed stages), {size} chunks"]
        expected = [(o * k - score) / (f * k - 1.0) for o, f, score in runs]
        assert other.ratio == pytest.approx(statistics.median(expected))
        assert other.target == (1.5 if judged else None)
        assert other.met is (other.ratio <= 1.5 if judged else None)
    growth = rows["stage score: growth exponent, 30,000 to 200,000 chunks"]
    assert growth.details["seconds"] == [2.5, 2.5, 2.5]  # the medians at each size
    assert growth.details["exponent"] == pytest.approx(0.0, abs=1e-9)
    wall_growth = rows["stage other: growth exponent, 30,000 to 200,000 chunks"]
    assert wall_growth.details["peer_seconds"] == pytest.approx([29.0, 99.0, 199.0])
    # one size: no growth exponent to speak of
    one = e2e.stage_rows({200_000: singles[200_000]}, plan.judged_from)
    assert not [r for r in one if "growth" in r.task]


def test_sizes_and_rows_are_chosen_from_the_command_line_form():
    assert e2e.parse_sizes("200000,100000") == (100_000, 200_000)
    assert e2e.parse_sizes("1000000") == (1_000_000,)
    assert e2e.parse_rows("workers,single") == ("single", "workers")
    for bad in ("", "0", "10k", "100,-5"):
        with pytest.raises(ValueError, match="sizes"):
            e2e.parse_sizes(bad)
    with pytest.raises(ValueError, match="stages"):
        e2e.parse_rows("single,stages")
    with pytest.raises(ValueError, match="runs"):
        e2e.Plan((10,), 10, 10, (128,), judged_from=10, runs=0)
    with pytest.raises(ValueError, match="ascending"):
        e2e.Plan((30, 10), 10, 10, (128,), judged_from=10)


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
