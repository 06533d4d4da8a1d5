"""The decision sheet of label upkeep: the labels the check left for a person, as judging-sheet
rows with the clause each could go to (`decision_sheet`), and the grades a person filled in read
back as decisions for `ragsweep.labelling.upkeep_apply.apply_check` (`decided_labels`)
(docs/labelling.md, "4. Keep the set alive").
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ragsweep.data import clause_id
from ragsweep.data.corpus import load_corpus
from ragsweep.data.reader import hint
from ragsweep.labelling.sheet_columns import SHEET_COLUMNS, clause_key, clause_text
from ragsweep.labelling.sheetfile import Sheet
from ragsweep.labelling.upkeep import CheckResult, Decision, questions_after


def decision_sheet(dataset_dir: str | Path, result: CheckResult) -> pd.DataFrame:
    """The labels `result` left for a person that have a clause to go to, as judging-sheet rows
    (`SHEET_COLUMNS`): the question (asking about its new version), the candidate clause of that
    version with its text and key, `existing_grade` empty, `prelabel` the old label's grade and
    `prelabel_source` where it came from and why it was not carried. A person fills `grade`;
    `decided_labels` reads the sheet back for `apply_check`'s `label`."""
    root = Path(dataset_dir)
    questions = {q["qid"]: q for q in questions_after(root, dict(result.moved))}
    clauses = {(c.document, c.section, c.version): c for d in load_corpus(root) for c in d.clauses}
    rows = []
    for b in result.blocked:
        if b.target is None:
            continue
        q, c = questions[b.qid], clauses[(b.document, b.target, b.to_version)]
        text = clause_text(c)
        rows.append(
            {
                "qid": b.qid,
                "question": q["text"],
                "slice": q["slice"],
                "version": b.to_version,
                "document": b.document,
                "section": b.target,
                "clause_version": b.to_version,
                "clause_text": text,
                "prelabel": str(b.grade),
                "prelabel_source": f"{clause_id(b.document, b.section, b.from_version)}: "
                f"{b.reason}",
                "clause_key": clause_key(b.document, b.target, b.to_version, text),
            }
        )
    return pd.DataFrame(rows, columns=list(SHEET_COLUMNS), dtype=object).fillna("")


def decided_labels(dataset_dir: str | Path, result: CheckResult, sheet: Sheet) -> list[Decision]:
    """The graded rows of a decision sheet (`decision_sheet`, filled by a person) as `label`
    decisions for `apply_check`, each with the row's judge cell as who decided: each row's
    clause must be of the version its question asks about (after the move) and match its
    `clause_key` when it has one; empty grades are skipped."""
    sheet.require(["qid", "document", "section", "clause_version", "grade"])
    root = Path(dataset_dir)
    asked = {q["qid"]: q["version"] for q in questions_after(root, dict(result.moved))}
    texts = {
        (c.document, c.section, c.version): clause_text(c)
        for d in load_corpus(root)
        for c in d.clauses
    }
    out = []
    for i, row in enumerate(sheet.rows.to_dict("records")):
        if row["grade"] == "":
            continue
        qid, doc, sec, ver = row["qid"], row["document"], row["section"], row["clause_version"]
        if row["grade"] not in ("0", "1", "2"):
            sheet.fail(f"grade {row['grade']!r} is not 0, 1 or 2; fix the cell", i, "grade")
        if qid not in asked:
            sheet.fail(f"unknown question {qid!r}; {hint(qid, list(asked))}fix the cell", i, "qid")
        if ver != asked[qid]:
            sheet.fail(
                f"clause version {ver!r}, but {qid} asks about version {asked[qid]!r}; grade a "
                "clause of the question's version (write the sheet again with --sheet)",
                i,
                "clause_version",
            )
        key = row.get("clause_key", "")
        text = texts.get((doc, sec, ver))
        if text is not None and key and key != clause_key(doc, sec, ver, text):
            sheet.fail(
                f"clause_key is not {clause_id(doc, sec, ver)}'s: the id was reformatted or the "
                "clause changed; write the sheet again with --sheet",
                i,
                "clause_key",
            )
        out.append((qid, doc, sec, int(row["grade"]), row.get("judge", "")))
    return out
