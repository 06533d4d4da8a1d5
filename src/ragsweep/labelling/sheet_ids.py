"""A read sheet's ids checked against the dataset: each row's clause against its `clause_key`
(else its clause text), its qid against its question text, an .xlsx id cell that became a number,
and clauses the corpus lacks; each refused in one line naming the id it should hold
(docs/labelling.md, judge then import)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, NoReturn

from ragsweep.data.schema import Dataset, clause_id
from ragsweep.labelling.sheet_columns import clause_key, clause_text, one_line
from ragsweep.labelling.sheet_xlsx import Number, cell_text

if TYPE_CHECKING:
    from ragsweep.labelling.sheetfile import Sheet

Ids = tuple[str, str, str]  # a clause's (document, section, version)


def refuse_number(sheet: Sheet, number: Number, dataset: Dataset | None) -> NoReturn:
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
        f"the cell holds the {kind} {cell_text(value)}, not text: the spreadsheet reformatted the "
        f"id ({was}); type it again as text in a cell formatted as text (a leading apostrophe: "
        f"{fix}), or re-export the sheet",
        i,
        column,
    )


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
