"""`ragsweep ui [SWEEP]` serves the store on 127.0.0.1 with one server worker, no background job
runner and no telemetry, refuses a folder with no store (creating nothing) and a port in use,
prints the link of a sweep's latest launch (named, or the latest of any sweep) once the server
answers, and a logged run is all there."""

from __future__ import annotations

import functools
import json
import re
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import SCRIPT, cli_in
from procs import descendants, running
from ragsweep.cli import main, ui
from ragsweep.experiment import landing, tracking
from served import free_port, serve_ui, stop_ui
from toy import TOY

LOCAL = "http://127.0.0.1:5000"
LINK = re.compile(
    r"see (?P<what>.+) with `ragsweep ui`, then http://127\.0\.0\.1:5000(?P<page>/\S+)"
)


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as r:  # noqa: S310 (loopback only)
        return json.loads(r.read().decode() or "{}")


def environ(pid: int) -> dict[str, str]:
    """A process's environment, from /proc."""
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if item)


@pytest.mark.slow
def test_ui_shows_the_run(workdir):
    assert main(TOY) == 0
    served = serve_ui(workdir)
    proc, base = served.proc, served.base
    try:
        # no sweep in the store: the experiments list, not MLflow's GenAI home
        assert served.link == f"{base}/#/experiments?workflowType=machine_learning"
        exps = get(f"{base}/api/2.0/mlflow/experiments/get-by-name?experiment_name=ragsweep")
        exp_id = exps["experiment"]["experiment_id"]
        req = urllib.request.Request(
            f"{base}/api/2.0/mlflow/runs/search",
            data=json.dumps({"experiment_ids": [exp_id]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=5) as r:  # noqa: S310
            runs = json.loads(r.read().decode())["runs"]
        assert len(runs) == 1
        data = runs[0]["data"]
        run_id = runs[0]["info"]["run_id"]
        assert any(p["key"] == "chunker.size" for p in data["params"])
        assert any(t["key"] == "ragsweep.snapshot" for t in data["tags"])
        assert any(m["key"] == "recall_at_5/exclusions" for m in data["metrics"])
        arts = get(f"{base}/ajax-api/2.0/mlflow/artifacts/list?run_id={run_id}")
        assert {"config", "results", "hydra"} <= {f["path"] for f in arts["files"]}
        # SIGTERM to `ragsweep ui` alone stops the whole server tree (its workers included)
        family = descendants(proc.pid)
        assert family, "the UI started no server process"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0  # asked to stop: not a failure
        deadline = time.monotonic() + 10
        while running(family) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert running(family) == set(), "server processes outlived `ragsweep ui`"
    finally:
        stop_ui(proc)


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory):
    """A store holding two sweeps, `chunker.size` launched after `fusion.k`: what each printed
    (its launch's name, its page)."""
    folder = tmp_path_factory.mktemp("two-sweeps")
    printed = {}
    for name, values in (("fusion.k", "fusion.k=1,60"), ("chunker.size", "chunker.size=32,48")):
        ran = cli_in(folder, "-m", *TOY, "confirm.enabled=false", values).ok()
        (printed[name],) = LINK.findall(ran.out)
    return folder, printed


@pytest.mark.slow
def test_ui_lands_on_the_latest_launch_with_one_worker_and_no_job_runner(two_sweeps):
    folder, printed = two_sweeps
    served = serve_ui(folder)
    try:
        assert (served.what, served.link) == (
            printed["chunker.size"][0],
            served.base + printed["chunker.size"][1],
        )
        assert "viewStateShareKey=" in served.link  # the view the launch saved
        # the server and its one uvicorn worker: no job runner, no second worker
        tree = {pid: cmdline(pid) for pid in descendants(served.proc.pid)}
        assert len(tree) == 2, tree
        (server,) = [pid for pid, line in tree.items() if " -m mlflow server " in line]
        assert any("uvicorn" in line and "--workers 1 " in line for line in tree.values())
        env = environ(server)
        assert env[ui.JOBS] == "false" and env[ui.TELEMETRY] == "true"
    finally:
        assert stop_ui(served.proc) == 0


@pytest.mark.slow
def test_ui_lands_on_a_named_sweep_and_refuses_an_unknown_one(two_sweeps):
    folder, printed = two_sweeps
    served = serve_ui(folder, "fusion.k")
    try:
        assert (served.what, served.link) == (
            printed["fusion.k"][0],
            served.base + printed["fusion.k"][1],
        )
    finally:
        stop_ui(served.proc)
    # a parent run id names its launch (here, in process: no server needed to find the link)
    pid = served.link.rpartition("viewStateShareKey=")[2]
    page = landing.landing(tracking.resolve_store(workdir=folder), pid)
    assert (page.what, page.url) == (printed["fusion.k"][0], LOCAL + printed["fusion.k"][1])
    done = subprocess.run(
        [str(SCRIPT), "ui", "--port", str(free_port()), "nosuch"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    line = done.stderr.strip().splitlines()[-1]
    assert line == (
        "ragsweep ui: error: no sweep named 'nosuch' in this MLflow store (sweeps: chunker.size, "
        "fusion.k); give a sweep name or a parent run id"
    )
    assert "ready:" not in done.stdout


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_a_folder_with_no_store_is_refused_and_nothing_is_created(workdir, capsys):
    port = ["--port", str(free_port())]
    for uri, missing in ([], "mlruns/mlflow.db"), (["--uri", f"sqlite:///{workdir}/x.db"], "x.db"):
        assert main(["ui", *port, *uri]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        missing = workdir / missing
        assert f"no MLflow store at {missing}: " in line and "--uri" in line
    assert list(workdir.iterdir()) == []


def test_a_port_in_use_is_refused_in_one_line(workdir):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(SCRIPT), "ui", "--port", str(port)],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert f"port {port} on 127.0.0.1 is in use" in line and "--port" in line
    assert "MLflow UI for" not in done.stdout  # no URL printed that serves another store


class FakeServer:
    """Stands in for the `mlflow server` process `ragsweep ui` starts: records its command and
    environment, and exits at once."""

    launched: list[tuple[list[str], dict[str, str]]] = []

    def __init__(self, cmd: list[str], **kwargs: object) -> None:
        FakeServer.launched.append((cmd, dict(kwargs["env"])))  # type: ignore[call-overload]
        self.pid = -1

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def poll(self) -> int:
        return 0


@pytest.mark.parametrize(
    ("argv", "environment", "workers", "jobs", "telemetry_off"),
    [
        ([], {}, "1", "false", "true"),
        (["--workers", "4", "--jobs"], {}, "4", "true", "true"),
        ([], {ui.JOBS: "true", ui.TELEMETRY: "false"}, "1", "true", "false"),  # the user's own
    ],
)
def test_the_server_command_and_environment(
    workdir, monkeypatch, capsys, argv, environment, workers, jobs, telemetry_off
):
    store = tracking.resolve_store()
    Path(store.uri.removeprefix("sqlite:///")).parent.mkdir()
    Path(store.uri.removeprefix("sqlite:///")).touch()  # a store: ui refuses a folder without
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    FakeServer.launched = launched = []
    monkeypatch.setattr(subprocess, "Popen", FakeServer)
    port = str(free_port())
    assert main(["ui", "--port", port, *argv]) == 0
    ((cmd, env),) = launched
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
    assert cmd[cmd.index("--port") + 1] == port
    assert cmd[cmd.index("--workers") + 1] == workers
    assert cmd[cmd.index("--backend-store-uri") + 1] == store.uri
    root = (workdir / "mlruns" / "artifacts").resolve().as_uri()
    assert cmd[cmd.index("--default-artifact-root") + 1] == root
    assert (env[ui.JOBS], env[ui.TELEMETRY]) == (jobs, telemetry_off)
    assert f"http://127.0.0.1:{port}" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--port", "notaport"], ["--bogus"], ["--workers", "0"]])
def test_ui_bad_arguments_exit_2(argv, capsys):
    assert main(["ui", *argv]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("ragsweep ui: error: ")


def _report_entry_mask(path: str) -> None:
    """An initializer for `ui.link_finder`: writes the signals blocked when it starts, then sets
    the finder's handlers as the real one does."""
    Path(path).write_text(
        " ".join(str(int(s)) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
    )
    ui._finder_signals()


def test_the_link_finder_starts_with_the_stop_signals_blocked_until_its_handlers_are_set(
    tmp_path,
):
    # a SIGTERM or Ctrl-C before the finder's handlers are set would run this process's own
    # handler in the forked copy of its stack, which then carries on as a second `ragsweep ui`
    report = tmp_path / "mask"
    before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    finder = ui.link_finder(functools.partial(_report_entry_mask, str(report)))
    try:
        handlers = finder.apply(_handlers)
    finally:
        finder.terminate()
    blocked = {int(s) for s in report.read_text().split()}
    assert {int(s) for s in ui.FINDER_BLOCKED} <= blocked
    assert handlers == (int(signal.SIG_IGN), int(signal.SIG_DFL), int(signal.SIG_DFL), [])
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == before  # this process: as it was


def _handlers() -> tuple[int, int, int, list[int]]:
    return (
        int(signal.getsignal(signal.SIGINT)),
        int(signal.getsignal(signal.SIGTERM)),
        int(signal.getsignal(signal.SIGHUP)),
        sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []) & ui.FINDER_BLOCKED),
    )
