"""The README's main job, end to end on the built-in sample: the Quickstart's sweep runs from
the shell, logs a per-slice comparison and a confirmation, and its runs reproduce bit for bit."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import SCRIPT, Store

README = Path(__file__).parents[1] / "README.md"
#: every quality metric of the README's chunk-size sweep, as logged before the restructuring
#: (issue 10): per configuration, its values and its comparison's deltas and bounds (on the
#: parent then, on its own run since issue 13), and the confirm run's (under `heldout/` now)
GOLDEN = Path(__file__).parent / "golden" / "chunk_size_golden.json"


def cell_numbers(cells, config: str, prefix: str = "") -> dict[str, float]:
    """A report's cells of `config` under the metric keys they were once logged as:
    `[prefix]delta|ci_low|ci_high/<measure key>/<stratum>`."""
    from ragsweep.measures import Measure

    out = {}
    for c in cells[cells["config"] == config].itertuples():
        key = f"{Measure.parse(c.measure).key}/{c.stratum}"
        for name in ("delta", "ci_low", "ci_high"):
            out[f"{prefix}{name}/{key}"] = float(getattr(c, name))
    return out


def quickstart_lines() -> list[str]:
    text = README.read_text()
    block = re.search(r"## Quickstart\s+```[a-z]*\n(.*?)```", text, re.S)
    assert block, "README has no Quickstart code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quickstart_has_exactly_two_lines():
    lines = quickstart_lines()
    assert len(lines) == 2
    assert "pip install" in lines[0] and "ragsweep" in lines[0].split("&&")[-1]
    assert "pytest" in lines[1]
    ci = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    assert "sed -n 2p" in ci  # CI runs the README's second line verbatim


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    """Run the main job (the last command of the Quickstart's first line) in a fresh folder."""
    workdir = tmp_path_factory.mktemp("quickstart")
    command = shlex.split(quickstart_lines()[0].split("&&")[-1].strip())
    assert command[0] == "ragsweep"
    env = {"CI": "true", "PATH": str(SCRIPT.parent), "HOME": str(workdir), "LANG": "C.UTF-8"}
    if "PYTHONPATH" in os.environ:  # the sources under test, when they are not the installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run(
        [str(SCRIPT), *command[1:]], cwd=workdir, capture_output=True, text=True, env=env
    )
    return workdir, done


@pytest.mark.slow
def test_main_job_logs_a_per_slice_comparison_and_a_confirmation(quickstart):
    workdir, done = quickstart
    assert done.returncode == 0, done.stderr[-3000:]
    for slice_ in ("limits", "exclusions", "procedures", "definitions", "identifiers"):
        assert slice_ in done.stdout
    assert "decision" in done.stdout and "confirm" in done.stdout
    assert "/#/experiments/" in done.stdout
    mc = Store(workdir).client
    exp = mc.get_experiment_by_name("sweep:chunk_size")
    runs = mc.search_runs([exp.experiment_id])
    stages = [r.data.tags.get("ragsweep.stage") for r in runs]
    assert stages.count("sweep") == 1 and stages.count("config") == 4
    parent = next(r for r in runs if r.data.tags["ragsweep.stage"] == "sweep")
    assert parent.info.status == "FINISHED"
    base = next(r for r in runs if r.data.tags.get("ragsweep.value") == "128")
    assert base.info.run_name == "chunker.size=128 (baseline)"
    assert (
        parent.data.metrics["baseline/recall_at_5/exclusions"]
        == (base.data.metrics["recall_at_5/exclusions"])
    )
    # the dev winner's numbers on the parent; each configuration's comparison on its own run
    assert parent.data.metrics["winner/recall_at_5/weighted"] == next(
        r.data.metrics["recall_at_5/weighted"]
        for r in runs
        if r.data.tags.get("ragsweep.value") == "512"
    )
    assert all(
        "delta/recall_at_5/exclusions" in r.data.metrics
        for r in runs
        if r.data.tags.get("ragsweep.stage") == "config"
    )
    counts = sorted(len(r.data.metrics) for r in runs)
    assert counts[-1] <= 150 and len(parent.data.metrics) <= 40, counts
    # per column (5 slices, all, weighted) its deciding measure, unjudged@5, the difference
    # and its interval; and 6 costs: the rest is in each run's results/metrics.csv
    config_counts = [len(r.data.metrics) for r in runs if r.data.tags["ragsweep.stage"] == "config"]
    assert config_counts == [7 * 5 + 6] * 4
    arts = {a.path for a in mc.list_artifacts(parent.info.run_id, "report")}
    assert {"report/report.html", "report/forest.png"} <= arts
    # on the sample, 512-word chunks beat the baseline on dev and are confirmed on held-out
    assert parent.data.tags["ragsweep.confirm"] == "confirmed: 512"
    (confirm,) = [r for r in runs if r.data.tags.get("ragsweep.stage") == "confirm"]
    assert confirm.data.tags["mlflow.parentRunId"] == parent.info.run_id
    assert confirm.data.tags["ragsweep.split_name"] == "heldout"
    assert confirm.data.tags["ragsweep.verdict"] == "confirmed"
    assert confirm.data.tags["ragsweep.winner"] == "512"
    assert confirm.info.run_name == "held-out confirm: 512 vs 128"
    # the confirm stage scored what the sweep had searched: every question's first-stage
    # lists and the chunks came from the cache, no index was built or loaded
    hits = sorted(confirm.data.tags["ragsweep.cache_hits"].split(","))
    assert hits == ["chunks", "first_stage_bm25_index", "first_stage_dense_index"], hits
    # what the sweep cost, and MLflow's part of it, on the parent run
    seconds = parent.data.metrics["cost/sweep_seconds"]
    in_mlflow = parent.data.metrics["cost/sweep_mlflow_seconds"]
    assert 0 < in_mlflow < seconds, (in_mlflow, seconds)
    # never "512 better" without its held-out verdict beside it
    decision = next(line for line in done.stdout.splitlines() if line.startswith("512: better"))
    after = done.stdout.splitlines()[done.stdout.splitlines().index(decision) + 1]
    assert after.strip().startswith("held-out: confirmed: weighted recall@5")


@pytest.mark.slow
def test_main_job_numbers_are_bit_identical_to_the_golden_file(quickstart):
    """Every quality metric of every configuration, comparison cell and the confirm run equals
    the value logged before the restructuring, bit for bit (floats compared with ==): what the
    runs log as metrics now, and the rest where it went (each run's results/metrics.csv, the
    report's cells report/report.csv)."""
    from ragsweep.compare.report import read_cells

    workdir, done = quickstart
    assert done.returncode == 0, done.stderr[-3000:]
    golden = json.loads(GOLDEN.read_text())
    store = Store(workdir)
    exp = store.client.get_experiment_by_name("sweep:chunk_size")
    runs = store.client.search_runs([exp.experiment_id])
    by_value = {
        r.data.tags["ragsweep.value"]: r
        for r in runs
        if r.data.tags.get("ragsweep.stage") == "config"
    }
    assert sorted(by_value) == sorted(golden["configs"])
    for value, expected in golden["configs"].items():
        numbers = store.measured(by_value[value])
        assert {k: numbers.get(k) for k in expected} == expected, value
        logged = by_value[value].data.metrics
        assert {k: logged[k] for k in expected if k in logged} == {
            k: v for k, v in expected.items() if k in logged
        }, value
    parent = next(r for r in runs if r.data.tags["ragsweep.stage"] == "sweep")
    cells = read_cells(store.download(parent.info.run_id, "report/report.csv", workdir / "dl"))
    for value, expected in golden["comparison"].items():  # each configuration's own cells
        found = cell_numbers(cells, value)
        assert {k: found.get(k) for k in expected} == expected, value
        logged = {k: v for k, v in by_value[value].data.metrics.items() if k in found}
        assert logged and logged == {k: expected[k] for k in logged}, value  # on its own run
    confirm = next(r for r in runs if r.data.tags["ragsweep.stage"] == "confirm")
    held = read_cells(store.download(confirm.info.run_id, "report/report.csv", workdir / "dl"))
    winner = confirm.data.tags["ragsweep.winner"]
    found = {
        **{f"heldout/{k}": v for k, v in store.measured(confirm).items()},
        **cell_numbers(held, winner, "heldout/"),
        **confirm.data.metrics,
    }
    assert {k: found.get(k) for k in golden["confirm"]} == golden["confirm"]
    logged = confirm.data.metrics
    assert {k: logged[k] for k in golden["confirm"] if k in logged} == {
        k: v for k, v in golden["confirm"].items() if k in logged
    }


@pytest.mark.slow
def test_quickstart_runs_reproduce_bit_for_bit(quickstart, monkeypatch, capsys):
    from ragsweep.cli import main

    workdir, done = quickstart
    assert done.returncode == 0, done.stderr[-3000:]
    monkeypatch.chdir(workdir)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    mc = Store(workdir).client
    exp = mc.get_experiment_by_name("sweep:chunk_size")
    runs = mc.search_runs([exp.experiment_id])
    child = next(r for r in runs if r.data.tags.get("ragsweep.value") == "256")
    assert main(["reproduce", child.info.run_id]) == 0
    for confirm in [r for r in runs if r.data.tags.get("ragsweep.stage") == "confirm"]:
        assert main(["reproduce", confirm.info.run_id]) == 0
    assert "identical" in capsys.readouterr().out


@pytest.mark.slow
def test_repeating_a_confirmation_neither_runs_nor_counts_again(quickstart, monkeypatch, capsys):
    from ragsweep.cli import main

    workdir, done = quickstart
    monkeypatch.chdir(workdir)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    mc = Store(workdir).client
    exp = mc.get_experiment_by_name("sweep:chunk_size")
    parent = mc.search_runs([exp.experiment_id], "tags.`ragsweep.stage` = 'sweep'")[0]
    if parent.data.tags["ragsweep.confirm"] == "no winner":
        pytest.skip("this sample's chunk-size sweep has no dev winner to confirm")
    assert main(["confirm", "chunk_size"]) in (0, 1)
    out = capsys.readouterr().out
    assert "being tuned on" not in out
    (confirm,) = mc.search_runs([exp.experiment_id], "tags.`ragsweep.stage` = 'confirm'")
    assert confirm.data.tags["ragsweep.confirmations"] == "1"
    assert f"as confirm run {confirm.info.run_id} found" in " ".join(out.split())
