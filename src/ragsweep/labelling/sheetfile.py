"""The judging sheet as a file: written (CSV or .xlsx, by suffix) and read back with every cell
as text, its ids checked when read with a dataset (docs/labelling.md, pool and judge).

    from ragsweep.labelling.sheetfile import read_sheet, write_sheet_frame
    write_sheet_frame(rows, "sheet.xlsx")            # or sheet.csv
    sheet = read_sheet("sheet.xlsx", dataset=ds)     # every cell a str; clauses verified

Every verb that reads a sheet (`labels import`, `labels prelabel`, `labels agreement/audit`)
reads it here; the formats are `sheet_csv` and `sheet_xlsx`, the id checks `sheet_ids`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import Dataset
from ragsweep.data.write import replace_file
from ragsweep.errors import UserError
from ragsweep.labelling.sheet_columns import OPTIONAL_COLUMNS, SHEET_COLUMNS, one_line
from ragsweep.labelling.sheet_csv import text_rows, write_csv
from ragsweep.labelling.sheet_ids import check_ids, refuse_number, require_clauses
from ragsweep.labelling.sheet_xlsx import Number, write_xlsx, xlsx_rows

#: the file suffixes `read_sheet` reads as delimited text, and as a workbook
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")


def write_sheet_frame(
    rows: pd.DataFrame,
    path: str | os.PathLike[str],
    columns: tuple[str, ...] = SHEET_COLUMNS,
) -> Path:
    """Write a judging sheet's rows (`columns`: `SHEET_COLUMNS`, or another sheet's such as
    the adjudication sheet's) at `path`, replaced whole, never half-written: an Excel workbook
    when `path` ends in .xlsx, else CSV.

    CSV: UTF-8 with a byte-order mark (Excel opens a double-clicked CSV without one in the
    machine's legacy code page, garbling £ and curly quotes); every field quoted, a comma
    delimiter, rows ending in CRLF (RFC 4180). Quoting does not stop a spreadsheet from reading
    `2.10` as a number: the `clause_key` column lets the import catch it.
    .xlsx: one worksheet, every cell a text cell (number format `@`, so a typed `5.10` stays
    text), the header frozen, column widths set and long text wrapped.
    In both, line breaks inside a cell become " ¶ " (other control characters are dropped) and
    empty means no value. A missing `OPTIONAL_COLUMNS` column is written empty (an older
    sheet).
    """
    target = Path(path)
    missing = [c for c in columns if c not in rows.columns and c not in OPTIONAL_COLUMNS]
    if missing:
        raise UserError(
            f"{target.name}: the sheet lacks column(s) {', '.join(missing)}; rebuild it with "
            "`ragsweep labels pool`"
        )
    frame = rows.reindex(columns=list(columns), fill_value="")
    cells = [[_cell(v) for v in row] for row in frame.itertuples(index=False, name=None)]
    if target.suffix.lower() in WORKBOOK_SUFFIXES:
        replace_file(target, lambda tmp: write_xlsx(columns, cells, tmp))
    else:
        replace_file(target, lambda tmp: write_csv(columns, cells, tmp))
    return target


def _cell(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return ""
    return one_line(str(value))


@dataclass(frozen=True, eq=False)
class Sheet:
    """A sheet read back: `rows` holds one column per header name, every cell a stripped str
    (empty: no value), in file order; blank rows are dropped. `lines[i]` is row i's line in the
    CSV file (a quoted cell may span lines) or its row number in the workbook (header: 1)."""

    file: DataFile
    rows: pd.DataFrame
    lines: tuple[int, ...]

    @property
    def path(self) -> Path:
        return self.file.path

    def fail(self, message: str, i: int | None = None, field: str | None = None) -> NoReturn:
        """Refuse row `i` (a position in `rows`; None: the file) in one line."""
        self.file.fail(message, None if i is None else self.lines[i], field)

    def require(self, columns: tuple[str, ...] | list[str]) -> None:
        """Refuse a sheet without all of `columns`, naming the first missing one."""
        header = list(self.rows.columns)
        for name in columns:
            if name not in header:
                self.file.fail(
                    f"missing column; {hint(name, header)}a judged sheet needs the columns "
                    f"{', '.join(columns)} (regenerate it, or restore the header)",
                    1,
                    name,
                )


def read_sheet(path: str | os.PathLike[str], *, dataset: Dataset | None = None) -> Sheet:
    """Read a judging sheet (`.xlsx`, or delimited text: see the module docstring), every cell
    as text. With `dataset`, each row's clause is checked against its `clause_key` (else its
    `clause_text`) and refused when they disagree, and each row's qid against its question
    text (`check_ids`). Problems are one-line
    `DatasetError`s naming the sheet, line (or row) and field."""
    p = Path(path)
    f = DataFile(p.parent, p.name)
    suffix = p.suffix.lower()
    numbers: list[Number] = []
    if suffix in WORKBOOK_SUFFIXES:
        header, body, numbers = xlsx_rows(f)
    elif suffix in TEXT_SUFFIXES:
        header, body = text_rows(f)
    else:
        f.fail(
            f"unknown sheet format '{p.suffix}'; save it as .xlsx or as CSV UTF-8 (.csv, "
            "separated by commas, semicolons or tabs)"
        )
    if not header or not any(header):
        f.fail("is empty; a judged sheet starts with a header row (qid, document, ...)", 1)
    for i, name in enumerate(header):
        if name and name in header[:i]:
            f.fail("column appears twice in the header; keep one", 1, name)
    keep = [j for j, name in enumerate(header) if name]
    lines: list[int] = []
    values: list[list[str]] = []
    for line, cells in body:
        if not any(cells):
            continue  # a blank line or an empty spreadsheet row
        if any(cells[len(header) :]):
            f.fail(
                f"{len(cells)} cells but the header has {len(header)} columns; quote cells "
                "that hold the separator, or give the extra column a header",
                line,
            )
        cells = cells + [""] * (len(header) - len(cells))
        lines.append(line)
        values.append([cells[j] for j in keep])
    rows = pd.DataFrame(values, columns=[header[j] for j in keep], dtype=object)
    sheet = Sheet(f, rows.astype(str) if len(rows) else rows, tuple(lines))
    if numbers:
        refuse_number(sheet, numbers[0], dataset)
    if dataset is not None:
        check_ids(sheet, dataset)
    return sheet


def read_judging_sheet(
    path: Path, needs: tuple[str, ...], dataset: Dataset | None = None, known: bool = False
) -> pd.DataFrame:
    """A judging sheet (`read_sheet`: CSV or .xlsx; with `dataset`, each row's clause verified,
    and with `known` each one a clause of its corpus) as text columns, with the columns `needs`
    and at least one row; a grade or prelabel cell that is not 0, 1, 2 or empty is refused.
    Problems are one line."""
    if not path.is_file():
        raise UserError(f"{path}: no such judging sheet; write one with `labels pool`")
    sheet = read_sheet(path, dataset=dataset)
    sheet.require([c for c in needs if c not in OPTIONAL_COLUMNS])
    frame = sheet.rows
    if frame.empty:
        raise UserError(
            f"{path}: has a header but no row; write a judging sheet with `labels pool`"
        )
    for column in ("grade", "prelabel"):
        if column in frame.columns:
            bad = ~frame[column].isin(["", "0", "1", "2"])
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                sheet.fail(
                    f"{frame[column].iloc[i]!r} is not a grade; write 0, 1 or 2, or leave it "
                    "empty (not judged)",
                    i,
                    column,
                )
    if known:
        if dataset is None:
            raise ValueError("read_judging_sheet: known=True needs the dataset")
        require_clauses(sheet, dataset)
    return frame
