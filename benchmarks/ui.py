"""`ragsweep ui`'s readiness and memory against `mlflow server` with MLflow's defaults, on the
same store made by the Quickstart's sweep (issue 28: ready in under 20 s and under 1 GiB on 2
cores).

    python benchmarks/ui.py [--runs N] [--settle SECONDS] [--store DIR] [--json FILE]

The store is `ragsweep -m sweep=chunk_size` run once in a temporary folder (or the folder
`--store` names, holding `mlruns/`). Then, N times in turn, each on a fresh port and in a
session of its own:

- ours: `python -m ragsweep.cli ui` in that folder, as a user starts it;
- the peer: `python -m mlflow server --backend-store-uri <the store> --default-artifact-root
  <its artifacts>` with every other setting MLflow's default (4 workers, its background job
  runner, its telemetry): what `ragsweep ui` ran before issue 28.

Ready is the wall time from the start until the page the link `ragsweep ui` printed (the
latest launch's view; the peer is asked for the same page on its port) answers: its /health,
then the page itself (the UI's index), the experiment (the saved view is one of its tags) and
the runs the view lists (the page's runs search), all HTTP 200, the runs the same on both
sides. Memory is the resident set of the started process's whole tree summed (`e2e.tree_rss`,
/proc) when it is ready, and its peak over the next `--settle` seconds (MLflow's job runner
keeps starting processes after /health answers). Medians over the runs are the rows, with
min-max in `details`; ratios are ours / peer. Results: docs/benchmarks.md, "ragsweep ui".
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import e2e
from run import _version, git_commit, render

#: the issue's limits for ours, on 2 cores
READY_LIMIT_S, MEMORY_LIMIT_MIB = 20.0, 1024.0
#: what `ragsweep ui` prints once its server answers
READY = re.compile(r"^ready: .+ at (?P<link>http://\S+)$", re.MULTILINE)
VIEW = re.compile(r"#/experiments/(?P<exp>[^/]+)/runs\?.*viewStateShareKey=(?P<parent>[0-9a-f]+)")
#: a start that is not ready after this long is stopped and counted as a failure
START_TIMEOUT = 300
POLL = 0.1
PEER = "mlflow server, MLflow's defaults"


@dataclass(frozen=True)
class Start:
    """One start of a server: seconds to ready, its tree's memory (MiB) and processes when
    ready, and the peak of both over the settle window."""

    seconds: float
    ready_mib: float
    ready_processes: int
    peak_mib: float
    peak_processes: int
    runs_listed: int


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, body: dict[str, Any] | None = None) -> bytes:
    """GET (or POST `body` as JSON) `url`; an HTTP error or no answer raises OSError."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=30) as r:  # noqa: S310 (loopback only)
        return bytes(r.read())


def page_answers(link: str) -> int | None:
    """The number of runs the view of `link` lists once its server answers for all of the
    page (/health, the page, the experiment, the runs search); None while it does not."""
    base = link.split("/#/", 1)[0]
    found = VIEW.search(link)
    if found is None:
        raise ValueError(f"not a launch's view: {link}")
    try:
        fetch(f"{base}/health")
    except OSError:
        return None
    fetch(link)  # the UI's index (a browser does not send the fragment)
    fetch(f"{base}/ajax-api/2.0/mlflow/experiments/get?experiment_id={found['exp']}")
    search = {
        "experiment_ids": [found["exp"]],
        "filter": f"tags.`mlflow.parentRunId` = '{found['parent']}'",
        "max_results": 100,
    }
    runs = json.loads(fetch(f"{base}/ajax-api/2.0/mlflow/runs/search", search))
    return len(runs.get("runs", []))


def stop(proc: subprocess.Popen[bytes], ours: bool, grace: float = 30) -> None:
    """SIGTERM to `ragsweep ui` (it stops its server) or to the peer's process group; what
    is left of the tree after `grace` seconds is killed."""
    family = e2e.tree_pids(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        if ours:
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        e2e._kill_group(proc.pid)
        proc.wait()
    for pid in family - {proc.pid}:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def start(argv: list[str], folder: Path, env: dict[str, str], link: str | None,
          settle: float) -> tuple[Start, str]:  # fmt: skip
    """Start `argv` in `folder`; ready when `link` answers (None: the link `ragsweep ui`
    prints, once it prints it). Returns the start and the link it answered on."""
    out = folder / f"ui-{time.time_ns()}.log"
    ours = link is None
    with open(out, "wb") as sink:
        began = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=folder, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip
    try:
        listed = None
        while listed is None:
            if proc.poll() is not None or time.perf_counter() - began > START_TIMEOUT:
                tail = out.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{' '.join(argv)} did not come up:\n{tail}")
            if link is None and (printed := READY.search(out.read_text(errors="replace"))):
                link = printed["link"]
            listed = None if link is None else page_answers(link)
            if listed is None:
                time.sleep(POLL)
        seconds = time.perf_counter() - began
        ready_pids = e2e.tree_pids(proc.pid)
        ready = e2e.tree_rss(proc.pid)
        peak, most = ready, len(ready_pids)
        until = time.perf_counter() + settle
        while time.perf_counter() < until:
            time.sleep(0.5)
            peak = max(peak, e2e.tree_rss(proc.pid))
            most = max(most, len(e2e.tree_pids(proc.pid)))
    finally:
        stop(proc, ours)
    mib = 2**20
    return Start(seconds, ready / mib, len(ready_pids), peak / mib, most, listed), link


def make_store(folder: Path, env: dict[str, str]) -> None:
    """The Quickstart's sweep in `folder` (its store: `folder/mlruns`)."""
    log(f"the Quickstart's sweep in {folder} ...")
    done = subprocess.run([sys.executable, "-m", "ragsweep.cli", "-m", "sweep=chunk_size"],
                          cwd=folder, env=env, capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the sweep failed:\n{done.stderr[-2000:]}")


def summary(starts: list[Start], field: str) -> dict[str, float]:
    values = [getattr(s, field) for s in starts]
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def rows(ours: list[Start], peer: list[Start], settle: float) -> list[e2e.E2ERow]:
    """Ready seconds, memory when ready, peak memory while settling: medians, ours vs peer."""
    n = len(ours)

    def row(task: str, field: str, ratio_of: str, **extra: Any) -> e2e.E2ERow:
        mine, theirs = summary(ours, field), summary(peer, field)
        value = "s" if ratio_of == "time" else "mib"
        numbers = {f"ours_{value}": mine["median"], f"peer_{value}": theirs["median"]}
        if value == "mib":
            numbers |= {"ours_s": None, "peer_s": None}
        details = {"ours": mine, "peer": theirs, "runs": n, **extra}
        return e2e.E2ERow(task, peer=PEER, ratio_of=ratio_of, details=details, **numbers)

    processes = {"ours_processes": summary(ours, "ready_processes"),
                 "peer_processes": summary(peer, "ready_processes")}  # fmt: skip
    peak_processes = {"ours_processes": summary(ours, "peak_processes"),
                      "peer_processes": summary(peer, "peak_processes")}  # fmt: skip
    return [
        row(
            f"ragsweep ui: seconds until the printed link answers (median of {n})",
            "seconds",
            "time",
            limit=READY_LIMIT_S,
        ),  # fmt: skip
        row(
            f"ragsweep ui: process tree memory when ready (median of {n})",
            "ready_mib",
            "memory",
            limit=MEMORY_LIMIT_MIB,
            **processes,
        ),  # fmt: skip
        row(
            f"ragsweep ui: process tree peak memory, {settle:g} s after ready (median of {n})",
            "peak_mib",
            "memory",
            limit=MEMORY_LIMIT_MIB,
            **peak_processes,
        ),  # fmt: skip
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="starts of each server (default 3)")
    parser.add_argument(
        "--settle",
        type=float,
        default=20.0,
        help="seconds after ready over which the peak memory is taken (default 20)",
    )
    parser.add_argument("--store", type=Path, help="a folder holding mlruns/ made by a sweep")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also save the rows as JSON")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be >= 1, got {args.runs}")
    env = e2e.child_env(os.cpu_count() or 1)
    load_start = os.getloadavg()[0]
    work = None if args.store else Path(tempfile.mkdtemp(prefix="ragsweep-ui-bench-"))
    folder = (args.store or work).resolve()  # type: ignore[union-attr]
    try:
        if work is not None:
            make_store(folder, env)
        db = folder / "mlruns" / "mlflow.db"
        if not db.exists():
            parser.error(f"no store at {db}")
        # the peer as MLflow ships: neither the CI marker nor ragsweep ui's two switches
        drop = {"CI", "MLFLOW_TRACKING_URI", "MLFLOW_SERVER_ENABLE_JOB_EXECUTION",
                "MLFLOW_DISABLE_TELEMETRY"}  # fmt: skip
        peer_env = {k: v for k, v in os.environ.items() if k not in drop}
        ours_env = {k: v for k, v in env.items() if k not in drop - {"CI"}}
        peer_argv = [sys.executable, "-m", "mlflow", "server", "--backend-store-uri",
                     f"sqlite:///{db}", "--default-artifact-root",
                     (folder / "mlruns" / "artifacts").as_uri()]  # fmt: skip
        ours: list[Start] = []
        peer: list[Start] = []
        for i in range(args.runs):
            port = free_port()
            got, link = start([sys.executable, "-m", "ragsweep.cli", "ui", "--port", str(port)],
                              folder, ours_env, None, args.settle)  # fmt: skip
            ours.append(got)
            log(f"run {i + 1}: ragsweep ui {got}")
            port = free_port()
            same = re.sub(r":\d+/", f":{port}/", link, count=1)  # the same page on its port
            theirs, _ = start([*peer_argv, "--port", str(port)], folder, peer_env, same,
                              args.settle)  # fmt: skip
            peer.append(theirs)
            log(f"run {i + 1}: {PEER} {theirs}")
            if theirs.runs_listed != got.runs_listed:
                raise RuntimeError(
                    f"the two listed {got.runs_listed} and {theirs.runs_listed} runs"
                )
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    table = rows(ours, peer, args.settle)
    render(table, e2e.E2E_COLUMNS, f"ragsweep ui vs {PEER} ({args.runs} starts each, medians)")
    seconds, memory = table[0].ours_s or 0.0, table[1].ours_mib or 0.0
    log(
        f"limits on {os.cpu_count()} cores: ready under {READY_LIMIT_S:g} s: "
        f"{'yes' if seconds < READY_LIMIT_S else 'NO'} ({seconds:.1f} s); under "
        f"{MEMORY_LIMIT_MIB:g} MiB when ready: {'yes' if memory < MEMORY_LIMIT_MIB else 'NO'} "
        f"({memory:.0f} MiB); 1-minute load average {load_start:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    if args.json is not None:
        record = {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "cpus": os.cpu_count(),
            "load_average_1min": {"start": load_start, "end": os.getloadavg()[0]},
            "commit": git_commit(e2e.ragsweep_root()),
            "mlflow": _version("mlflow"),
            "settle_s": args.settle,
            "ours": [s.__dict__ for s in ours],
            "peer": [s.__dict__ for s in peer],
            "rows": [r.record() for r in table],
        }
        args.json.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
