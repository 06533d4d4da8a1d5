"""Plain-text tables and numbers for the agreement, audit and pre-label reports."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Lines of a plain-text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [str(cells[0]).ljust(widths[0])]
        out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join(out).rstrip()

    return [line(headers), *(line(r) for r in rows)]


def interval_text(low: float, high: float) -> str:
    """`[0.58, 0.80]`, or `-` when the interval is undefined."""
    return "-" if np.isnan(low) or np.isnan(high) else f"[{low:.2f}, {high:.2f}]"


def num_text(x: float) -> str:
    return "nan" if np.isnan(x) else f"{x:.3f}"
