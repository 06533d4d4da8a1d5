"""The report's forest plots as PNG bytes (`forest.png`, `forest_<measure key>.png`).

matplotlib is imported when a plot is drawn, not with this module: building and printing a
report never pays for it.
"""

from __future__ import annotations

import io
import math

import numpy as np

from ragsweep.compare.format import columns
from ragsweep.compare.report import (
    BETTER,
    FAILS_GUARD,
    NEEDS_JUDGING,
    NOISE,
    WORSE,
    Report,
)
from ragsweep.measures import Measure

_PLOT_COLOUR = {
    "better": "#1a7f37",
    "worse": "#c62828",
    "noise": "#6e6e6e",
    NEEDS_JUDGING: "#7b1fa2",
}
_DECISION_COLOUR = {
    FAILS_GUARD: "#c62828",
    NEEDS_JUDGING: "#7b1fa2",
    BETTER: "#1a7f37",
    WORSE: "#c62828",
    NOISE: "#444444",
}


def forest_plot(report: Report, measure: Measure | None = None) -> bytes:
    """A forest plot as PNG bytes: one panel per stratum, each configuration's difference from
    the baseline with its interval, a line at 0; colour by verdict. `measure` None plots each
    stratum's deciding measure (the headline table). matplotlib's Agg canvas, no pyplot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    cols = columns(report, measure)
    n_cols = min(4, len(cols))
    n_rows = math.ceil(len(cols) / n_cols)
    height = 0.45 * len(report.configs) + 1.3
    fig = Figure(figsize=(3.3 * n_cols, height * n_rows + 0.9), dpi=110)
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_rows, n_cols, squeeze=False, sharex=True)
    lows = [report.cell(n, c.measure, c.stratum)["ci_low"] for n in report.configs for c in cols]
    highs = [report.cell(n, c.measure, c.stratum)["ci_high"] for n in report.configs for c in cols]
    lo, hi = min(0.0, *lows), max(0.0, *highs)
    pad = max(0.01, 0.08 * (hi - lo))
    y = np.arange(len(report.configs))[::-1]
    labels = [f"{n}\n{report.decision_of(n).decision}" for n in report.configs]
    for i, col in enumerate(cols):
        ax = axes[i // n_cols][i % n_cols]
        ax.axvline(0.0, color="black", linewidth=1)
        for yy, name in zip(y, report.configs, strict=True):
            c = report.cell(name, col.measure, col.stratum)
            colour = _PLOT_COLOUR[str(c["verdict"])]
            ax.plot(
                [c["ci_low"], c["ci_high"]],
                [yy, yy],
                color=colour,
                linewidth=2.5,
                solid_capstyle="butt",
            )
            ax.plot([c["delta"]], [yy], "o", color=colour, markersize=6)
        ax.set_yticks(y)
        ax.set_yticklabels(labels if i % n_cols == 0 else [])
        if i % n_cols == 0:
            for tick, name in zip(ax.get_yticklabels(), report.configs, strict=True):
                tick.set_color(_DECISION_COLOUR[report.decision_of(name).decision])
        if i % n_cols == 0 and report.factor:
            ax.set_ylabel(report.factor, fontsize=9)
        ax.set_ylim(-0.7, len(report.configs) - 0.3)
        ax.set_xlim(lo - pad, hi + pad)
        title = f"{col.stratum}  (n={col.n})"
        if col.guard:
            title += "  GUARD"
        elif col.stratum == report.headline:
            title += "  headline"
        ax.set_title(
            title,
            fontsize=10,
            fontweight="bold" if col.guard else "normal",
            color="#c62828" if col.guard else "black",
        )
        ax.set_xlabel(f"Δ {col.measure}", fontsize=9)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.tick_params(labelsize=8, labelbottom=True)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, symmetric=False))
    for j in range(len(cols), n_rows * n_cols):
        axes[j // n_cols][j % n_cols].set_visible(False)
    what = "each slice's deciding measure" if measure is None else str(measure)
    fig.suptitle(
        f"{report.title}\nmean paired difference from the baseline ({what}) with its "
        f"{report.interval_level:.1%} interval: green better, red worse, grey noise",
        fontsize=10,
    )
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()
