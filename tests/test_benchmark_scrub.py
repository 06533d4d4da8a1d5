"""Smoke tests of benchmarks/scrub.py: the worker's counts add up against the labelled log, the
table has its rows, and the script runs end to end at --quick size in child processes. Recall
and timings are never asserted here (tests/labelling/test_scrub_recall.py holds the targets)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import pii_log  # noqa: E402  (benchmarks/ is a folder of scripts, not a package)
import scrub as scrub_bench  # noqa: E402

OUTCOMES = ("removed", "partly", "missed")


def test_worker_counts_add_up_and_table_has_its_rows() -> None:
    result = scrub_bench.worker("ragsweep", quick=True, seed=0)
    rows = pii_log.build(0)[:: scrub_bench.QUICK_STEP]
    expected = Counter(i["kind"] for r in rows for i in r["items"])
    assert {k: c["items"] for k, c in result["kinds"].items() if c["items"]} == dict(expected)
    for c in list(result["kinds"].values()) + list(result["formats"].values()):
        assert sum(c.get(o, 0) for o in OUTCOMES) == c.get("items", 0)
    assert result["negatives"]["questions"] == sum(r["set"] == "negative" for r in rows)
    assert result["lines"] == len(rows) + scrub_bench.QUICK_SAMPLE
    assert 0 <= result["sample"]["flagged"] <= result["sample"]["clean"] < scrub_bench.QUICK_SAMPLE
    assert result["peak_mib"] >= result["base_mib"] > 0
    lines = scrub_bench.table([result, {"scrubber": "other", "error": "ModuleNotFoundError"}])
    header, rule, *body = lines.splitlines()
    assert [c.strip() for c in header.split("|")[1:-1]] == ["kind", "items", "ragsweep"]
    assert set(rule) == {"|", "-"}
    firsts = [row.split("|")[1].strip() for row in body if row.startswith("|")]
    assert firsts[: len(pii_log.KINDS)] == list(pii_log.KINDS)
    assert "FP: hard negatives losing a subject" in firsts
    assert body[-1] == "other: failed: ModuleNotFoundError"


@pytest.mark.slow
def test_script_quick_runs_each_scrubber_in_a_child(tmp_path: Path) -> None:
    out = tmp_path / "scrub.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "scrub.py"), "--quick", "--only", "ragsweep,scrubadub"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(out.read_text())["results"]
    assert [r["scrubber"] for r in results] == ["ragsweep", "scrubadub"]
    assert results[0]["kinds"] == scrub_bench.worker("ragsweep", quick=True, seed=0)["kinds"]
    assert done.stdout.splitlines()[0].split("|")[3].strip() == "ragsweep"
