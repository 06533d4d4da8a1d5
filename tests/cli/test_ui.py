"""`ragsweep ui` serves the store on 127.0.0.1 and shows a logged run with everything in it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import SCRIPT, start_ui
from procs import descendants, running
from ragsweep.cli import main
from toy import TOY


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as r:  # noqa: S310 (loopback only)
        return json.loads(r.read().decode() or "{}")


@pytest.mark.slow
def test_ui_shows_the_run(workdir):
    assert main(TOY) == 0
    proc, base = start_ui(workdir)
    try:
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
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in running(descendants(proc.pid)):
            os.kill(pid, signal.SIGKILL)


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
