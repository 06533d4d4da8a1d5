"""The judging sheet as delimited text: written as CSV UTF-8 with a byte-order mark, read back
from CSV, semicolon- or tab-separated text in UTF-8 or UTF-16 (docs/labelling.md)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ragsweep.data.reader import DataFile
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS, Row

#: the CSV sheet's encoding: UTF-8 with a byte-order mark (see `write_sheet_frame`)
SHEET_ENCODING = "utf-8-sig"

_DELIMITERS = (",", ";", "\t")


def write_csv(columns: tuple[str, ...], cells: list[list[str]], path: Path) -> None:
    with path.open("w", encoding=SHEET_ENCODING, newline="") as fh:
        out = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        out.writerow(columns)
        out.writerows(cells)


def text_rows(f: DataFile) -> tuple[list[str], list[Row]]:
    """Header and rows of a delimited text sheet (separator sniffed from the header)."""
    data = f.read("a judged sheet")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16")
    else:
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as err:
            f.fail(
                f"is not UTF-8 (bad byte at offset {err.start}, an older Excel's legacy code "
                "page?); save it as 'CSV UTF-8' (Excel) or with the UTF-8 character set "
                "(LibreOffice), or as .xlsx"
            )
    delimiter = _sniff(text)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    name = {",": "comma", ";": "semicolon", "\t": "tab"}[delimiter]
    try:
        header = [h.strip() for h in next(reader, [])]
        rows: list[Row] = []
        prev = reader.line_num
        for cells in reader:
            line, prev = prev + 1, reader.line_num
            rows.append((line, [c.strip() for c in cells]))
    except csv.Error as err:
        f.fail(
            f"is not valid {name}-separated text ({err}); save it as CSV UTF-8",
            reader.line_num,
        )
    return header, rows


def _sniff(text: str) -> str:
    """The separator that splits the header into the most known columns (a comma on a tie)."""
    best, score = ",", -1
    for d in _DELIMITERS:
        header = next(csv.reader(io.StringIO(text, newline=""), delimiter=d), [])
        known = sum(h.strip() in SHEET_COLUMNS for h in header)
        if known > score:
            best, score = d, known
    return best
