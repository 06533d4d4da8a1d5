"""The judging sheet as a file: its columns, writing it (CSV or .xlsx) and reading it back, with
each row's clause checked against the clause key the sheet carries (docs/labelling.md).

    from ragsweep.labelling.sheetfile import read_sheet, write_sheet_frame
    write_sheet_frame(rows, "sheet.xlsx")            # or sheet.csv
    sheet = read_sheet("sheet.xlsx", dataset=ds)     # every cell a str; clauses verified

Every verb that reads a sheet (`labels import`, `labels prelabel`, `labels agreement/audit`)
reads it here. Accepted: `.xlsx` (openpyxl; the first worksheet) and `.csv` / `.tsv` / `.txt`
separated by `,` `;` or a tab (the separator that splits the header into known columns), UTF-8
with or without a byte-order mark, or UTF-16 with one (Excel's "Unicode Text"). Other bytes are
refused, naming the fix (save as "CSV UTF-8" or .xlsx): decoding them as cp1252 would misread
a sheet saved in any other legacy code page without a word.

Ids are protected twice. The sheet carries `clause_key`, a short hash of the clause (document,
section, version and the clause text as shown), in a form no spreadsheet reads as a number
(`k` + 12 hex digits); and an .xlsx sheet is written with every cell a text cell. Read with a
dataset, a row whose (document, section, clause_version) is not the clause its key (or, in an
older sheet without keys, its clause text) belongs to is refused in one line naming the clause
it belongs to: `5.10` saved as `5.1` never lands a grade on clause 5.1. A qid is checked against
the row's question text the same way. An .xlsx cell in an id
column that holds a number or a date (a person retyped it in a cell formatted as a number) is
refused too, since "5.1" may have been 5.10.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from ragsweep.data.reader import DataFile, hint
from ragsweep.data.schema import Clause, Dataset, clause_id
from ragsweep.data.write import replace_file
from ragsweep.errors import UserError

#: the judging sheet's columns, in order (`prelabel*` are filled by the pre-labellers, `grade`,
#: `note`, `judge` by the judge; `clause_key` protects the clause's id, see the module docstring;
#: `same_text_clauses`: the other clauses pooled for the question with the row's very text, whose
#: grade the row's is, `labels pool` / `labels import`)
SHEET_COLUMNS = (
    "qid",
    "question",
    "slice",
    "version",
    "document",
    "section",
    "clause_version",
    "clause_text",
    "systems",
    "existing_grade",
    "prelabel",
    "prelabel_source",
    "grade",
    "note",
    "judge",
    "clause_key",
    "same_text_clauses",
)
#: the columns that show a row's question and clause, first on every sheet (and the
#: adjudication sheet's)
CLAUSE_COLUMNS = SHEET_COLUMNS[:8]
#: columns an older sheet may lack: read as empty, written empty
OPTIONAL_COLUMNS = ("clause_key", "same_text_clauses")
#: the columns that hold ids: a spreadsheet must never reformat them
ID_COLUMNS = ("qid", "version", "document", "section", "clause_version")
#: the CSV sheet's encoding: UTF-8 with a byte-order mark (see `write_sheet_frame`)
SHEET_ENCODING = "utf-8-sig"
#: what a line break inside a cell becomes: a visible paragraph mark, never a row break
LINE_BREAK = " ¶ "
#: the file suffixes `read_sheet` reads as delimited text, and as a workbook
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")
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

_BREAKS = re.compile(r"[ \t]*(?:\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029])+[ \t]*")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
_DELIMITERS = (",", ";", "\t")
_WRAPPED = ("question", "clause_text", "note")


def one_line(text: str) -> str:
    """`text` with each run of line breaks as " ¶ ", tabs as spaces, control characters gone."""
    return _CONTROL.sub("", _BREAKS.sub(LINE_BREAK, text).replace("\t", " ")).strip()


def clause_text(clause: Clause) -> str:
    """A clause as the sheet shows it: heading, line break, text, on one line."""
    return one_line(f"{clause.heading}\n{clause.text}")


def same_text(text: str) -> str:
    """What two clauses must share to be graded once for a question: their shown text
    (`clause_text`) with whitespace runs as one space."""
    return " ".join(text.split())


def clause_key(document: str, section: str, version: str, text: str) -> str:
    """The sheet's `clause_key` of a clause: `k` and the first 12 hex digits of the sha256 of
    document, section, version and the clause text as shown (`clause_text`), joined by 0x1f.
    The `k` keeps a spreadsheet from reading it as a number (`12e45...` would be one)."""
    raw = "\x1f".join((document, section, version, text)).encode("utf-8")
    return "k" + hashlib.sha256(raw).hexdigest()[:12]


# ----------------------------------------------------------------------------- writing


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
        replace_file(target, lambda tmp: _write_xlsx(columns, cells, tmp))
    else:
        replace_file(target, lambda tmp: _write_csv(columns, cells, tmp))
    return target


def _cell(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return ""
    return one_line(str(value))


def _write_csv(columns: tuple[str, ...], cells: list[list[str]], path: Path) -> None:
    with path.open("w", encoding=SHEET_ENCODING, newline="") as fh:
        out = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        out.writerow(columns)
        out.writerows(cells)


def _write_xlsx(columns: tuple[str, ...], cells: list[list[str]], path: Path) -> None:
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


# ----------------------------------------------------------------------------- reading


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
        header, body, numbers = _xlsx_rows(f)
    elif suffix in TEXT_SUFFIXES:
        header, body = _text_rows(f)
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
        _refuse_number(sheet, numbers[0], dataset)
    if dataset is not None:
        check_ids(sheet, dataset)
    return sheet


Row = tuple[int, list[str]]  # (line or row number, cells)
Ids = tuple[str, str, str]  # a clause's (document, section, version)


def _text_rows(f: DataFile) -> tuple[list[str], list[Row]]:
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


#: an .xlsx id cell that is not text: (row number, column, value)
Number = tuple[int, str, Any]


def _xlsx_rows(f: DataFile) -> tuple[list[str], list[Row], list[Number]]:
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
        header = [_text(v).strip() for v in first]
        ids = {j for j, h in enumerate(header) if h in ID_COLUMNS}
        rows: list[Row] = []
        numbers: list[Number] = []
        for number, values in enumerate(it, start=2):
            numbers += [
                (number, header[j], values[j])
                for j in sorted(ids)
                if j < len(values) and values[j] is not None and not isinstance(values[j], str)
            ]
            rows.append((number, [_text(v).strip() for v in values]))
    finally:
        wb.close()
    while header and not header[-1]:
        header.pop()
    return header, rows, numbers


def _text(value: Any) -> str:
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


def _refuse_number(sheet: Sheet, number: Number, dataset: Dataset | None) -> NoReturn:
    """Refuse an id cell that is a number or a date, naming the id the row's key says it was."""
    line, column, value = number
    i = sheet.lines.index(line)
    kind = "date" if isinstance(value, dt.datetime | dt.date | dt.time) else "number"
    was = "5.10 becomes the number 5.1, or in some locales a date"
    fix = "'5.10"
    ids = ("document", "section", "clause_version")
    key = sheet.rows["clause_key"].iat[i] if "clause_key" in sheet.rows.columns else ""
    owner = _Corpus(dataset).by_key.get(key) if dataset is not None and key else None
    if owner is not None and column in ids:
        meant = owner[ids.index(column)]
        was = f"the row's clause_key belongs to {clause_id(*owner)}: {column} {meant!r}"
        fix = f"'{meant}"
    sheet.fail(
        f"the cell holds the {kind} {_text(value)}, not text: the spreadsheet reformatted the id "
        f"({was}); type it again as text in a cell formatted as text (a leading apostrophe: "
        f"{fix}), or re-export the sheet",
        i,
        column,
    )


# ----------------------------------------------------------------------------- checking


def check_ids(sheet: Sheet, dataset: Dataset) -> None:
    """Refuse the first row whose qid is not its question's (`_check_qids`), then the first
    whose (document, section, clause_version) is not the clause its `clause_key` names, or,
    without a key, the clause its `clause_text` is the text of.

    A key (or text) that belongs to another clause of the corpus names it: the spreadsheet
    reformatted the id (`5.10` as `5.1`). A key of no clause of the corpus means the clause's
    text changed since the sheet was written (or the cell was edited). Rows with neither a key
    nor a text (a hand-made sheet) are not checked here; the import still checks the clause
    exists.
    """
    _check_qids(sheet, dataset)
    rows = sheet.rows
    if not len(rows) or not {"document", "section", "clause_version"} <= set(rows.columns):
        return
    corpus = _Corpus(dataset)
    texts, by_key, by_text = corpus.texts, corpus.by_key, corpus.by_text
    keys = rows["clause_key"] if "clause_key" in rows.columns else None
    shown = rows["clause_text"] if "clause_text" in rows.columns else None
    for i, (doc, sec, ver) in enumerate(
        zip(rows["document"], rows["section"], rows["clause_version"], strict=True)
    ):
        named = (doc, sec, ver)
        key = "" if keys is None else keys.iat[i]
        text = "" if shown is None else shown.iat[i]
        if key:
            if named in texts and clause_key(*named, texts[named]) == key:
                continue
            owner = by_key.get(key)
            if owner is None:
                if named not in texts:
                    continue  # the import names the unknown clause
                sheet.fail(
                    f"{key!r} is not the key of clause {clause_id(*named)} nor of any clause of "
                    "the corpus snapshot: the clause's text changed since the sheet was written, "
                    "or the cell was edited; pool a new sheet, or clear the clause_key and "
                    "clause_text cells to import the row without this check",
                    i,
                    "clause_key",
                )
            _refuse_moved(sheet, i, named, owner, "clause_key")
        elif text:
            if named in texts and _words(texts[named]) == _words(text):
                continue
            owners = by_text.get(_words(text), [])
            if not owners:
                if named not in texts:
                    continue
                sheet.fail(
                    f"the clause text is not that of clause {clause_id(*named)} nor of any clause "
                    "of the corpus snapshot: the text changed since the sheet was written, or "
                    "the cell was edited; pool a new sheet, or clear the clause_text cell to "
                    "import the row without this check",
                    i,
                    "clause_text",
                )
            _refuse_moved(sheet, i, named, _closest(named, owners), "clause_text")


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


def require_clauses(sheet: Sheet, dataset: Dataset) -> None:
    """Refuse the first row whose (document, section, clause_version) is no clause of the
    dataset's corpus: a sheet pooled on another dataset, or an edited id. What grading a row
    needs (`labels prelabel`); the import names such rows itself."""
    texts = _Corpus(dataset).texts
    rows = sheet.rows
    for i, named in enumerate(
        zip(rows["document"], rows["section"], rows["clause_version"], strict=True)
    ):
        if named not in texts:
            sheet.fail(
                f"clause {clause_id(*named)} is not in the corpus snapshot of {dataset.root}; "
                "give the dataset the sheet was pooled on (--data DIR), or fix the row's "
                "document, section or clause_version",
                i,
                "section",
            )


def _check_qids(sheet: Sheet, dataset: Dataset) -> None:
    """Refuse the first row whose qid is a question of the set but whose `question` is the text
    of another one (`0012` saved as `12`, when `12` is a qid too). Unknown qids (a sampled
    candidate's, or a typo) and texts of no question (edited since) are left to the import."""
    rows = sheet.rows
    if not len(rows) or not {"qid", "question"} <= set(rows.columns):
        return
    q = dataset.questions
    text_of = {str(k): _words(one_line(str(t))) for k, t in zip(q["qid"], q["text"], strict=True)}
    qids_of: dict[str, list[str]] = {}
    for k, t in text_of.items():
        qids_of.setdefault(t, []).append(k)
    for i, (qid, question) in enumerate(zip(rows["qid"], rows["question"], strict=True)):
        shown = _words(question)
        if qid not in text_of or text_of[qid] == shown or shown not in qids_of:
            continue  # a candidate, the question's own text, or a text of no question
        meant = qids_of[shown][0]
        sheet.fail(
            f"qid {qid!r} is not the row's question: its question text is that of {meant!r}, so "
            f"a spreadsheet reformatted {meant!r} as {qid!r}; fix the cell to {meant!r} (as "
            "text), or re-export the sheet keeping ids as text (or use the .xlsx sheet)",
            i,
            "qid",
        )


class _Corpus:
    """The corpus's clauses as a sheet shows them, by id, by `clause_key` and by text."""

    def __init__(self, dataset: Dataset) -> None:
        self.texts: dict[Ids, str] = {
            (c.document, c.section, c.version): clause_text(c)
            for d in dataset.documents
            for c in d.clauses
        }
        self.by_key = {clause_key(*k, t): k for k, t in self.texts.items()}
        self.by_text: dict[str, list[Ids]] = {}
        for k, t in self.texts.items():
            self.by_text.setdefault(_words(t), []).append(k)


def _refuse_moved(
    sheet: Sheet,
    i: int,
    named: Ids,
    owner: Ids,
    by: str,
) -> NoReturn:
    """Row i names `named` but its key or text belongs to `owner`: refuse on the first id
    that differs, naming the value it should hold."""
    field, wrote, meant = next(
        (f, a, b)
        for f, a, b in zip(("document", "section", "clause_version"), named, owner, strict=True)
        if a != b
    )
    how = f"a spreadsheet reformatted {meant!r} as {wrote!r}" if wrote else "the cell was emptied"
    sheet.fail(
        f"{field} {wrote!r} is not the row's clause: its {by} belongs to {clause_id(*owner)}, "
        f"so {how}; fix the cell to {meant!r} (as text), or re-export the sheet keeping ids as "
        "text (or use the .xlsx sheet)",
        i,
        field,
    )


def _closest(named: Ids, owners: list[Ids]) -> Ids:
    """Of the clauses with the row's text, the one sharing most of the row's ids (then the
    first in corpus order): a repeated text is most likely the same document's and version's."""
    return max(owners, key=lambda o: (o[0] == named[0]) + (o[2] == named[2]))


def _words(text: str) -> str:
    return " ".join(text.split())
