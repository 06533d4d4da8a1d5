"""The adjudication sheet: pairs two judges graded differently, for a third decision.

`labels import` keeps a label when another judge grades its pair otherwise (a `dispute`,
`ragsweep.labelling.sheets.import_sheets`) and writes these pairs here: the question, the
clause and its text, both grades and judges, and an empty `grade` for the decision. Imported
back with `labels import adjudicate.csv --adjudicated --judge NAME`, its grades are final.
Same file conventions as the judging sheet (`ragsweep.labelling.sheetfile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ragsweep.data import Dataset, clause_id
from ragsweep.labelling.sheet_columns import CLAUSE_COLUMNS, clause_key, clause_text
from ragsweep.labelling.sheetfile import write_sheet_frame
from ragsweep.labelling.sheets import Dispute

#: the adjudication sheet's columns: the judging sheet's key columns, the two judges' grades,
#: then the decision columns
COLUMNS = (
    *CLAUSE_COLUMNS,
    "existing_grade",
    "existing_judge",
    "other_grade",
    "other_judge",
    "grade",
    "note",
    "judge",
    "clause_key",
)


def write_adjudication(ds: Dataset, disputes: Sequence[Dispute], path: Path) -> Path:
    """Write `disputes` as the adjudication sheet at `path` (replaced whole, CSV or .xlsx by
    its suffix, as the judging sheet is written), one row per pair and judge, in question then
    clause order; each row carries the clause's text and key, so its import is checked as a
    judging sheet's is."""
    questions = ds.questions.set_index("qid")
    clauses = {c.clause_id: c for d in ds.documents for c in d.clauses}
    rows = []
    for d in sorted(disputes, key=lambda x: (x.key, x.other_judge)):
        qid, doc, sec, ver = d.key
        q = questions.loc[qid]
        text = clause_text(clauses[clause_id(doc, sec, ver)])
        rows.append(
            {
                "qid": qid,
                "question": q["text"],
                "slice": q["slice"],
                "version": q["version"],
                "document": doc,
                "section": sec,
                "clause_version": ver,
                "clause_text": text,
                "existing_grade": d.grade,
                "existing_judge": d.judge or "(before the changelog)",
                "other_grade": d.other_grade,
                "other_judge": d.other_judge,
                "clause_key": clause_key(doc, sec, ver, text),
            }
        )
    frame = pd.DataFrame(rows, columns=list(COLUMNS), dtype=object)
    return write_sheet_frame(frame, path, COLUMNS)
