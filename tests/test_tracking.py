"""MLflow store resolution, secret filtering, batch logging, the UI command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragsweep.cli.ui import build_command
from ragsweep.experiment import tracking


def test_store_defaults_to_sqlite_under_mlruns(tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    store = tracking.resolve_store(workdir=tmp_path)
    assert store.uri == f"sqlite:///{tmp_path.resolve()}/mlruns/mlflow.db"
    assert store.artifact_root == (tmp_path.resolve() / "mlruns" / "artifacts").as_uri()
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "http://127.0.0.1:5999")
    assert tracking.resolve_store(workdir=tmp_path).uri == "http://127.0.0.1:5999"
    assert tracking.resolve_store("sqlite:///x.db", workdir=tmp_path).uri == "sqlite:///x.db"


def test_flatten_drops_secrets_and_keeps_order_stable():
    cfg = {
        "b": {"api_key": "sk-123", "y": [1, 2], "x": None},
        "a": 1,
        "tracking": {"token": "t", "uri": "u", "password": "p"},
        "embedder": {"HF_TOKEN": "hf_x", "dim": 256},
    }
    flat = tracking.flatten(cfg)
    assert flat == {
        "a": "1",
        "b.x": "null",
        "b.y": "[1, 2]",
        "embedder.dim": "256",
        "tracking.uri": "u",
    }
    assert list(flat) == sorted(flat)


def test_log_run_writes_params_tags_metrics_artifacts(tmp_path):
    from mlflow.tracking import MlflowClient

    store = tracking.resolve_store(workdir=tmp_path)
    exp = tracking.prepare(store, "t")
    assert tracking.prepare(store, "t") == exp  # idempotent
    art = tmp_path / "a.txt"
    art.write_text("hello")
    params = {f"p{i:03d}": str(i) for i in range(250)}  # more than one batch
    metrics = {f"m{i:04d}/all": i / 10 for i in range(1200)}
    run_id = tracking.log_run(
        store,
        exp,
        run_name="r",
        params=params,
        tags={"ragsweep.stage": "config"},
        metrics=metrics,
        artifacts={"files": art},
    )
    run = MlflowClient(store.uri).get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.info.experiment_id == exp
    assert run.data.params == params
    assert run.data.metrics == metrics
    assert run.data.tags["ragsweep.stage"] == "config"
    local = Path(MlflowClient(store.uri).download_artifacts(run_id, "files/a.txt", str(tmp_path)))
    assert local.read_text() == "hello"
    assert (tmp_path / "mlruns" / ".gitignore").exists()


def test_ui_binds_to_loopback_by_default(tmp_path):
    store = tracking.resolve_store(workdir=tmp_path)
    cmd = build_command(store, "127.0.0.1", 5123)
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--backend-store-uri") + 1] == store.uri
    assert cmd[cmd.index("--port") + 1] == "5123"


@pytest.mark.parametrize("argv", [["--port", "notaport"], ["--bogus"]])
def test_ui_bad_arguments_exit_2(argv, capsys):
    from ragsweep.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["ui", *argv])
    assert exc.value.code == 2
