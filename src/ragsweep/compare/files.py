"""Every file of a report, written into one folder: what `ragsweep report --out` and
`ragsweep compare --out` write, and what a sweep's parent run holds under `report/`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from ragsweep.compare.format import tables
from ragsweep.compare.html import to_html
from ragsweep.compare.markdown import to_markdown
from ragsweep.compare.plot import forest_plot
from ragsweep.compare.report import Report
from ragsweep.measures import Measure


def _plot_name(measure: Measure | None) -> str:
    return "forest.png" if measure is None else f"forest_{measure.key}.png"


def write_report(report: Report, folder: str | Path) -> dict[str, Path]:
    """Write report.md, report.html, report.csv (the cells), decisions.csv, flipped.csv (the
    questions that flipped, `compare.flips`), judged.csv (on a model-judged set: the plain and
    corrected comparisons, `compare.judged`), report.json and the forest plots (forest.png for
    the deciding measure, forest_<measure key>.png for the others) into `folder` (created);
    return name -> path."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    images: dict[str, bytes] = {}
    for _, measure in tables(report):
        name = _plot_name(measure)
        images[name] = forest_plot(report, measure)
        (out / name).write_bytes(images[name])
        written[name] = out / name
    texts = {
        "report.md": to_markdown(report, images=list(images)),
        "report.html": to_html(report, images),
        "report.json": json.dumps(report.to_json(), indent=2) + "\n",
    }
    for name, text in texts.items():
        (out / name).write_text(text, encoding="utf-8")
        written[name] = out / name
    report.cells.to_csv(out / "report.csv", index=False)
    written["report.csv"] = out / "report.csv"
    report.flipped.to_csv(out / "flipped.csv", index=False)
    written["flipped.csv"] = out / "flipped.csv"
    if report.judge is not None:
        report.judge.table.to_csv(out / "judged.csv", index=False)
        written["judged.csv"] = out / "judged.csv"
    decisions = pd.DataFrame(
        [
            {
                **asdict(d),
                "guard_failed": ",".join(d.guard_failed),
                "warnings": "; ".join(d.warnings),
                "heldout": report.heldout_of(d.config) or "",
            }
            for d in report.decisions
        ]
    )
    decisions.to_csv(out / "decisions.csv", index=False)
    written["decisions.csv"] = out / "decisions.csv"
    return dict(sorted(written.items()))
