"""Smoke test of benchmarks/run.py: at --quick sizes it runs, checks agreement with the peers
and prints and saves the table of ratios in the documented shape. Timings are not asserted."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[1] / "benchmarks" / "run.py"
COLUMNS = ["task", "ours (s)", "peer", "peer (s)", "time ratio", "memory ratio"]
# (start of the task label, peer, module the peer needs), in table order. --no-numba leaves out
# the peers that compile with numba (tens of seconds on a cold cache).
EXPECTED = [
    ("scoring 300 q x 20 docs", "pytrec_eval", "pytrec_eval"),
    ("scoring 300 q x 20 docs", "ranx (warm)", "ranx"),
    ("scoring 300 q x 20 docs", "pytrec_eval", "pytrec_eval"),
    ("scoring 300 q x 20 docs", "ranx (warm)", "ranx"),
    ("paired bootstrap 1,000 resamples x 100 q", "scipy.stats.bootstrap per candidate x stratum",
     "scipy"),
    ("BM25 index 200 chunks", "bm25s + PyStemmer", "bm25s"),
    ("BM25 search 100 queries", "bm25s numpy backend", "bm25s"),
    ("BM25 search 100 queries", "bm25s numba backend (warm)", "numba"),
    ("dense search", "sklearn NearestNeighbors brute cosine", "sklearn"),
]  # fmt: skip
SKIPPED = {"ranx", "numba"}


def test_quick_run_prints_and_saves_the_ratio_table(tmp_path):
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--no-numba", "--json", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    record = json.loads(out.read_text())
    assert record["columns"] == COLUMNS
    assert record["environment"]["quick"] is True
    assert record["environment"]["skipped_peer_modules"] == sorted(SKIPPED)
    rows = record["rows"]
    assert len(rows) == len(EXPECTED)
    got = [(r["task"][: len(t)], r["peer"]) for r, (t, _, _) in zip(rows, EXPECTED, strict=True)]
    assert got == [(t, p) for t, p, _ in EXPECTED]
    assert rows[0]["task"].endswith("gain_arrays + score_gains")
    assert rows[2]["task"].endswith("score_gains alone")

    for row, (_, peer, module) in zip(rows, EXPECTED, strict=True):
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
            assert row["time_ratio"] == row["ours_s"] / row["peer_s"]
            assert cells["time ratio"] == f"{row['time_ratio']:.2f}"
            assert cells["peer (s)"] == f"{row['peer_s']:.4f}"
            if row["memory_ratio"] is not None:
                assert row["memory_ratio"] == row["ours_mib"] / row["peer_mib"]
                assert cells["memory ratio"].startswith(f"{row['memory_ratio']:.2f} (")

    # the same table on stdout: every header, and every row's peer and time ratio cell
    for column in COLUMNS:
        assert column in done.stdout
    lines = done.stdout.splitlines()
    for row in rows:
        cells = row["cells"]
        assert any(cells["peer"] in line and cells["time ratio"] in line for line in lines)
