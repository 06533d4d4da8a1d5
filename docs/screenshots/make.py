"""Regenerate the screenshots in docs/screenshots/ from a fresh sweep: what a new user sees.

    python docs/screenshots/make.py [--out DIR] [--keep] [-- OVERRIDE ...]

Runs the Quickstart (`ragsweep -m sweep=chunk_size`; OVERRIDEs, when given, instead of
`sweep=chunk_size`) in a temporary folder, starts `ragsweep ui` there, and saves, each from a
fresh Chromium profile at 1600 x 1000 (tests/browser.py, as the browser tests see it):

- runs-table.png: the link `ragsweep ui` prints (the launch's saved view);
- charts.png: the same link in the chart view (`&compareRunsMode=CHART`);
- parent-run.png: the sweep's parent run page;
- winner-run.png: the page of the configuration run that won on dev (`ragsweep.dev_winner`);
- experiments.png: the experiments list (`#/experiments`).

Needs the test extra (playwright) and Debian's `chromium`; nothing is downloaded. `--keep`
keeps the folder (printed) with its store. tests/test_screenshots.py runs it on the toy data.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))

from browser import browser_page  # noqa: E402  (tests/ is a folder of helpers, not a package)
from served import SCRIPT, Served, serve_ui, stop_ui  # noqa: E402

HERE = Path(__file__).resolve().parent
#: milliseconds to let the page settle once its content is there (columns, charts, fonts)
SETTLE = 2500


#: the Quickstart's sweep
QUICKSTART = ["sweep=chunk_size"]


def sweep(folder: Path, overrides: list[str]) -> None:
    """`ragsweep -m *overrides` in `folder`, as a user runs it (default store, no live view)."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["CI"] = "true"
    argv = [str(SCRIPT), "-m", *overrides]
    print(f"+ {' '.join(argv[1:])} (in {folder})", file=sys.stderr, flush=True)
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the sweep failed:\n{done.stderr[-3000:]}")


def ask(base: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The running server's answer to `path` (POST `body` when given) as JSON."""
    data = None if body is None else json.dumps(body).encode()
    headers = {} if body is None else {"Content-Type": "application/json"}
    request = urllib.request.Request(f"{base}/ajax-api/2.0/mlflow/{path}", data, headers)
    with urllib.request.urlopen(request, timeout=30) as r:  # noqa: S310 (loopback only)
        return dict(json.loads(r.read()))


def dev_winner(base: str, experiment_id: str, parent_id: str) -> tuple[str, str]:
    """The run id and name of the launch's dev winner, asked of the running server."""
    search = {
        "experiment_ids": [experiment_id],
        "filter": f"tags.`mlflow.parentRunId` = '{parent_id}' and "
        "tags.`ragsweep.dev_winner` = 'true'",
    }
    runs = ask(base, "runs/search", search).get("runs", [])
    if len(runs) != 1:
        raise SystemExit(f"expected one dev winner under {parent_id}, found {len(runs)}")
    return str(runs[0]["info"]["run_id"]), str(runs[0]["info"]["run_name"])


def shoot(url: str, path: Path, wait_for: Any) -> None:
    """Open `url` in a fresh profile, wait for `wait_for(page)` to be there, save the screen."""
    with browser_page() as page:
        page.goto(url)
        wait_for(page).first.wait_for()
        page.wait_for_timeout(SETTLE)
        page.screenshot(path=path)
    print(f"wrote {path}", file=sys.stderr, flush=True)


def screenshots(served: Served, out: Path) -> list[Path]:
    """The five pictures of the module docstring, from the running `ragsweep ui`."""
    link, base = served.link, served.base
    experiment_id = link.split("#/experiments/", 1)[1].split("/", 1)[0]
    parent_id = link.rpartition("viewStateShareKey=")[2]
    runs = f"{base}/#/experiments/{experiment_id}/runs"
    winner, winner_name = dev_winner(base, experiment_id, parent_id)
    experiment = ask(base, f"experiments/get?experiment_id={experiment_id}")["experiment"]
    # the classic (model training) side of the UI, where the printed link leads: a run page
    # or the experiments list opened without it shows the GenAI side in a fresh profile
    classic = "workflowType=machine_learning"
    shots = {
        "runs-table.png": (link, lambda p: p.locator(".ag-row")),
        "charts.png": (
            link + "&compareRunsMode=CHART",
            lambda p: p.get_by_text("decision: Δ", exact=False),
        ),
        "parent-run.png": (f"{runs}/{parent_id}?{classic}", lambda p: p.get_by_text(served.what)),
        "winner-run.png": (f"{runs}/{winner}?{classic}", lambda p: p.get_by_text(winner_name)),
        "experiments.png": (
            f"{base}/#/experiments?{classic}",
            lambda p: p.get_by_text(experiment["name"]),
        ),
    }
    out.mkdir(parents=True, exist_ok=True)
    for name, (url, wait_for) in shots.items():
        shoot(url, out / name, wait_for)
    return [out / name for name in shots]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where to save (default: here)")
    parser.add_argument("--keep", action="store_true", help="keep the sweep's folder")
    parser.add_argument(
        "overrides", nargs="*", help="the sweep's overrides (default: sweep=chunk_size)"
    )
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="ragsweep-screenshots-"))
    try:
        sweep(folder, args.overrides or QUICKSTART)
        served = serve_ui(folder)
        try:
            screenshots(served, args.out.resolve())
        finally:
            stop_ui(served.proc)
    finally:
        if args.keep:
            print(f"kept {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
