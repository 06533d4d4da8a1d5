"""The tracking store through the command line: where runs go (./mlruns/mlflow.db by default,
MLFLOW_TRACKING_URI, tracking.uri), params as the flattened resolved config, runs too big for
one MLflow batch logged whole, and the `ragsweep ui` command line."""

from __future__ import annotations

import subprocess

import pytest
from omegaconf import OmegaConf

from conftest import Store
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
    from ragsweep.scoring.evaluate import compose

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


@pytest.mark.slow
def test_a_run_bigger_than_one_mlflow_batch_is_logged_whole(workdir, store):
    """MLflow takes at most 100 params and 1000 metrics per call: 120 extra params and 150
    measures x 7 rows (5 slices, all, weighted) = 1050 quality metrics need several."""
    cutoffs = range(1, 151)
    measures = "eval.measures=[" + ",".join(f"recall@{k}" for k in cutoffs) + "]"
    extra = [f"+extra.p{i:03d}={i}" for i in range(120)]
    assert main([*TOY, measures, *extra]) == 0
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


class FakeServer:
    """Stands in for the `mlflow server` process `ragsweep ui` starts: records its command."""

    launched: list[list[str]] = []

    def __init__(self, cmd: list[str], **kwargs: object) -> None:
        FakeServer.launched.append(cmd)
        self.pid = -1

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def poll(self) -> int:
        return 0


def test_ui_serves_the_default_store_on_loopback(workdir, store, monkeypatch, capsys):
    FakeServer.launched = launched = []
    monkeypatch.setattr(subprocess, "Popen", FakeServer)
    assert main(["ui", "--port", "5123"]) == 0
    (cmd,) = launched
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--port") + 1] == "5123"
    assert cmd[cmd.index("--backend-store-uri") + 1] == Store(workdir.resolve()).uri
    root = (workdir / "mlruns" / "artifacts").resolve().as_uri()
    assert cmd[cmd.index("--default-artifact-root") + 1] == root
    assert "http://127.0.0.1:5123" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--port", "notaport"], ["--bogus"]])
def test_ui_bad_arguments_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ui", *argv])
    assert exc.value.code == 2


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

    from ragsweep.errors import UserError
    from ragsweep.experiment import tracking
    from ragsweep.scoring.evaluate import compose

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
    with pytest.raises(UserError, match=f"nothing answers at {nobody} ") as refused:
        tracking.configured_store(compose([*TOY, "tracking=server"]).tracking)
    assert "\n" not in str(refused.value)
