"""labels.jsonl: graded labels anchored to clauses of the corpus, one per (question, clause).

`check_anchors` and `label_frame` also serve the review files, whose rows have the same shape.
`judged_note` is what `ragsweep data import` and `data check` say of a set that labels only
relevant clauses (docs/report.md, "Unjudged passages").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.data.reader import DataFile, Spec, hint, known, table
from ragsweep.data.schema import (
    GRADES,
    LABELS_FILE,
    QUESTIONS_FILE,
    Document,
    admits,
    clause_id,
)

#: the fields of a label row, in data frame column order
LABEL_FIELDS: Spec = {
    "qid": ("str", False),
    "document": ("str", False),
    "section": ("str", False),
    "version": ("str", False),
    "grade": ("int", False),
}
#: fields a label row may carry: `model`, the model judge that made the label (absent: people
#: made it); docs/schema.md, "Model-made labels"
LABEL_OPTIONAL: Spec = {"model": ("str", False)}


def judged_note(labels_per_grade: Mapping[str, int], questions: int) -> str | None:
    """A warning when the labels hold no explicit grade 0 (TREC, SMART and BEIR qrels mostly list
    relevant documents only): every other passage of a top k is then unjudged, so reports will
    read `needs judging` until it is judged. None when some label is a grade 0."""
    if int(labels_per_grade.get("0", 0)) > 0 or questions == 0:
        return None
    total = sum(int(n) for n in labels_per_grade.values())
    return (
        f"only relevant clauses are labelled (no grade 0; {total / questions:.1f} labels per "
        "question): most of any top k will be unjudged, and reports read `needs judging` "
        "wherever those passages could turn a verdict; judge them (ragsweep labels pool), or "
        "accept trec_eval's convention with eval.unjudged=assume_not_relevant, which every "
        "report then prints as an assumption"
    )


def check_anchors(
    f: DataFile,
    rows: list[dict[str, Any]],
    documents: tuple[Document, ...],
    extra: Spec,
    optional: Sequence[str] = (),
) -> list[tuple[str, str]]:
    """Check label-shaped rows (`LABEL_FIELDS` and `extra`, of which `optional` may be left
    out): grades, clauses that exist in the corpus, one row per pair. Returns each row's (qid,
    clause id)."""
    spec = {**LABEL_FIELDS, **extra}
    sections = {(d.document, d.version): {c.section for c in d.clauses} for d in documents}
    versions: dict[str, list[str]] = {}
    for d in documents:
        versions.setdefault(d.document, []).append(d.version)
    doc_names = sorted(versions)
    pairs: list[tuple[str, str]] = []
    first: dict[tuple[str, str], int] = {}
    for n, lab in enumerate(rows, start=1):
        f.fields(lab, spec, n, optional=optional)
        grade = lab["grade"]
        if grade not in GRADES:
            f.fail(
                f"grade {grade} is outside {{0, 1, 2}} (2 answers fully, 1 supports, 0 judged "
                "not relevant)",
                n,
                "grade",
            )
        doc, sec, ver = lab["document"], lab["section"], lab["version"]
        cid = clause_id(doc, sec, ver)
        missing = f"clause {cid} is not in the corpus snapshot: "
        if doc not in versions:
            f.fail(
                f"{missing}there is no document {doc!r} at all; "
                f"{hint(doc, doc_names)}documents: {known(doc_names)}",
                n,
                "document",
            )
        if (doc, ver) not in sections:
            f.fail(
                f"{missing}document {doc!r} has no version {ver!r}; versions: "
                f"{known(sorted(versions[doc]))}",
                n,
                "version",
            )
        if sec not in sections[(doc, ver)]:
            elsewhere = sorted(v for v in versions[doc] if sec in sections[(doc, v)])
            also = (
                f"section {sec!r} exists only in version(s) {', '.join(elsewhere)}"
                if elsewhere
                else "fix the section number"
            )
            f.fail(f"{missing}corpus/{doc}@{ver}.json has no section {sec!r}; {also}", n, "section")
        key = (lab["qid"], cid)
        if key in first:
            f.fail(
                f"duplicate label for question {lab['qid']!r} and clause {cid} "
                f"(first on line {first[key]}); keep one row per pair",
                n,
                "qid",
            )
        first[key] = n
        pairs.append(key)
    return pairs


def label_frame(
    rows: list[dict[str, Any]], pairs: list[tuple[str, str]], columns: Sequence[str]
) -> pd.DataFrame:
    """Checked label rows as a data frame: `columns`, grade as int64, then `clause_id`."""
    frame = table(rows, columns)
    frame["grade"] = frame["grade"].astype("int64")
    frame["clause_id"] = [cid for _, cid in pairs]
    return frame


def load_labels(
    root: Path, data: bytes, questions: pd.DataFrame, documents: tuple[Document, ...]
) -> tuple[pd.DataFrame, dict[str, set[str]]]:
    """The labels in `data` (the bytes of `root`/labels.jsonl), checked against the corpus and
    the questions, every one of which needs a label with grade >= 1. Returns the labels in file
    order and the clause ids judged per qid (the pairs a review file may grade). The frame has
    a `model` column (None where people made the label) only when some row names a model."""
    f = DataFile(root, LABELS_FILE)
    rows = f.jsonl(data)
    pairs = check_anchors(f, rows, documents, LABEL_OPTIONAL, optional=list(LABEL_OPTIONAL))
    qids = set(questions["qid"])
    asked = {
        q: (p, v)
        for q, p, v in zip(
            questions["qid"], questions["product"], questions["version"], strict=True
        )
    }
    products = {(d.document, d.version): d.product for d in documents}
    judged: dict[str, set[str]] = {}
    relevant: set[str] = set()
    for n, (lab, (qid, cid)) in enumerate(zip(rows, pairs, strict=True), start=1):
        if qid not in qids:
            f.fail(
                f"unknown qid {qid!r}: no such question in questions.jsonl; add the question "
                "or remove the label",
                n,
                "qid",
            )
        judged.setdefault(qid, set()).add(cid)
        if lab["grade"] >= 1:
            _check_admitted(f, n, lab, asked[qid], products)
            relevant.add(qid)
    for n, qid in enumerate(questions["qid"], start=1):
        if qid not in relevant:
            DataFile(root, QUESTIONS_FILE).fail(
                f"question {qid!r} has no label with grade >= 1 in labels.jsonl; label the "
                "clause(s) of its version that answer it, or retire it (`ragsweep labels check "
                f"--apply --retire-question {qid}`)",
                n,
                "qid",
            )
    columns = list(LABEL_FIELDS)
    if any("model" in lab for lab in rows):
        columns.append("model")
        rows = [lab if "model" in lab else {**lab, "model": None} for lab in rows]
    return label_frame(rows, pairs, columns), judged


def _check_admitted(
    f: DataFile,
    n: int,
    lab: dict[str, Any],
    asked: tuple[str | None, str | None],
    products: Mapping[tuple[str, str], str | None],
) -> None:
    """Refuse a relevant label on a clause its question's product and version filter never
    retrieves (`ragsweep.data.schema.admits`): left in, it would cap the question's recall."""
    product, version = asked
    doc, ver = lab["document"], lab["version"]
    doc_product = products[(doc, ver)]
    if admits(product, version, doc_product, ver):
        return
    if version is not None and ver != version:
        what = f"version {ver!r}, and the question asks about version {version!r}"
    else:
        what = f"product {doc_product!r}, and the question asks about product {product!r}"
    f.fail(
        f"grade {lab['grade']} on clause {clause_id(doc, lab['section'], ver)} of {what}: the "
        "retriever's filter never returns it and the relevance rule grades it 0; run `ragsweep "
        "labels check --apply` (it carries the label to the question's version where the "
        "clause is the same, and retires this one), or set its grade to 0",
        n,
        "grade",
    )
