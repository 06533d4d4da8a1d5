"""The decision is where users look in the MLflow UI: the sweep's parent run's description
(`mlflow.note.content`, markdown on the run's page) holds the held-out verdict and the decision
table; each configuration run says what it changed and its decision, and the tag
`ragsweep.decision` lets the runs table be filtered by it."""

from __future__ import annotations

import json
import re

import pytest

from conftest import COSTS, Store, cli_in
from ragsweep.compare.report import read_cells
from ragsweep.measures import Measure
from toy import HELDOUT_WINNER, SMALL_CHUNKS, TINY, TOY

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
def test_each_configuration_run_starts_with_its_decision_and_what_held_out_said(sweep):
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    (confirm,) = store.runs("sweep:fusion.k", "confirm")
    report = json.loads(
        store.download(parent.info.run_id, "report/report.json", sweep.folder / "dl2").read_text()
    )
    decided = {d["config"]: d for d in report["decisions"]}
    runs = store.by_value("sweep:fusion.k")
    assert runs["60"].data.tags[NOTE].startswith("**Baseline** of the sweep: `fusion.k=60`")
    assert runs["60"].info.run_name == "fusion.k=60 (baseline)"
    assert runs["60"].data.tags["ragsweep.decision"] == "baseline"
    held = confirm.data.tags["ragsweep.verdict"]  # confirmed | not confirmed
    assert confirm.data.tags["ragsweep.winner"] == "1"
    d = decided["1"]
    tags = runs["1"].data.tags
    assert d["decision"] == "better"  # the toy's dev winner
    assert tags["ragsweep.decision"] == "better"
    assert tags["ragsweep.heldout"] == held  # the confirm run's own word: one filter finds both
    assert tags["ragsweep.verdict"].startswith(f"better, {held} on held-out: weighted recall@1 ")
    assert tags[NOTE].startswith(f"**better** on dev, **{held} on held-out** (")
    assert "`fusion.k=1` against the baseline `fusion.k=60` on dev" in tags[NOTE]
    shown = f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"
    assert tags["ragsweep.headline"] == shown  # 3 decimals, as the report prints it
    assert tags["ragsweep.guard"].startswith("exclusions ")
    filtered = store.client.search_runs(
        [parent.info.experiment_id], filter_string="tags.`ragsweep.dev_winner` = 'true'"
    )
    assert [r.data.tags["ragsweep.value"] for r in filtered] == ["1"]
    assert "ragsweep.dev_winner" not in runs["60"].data.tags


@pytest.mark.slow
def test_every_file_the_parent_description_names_was_logged(sweep):
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    named = set(re.findall(r"`(report/[^`]+)`", parent.data.tags[NOTE]))
    logged = {f.path for f in store.client.list_artifacts(parent.info.run_id, "report")}
    assert {"report/report.html", "report/report.md", "report/report.csv"} <= named
    assert named <= logged, named - logged


@pytest.mark.slow
def test_the_launch_view_lists_its_configuration_runs_best_first(sweep):
    """The saved view the printed link opens (`experiment.view`): its filter finds this
    launch's configuration runs and nothing else, and the experiment's description says the
    launch's answer."""
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    exp = store.client.get_experiment(parent.info.experiment_id)
    pid = parent.info.run_id
    assert f"viewStateShareKey={pid}" in sweep.out  # the printed link opens it
    state = json.loads(exp.tags[f"mlflow.sharedViewState.{pid}"])
    found = store.client.search_runs(
        [exp.experiment_id], filter_string=state["searchFilter"], order_by=[state["orderByKey"]]
    )
    runs = store.by_value("sweep:fusion.k")
    assert {r.info.run_id for r in found} == {r.info.run_id for r in runs.values()}
    assert state["orderByKey"] == "metrics.`delta/recall_at_1/weighted`"
    assert state["selectedColumns"][:4] == [
        f"tags.`ragsweep.{c}`" for c in ("decision", "heldout", "headline", "guard")
    ]
    assert exp.tags[NOTE].startswith(f"{parent.info.run_name}: 1 is better, ")
    assert parent.info.run_name.startswith("fusion.k #1 data=folder data.path=")


def _report(sweep, name):
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    path = store.download(parent.info.run_id, "report/report.json", sweep.folder / name)
    return json.loads(path.read_text())


@pytest.mark.slow
def test_each_configuration_run_carries_its_own_difference_and_interval(sweep):
    """The runs table sorts by `delta/...` of the decision measure: each configuration's own
    paired difference and bounds are on its run, equal to the report's cells."""
    (parent,) = sweep.store.runs("sweep:fusion.k", "sweep")
    cells = read_cells(
        sweep.store.download(parent.info.run_id, "report/report.csv", sweep.folder / "dl3")
    )
    cells = cells[cells["config"] == "1"]
    assert len(cells) >= 2 * cells["stratum"].nunique()  # every measure shown, every column
    runs = sweep.store.by_value("sweep:fusion.k")
    metrics = runs["1"].data.metrics
    # the measure deciding each column (recall@1, RR on identifiers) is on the run; the
    # others shown beside it are in the report's cells (tracking.metrics=all logs them too)
    deciding = {s: "mrr" if s == "identifiers" else "recall_at_1" for s in cells["stratum"]}
    keys = cells["measure"].map(lambda m: Measure.parse(m).key)
    logged = cells[keys == cells["stratum"].map(deciding)]
    assert len(logged) == len(deciding) < len(cells)
    for c in logged.itertuples():
        key = f"{Measure.parse(c.measure).key}/{c.stratum}"
        assert metrics[f"delta/{key}"] == c.delta, key  # bit for bit
        assert metrics[f"ci_low/{key}"] == c.ci_low, key
        assert metrics[f"ci_high/{key}"] == c.ci_high, key
    # and nothing else: per column its deciding measure, unjudged@1 and the difference with
    # its interval, then what the configuration cost
    per_column = {
        f"{prefix}{key}/{s}"
        for s, key in deciding.items()
        for prefix in ("", "delta/", "ci_low/", "ci_high/")
    } | {f"unjudged_at_1/{s}" for s in deciding}
    assert set(metrics) == per_column | {f"cost/{c}" for c in COSTS}
    assert len(metrics) == 5 * len(deciding) + 6
    assert {metrics[f"delta/{k}"] for k in ("recall_at_1/all", "recall_at_1/exclusions")} != {0}
    base = runs["60"].data.metrics
    assert base["delta/recall_at_1/all"] == base["ci_high/recall_at_1/all"] == 0.0
    ordered = store_order(sweep, "metrics.`delta/recall_at_1/all` DESC")
    assert ordered == sorted(ordered, key=lambda v: -runs[v].data.metrics["delta/recall_at_1/all"])


def store_order(sweep, order):
    (parent,) = sweep.store.runs("sweep:fusion.k", "sweep")
    runs = sweep.store.client.search_runs(
        [parent.info.experiment_id],
        filter_string="tags.`ragsweep.stage` = 'config'",
        order_by=[order],
    )
    return [r.data.tags["ragsweep.value"] for r in runs]


COST = {"cost/sweep_seconds", "cost/sweep_mlflow_seconds"}


@pytest.mark.slow
def test_no_run_holds_more_than_150_metrics_and_the_parent_only_a_summary(sweep):
    runs = sweep.store.runs("sweep:fusion.k")
    counts = {r.info.run_name: len(r.data.metrics) for r in runs}
    assert max(counts.values()) <= 150, counts
    (parent,) = sweep.store.runs("sweep:fusion.k", "sweep")
    keys = set(parent.data.metrics)
    assert len(keys) <= 40, sorted(keys)
    # the baseline's and the winner's numbers, and what the sweep cost
    assert all(k.startswith(("baseline/", "winner/")) for k in keys - COST), sorted(keys)
    assert COST <= keys
    base = sweep.store.by_value("sweep:fusion.k")["60"].data.metrics
    assert parent.data.metrics["baseline/recall_at_1/all"] == base["recall_at_1/all"]


@pytest.mark.slow
def test_the_confirm_run_is_visibly_held_out(sweep):
    (confirm,) = sweep.store.runs("sweep:fusion.k", "confirm")
    assert confirm.info.run_name == "held-out confirm: 1 vs 60"
    keys = set(confirm.data.metrics)
    assert keys and all(k.startswith("heldout/") for k in keys), sorted(keys)[:5]
    assert "heldout/recall_at_1/all" in keys and "recall_at_1/all" not in keys
    assert {"heldout/delta/recall_at_1/all", "heldout/baseline/recall_at_1/all"} <= keys
    verdict = confirm.data.tags["ragsweep.verdict"]
    assert confirm.data.tags[NOTE].startswith("**Held-out confirmation**")
    # the dev report logged to the parent states the verdict next to the dev decision
    report = _report(sweep, "dl4")
    assert report["heldout"]["1"].startswith(
        "confirmed:" if verdict == "confirmed" else "not confirmed:"
    )
    md = sweep.store.download(
        sweep.store.runs("sweep:fusion.k", "sweep")[0].info.run_id,
        "report/report.md",
        sweep.folder / "dl5",
    ).read_text()
    assert f"| 1 | **better** | {report['heldout']['1']} |" in md
    assert "held-out: " in sweep.out


@pytest.mark.slow
def test_runs_name_their_datasets_and_log_a_question_table(sweep):
    run = sweep.store.by_value("sweep:fusion.k")["1"]
    tags = run.data.tags
    inputs = {d.dataset.name: d for d in run.inputs.dataset_inputs}
    assert sorted(inputs) == ["tiny corpus", "tiny labels"]
    corpus, labels = inputs["tiny corpus"], inputs["tiny labels"]
    assert corpus.dataset.digest == tags["ragsweep.snapshot"][:36]
    assert labels.dataset.digest == tags["ragsweep.labels"][:36]
    assert json.loads(corpus.dataset.source)["uri"] == str(TINY.resolve())
    contexts = {t.key: t.value for t in corpus.tags}
    assert contexts["mlflow.data.context"] == "dev"
    (confirm,) = sweep.store.runs("sweep:fusion.k", "confirm")
    held = {t.value for d in confirm.inputs.dataset_inputs for t in d.tags}
    assert held == {"heldout"}
    table = json.loads(
        sweep.store.download(
            run.info.run_id, "results/questions.json", sweep.folder / "dl6"
        ).read_text()
    )
    per_q = sweep.store.per_question(run.info.run_id, sweep.folder / "dl7")
    columns = table["columns"]
    rows = [dict(zip(columns, row, strict=True)) for row in table["data"]]
    assert [r["qid"] for r in rows] == list(per_q["qid"])
    assert [r["recall@1"] for r in rows] == list(per_q["recall@1"])
    assert "results/questions.json" in tags["mlflow.loggedArtifacts"]


@pytest.mark.slow
def test_a_second_launch_is_told_apart_from_the_first(tmp_path):
    """Two launches of one sweep with different shared overrides: each parent run has its own
    name, each printed link opens its own runs, and the experiment's description names the
    latest; launching the first again resumes it under its name."""
    base = ["-m", *TOY, "confirm.enabled=false", "fusion.k=1,60"]
    first = cli_in(tmp_path, *base).ok()
    second = cli_in(tmp_path, *base, *SMALL_CHUNKS).ok()
    again = cli_in(tmp_path, *base).ok()
    store = Store(tmp_path)
    parents = store.runs("sweep:fusion.k", "sweep")
    names = sorted(p.info.run_name for p in parents)
    assert len(parents) == 2 and names[0].startswith("fusion.k #1 data=folder")
    assert names[1].startswith("fusion.k #2 data=folder") and names[0] != names[1]
    links = [re.findall(r"viewStateShareKey=(\w+)", r.out) for r in (first, second, again)]
    assert links[0] == links[2] != links[1]  # the relaunch resumed the first launch
    exp = store.client.get_experiment(parents[0].info.experiment_id)
    for (key,) in links[:2]:
        state = json.loads(exp.tags[f"mlflow.sharedViewState.{key}"])
        found = store.client.search_runs([exp.experiment_id], state["searchFilter"])
        assert len(found) == 2 and {r.data.tags["mlflow.parentRunId"] for r in found} == {key}
    latest = store.client.get_run(links[2][0]).info.run_name
    assert exp.tags[NOTE].startswith(f"{latest}: ")
    assert f"see {latest} with `ragsweep ui`" in again.out


def test_a_long_override_is_cut_in_a_launch_name_not_dropped():
    """A path longer than a name can show (a CI runner's temporary folder) still shows how it
    starts, so the name says which overrides the launch added."""
    from types import SimpleNamespace

    from ragsweep.experiment.launch import launch_name

    long = "data.path=/tmp/pytest-of-runner/pytest-324/described0/" + "x" * 80
    d = SimpleNamespace(name="fusion.k", fixed=["sweep=fusion_k", "data=folder", long])
    name = launch_name(d, 3)
    assert name.startswith("fusion.k #3 data=folder data.path=/tmp/pytest-of-runner/")
    assert name.endswith("…") and len(name) == len("fusion.k #3 ") + 60
    short = SimpleNamespace(name="chunk_size", fixed=["sweep=chunk_size", "eval.k_prompt=6"])
    assert launch_name(short, 2) == "chunk_size #2 eval.k_prompt=6"


class _CreatedMeanwhile:
    """A store on which another launch creates each tag between our read and our insert: the
    first write of a key is refused as MLflow refuses a duplicate key, later ones succeed."""

    def __init__(self) -> None:
        self.tags: dict[str, str] = {}

    def set_experiment_tag(self, experiment_id: str, key: str, value: str) -> None:
        from mlflow.exceptions import MlflowException

        if key not in self.tags:
            self.tags[key] = "the other launch's"
            raise MlflowException("duplicate key value violates unique constraint")
        self.tags[key] = value


def test_two_launches_finishing_at_once_both_set_the_experiments_shared_tags():
    from ragsweep.experiment.view import KIND, KIND_TAG, set_shared_tag

    store = _CreatedMeanwhile()
    set_shared_tag(store, "4", KIND_TAG, KIND)
    set_shared_tag(store, "4", "mlflow.note.content", "ours")
    assert store.tags == {KIND_TAG: KIND, "mlflow.note.content": "ours"}


@pytest.mark.slow
def test_what_flipped_is_logged_as_a_table_beside_the_report(sweep):
    """The parent run's `report/flipped.json` (an MLflow table: the UI's artifact view shows
    it) holds the report's flipped rows; the confirm run logs its own."""
    store = sweep.store
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    report = _report(sweep, "dl-flips")
    path = store.download(parent.info.run_id, "report/flipped.json", sweep.folder / "dl-flips")
    table = json.loads(path.read_text())
    rows = [dict(zip(table["columns"], row, strict=True)) for row in table["data"]]
    assert rows == report["flipped"] and rows  # fusion.k=1 moves an exclusions question
    assert {"path": "report/flipped.json", "type": "table"} in json.loads(
        parent.data.tags["mlflow.loggedArtifacts"]
    )
    lost = [r for r in rows if r["config"] == "1" and r["change"] == "lost"]
    assert all(r["candidate"] < r["baseline"] for r in lost)
    assert all(r["question"] and r["baseline_top"].startswith("1. ") for r in rows)
    (confirm,) = store.runs("sweep:fusion.k", "confirm")
    held = store.download(confirm.info.run_id, "report/flipped.json", sweep.folder / "dl-held")
    assert json.loads(held.read_text())["columns"][:4] == ["config", "slice", "qid", "change"]
