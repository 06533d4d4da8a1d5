"""Judging sheets through a spreadsheet: the sample's pool sheet written as .xlsx and CSV, filled
as a person would, saved the way Excel and LibreOffice save (.xlsx, `;`-separated, tab-separated
UTF-16), imported: every id kept and the labels those of the plain CSV. A section `3.10` saved as
`3.1` (text, number or a locale's date) is refused in one line naming the clause, exit 2, the
dataset byte-identical; prelabel keeps an .xlsx an .xlsx."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from datetime import datetime
from pathlib import Path

import openpyxl
import pytest

from conftest import cli_in
from ragsweep.data import load_dataset, sample_path
from ragsweep.errors import UserError
from ragsweep.labelling.sheet_columns import ID_COLUMNS, SHEET_COLUMNS, clause_key, clause_text
from ragsweep.labelling.sheetfile import read_sheet, write_sheet_frame

#: the clause of the issue's realistic case: section 3.10 has a trailing zero, while
#: motor-faq@2024 has a section 3.1 too
CLAUSE = ("motor-faq", "3.10", "2024")
#: the other questions on the sheet; a spreadsheet "reformats" the first qid into OTHERS[0]
OTHERS = ("q0011", "q0139")
BM25 = ["--system", "bm25=retriever=bm25", "--depth", "10"]

Ids = tuple[str, str, str, str]


def ids_of(row: dict[str, str]) -> Ids:
    return (row["qid"], row["document"], row["section"], row["clause_version"])


@pytest.fixture(scope="module")
def ten(tmp_path_factory) -> Ids:
    """(qid, *CLAUSE): the first question of the sample whose bm25 top 10 gives CLAUSE a row of
    its own on the sheet (not folded into another clause of the same text)."""
    clauses = {
        (c.document, c.section, c.version)
        for d in load_dataset(sample_path()).documents
        for c in d.clauses
    }
    assert {CLAUSE, (CLAUSE[0], "3.1", CLAUSE[2])} <= clauses
    folder = tmp_path_factory.mktemp("all")
    cli_in(folder, "labels", "pool", *BM25, "--questions", "all", "--out", "all.csv").ok()
    header, *body = csv_rows(folder / "all.csv")
    qids = [q for q, *clause in map(ids_of, rows_of(header, body)) if tuple(clause) == CLAUSE]
    assert qids, f"no question of the sample pools {CLAUSE}: pick another clause"
    assert qids[0] not in OTHERS
    return (qids[0], *CLAUSE)


@pytest.fixture(scope="module")
def pooled(ten: Ids, tmp_path_factory) -> Path:
    """The sample's pool sheet of ten's question and OTHERS, written by `labels pool` as
    sheet.csv and as sheet.xlsx."""
    folder = tmp_path_factory.mktemp("sheets")
    questions = ",".join(sorted([ten[0], *OTHERS]))
    for name in ("sheet.csv", "sheet.xlsx"):
        ran = cli_in(folder, "labels", "pool", *BM25, "--questions", questions, "--out", name).ok()
        assert f"judging sheet {name}" in ran.out
    return folder


@pytest.fixture
def data(tmp_path) -> Path:
    """A fresh copy of the sample dataset (imports change it)."""
    root = tmp_path / "ds"
    shutil.copytree(sample_path(), root, ignore=shutil.ignore_patterns("__pycache__", "__init__*"))
    return root


def digest(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def csv_rows(path: Path, delimiter: str = ",", encoding: str = "utf-8-sig") -> list[list[str]]:
    with path.open(encoding=encoding, newline="") as fh:
        return list(csv.reader(fh, delimiter=delimiter))


def rows_of(header: list[str], body: list[list[str]]) -> list[dict[str, str]]:
    return [dict(zip(header, r, strict=True)) for r in body]


def grade_of(row: dict[str, str], ten: Ids) -> str:
    """What the judge writes: 2 on the clause with the trailing zero, else the existing grade
    (0 where there is none)."""
    return "2" if ids_of(row) == ten else (row["existing_grade"] or "0")


def judged_csv(pooled: Path, ten: Ids, out: Path, **edit: str) -> Path:
    """The pooled CSV with grades and a judge filled in, written back as a plain CSV;
    `edit` sets cells of the ten row (a spreadsheet's reformatting)."""
    header, *body = csv_rows(pooled / "sheet.csv")
    rows = rows_of(header, body)
    for r in rows:
        r["grade"], r["judge"] = grade_of(r, ten), "ann"
        if ids_of(r) == ten:
            r.update(edit)
    with out.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        w.writerows(rows)
    return out


def ten_line(path: Path, ten: Ids) -> int:
    """The line (and spreadsheet row) of the ten row in a sheet of one physical line per row."""
    header, *body = csv_rows(path)
    (i,) = [i for i, r in enumerate(rows_of(header, body)) if ids_of(r) == ten]
    return i + 2


def import_(folder: Path, data: Path, sheet: Path):
    # --adjudicated: the sheet's grades are final, so each lands on its clause (without it a
    # grade that differs from the sample's label is a dispute and the label stays)
    return cli_in(folder, "labels", "import", str(sheet), "--data", str(data), "--adjudicated")


def labels_after(folder: Path, data: Path, sheet: Path) -> bytes:
    import_(folder, data, sheet).ok()
    return (data / "labels.jsonl").read_bytes()


@pytest.fixture(scope="module")
def reference(pooled: Path, ten: Ids, tmp_path_factory) -> bytes:
    """labels.jsonl after importing the plain judged CSV."""
    tmp = tmp_path_factory.mktemp("reference")
    data = tmp / "ds"
    shutil.copytree(sample_path(), data, ignore=shutil.ignore_patterns("__pycache__", "__init__*"))
    return labels_after(tmp, data, judged_csv(pooled, ten, tmp / "judged.csv"))


def test_the_plain_csv_puts_the_grade_on_the_clause_with_the_trailing_zero(
    reference: bytes, ten: Ids
) -> None:
    labels = [json.loads(line) for line in reference.decode("utf-8").splitlines()]
    graded = {(r["qid"], r["document"], r["section"], r["version"]): r["grade"] for r in labels}
    assert graded[ten] == 2
    assert graded.get((*ten[:2], "3.1", ten[3]), 0) != 2


def test_the_xlsx_sheet_is_text_cells_with_a_frozen_header(pooled: Path) -> None:
    ws = openpyxl.load_workbook(pooled / "sheet.xlsx").active
    header = [c.value for c in ws[1]]
    assert header == list(SHEET_COLUMNS)
    assert ws.freeze_panes == "A2"
    cells = [c for row in ws.iter_rows(min_row=2) for c in row]
    assert {c.number_format for c in cells} == {"@"}
    assert {c.data_type for c in cells if c.value is not None} == {"s"}
    assert ws.column_dimensions["H"].width == 80 and ws["H2"].alignment.wrap_text
    # the same rows as the CSV, cell for cell (an empty cell is no value)
    body = csv_rows(pooled / "sheet.csv")[1:]
    assert [[c.value or "" for c in row] for row in ws.iter_rows(min_row=2)] == body


def test_an_xlsx_round_trip_keeps_every_id_and_gives_the_csvs_labels(
    pooled: Path, ten: Ids, data: Path, reference: bytes, tmp_path: Path
) -> None:
    wb = openpyxl.load_workbook(pooled / "sheet.xlsx")
    ws = wb.active
    col = {c.value: c.column for c in ws[1]}
    for cells in ws.iter_rows(min_row=2):
        row = {name: (cells[j - 1].value or "") for name, j in col.items()}
        grade = grade_of(row, ten)
        # a person types the grade: a number; the judge's name: text
        ws.cell(row=cells[0].row, column=col["grade"], value=int(grade))
        ws.cell(row=cells[0].row, column=col["judge"], value="ann")
    wb.save(tmp_path / "judged.xlsx")

    back = read_sheet(tmp_path / "judged.xlsx", dataset=load_dataset(data)).rows
    header, *body = csv_rows(pooled / "sheet.csv")
    ids = [header.index(c) for c in ID_COLUMNS]
    assert back[list(ID_COLUMNS)].values.tolist() == [[r[j] for j in ids] for r in body]
    assert "3.10" in set(back["section"])
    assert labels_after(tmp_path, data, tmp_path / "judged.xlsx") == reference


@pytest.mark.parametrize(
    ("delimiter", "encoding", "quoting"),
    [
        (";", "utf-8-sig", csv.QUOTE_MINIMAL),  # Excel "CSV UTF-8" in a decimal-comma locale
        (";", "utf-8", csv.QUOTE_ALL),  # LibreOffice, "quoted field as text", no mark
        ("\t", "utf-16", csv.QUOTE_MINIMAL),  # Excel "Unicode Text"
    ],
)
def test_a_semicolon_or_tab_round_trip_keeps_every_id_and_gives_the_csvs_labels(
    pooled: Path,
    ten: Ids,
    data: Path,
    reference: bytes,
    tmp_path: Path,
    delimiter,
    encoding,
    quoting,
) -> None:
    rows = csv_rows(judged_csv(pooled, ten, tmp_path / "judged.csv"), encoding="utf-8")
    resaved = tmp_path / "resaved.csv"
    with resaved.open("w", encoding=encoding, newline="") as fh:
        csv.writer(fh, delimiter=delimiter, quoting=quoting, lineterminator="\r\n").writerows(rows)
    back = read_sheet(resaved).rows
    assert back.values.tolist() == rows[1:] and list(back.columns) == rows[0]
    assert labels_after(tmp_path, data, resaved) == reference


MESSAGE = (
    "field 'section': section '3.1' is not the row's clause: its {by} belongs to "
    "motor-faq/3.10@2024, so a spreadsheet reformatted '3.10' as '3.1'; fix the cell to '3.10' "
    "(as text), or re-export the sheet keeping ids as text (or use the .xlsx sheet)"
)


def refused(folder: Path, data: Path, sheet: Path) -> str:
    """Import `sheet`: exit 2, one line, the dataset byte-identical; the line, prefix dropped."""
    before = digest(data)
    ran = import_(folder, data, sheet)
    assert ran.code == 2
    (line,) = ran.err.strip().splitlines()
    assert digest(data) == before
    return line.split("error: ", 1)[1]


def test_a_section_saved_as_3_1_is_refused_naming_the_clause(
    pooled: Path, ten: Ids, data: Path, tmp_path: Path
) -> None:
    sheet = judged_csv(pooled, ten, tmp_path / "judged.csv", section="3.1")
    line = ten_line(pooled / "sheet.csv", ten)
    assert refused(tmp_path, data, sheet) == f"{sheet}:{line}: " + MESSAGE.format(by="clause_key")
    # a sheet of before the clause_key: its clause text names the clause
    rows = csv_rows(sheet, encoding="utf-8")
    old = tmp_path / "old.csv"
    with old.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([r[: SHEET_COLUMNS.index("clause_key")] for r in rows])
    assert refused(tmp_path, data, old) == f"{old}:{line}: " + MESSAGE.format(by="clause_text")


def test_a_qid_that_is_another_questions_is_refused(
    pooled: Path, ten: Ids, data: Path, tmp_path
) -> None:
    qid, other = ten[0], OTHERS[0]
    sheet = judged_csv(pooled, ten, tmp_path / "judged.csv", qid=other)
    assert refused(tmp_path, data, sheet) == (
        f"{sheet}:{ten_line(pooled / 'sheet.csv', ten)}: field 'qid': qid '{other}' is not the "
        f"row's question: its question text is that of '{qid}', so a spreadsheet reformatted "
        f"'{qid}' as '{other}'; fix the cell to '{qid}' (as text), or re-export the sheet "
        "keeping ids as text (or use the .xlsx sheet)"
    )


def test_a_decimal_comma_locales_date_is_refused(
    pooled: Path, ten: Ids, data: Path, tmp_path
) -> None:
    judged = judged_csv(pooled, ten, tmp_path / "judged.csv", section="03.Okt")
    rows = csv_rows(judged, encoding="utf-8")
    sheet = tmp_path / "de.csv"
    with sheet.open("w", encoding="utf-8-sig", newline="") as fh:
        csv.writer(fh, delimiter=";").writerows(rows)
    assert refused(tmp_path, data, sheet).startswith(
        f"{sheet}:{ten_line(pooled / 'sheet.csv', ten)}: field 'section': section '03.Okt' is not "
        "the row's clause: its clause_key belongs to motor-faq/3.10@2024"
    )


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (
            3.1,
            "field 'section': the cell holds the number 3.1, not text: the spreadsheet "
            "reformatted the id (the row's clause_key belongs to motor-faq/3.10@2024: section "
            "'3.10'); type it again as text in a cell formatted as text (a leading apostrophe: "
            "'3.10), or re-export the sheet",
        ),
        (
            datetime(2026, 10, 3),
            "field 'section': the cell holds the date 2026-10-03T00:00:00, not text",
        ),
        ("3.1", MESSAGE.format(by="clause_key")),
    ],
)
def test_an_xlsx_section_retyped_as_3_1_is_refused(
    pooled: Path, ten: Ids, data: Path, tmp_path: Path, value, says: str
) -> None:
    wb = openpyxl.load_workbook(pooled / "sheet.xlsx")
    ws = wb.active
    col = {c.value: c.column for c in ws[1]}
    row = ten_line(pooled / "sheet.csv", ten)
    assert ws.cell(row=row, column=col["section"]).value == "3.10"
    ws.cell(row=row, column=col["section"], value=value)
    ws.cell(row=row, column=col["grade"], value=2)
    wb.save(tmp_path / "judged.xlsx")
    line = refused(tmp_path, data, tmp_path / "judged.xlsx")
    assert line.startswith(f"{tmp_path / 'judged.xlsx'}:{row}: {says}")


def test_prelabel_keeps_an_xlsx_an_xlsx_and_refuses_a_reformatted_sheet(
    pooled: Path, ten: Ids, data: Path, tmp_path: Path
) -> None:
    sheet = Path(shutil.copy(pooled / "sheet.xlsx", tmp_path / "sheet.xlsx"))
    cli_in(tmp_path, "labels", "prelabel", "sheet.xlsx", "--data", str(data)).ok()
    after = read_sheet(sheet).rows
    before = read_sheet(pooled / "sheet.xlsx").rows
    same = [c for c in SHEET_COLUMNS if not c.startswith("prelabel")]
    assert after[same].equals(before[same])
    assert set(after["prelabel"]) <= {"0", "1", "2"} and after["prelabel"].ne("").all()
    ws = openpyxl.load_workbook(sheet).active
    assert {c.number_format for row in ws.iter_rows(min_row=2) for c in row} == {"@"}

    bad = judged_csv(pooled, ten, tmp_path / "bad.csv", section="3.1")
    written = bad.read_bytes()
    ran = cli_in(tmp_path, "labels", "prelabel", "bad.csv", "--data", str(data))
    line = ten_line(pooled / "sheet.csv", ten)
    assert ran.code == 2 and f"bad.csv:{line}: field 'section'" in ran.err
    assert bad.read_bytes() == written


def test_agreement_reads_an_xlsx_sheet(pooled: Path, ten: Ids, data: Path, tmp_path: Path) -> None:
    judged = judged_csv(pooled, ten, tmp_path / "judged.csv")
    header, *body = csv_rows(judged, encoding="utf-8")
    import pandas as pd

    write_sheet_frame(pd.DataFrame(body, columns=header), tmp_path / "ann.xlsx")
    ran = cli_in(tmp_path, "labels", "agreement", "ann.xlsx", "judged.csv", "--data", str(data))
    (all_row,) = [line.split() for line in ran.ok().out.splitlines() if line.startswith("all ")]
    questions = len({row[header.index("qid")] for row in body})
    assert all_row[1:6] == [str(len(body)), str(questions), "0", "0", "1.000"]


# ----------------------------------------------------------------------------- the reader


def test_the_separator_is_the_one_that_splits_the_header(tmp_path: Path) -> None:
    # a comma inside the header's cells would fool a count of commas; known names decide
    text = 'qid;document;section;clause_version;grade;note\r\nq01;home;2.10;2025;2;"a, b"\r\n'
    (tmp_path / "s.csv").write_text(text, encoding="utf-8")
    sheet = read_sheet(tmp_path / "s.csv")
    assert sheet.rows.values.tolist() == [["q01", "home", "2.10", "2025", "2", "a, b"]]
    assert sheet.lines == (2,)


def test_bytes_that_are_not_utf8_and_unknown_formats_are_refused(tmp_path: Path) -> None:
    (tmp_path / "old.csv").write_bytes("qid;note\r\nq01;£5\r\n".encode("cp1252"))
    with pytest.raises(UserError) as info:
        read_sheet(tmp_path / "old.csv")
    assert str(info.value) == (
        f"{tmp_path / 'old.csv'}: is not UTF-8 (bad byte at offset 14, an older Excel's legacy "
        "code page?); save it as 'CSV UTF-8' (Excel) or with the UTF-8 character set "
        "(LibreOffice), or as .xlsx"
    )
    (tmp_path / "s.ods").write_bytes(b"PK")
    with pytest.raises(UserError, match=r"s\.ods: unknown sheet format '\.ods'; save it as"):
        read_sheet(tmp_path / "s.ods")
    (tmp_path / "s.xlsx").write_bytes(b"not a zip")
    with pytest.raises(UserError, match=r"s\.xlsx: is not a readable Excel workbook"):
        read_sheet(tmp_path / "s.xlsx")


def test_a_clause_whose_text_changed_since_the_sheet_is_refused(tmp_path: Path) -> None:
    ds = load_dataset(sample_path())
    clause = ds.documents[0].clauses[0]
    ids = (clause.document, clause.section, clause.version)
    row = dict.fromkeys(SHEET_COLUMNS, "")
    row.update(document=ids[0], section=ids[1], clause_version=ids[2])
    row.update(clause_text=clause_text(clause), clause_key=clause_key(*ids, clause_text(clause)))
    import pandas as pd

    good = write_sheet_frame(pd.DataFrame([row]), tmp_path / "good.xlsx")
    assert read_sheet(good, dataset=ds).rows.loc[0, "clause_key"] == row["clause_key"]
    stale = {**row, "clause_key": clause_key(*ids, "an older wording")}
    write_sheet_frame(pd.DataFrame([stale]), tmp_path / "stale.csv")
    with pytest.raises(UserError, match=r"stale\.csv:2: field 'clause_key': '.*' is not the key"):
        read_sheet(tmp_path / "stale.csv", dataset=ds)


def test_a_text_that_looks_like_a_formula_stays_text_in_xlsx(tmp_path: Path) -> None:
    import pandas as pd

    row = dict.fromkeys(SHEET_COLUMNS, "")
    row.update(qid="q01", section="2.10", note="=1+1", clause_key="k1e5")
    path = write_sheet_frame(pd.DataFrame([row]), tmp_path / "s.xlsx")
    ws = openpyxl.load_workbook(path).active
    assert (ws["F2"].value, ws["N2"].value, ws["N2"].data_type) == ("2.10", "=1+1", "s")
    assert read_sheet(path).rows.loc[0, ["section", "note", "clause_key"]].tolist() == [
        "2.10",
        "=1+1",
        "k1e5",
    ]


def test_a_sheet_from_before_same_text_clauses_is_read_assigned_and_written_back(
    pooled: Path, tmp_path: Path
) -> None:
    rows = csv_rows(pooled / "sheet.csv")
    assert rows[0][-2:] == ["clause_key", "same_text_clauses"]
    old = tmp_path / "old.csv"
    with old.open("w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([r[: SHEET_COLUMNS.index("clause_key")] for r in rows])
    ran = cli_in(tmp_path, "labels", "assign", str(old), "--judges", "ann,bob", "--overlap", "1")
    assert ran.code == 0, ran.err
    back = csv_rows(tmp_path / "ann.csv")
    assert back[0][-2:] == ["clause_key", "same_text_clauses"]  # written empty
    assert {r[-1] for r in back[1:]} == {""}
