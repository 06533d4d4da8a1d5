"""The sweep's live view reads the stage files workers write, and stays quiet in CI."""

from __future__ import annotations

import json

from rich.console import Console

from ragsweep.cli.progress import SweepProgress, wanted


def test_render_counts_done_and_shows_stages(tmp_path):
    folder = tmp_path / "progress"
    folder.mkdir()
    (folder / "64.json").write_text(json.dumps({"value": "64", "stage": "done"}))
    (folder / "128.json").write_text(json.dumps({"value": "128", "stage": "indexing"}))
    (folder / "broken.json").write_text("{not json")  # a half-written file is skipped
    view = SweepProgress(
        tmp_path, {"64": "chunker.size=64", "128": "chunker.size=128", "256": "chunker.size=256"}
    )
    console = Console(record=True, width=100)
    console.print(view.render())
    text = console.export_text()
    assert "1/3 configurations" in " ".join(text.split())
    assert "indexing" in text and "waiting" in text


def test_quiet_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert not wanted()
    view = SweepProgress("/nonexistent", {})
    view.start()  # does nothing in CI
    assert view._thread is None
    view.stop()
