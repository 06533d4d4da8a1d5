"""`ragsweep reproduce`: a logged run comes back bit for bit from MLflow alone; data that moved
is refused; a changed number is reported with exit code 1."""

from __future__ import annotations

import pytest

from ragsweep.cli import main
from toy import TOY


@pytest.fixture
def logged(workdir, store):
    assert main([*TOY, "chunker.size=48", "reranker=proximity"]) == 0
    return store.client, store.only_run()


def test_a_logged_run_reproduces_bit_for_bit(logged, capsys):
    client, run = logged
    assert main(["reproduce", run.info.run_id]) == 0
    out = capsys.readouterr().out
    assert "identical" in out
    runs = client.search_runs([run.info.experiment_id])
    (rep,) = [r for r in runs if r.data.tags.get("ragsweep.reproduces") == run.info.run_id]
    assert rep.data.tags["ragsweep.reproduced_identically"] == "true"
    quality = {k: v for k, v in run.data.metrics.items() if not k.startswith(("seconds/", "cost/"))}
    assert quality and all(rep.data.metrics[k] == v for k, v in quality.items())


def test_changed_labels_are_refused(logged, capsys):
    client, run = logged
    client.set_tag(run.info.run_id, "ragsweep.labels", "f" * 64)
    assert main(["reproduce", run.info.run_id, "--no-log"]) == 2
    err = capsys.readouterr().err.strip()
    assert "labelled set" in err and len(err.splitlines()) == 1


def test_a_different_number_exits_1_with_a_table(logged, capsys):
    client, run = logged
    client.log_metric(run.info.run_id, "recall_at_5/all", 0.123456)
    assert main(["reproduce", run.info.run_id, "--no-log"]) == 1
    out = capsys.readouterr().out
    assert "recall_at_5/all" in out and "0.123456" in out


def test_unknown_run_is_a_user_error(logged, capsys):
    assert main(["reproduce", "0" * 32]) == 2
    assert "no run" in capsys.readouterr().err


def test_reproduce_in_a_folder_without_a_store_creates_none(workdir, store, capsys):
    assert main(["reproduce", "0123456789abcdef0123456789abcdef"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no MLflow store" in err
    assert not store.exists() and not (workdir / "mlruns").exists()
