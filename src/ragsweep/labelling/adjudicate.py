"""The adjudication sheet: pairs two judges graded differently, for a third decision.

`labels import` keeps a label when another judge grades its pair otherwise (a `dispute`,
`ragsweep.labelling.sheets.import_sheets`) and writes these pairs here: the question, the
clause and its text, both grades and judges, and an empty `grade` for the decision. Imported
back with `labels import adjudicate.csv --adjudicated --judge NAME`, its grades are final.
Same file conventions as the judging sheet (`ragsweep.labelling.pool.write_sheet`).
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ragsweep.data import Dataset, clause_id
from ragsweep.labelling.pool import SHEET_ENCODING, one_line
from ragsweep.labelling.sheets import Dispute

#: the adjudication sheet's columns: the judging sheet's key columns, the two judges' grades,
#: then the decision columns
COLUMNS = (
    "qid",
    "question",
    "slice",
    "version",
    "document",
    "section",
    "clause_version",
    "clause_text",
    "existing_grade",
    "existing_judge",
    "other_grade",
    "other_judge",
    "grade",
    "note",
    "judge",
)


def write_adjudication(ds: Dataset, disputes: Sequence[Dispute], path: Path) -> Path:
    """Write `disputes` as the adjudication sheet at `path` (replaced whole), one row per pair
    and judge, in question then clause order."""
    questions = ds.questions.set_index("qid")
    texts = {c.clause_id: c.text for d in ds.documents for c in d.clauses}
    rows = []
    for d in sorted(disputes, key=lambda x: (x.key, x.other_judge)):
        qid, doc, sec, ver = d.key
        q = questions.loc[qid]
        rows.append(
            [
                qid,
                q["text"],
                q["slice"],
                q["version"],
                doc,
                sec,
                ver,
                texts.get(clause_id(doc, sec, ver), ""),
                d.grade,
                d.judge or "(before the changelog)",
                d.other_grade,
                d.other_judge,
                "",
                "",
                "",
            ]
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=SHEET_ENCODING, newline="") as fh:
            out = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
            out.writerow(COLUMNS)
            for row in rows:
                out.writerow([one_line(str(v)) for v in row])
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
