"""The decision is where users look in the MLflow UI: the sweep's parent run's description
(`mlflow.note.content`, markdown on the run's page) holds the held-out verdict and the decision
table; each configuration run says what it changed and its decision, and the tag
`ragsweep.decision` lets the runs table be filtered by it."""

from __future__ import annotations

import json

import pytest

from conftest import cli_in
from toy import HELDOUT_WINNER

NOTE = "mlflow.note.content"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    folder = tmp_path_factory.mktemp("described")
    ran = cli_in(folder, "-m", *HELDOUT_WINNER, "fusion.k=1,60").ok()
    return ran


@pytest.mark.slow
def test_the_parent_run_describes_the_decisions_and_the_held_out_verdict(sweep):
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    note = parent.data.tags[NOTE]
    (confirm,) = store.runs("sweep:fusion.k", "confirm")
    verdict, winner = confirm.data.tags["ragsweep.verdict"], confirm.data.tags["ragsweep.winner"]
    assert f"**Held-out confirmation:** `{winner}` is **{verdict}** on the held-out" in note
    report = json.loads(
        store.download(parent.info.run_id, "report/report.json", sweep.folder / "dl").read_text()
    )
    for d in report["decisions"]:
        assert f"| {d['config']} | **{d['decision']}** |" in note
    assert "| 60 (baseline) |" in note and "report/report.html" in note


@pytest.mark.slow
def test_each_configuration_run_says_what_it_changed_and_its_decision(sweep):
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    report = json.loads(
        store.download(parent.info.run_id, "report/report.json", sweep.folder / "dl2").read_text()
    )
    decided = {d["config"]: d["decision"] for d in report["decisions"]}
    runs = store.by_value("sweep:fusion.k")
    assert runs["60"].data.tags[NOTE].startswith("**Baseline** of the sweep: `fusion.k=60`")
    assert "ragsweep.decision" not in runs["60"].data.tags
    for value, decision in decided.items():
        tags = runs[value].data.tags
        assert tags["ragsweep.decision"] == decision
        assert tags[NOTE].startswith(f"`fusion.k={value}` against the baseline `fusion.k=60`")
    filtered = store.client.search_runs(
        [parent.info.experiment_id],
        filter_string=f"tags.`ragsweep.decision` = '{decided['1']}'",
    )
    assert [r.data.tags["ragsweep.value"] for r in filtered] == ["1"]
