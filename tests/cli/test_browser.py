"""What a user sees in a real browser (headless Chromium, a fresh profile) after a sweep: the
link the sweep prints opens the runs table, and the sweep's parent run page shows each
configuration's decision and the held-out verdict without opening an artifact."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import Store, ragsweep, start_ui
from procs import descendants, running
from toy import HELDOUT_WINNER

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium here (.ci/run installs Debian's chromium package)"
)


def page_text(url: str, screenshot: Path | None = None) -> str:
    """The rendered page's visible text (scripts and styles left out), as a browser shows it."""
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--virtual-time-budget=25000",
    ]
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        what = [f"--screenshot={screenshot}", "--window-size=1600,1000"] if screenshot else []
        done = subprocess.run(
            [CHROMIUM, *flags, f"--user-data-dir={profile}", *(what or ["--dump-dom"]), url],
            capture_output=True,
            text=True,
            timeout=120,
        )
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", done.stdout, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    done = ragsweep(folder, "-m", *HELDOUT_WINNER, "fusion.k=1,60")
    assert done.returncode == 0, done.stderr[-2000:]
    (link,) = re.findall(r"then (http://127\.0\.0\.1:5000/\S+)", done.stdout)
    proc, base = start_ui(folder)
    try:
        yield folder, base, link.replace("http://127.0.0.1:5000", base)
    finally:
        family = descendants(proc.pid)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        for pid in running(family):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_the_printed_link_opens_the_runs_table(served):
    """The link lists the configuration runs flat (not under a collapsed parent), best
    headline difference first, with the datasets they read."""
    folder, _, link = served
    text = page_text(link)
    assert "sweep:fusion.k" in text
    assert " Runs " in f" {text} "  # the classic view's Runs entry, not the GenAI overview
    assert "2 matching runs" in text  # the two configuration runs, not the parent or confirm
    runs = Store(folder).by_value("sweep:fusion.k")
    best = sorted(runs, key=lambda v: -runs[v].data.metrics["delta/recall_at_1/weighted"])
    names = [runs[v].info.run_name for v in best]
    assert names[0] != names[1] and all(n in text for n in names)
    assert text.index(names[0]) < text.index(names[1]), (names, text[:2000])
    assert "tiny corpus" in text  # the Dataset column


@pytest.mark.slow
def test_the_parent_run_page_shows_the_decisions_and_the_held_out_verdict(served, tmp_path):
    folder, base, _ = served
    store = Store(folder)
    (parent,) = store.runs("sweep:fusion.k", "sweep")
    (confirm,) = store.runs("sweep:fusion.k", "confirm")
    url = f"{base}/#/experiments/{parent.info.experiment_id}/runs/{parent.info.run_id}"
    text = page_text(url)
    verdict = confirm.data.tags["ragsweep.verdict"]
    assert "Held-out confirmation:" in text
    assert f"is {verdict} on the held-out questions" in text
    decision = store.by_value("sweep:fusion.k")["1"].data.tags["ragsweep.decision"]
    assert f"1 {decision}" in text  # the decisions table: configuration, decision
    shot = tmp_path / "parent.png"
    page_text(url, screenshot=shot)
    assert shot.stat().st_size > 20_000, "the screenshot is blank"
