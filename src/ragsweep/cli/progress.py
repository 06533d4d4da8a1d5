"""A live view of a sweep in the launching process: configurations done / total and the stage
each running one is in. Workers write their stage to small files in the sweep folder
(`ragsweep.experiment.worker.progress`); a thread here polls them. Quiet in CI and when
stdout is not a terminal: the summary table at the end says everything then."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from ragsweep.experiment.plan import FINAL_STAGES, read_stages


def wanted() -> bool:
    return not os.environ.get("CI") and sys.stdout.isatty()


class SweepProgress:
    def __init__(self, sweep_dir: str | Path, labels: dict[str, str]) -> None:
        self.sweep_dir = Path(sweep_dir)
        self.labels = labels  # value -> "factor=value"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def render(self):  # -> rich renderable
        from rich.table import Table

        stages = read_stages(self.sweep_dir)
        done = sum(1 for s in stages.values() if s in FINAL_STAGES)
        table = Table(
            title=f"sweep: {done}/{len(self.labels)} configurations done",
            title_justify="left",
            show_edge=False,
        )
        table.add_column("configuration")
        table.add_column("stage")
        for value, label in self.labels.items():
            table.add_row(label, stages.get(value, "waiting"))
        return table

    def _loop(self) -> None:
        from rich.live import Live

        with Live(self.render(), refresh_per_second=4, transient=True) as live:
            while not self._stop.wait(0.25):
                live.update(self.render())

    def start(self) -> None:
        if not wanted():
            return
        self._thread = threading.Thread(target=self._loop, name="ragsweep-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
