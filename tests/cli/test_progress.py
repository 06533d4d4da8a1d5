"""The sweep's live view: configurations done / total and each one's stage, read from the
stage files workers write; drawn at a terminal, quiet in CI."""

from __future__ import annotations

import io
import json
import re
import time

import pytest
from rich.console import Console

from ragsweep.cli.progress import SweepProgress

LABELS = {"64": "chunker.size=64", "128": "chunker.size=128", "256": "chunker.size=256"}


def stage_files(folder):
    progress = folder / "progress"
    progress.mkdir()
    (progress / "64.json").write_text(json.dumps({"value": "64", "stage": "done"}))
    (progress / "128.json").write_text(json.dumps({"value": "128", "stage": "indexing"}))
    (progress / "broken.json").write_text("{not json")  # a half-written file is skipped


def rows(text: str) -> dict[str, str]:
    """configuration -> stage, from the rendered table's rows."""
    found = {}
    for line in text.splitlines():
        m = re.match(r"\s*(chunker\.size=\d+)\s+[│|]?\s*(\S.*?)\s*$", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def test_render_counts_done_and_shows_each_configurations_stage(tmp_path):
    stage_files(tmp_path)
    console = Console(record=True, width=100)
    console.print(SweepProgress(tmp_path, LABELS).render())
    text = console.export_text()
    assert "sweep: 1/3 configurations done" in " ".join(text.split())
    assert rows(text) == {
        "chunker.size=64": "done",
        "chunker.size=128": "indexing",
        "chunker.size=256": "waiting",
    }


class Terminal(io.StringIO):
    """A stdout that says it is a terminal, as a user's shell is."""

    def isatty(self) -> bool:
        return True


def live_output(monkeypatch, tmp_path, *, ci: bool, terminal: bool = True) -> str:
    """What a sweep's live view writes to stdout while its stage files change."""
    stage_files(tmp_path)
    screen = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stdout", screen)
    monkeypatch.setenv("TERM", "xterm-256color")
    if ci:
        monkeypatch.setenv("CI", "true")
    else:
        monkeypatch.delenv("CI", raising=False)
    view = SweepProgress(tmp_path, LABELS)
    view.start()
    try:
        time.sleep(0.8)  # the view redraws four times a second
        (tmp_path / "progress" / "256.json").write_text(
            json.dumps({"value": "256", "stage": "scoring"})
        )
        time.sleep(0.8)
    finally:
        view.stop()
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())


def test_at_a_terminal_the_live_view_follows_the_stage_files(monkeypatch, tmp_path):
    seen = live_output(monkeypatch, tmp_path, ci=False)
    assert "sweep: 1/3 configurations done" in " ".join(seen.split())
    assert "indexing" in seen and "waiting" in seen
    assert "scoring" in seen  # a stage written while the view was up


@pytest.mark.parametrize(("ci", "terminal"), [(True, True), (False, False)])
def test_quiet_in_ci_and_when_stdout_is_not_a_terminal(monkeypatch, tmp_path, ci, terminal):
    assert live_output(monkeypatch, tmp_path, ci=ci, terminal=terminal) == ""
