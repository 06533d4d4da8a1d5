"""The tracking store through the command line: where runs go (./mlruns/mlflow.db by default,
MLFLOW_TRACKING_URI, tracking.uri), params as the flattened resolved config, runs too big for
one MLflow batch logged whole, what a run logs as metrics and what goes to its table of every
number (`tracking.metrics`); `ragsweep ui` is tests/cli/test_ui.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from omegaconf import OmegaConf

from conftest import COSTS
from ragsweep.cli import main
from toy import TOY


def runs_in(uri: str) -> list:
    from mlflow.tracking import MlflowClient

    mc = MlflowClient(uri)
    exp = mc.get_experiment_by_name("ragsweep")
    return [] if exp is None else list(mc.search_runs([exp.experiment_id]))


def test_store_defaults_to_sqlite_under_mlruns(workdir, store):
    assert main(TOY) == 0
    assert store.exists()
    run = store.only_run()
    artifacts = (workdir / "mlruns" / "artifacts").resolve().as_uri()
    assert run.info.artifact_uri.startswith(artifacts + "/"), run.info.artifact_uri
    assert (workdir / "mlruns" / ".gitignore").read_text() == "*\n!.gitignore\n"


@pytest.mark.slow
def test_the_environment_or_the_config_chooses_another_store(workdir, store, monkeypatch):
    env_db, cfg_db = f"sqlite:///{workdir / 'env.db'}", f"sqlite:///{workdir / 'cfg.db'}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", env_db)
    assert main(TOY) == 0
    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    assert main([*TOY, f"tracking.uri={cfg_db}"]) == 0
    assert [len(runs_in(env_db)), len(runs_in(cfg_db))] == [1, 1]
    assert not store.exists()  # nothing went to ./mlruns


def flat(node, prefix=""):
    for key, value in node.items():
        if isinstance(value, dict):
            yield from flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def test_params_are_the_flattened_resolved_config(workdir, store):
    from ragsweep.config import compose

    overrides = [*TOY, "chunker.size=48", "+x.api_key=zzz"]
    assert main(overrides) == 0
    params = store.only_run().data.params
    expected = {
        key: "null" if value is None else str(value)
        for key, value in flat(OmegaConf.to_container(compose(overrides), resolve=True))
        if key != "x.api_key"  # a key that looks secret is never logged
    }
    assert params == expected
    assert params["chunker.size"] == "48" and params["data.sha256"] == "null"


#: the toy's strata: its five slices, then `all` and `weighted`
STRATA = ["limits", "exclusions", "procedures", "definitions", "identifiers", "all", "weighted"]


def _machine(key: str) -> bool:
    """A number that measures the machine (a time), not the retrieval: differs run to run."""
    return key.startswith("seconds/") or key.endswith(("_seconds", "_ms"))


@pytest.mark.slow
def test_a_run_logs_its_deciding_measures_and_every_number_in_its_table(workdir, store, tmp_path):
    """By default a configuration run logs, per stratum, the measure deciding there (recall@5;
    RR on identifiers) and unjudged@5, and what it cost: 7 + 7 + 6 metrics. Every number it
    measured is in results/metrics.csv (and the UI's table results/metrics.json);
    `tracking.metrics=all` logs them all as metrics, with the same values."""
    assert main(TOY) == 0
    assert main([*TOY, "tracking.metrics=all"]) == 0
    by = {r.data.params["tracking.metrics"]: r for r in store.runs("ragsweep")}
    few, every = by["decision"], by["all"]
    assert few.data.tags["ragsweep.config_hash"] == every.data.tags["ragsweep.config_hash"]

    def table(run):
        path = store.download(run.info.run_id, "results/metrics.csv", tmp_path / run.info.run_id)
        rows = pd.read_csv(path, keep_default_na=False)
        return dict(zip(rows["key"], rows["value"], strict=True))

    few_table, every_table = table(few), table(every)
    deciding = {s: "mrr" if s == "identifiers" else "recall_at_5" for s in STRATA}
    expected = (
        {f"{m}/{s}" for s, m in deciding.items()}
        | {f"unjudged_at_5/{s}" for s in STRATA}
        | {f"cost/{c}" for c in COSTS}
    )
    assert set(few.data.metrics) == expected and len(expected) == 20
    assert few.data.metrics == {k: few_table[k] for k in expected}  # bit for bit
    # the full set: 9 measures x 7 strata, questions per slice, 6 timed stages, 2 tie counts
    assert every.data.metrics == every_table and len(every_table) == 63 + 5 + 6 + 2 + 6
    assert set(few_table) == set(every_table)
    same = [k for k in every_table if not _machine(k)]
    assert {k: few_table[k] for k in same} == {k: every_table[k] for k in same}
    assert sum(few_table[f"questions/{s}"] for s in STRATA[:5]) == 10  # the toy's questions
    # the MLflow table holds the same rows, for the UI's artifact view
    logged = json.loads(few.data.tags["mlflow.loggedArtifacts"])
    assert {"path": "results/metrics.json", "type": "table"} in logged
    shown = json.loads(
        store.download(few.info.run_id, "results/metrics.json", tmp_path).read_text()
    )
    assert [row[0] for row in shown["data"]] == sorted(few_table)


def test_a_bad_metrics_setting_is_refused_before_any_work(workdir, store, capsys):
    assert main([*TOY, "tracking.metrics=every"]) == 2
    err = capsys.readouterr().err
    assert "tracking.metrics must be decision or all, got 'every'" in err
    assert not store.exists()


@pytest.mark.slow
def test_a_run_bigger_than_one_mlflow_batch_is_logged_whole(workdir, store):
    """MLflow takes at most 100 params and 1000 metrics per call: 120 extra params and 150
    measures x 7 rows (5 slices, all, weighted) = 1050 quality metrics (all of them logged:
    `tracking.metrics=all`) need several."""
    cutoffs = range(1, 151)
    measures = "eval.measures=[" + ",".join(f"recall@{k}" for k in cutoffs) + "]"
    extra = [f"+extra.p{i:03d}={i}" for i in range(120)]
    assert main([*TOY, measures, *extra, "tracking.metrics=all"]) == 0
    run = store.only_run()
    assert {k: v for k, v in run.data.params.items() if k.startswith("extra.")} == {
        f"extra.p{i:03d}": str(i) for i in range(120)
    }
    rows = ["limits", "exclusions", "procedures", "definitions", "identifiers", "all", "weighted"]
    wanted = {f"recall_at_{k}/{row}" for k in cutoffs for row in rows}
    assert wanted <= set(run.data.metrics)
    # recall only grows with the cutoff, and reaches every labelled clause of the toy data
    for row in rows:
        values = [run.data.metrics[f"recall_at_{k}/{row}"] for k in cutoffs]
        assert values == sorted(values) and values[-1] == 1.0, row


@pytest.mark.parametrize(
    ("uri", "needle"),
    [
        (None, "tracking=server logs to the team's tracking server, and MLFLOW_TRACKING_URI is "),
        ("sqlite:///elsewhere.db", "needs a tracking server's http(s)://HOST:PORT"),
        ("http://me:hunter2@127.0.0.1:5999", "MLFLOW_TRACKING_URI holds a password"),
    ],
)
@pytest.mark.parametrize("sweep", [False, True])
def test_tracking_server_needs_a_server_uri(
    workdir, store, capsys, monkeypatch, uri, needle, sweep
):
    """tracking=server never falls back to ./mlruns, nor takes a password inside the URI
    (it would be written into every sweep's plan): one line, exit 2, nothing logged."""
    if uri is not None:
        monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    args = ["-m", *TOY, "chunker.size=32,48"] if sweep else TOY
    assert main([*args, "tracking=server"]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and len(err.splitlines()) == 1, err
    assert "hunter2" not in err
    assert not store.exists() and not (workdir / "elsewhere.db").exists()


def test_tracking_server_takes_its_uri_from_the_environment(monkeypatch):
    """The URI is $MLFLOW_TRACKING_URI, checked by asking the server's /health; a server that
    does not answer is refused in one line."""
    import http.server
    import socket
    import threading

    from ragsweep.config import compose
    from ragsweep.errors import UserError
    from ragsweep.experiment import tracking

    asked: list[str] = []

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            asked.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"OK")

        def log_message(self, *args: object) -> None:
            pass

    with http.server.HTTPServer(("127.0.0.1", 0), Health) as httpd:
        threading.Thread(target=httpd.handle_request, daemon=True).start()
        uri = f"http://127.0.0.1:{httpd.server_address[1]}"
        monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
        store = tracking.configured_store(compose([*TOY, "tracking=server"]).tracking)
    assert store == tracking.Store(uri, None) and asked == ["/health"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", nobody)
    with pytest.raises(
        UserError, match=f"cannot reach the tracking server at {nobody} "
    ) as refused:
        tracking.configured_store(compose([*TOY, "tracking=server"]).tracking)
    assert "\n" not in str(refused.value)


#: in a fresh interpreter: MLflow imported in a thread while a block runs, joined however the
#: block ends; nothing imported when nothing is logged; a server needs no SQLAlchemy store
_MEANWHILE = """
import sys, threading
from ragsweep.experiment import tracking

with tracking.imported_meanwhile(None):
    assert threading.active_count() == 1
assert "mlflow" not in sys.modules

store = tracking.resolve_store(sys.argv[1])
try:
    with tracking.imported_meanwhile(store):
        names = [t.name for t in threading.enumerate()]
        raise RuntimeError("the evaluation failed")
except RuntimeError:
    pass
print(names.count("ragsweep-import-mlflow"), threading.active_count(),
      "mlflow.tracking" in sys.modules,
      "mlflow.store.tracking.sqlalchemy_store" in sys.modules)
"""


@pytest.mark.parametrize(
    ("uri", "sqlalchemy"),
    [("sqlite:////nonexistent/mlflow.db", True), ("http://127.0.0.1:9", False)],
)
def test_mlflow_is_imported_in_a_thread_while_the_evaluation_runs(uri, sqlalchemy):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _MEANWHILE, uri], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1", "True", str(sqlalchemy)]


#: in a fresh interpreter: a single run's MLflow import and store opening wait for the core the
#: evaluation lends (`retrieval.idle`), or for the block's end; a block that fails first leaves
#: MLflow unimported and no store created
_OPENED = """
import sys, threading
from pathlib import Path
from ragsweep.experiment import tracking
from ragsweep.retrieval import idle

folder = Path(sys.argv[1])
failed = tracking.resolve_store(f"sqlite:///{folder / 'failed' / 'mlflow.db'}")
try:
    with tracking.opened_meanwhile(failed):
        raise RuntimeError("the evaluation failed")
except RuntimeError:
    pass
print("failed", "mlflow" in sys.modules, (folder / "failed").exists())

store = tracking.resolve_store(f"sqlite:///{folder / 'lent' / 'mlflow.db'}")
with tracking.opened_meanwhile(store):
    before = "mlflow" in sys.modules
    with idle.lent_core():
        for _ in range(600):
            if (folder / "lent" / "mlflow.db").exists():
                break
            threading.Event().wait(0.1)
    during = (folder / "lent" / "mlflow.db").exists()
print("lent", before, during, "mlflow.store.tracking.sqlalchemy_store" in sys.modules)

never = tracking.resolve_store(f"sqlite:///{folder / 'never' / 'mlflow.db'}")
with tracking.opened_meanwhile(never):
    pass
print("never", (folder / "never" / "mlflow.db").exists(), threading.active_count())
"""


def test_a_single_runs_store_is_opened_on_the_lent_core_or_after_the_evaluation(tmp_path):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", _OPENED, str(tmp_path)], capture_output=True, text=True, timeout=180
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == [
        "failed False False",
        "lent False True True",
        "never True 1",
    ]
