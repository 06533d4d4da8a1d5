"""What a judging sheet holds: its columns, how a clause is shown on one line, and the
`clause_key` that protects a row's clause ids (docs/labelling.md, pool and judge)."""

from __future__ import annotations

import hashlib
import re

from ragsweep.data.schema import Clause

#: the judging sheet's columns, in order (`prelabel*` are filled by the pre-labellers, `grade`,
#: `note`, `judge` by the judge; `clause_key` protects the clause's id, see `clause_key`;
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
#: what a line break inside a cell becomes: a visible paragraph mark, never a row break
LINE_BREAK = " ¶ "

_BREAKS = re.compile(r"[ \t]*(?:\r\n|[\r\n\v\f\x1c-\x1e\x85\u2028\u2029])+[ \t]*")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")

Row = tuple[int, list[str]]  # a row read from a sheet file: (line or row number, cells)


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


def sheet_row(
    qid: str, question: str, slice_: str, version: str, clause: Clause, **cells: object
) -> dict[str, object]:
    """One judging-sheet row (`SHEET_COLUMNS`) of a question and a clause: the clause shown,
    its `clause_key`, every other cell empty unless given in `cells` (`systems`,
    `existing_grade`, `same_text_clauses`, ...)."""
    text = clause_text(clause)
    row: dict[str, object] = dict.fromkeys(SHEET_COLUMNS, "")
    row |= {
        "qid": qid,
        "question": one_line(question),
        "slice": slice_,
        "version": version,
        "document": clause.document,
        "section": clause.section,
        "clause_version": clause.version,
        "clause_text": text,
        "clause_key": clause_key(clause.document, clause.section, clause.version, text),
    }
    return row | cells
