"""What a user sees in a real browser (headless Chromium, a fresh profile, 1600 x 1000) after a
sweep: the link the sweep prints answers it on the first screen, without a click (which
configuration won, by how much with its interval, whether it held on held-out, whether the
guard slice dropped), and the sweep's parent run page shows each configuration's decision and
the held-out verdict. CI runs this file at both ends of the MLflow versions pyproject.toml
allows (.ci/run)."""

from __future__ import annotations

import os
import re
import signal

import pytest

from browser import CHROMIUM, browser_page, shown, starts_shown, visible_text
from conftest import Store, ragsweep, start_ui
from procs import descendants, running
from toy import HELDOUT_WINNER

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="no Chromium here (.ci/run installs Debian's chromium package)"
    ),
    pytest.mark.slow,
]

SWEEP = "sweep:fusion.k"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    pytest.importorskip("playwright", reason="the test extra installs playwright")
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


def cell(page, row: int, key: str):
    """The runs table's cell of tag `key` in row `row` (0: the top row)."""
    return page.locator(f'.ag-row[row-index="{row}"] .ag-cell[col-id="tags.`{key}`"]')


def test_the_printed_link_answers_the_sweep_on_the_first_screen(served, tmp_path):
    folder, _, link = served
    store = Store(folder)
    (confirm,) = store.runs(SWEEP, "confirm")
    runs = store.by_value(SWEEP)
    winner = runs["1"]  # the toy's dev winner (toy.HELDOUT_WINNER)
    tags = winner.data.tags
    with browser_page() as page:
        page.goto(link)
        page.locator(".ag-row").first.wait_for()
        page.wait_for_timeout(2000)  # the saved view's columns settle after the rows
        names = page.locator('.ag-row .ag-cell[col-id="attributes.`Run Name`"]')
        assert names.count() == 2  # this launch's two configuration runs, nothing else
        top = page.locator('.ag-row[row-index="0"] .ag-cell[col-id="attributes.`Run Name`"]')
        assert top.inner_text().splitlines()[-1] == winner.info.run_name  # best first
        answer = {
            "decision": tags["ragsweep.decision"],  # better
            "heldout": confirm.data.tags["ragsweep.verdict"],  # what held-out said
            "headline": tags["ragsweep.headline"],  # +0.250 [+0.055, +0.293]
            "guard": tags["ragsweep.guard"],  # exclusions +0.200 better
        }
        assert answer["decision"] == "better"
        assert re.fullmatch(r"[+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]", answer["headline"])
        for key, text in answer.items():
            seen = visible_text(cell(page, 0, f"ragsweep.{key}"))
            assert seen["text"].strip() == text, (key, seen)
            assert shown(cell(page, 0, f"ragsweep.{key}")), (key, seen)
        # the experiment's description, above the table, names this launch and its answer
        (parent,) = store.runs(SWEEP, "sweep")
        banner = page.get_by_text(f"{parent.info.run_name}: 1 is better, {answer['heldout']}")
        assert starts_shown(banner), visible_text(banner)
        page.screenshot(path=tmp_path / "view.png")
    assert (tmp_path / "view.png").stat().st_size > 20_000, "the screenshot is blank"


def test_the_chart_view_opens_on_the_decision(served):
    """The chart view's first section is the decision measure's differences per slice, on the
    first screen (not 100-odd charts in alphabetical sections)."""
    _, _, link = served
    with browser_page() as page:
        page.goto(link + "&compareRunsMode=CHART")
        section = page.get_by_text("decision: Δ recall@1", exact=True)
        section.first.wait_for()
        assert shown(section), visible_text(section)
        # one bar chart per stratum, the headline first: the differences from the baseline
        titles = page.get_by_text(re.compile(r"^delta/recall_at_1/\w+$"))
        assert titles.count() == 6  # weighted, the five slices, all
        assert titles.first.inner_text() == "delta/recall_at_1/weighted"


def test_the_parent_run_page_shows_the_decisions_the_verdict_and_the_plot(served):
    folder, base, _ = served
    store = Store(folder)
    (parent,) = store.runs(SWEEP, "sweep")
    (confirm,) = store.runs(SWEEP, "confirm")
    url = (
        f"{base}/#/experiments/{parent.info.experiment_id}/runs/{parent.info.run_id}"
        "?workflowType=machine_learning"
    )
    verdict = confirm.data.tags["ragsweep.verdict"]
    decision = store.by_value(SWEEP)["1"].data.tags["ragsweep.decision"]
    with browser_page() as page:
        page.goto(url)
        held = page.get_by_text("Held-out confirmation:")
        held.first.wait_for()
        text = page.locator("body").inner_text()
        # the forest plot shows in the description, read from the run's artifacts
        plot = page.locator('img[src*="get-artifact?path=report%2Fforest.png"]')
        plot.wait_for(state="attached")
        page.wait_for_function("(el) => el.complete", arg=plot.element_handle())
        assert plot.evaluate("(el) => el.naturalWidth") > 400
    assert f"is {verdict} on the held-out questions" in " ".join(text.split())
    assert re.search(rf"\b1\s+{re.escape(decision)}\b", text)  # the decisions table
