"""Printing per-slice tables for people (rich), kept apart from computing them."""

from __future__ import annotations

import pandas as pd
from rich.console import Console
from rich.table import Table

from ragsweep import conventions as cv


def slice_table(summary: pd.DataFrame, counts: dict[str, int], title: str) -> Table:
    """Rows: slices, then `all` and `weighted`; one column per measure; n = questions scored."""
    table = Table(title=title, title_justify="left")
    table.add_column("slice")
    table.add_column("n", justify="right")
    for col in summary.columns:
        table.add_column(str(col), justify="right")
    total = sum(counts.values())
    for row in summary.index:
        n = counts.get(row, total if row == cv.ALL else None)
        style = "bold" if row in cv.SUMMARY_ROWS else None
        table.add_row(
            str(row),
            "" if n is None else str(n),
            *(f"{summary.loc[row, c]:.3f}" for c in summary.columns),
            style=style,
        )
    return table


def print_table(table: Table) -> None:
    """Print at the terminal's width, or wide enough for the whole table when piped."""
    console = Console()
    if not console.is_terminal:  # measured unbounded: a console measures within its own width
        console = Console(width=max(120, Console(width=100_000).measure(table).maximum))
    console.print(table)
