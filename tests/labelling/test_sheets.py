"""Importing judged sheets and adding production failures: counts, exact labels.jsonl and
changelog rows, every validation error (one line, sheet:line: field), all or nothing (the folder
byte-identical after a refusal), conflicts between sheets, the manifest refreshed."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from label_folder import AT, copy_tiny, digest, jsonl, lab, log_row

from ragsweep.data import load_dataset, sample_path
from ragsweep.errors import DatasetError, UserError
from ragsweep.labelling.labelfiles import CHANGELOG_FILE
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS
from ragsweep.labelling.sheets import ImportResult, import_sheets


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return copy_tiny(tmp_path)


def row(qid: str, document: str, section: str, clause_version: str, grade: str, **cells: str):
    """A sheet row: the clause and the grade, the other columns empty unless given."""
    base = dict.fromkeys(SHEET_COLUMNS, "")
    base.update(
        qid=qid, document=document, section=section, clause_version=clause_version, grade=grade
    )
    base.update(cells)
    return base


def write_sheet(path: Path, rows: list[dict[str, str]], columns=SHEET_COLUMNS) -> Path:
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return path


# ----------------------------------------------------------------------------- import


def test_import_adds_changes_and_logs(tiny: Path, tmp_path: Path) -> None:
    """The tiny labels predate the changelog: a judge grading one of them otherwise disputes it
    (the label kept, the grade logged), one grading it alike confirms it; a new pair is added.
    The label's own judge changing their grade is a change."""
    before = load_dataset(tiny).labels_hash
    sheet = write_sheet(
        tmp_path / "judged.csv",
        [
            row("q01", "home", "2.1", "2025", "2", version="2025"),  # as labelled
            row("q08", "home", "2.2", "2024", "2", judge="alice", note="states it"),  # was 1
            row("q03", "home", "3.1", "2025", " 1 "),  # new pair
            row("q05", "home", "1.1", "2024", ""),  # not judged
        ],
    )
    result = import_sheets(tiny, [sheet], judge="bob", at=AT)
    assert (result.added, result.changed, result.unchanged, result.skipped) == (1, 0, 2, 1)
    assert (result.confirmed, len(result.disputes), result.by_rule) == (1, 1, ())
    labels = jsonl(tiny / "labels.jsonl")
    assert len(labels) == 17
    # question order, then grade descending: the new grade 1 of q03 goes between its 2 and 0;
    # q08's disputed grade 1 is kept
    assert labels[5:8] == [
        lab("q03", "home", "3.2", "2025", 2),
        lab("q03", "home", "3.1", "2025", 1),
        lab("q03", "home", "2.1", "2025", 0),
    ]
    assert labels[13:15] == [
        lab("q08", "home", "1.1", "2024", 2),
        lab("q08", "home", "2.2", "2024", 1),
    ]
    assert jsonl(tiny / CHANGELOG_FILE) == [
        log_row("confirm", "bob", "q01", ("home", "2.1", "2025"), 2, 2, "judged sheet",
                "judged.csv"),
        log_row("dispute", "alice", "q08", ("home", "2.2", "2024"), 1, 2, "judged sheet",
                "judged.csv", "states it"),
        log_row("add", "bob", "q03", ("home", "3.1", "2025"), None, 1, "judged sheet",
                "judged.csv"),
    ]  # fmt: skip
    kinds = [(c.kind, c.qid) for c in result.changes]
    assert kinds == [("confirm", "q01"), ("dispute", "q08"), ("add", "q03")]
    ds = load_dataset(tiny)
    assert ds.labels_hash != before
    # the file is written the way the dataset writers write it
    text = (tiny / "labels.jsonl").read_text(encoding="utf-8")
    assert text.splitlines()[0] == (
        '{"qid": "q01", "document": "home", "section": "2.1", "version": "2025", "grade": 2}'
    )


def test_import_grades_another_version_0_by_the_relevance_rule(tiny: Path, tmp_path: Path) -> None:
    """q01 asks about home 2025: a judge's 1 on the 2024 clause (labelled 0) leaves it 0, and a
    new 2 on a 2024 clause is added as 0 with the judge's grade in the note; the folder still
    loads (no relevant label the retriever's filter can never return)."""
    sheet = write_sheet(
        tmp_path / "judged.csv",
        [
            row("q01", "home", "2.1", "2024", "1"),
            row("q01", "home", "1.1", "2024", "2", judge="alice", note="same words"),
        ],
    )
    result = import_sheets(tiny, [sheet], judge="bob", at=AT)
    assert (result.added, result.changed, result.unchanged) == (1, 0, 1)
    assert result.by_rule == (("q01", "home", "2.1", "2024"), ("q01", "home", "1.1", "2024"))
    rule = "another version or product than the question asks about is 0 (relevance rule)"
    assert jsonl(tiny / CHANGELOG_FILE) == [  # bob's 1 confirms the label's 0, by the rule
        log_row("confirm", "bob", "q01", ("home", "2.1", "2024"), 0, 0, "judged sheet",
                "judged.csv", f"judged 1 by bob; {rule}"),
        log_row("add", "alice", "q01", ("home", "1.1", "2024"), None, 0, "judged sheet",
                "judged.csv", f"judged 2 by alice; {rule}; same words"),
    ]  # fmt: skip
    ds = load_dataset(tiny)
    q01 = ds.labels[ds.labels["qid"] == "q01"]
    assert dict(zip(q01["clause_id"], q01["grade"], strict=True)) == {
        "home/2.1@2025": 2,
        "home/2.1@2024": 0,
        "home/1.1@2024": 0,
    }


def test_second_import_appends_to_changelog(tiny: Path, tmp_path: Path) -> None:
    a = write_sheet(tmp_path / "a.csv", [row("q05", "home", "1.1", "2024", "0")])
    b = write_sheet(tmp_path / "b.csv", [row("q05", "home", "1.1", "2024", "1")])
    import_sheets(tiny, [a], judge="bob", at=AT)
    result = import_sheets(tiny, [b], judge="carol", at=AT, reason="second look")
    assert (result.added, result.changed, len(result.disputes)) == (0, 0, 1)
    result = import_sheets(tiny, [b], judge="bob", at=AT, reason="my mistake")
    assert (result.added, result.changed, len(result.disputes)) == (0, 1, 0)
    assert jsonl(tiny / CHANGELOG_FILE) == [
        log_row("add", "bob", "q05", ("home", "1.1", "2024"), None, 0, "judged sheet", "a.csv"),
        log_row("dispute", "carol", "q05", ("home", "1.1", "2024"), 0, 1, "second look", "b.csv"),
        log_row("change", "bob", "q05", ("home", "1.1", "2024"), 0, 1, "my mistake", "b.csv"),
    ]
    load_dataset(tiny)


def test_nothing_changed_writes_nothing(tiny: Path, tmp_path: Path) -> None:
    sheet = write_sheet(
        tmp_path / "s.csv",
        [row("q01", "home", "2.1", "2025", "2"), row("q05", "home", "1.1", "2024", "")],
    )
    assert import_sheets(tiny, [sheet], judge="bob", at=AT).confirmed == 1  # logged once
    before = digest(tiny)
    result = import_sheets(tiny, [sheet], judge="bob", at=AT)
    assert result == ImportResult(added=0, changed=0, unchanged=1, skipped=1, changes=())
    assert digest(tiny) == before


def test_two_sheets_agreeing_count_once(tiny: Path, tmp_path: Path) -> None:
    a = write_sheet(tmp_path / "a.csv", [row("q05", "home", "1.1", "2024", "1")])
    b = write_sheet(tmp_path / "b.csv", [row("q05", "home", "1.1", "2024", "1")])
    result = import_sheets(tiny, [a, b], judge="bob", at=AT)
    assert (result.added, result.changed, result.unchanged) == (1, 0, 0)
    assert [r["source"] for r in jsonl(tiny / CHANGELOG_FILE)] == ["a.csv"]


def test_conflict_between_sheets_names_both(tiny: Path, tmp_path: Path) -> None:
    a = write_sheet(tmp_path / "a.csv", [row("q01", "home", "2.1", "2025", "1")])
    b = write_sheet(
        tmp_path / "b.csv",
        [row("q05", "home", "1.1", "2024", "0"), row("q01", "home", "2.1", "2025", "2")],
    )
    before = digest(tiny)
    with pytest.raises(UserError) as info:
        import_sheets(tiny, [a, b], judge="bob", at=AT)
    msg = str(info.value)
    assert msg == (
        f"{b}:3: field 'grade': grade 2 for question 'q01' and clause home/2.1@2025 conflicts "
        f"with grade 1 in {a}:2; agree on one grade and fix one of the sheets, or import "
        "them one at a time (a further judge's differing grades go to adjudication)"
    )
    assert digest(tiny) == before


VALID = row("q05", "home", "1.1", "2024", "1")  # a good row before the bad one


@pytest.mark.parametrize(
    ("bad", "field", "says"),
    [
        (row("q99", "home", "2.1", "2025", "2"), "qid", "unknown question 'q99'"),
        (row("q01", "house", "2.1", "2025", "2"), "document", "there is no document 'house'"),
        (row("q01", "home", "9.9", "2025", "2"), "section", "has no section '9.9'"),
        (row("q01", "home", "2.1", "2023", "2"), "clause_version", "version '2023' of document"),
        (
            row("q01", "home", "2.1", "2025", "2", version="2026"),
            "version",
            "version '2026' does not exist",
        ),
        (
            row("q01", "home", "2.1", "2025", "2", version="2024"),
            "version",
            "asks about version '2025'",
        ),
        (row("q01", "home", "2.1", "2025", "3"), "grade", "grade 3 is outside {0, 1, 2}"),
        (row("q01", "home", "2.1", "2025", "-1"), "grade", "grade -1 is outside {0, 1, 2}"),
        (row("q01", "home", "2.1", "2025", "2.0"), "grade", "'2.0' is not a whole number"),
        (row("q01", "home", "2.1", "2025", "two"), "grade", "'two' is not a whole number"),
        (row("q05", "home", "1.1", "2024", "2"), "qid", "duplicate row for question 'q05'"),
        (row("q02", "home", "3.1", "2025", "0"), "qid", "is in review/reviewer2.jsonl"),
    ],
)
def test_bad_row_is_refused_on_one_line(
    tiny: Path, tmp_path: Path, bad: dict, field: str, says: str
) -> None:
    sheet = write_sheet(tmp_path / "bad.csv", [VALID, bad])
    before = digest(tiny)
    with pytest.raises(UserError) as info:
        import_sheets(tiny, [sheet], judge="bob", at=AT)
    msg = str(info.value)
    assert msg.startswith(f"{sheet}:3: field '{field}': ")
    assert says in msg
    assert "\n" not in msg
    assert "; " in msg  # the fix follows the problem
    assert digest(tiny) == before


def test_missing_judge(tiny: Path, tmp_path: Path) -> None:
    sheet = write_sheet(tmp_path / "s.csv", [row("q05", "home", "1.1", "2024", "1")])
    with pytest.raises(UserError, match=r"s\.csv:2: field 'judge': is empty and no judge"):
        import_sheets(tiny, [sheet], judge=None, at=AT)
    # the judge column alone is enough
    sheet = write_sheet(sheet, [row("q05", "home", "1.1", "2024", "1", judge="dana")])
    import_sheets(tiny, [sheet], judge=None, at=AT)
    assert jsonl(tiny / CHANGELOG_FILE)[0]["who"] == "dana"


def test_missing_column_and_bad_files(tiny: Path, tmp_path: Path) -> None:
    cols = [c for c in SHEET_COLUMNS if c != "grade"]
    sheet = write_sheet(tmp_path / "s.csv", [VALID], columns=cols)
    with pytest.raises(UserError, match=r"s\.csv:1: field 'grade': missing column"):
        import_sheets(tiny, [sheet], judge="bob", at=AT)
    with pytest.raises(UserError, match=r"gone\.csv: is missing"):
        import_sheets(tiny, [tmp_path / "gone.csv"], judge="bob", at=AT)
    (tmp_path / "latin.csv").write_bytes("qid,grade\n\xe9\n".encode("latin-1"))
    with pytest.raises(UserError, match=r"latin\.csv: is not UTF-8"):
        import_sheets(tiny, [tmp_path / "latin.csv"], judge="bob", at=AT)
    with pytest.raises(UserError, match="field 'at': 'yesterday' is not an ISO 8601"):
        import_sheets(tiny, [sheet], judge="bob", at="yesterday")


def test_line_numbers_count_multiline_cells(tiny: Path, tmp_path: Path) -> None:
    sheet = write_sheet(
        tmp_path / "s.csv",
        [
            row("q05", "home", "1.1", "2024", "1", note="first line\nsecond line"),
            row("q05", "home", "9.9", "2024", "1"),
        ],
    )
    with pytest.raises(UserError, match=r"s\.csv:4: field 'section': "):
        import_sheets(tiny, [sheet], judge="bob", at=AT)


def test_excel_bom_and_blank_rows(tiny: Path, tmp_path: Path) -> None:
    sheet = write_sheet(tmp_path / "s.csv", [VALID])
    sheet.write_bytes(b"\xef\xbb\xbf" + sheet.read_bytes() + b",,,,,,,,,,,,,\n")
    assert import_sheets(tiny, [sheet], judge="bob", at=AT).added == 1


def test_broken_dataset_is_refused_first(tiny: Path, tmp_path: Path) -> None:
    (tiny / "labels.jsonl").write_text("{}\n", encoding="utf-8")
    before = digest(tiny)
    sheet = write_sheet(tmp_path / "s.csv", [VALID])
    with pytest.raises(DatasetError, match=r"labels\.jsonl:1: field 'qid': missing"):
        import_sheets(tiny, [sheet], judge="bob", at=AT)
    assert digest(tiny) == before


def test_manifest_is_refreshed(tmp_path: Path) -> None:
    ds_dir = Path(shutil.copytree(sample_path(), tmp_path / "sample"))
    sheet = write_sheet(tmp_path / "s.csv", [row("q0001", "motor", "4.3", "2024", "2")])
    result = import_sheets(ds_dir, [sheet], judge="bob", at=AT, adjudicated=True)
    assert (result.added, result.changed) == (0, 1)
    manifest = (ds_dir / "MANIFEST.sha256").read_text(encoding="utf-8").splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in manifest}
    assert listed == {rel: h for rel, h in digest(ds_dir).items() if rel != "MANIFEST.sha256"}
    assert CHANGELOG_FILE in listed
    assert [line.split("  ", 1)[1] for line in manifest] == sorted(listed)
    load_dataset(ds_dir)


def test_folder_off_its_manifest_is_refused(tmp_path: Path) -> None:
    ds_dir = Path(shutil.copytree(sample_path(), tmp_path / "sample"))
    with (ds_dir / "query_log.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"ts": "2025-06-01T09:13:22Z", "session": "s1", "text": "edited"}\n')
    before = digest(ds_dir)
    sheet = write_sheet(tmp_path / "s.csv", [row("q0001", "motor", "4.3", "2024", "2")])
    with pytest.raises(UserError, match=r"MANIFEST\.sha256:\d+: sha256 of query_log\.jsonl"):
        import_sheets(ds_dir, [sheet], judge="bob", at=AT)
    assert digest(ds_dir) == before


# ----------------------------------------------------------------------------- same text

#: motor/1.1 reads the same in 2024 and 2025
TWIN = "motor/1.1@2024"


def test_a_rows_grade_applies_to_its_same_text_clauses_and_the_rule_still_zeroes_other_versions(
    tiny,
) -> None:
    sheet = write_sheet(
        tiny / "s.csv",
        [row("q06", "motor", "1.1", "2025", "1", judge="ann", same_text_clauses="motor/1.1@2024")],
    )
    done = import_sheets(tiny, [sheet], judge=None, at=AT)
    assert (done.added, done.by_rule, done.same_text, done.same_text_by_rule) == (2, (), 1, 1)
    new = [r for r in jsonl(tiny / "labels.jsonl") if r["qid"] == "q06"]
    assert lab("q06", "motor", "1.1", "2025", 1) in new
    assert lab("q06", "motor", "1.1", "2024", 0) in new  # another version: 0 by the rule
    twin = next(c for c in jsonl(tiny / CHANGELOG_FILE) if c["version"] == "2024")
    assert (twin["kind"], twin["new_grade"], twin["who"]) == ("add", 0, "ann")
    assert twin["note"] == (
        "judged 1 by ann; another version or product than the question asks about is 0 "
        "(relevance rule); graded in the row of motor/1.1@2025, the same text"
    )


def test_a_candidate_of_no_version_gets_the_grade_on_every_same_text_clause(tiny) -> None:
    import pandas as pd

    qid = "s0123456789"
    candidates = pd.DataFrame(
        [{"qid": qid, "text": "what is a named driver", "slice": "definitions",
          "product": "motor", "version": None}]
    )  # fmt: skip
    sheet = write_sheet(
        tiny / "s.csv",
        [row(qid, "motor", "1.1", "2025", "2", judge="ann", same_text_clauses="motor/1.1@2024")],
    )
    done = import_sheets(tiny, [sheet], judge=None, at=AT, candidates=candidates)
    assert (done.added, done.questions_added, done.same_text, done.same_text_by_rule) == (
        2, 1, 1, 0
    )  # fmt: skip
    new = [r for r in jsonl(tiny / "labels.jsonl") if r["qid"] == qid]
    assert sorted(r["version"] for r in new if r["grade"] == 2) == ["2024", "2025"]


def test_a_pairs_own_row_outranks_a_same_text_row(tiny) -> None:
    sheet = write_sheet(
        tiny / "s.csv",
        [
            row(
                "q06", "motor", "1.1", "2025", "1", judge="ann", same_text_clauses="motor/1.1@2024"
            ),
            row("q06", "motor", "1.1", "2024", "0", judge="ann"),
        ],
    )
    done = import_sheets(tiny, [sheet], judge=None, at=AT)
    assert (done.added, done.same_text) == (2, 0)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("motor/2.1@2024", "'motor/2.1@2024' has another text"),
        ("motor/9.9@2024", "'motor/9.9@2024' is not a clause of the corpus"),
    ],
)
def test_a_same_text_cell_naming_another_text_is_refused_and_nothing_changes(
    tiny, cell, message
) -> None:
    sheet = write_sheet(
        tiny / "s.csv",
        [row("q06", "motor", "1.1", "2025", "1", judge="ann", same_text_clauses=cell)],
    )
    before = digest(tiny)
    with pytest.raises(DatasetError, match=rf"s.csv:2: field 'same_text_clauses': {message}"):
        import_sheets(tiny, [sheet], judge=None, at=AT)
    assert digest(tiny) == before
