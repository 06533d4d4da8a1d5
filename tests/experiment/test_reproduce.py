"""`ragsweep reproduce`: a logged run comes back bit for bit from MLflow alone; data that moved
is refused; a changed number is reported with exit code 1."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ragsweep.cli import main
from toy import TOY

#: numbers that measure the machine (times), not the retrieval: they differ run to run
MACHINE = ("seconds/", "cost/")


@pytest.fixture
def logged(workdir, store):
    assert main([*TOY, "chunker.size=48", "reranker=proximity"]) == 0
    return store.client, store.only_run()


def test_a_logged_run_reproduces_bit_for_bit(logged, store, capsys):
    client, run = logged
    assert main(["reproduce", run.info.run_id]) == 0
    out = capsys.readouterr().out
    assert "identical" in out
    runs = client.search_runs([run.info.experiment_id])
    (rep,) = [r for r in runs if r.data.tags.get("ragsweep.reproduces") == run.info.run_id]
    assert rep.data.tags["ragsweep.reproduced_identically"] == "true"
    assert set(rep.data.metrics) == set(run.data.metrics)  # the few it logged, again
    numbers = {k: v for k, v in store.measured(run).items() if not k.startswith(MACHINE)}
    again = store.measured(rep)
    assert len(numbers) > len(run.data.metrics)  # every number, not only the logged few
    assert numbers == {k: again[k] for k in numbers}


@pytest.mark.slow
def test_the_metrics_setting_is_reproduced_and_leaves_the_config_hash(workdir, store, capsys):
    """A run logged with tracking.metrics=all is reproduced with every number as a metric; the
    setting changes no number, so it is no part of the config hash."""
    assert main([*TOY, "tracking.metrics=all"]) == 0
    run = store.only_run()
    assert main(["reproduce", run.info.run_id]) == 0
    assert "identical" in capsys.readouterr().out
    (rep,) = [r for r in store.runs("ragsweep") if r.info.run_id != run.info.run_id]
    assert rep.data.params["tracking.metrics"] == "all"
    assert set(rep.data.metrics) == set(run.data.metrics) == set(store.measured(run))
    same = [k for k in run.data.metrics if not k.startswith(MACHINE)]
    assert {k: rep.data.metrics[k] for k in same} == {k: run.data.metrics[k] for k in same}
    assert main([*TOY]) == 0
    hashes = {r.data.tags["ragsweep.config_hash"] for r in store.runs("ragsweep")}
    assert len(hashes) == 1


def test_changed_labels_are_refused(logged, capsys):
    client, run = logged
    client.set_tag(run.info.run_id, "ragsweep.labels", "f" * 64)
    assert main(["reproduce", run.info.run_id, "--no-log"]) == 2
    err = capsys.readouterr().err.strip()
    assert "labelled set" in err and len(err.splitlines()) == 1


def test_a_different_number_exits_1_with_a_table(logged, capsys, tmp_path):
    client, run = logged
    # every number the run measured is in its results/metrics.csv: change one there
    path = Path(client.download_artifacts(run.info.run_id, "results/metrics.csv", str(tmp_path)))
    table = pd.read_csv(path)
    table.loc[table["key"] == "ndcg_at_10/all", "value"] = 0.123456
    table.to_csv(path, index=False)
    client.log_artifact(run.info.run_id, str(path), "results")
    assert main(["reproduce", run.info.run_id, "--no-log"]) == 1
    out = capsys.readouterr().out
    assert "ndcg_at_10/all" in out and "0.123456" in out


def test_unknown_run_is_a_user_error(logged, capsys):
    assert main(["reproduce", "0" * 32]) == 2
    assert "no run" in capsys.readouterr().err


def test_reproduce_in_a_folder_without_a_store_creates_none(workdir, store, capsys):
    assert main(["reproduce", "0123456789abcdef0123456789abcdef"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no MLflow store" in err
    assert not store.exists() and not (workdir / "mlruns").exists()
