"""The judging sheet as an .xlsx workbook: every cell a text cell when written; read back from
the first worksheet, with the id cells a spreadsheet turned into numbers or dates
(docs/labelling.md)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from ragsweep.data.reader import DataFile
from ragsweep.labelling.sheet_columns import ID_COLUMNS, Row

#: column widths of the .xlsx sheet, in characters (others: 12)
XLSX_WIDTHS = {
    "qid": 9,
    "question": 40,
    "slice": 12,
    "version": 9,
    "document": 16,
    "section": 9,
    "clause_version": 9,
    "clause_text": 80,
    "same_text_clauses": 22,
    "systems": 22,
    "existing_grade": 9,
    "prelabel": 9,
    "prelabel_source": 24,
    "grade": 7,
    "note": 30,
    "judge": 10,
    "clause_key": 16,
}

_WRAPPED = ("question", "clause_text", "note")


def write_xlsx(columns: tuple[str, ...], cells: list[list[str]], path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    ws = wb.active
    ws.title = "judging"
    wrap = Alignment(wrap_text=True, vertical="top")
    top = Alignment(vertical="top")
    bold = Font(bold=True)
    for j, name in enumerate(columns, start=1):
        head = ws.cell(row=1, column=j, value=name)
        head.font, head.number_format = bold, "@"
        ws.column_dimensions[get_column_letter(j)].width = XLSX_WIDTHS.get(name, 12)
    for i, row in enumerate(cells, start=2):
        for j, (name, value) in enumerate(zip(columns, row, strict=True), start=1):
            c = ws.cell(row=i, column=j)
            if value:
                c.value = value
                c.data_type = "s"  # a text starting with "=" stays text, never a formula
            c.number_format = "@"  # empty cells too: what the judge types stays text
            c.alignment = wrap if name in _WRAPPED else top
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{len(cells) + 1}"
    wb.save(path)


#: an .xlsx id cell that is not text: (row number, column, value)
Number = tuple[int, str, Any]


def xlsx_rows(f: DataFile) -> tuple[list[str], list[Row], list[Number]]:
    """Header and rows of the workbook's first worksheet, and its id cells that are not text
    (numbers or dates), in row order."""
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    f.read("a judged sheet")  # a missing file is refused as for CSV
    try:
        wb = load_workbook(f.path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, OSError) as err:
        f.fail(
            f"is not a readable Excel workbook ({type(err).__name__}); save it as .xlsx (Excel "
            "2007 or later) or as CSV UTF-8"
        )
    try:
        ws = wb.worksheets[0]
        ws.reset_dimensions()  # some writers record a wrong sheet size
        it = ws.iter_rows(values_only=True)
        first = next(it, ())
        header = [cell_text(v).strip() for v in first]
        ids = {j for j, h in enumerate(header) if h in ID_COLUMNS}
        rows: list[Row] = []
        numbers: list[Number] = []
        for number, values in enumerate(it, start=2):
            numbers += [
                (number, header[j], values[j])
                for j in sorted(ids)
                if j < len(values) and values[j] is not None and not isinstance(values[j], str)
            ]
            rows.append((number, [cell_text(v).strip() for v in values]))
    finally:
        wb.close()
    while header and not header[-1]:
        header.pop()
    return header, rows, numbers


def cell_text(value: Any) -> str:
    """An .xlsx cell as text: numbers without a spurious `.0`, dates as ISO 8601."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)
