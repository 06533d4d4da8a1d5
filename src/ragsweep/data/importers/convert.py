"""Map a source `Collection` onto the dataset schema (docs/schema.md, docs/importing.md, "What
maps to what"); nothing is written here (`write.write_dataset` does that).

- every source document becomes one wording `<safe id>@1` (`docids`) with one part (kind
  `other`) holding one clause, section `1`: heading = the source title (whitespace collapsed),
  text = the body;
- every judgement becomes a label anchored to `(<safe id>, "1", "1")`, its grade given by the
  collection's `GradeRule`;
- every query with at least one label of grade >= 1 becomes a question (product and version null,
  subset `core`); the others are skipped and counted, as the schema needs a relevant label.

`convert` runs the steps below in order; output bytes depend only on the inputs and options.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ragsweep import __version__
from ragsweep.conventions import ALL
from ragsweep.data.importers.docids import safe_document_ids
from ragsweep.data.importers.grades import GradeRule
from ragsweep.data.importers.reading import Slicing, one_line
from ragsweep.data.importers.records import Collection, Judgement, SourceDoc, SourceQuery
from ragsweep.data.importers.report import ImportReport
from ragsweep.errors import DatasetError, UserError

#: every imported wording has this version (sources have one version per document)
VERSION = "1"
#: the one clause of every imported wording
SECTION = "1"
#: the part holding it: number, title, kind
PART = ("1", "Text", "other")
#: default `added` date of imported questions: a fixed placeholder meaning "unknown", so the
#: output does not depend on the day or on file times
DEFAULT_ADDED = "1970-01-01"
#: slice of every question when no slice rule is given (docs/schema.md)
ALL_SLICE = ALL  # one slice for an unsliced collection
#: `generator.name` in dataset.json
GENERATOR = "ragsweep data import"

_WHITESPACE = re.compile(r"\s")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_date(text: str) -> str:
    """`text` if it is a YYYY-MM-DD date, else a UserError."""
    try:
        ok = bool(_DATE.fullmatch(text)) and date.fromisoformat(text) is not None
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"--added {text!r} is not a date; write YYYY-MM-DD, e.g. 2025-03-31")
    return text


@dataclass(frozen=True)
class Converted:
    """A collection mapped onto the schema, ready to write: file name -> bytes, plus a report."""

    files: dict[str, bytes]
    report: ImportReport


# --------------------------------------------------------------------------------------------
# The steps of `convert`


def check_mapping(name: str, added: str, slicing: Slicing | None, slice_by: str | None) -> None:
    """Refuse an empty dataset name, a bad `--added` date, or a slice rule given twice or
    unknown."""
    if not name.strip():
        raise UserError("--name is empty; give the dataset a name")
    check_date(added)
    if slicing is not None and slice_by is not None:
        raise UserError("give either --slices FILE or --slice-by, not both")
    if slice_by not in (None, "best-code"):
        raise UserError(f"--slice-by {slice_by!r} is unknown; use best-code")


def _first_seen(items: Sequence[Any], key: str, what: str) -> None:
    """Refuse a repeated id, naming both places."""
    first: dict[str, Any] = {}
    for item in items:
        ident = getattr(item, key)
        if ident in first:
            prev = first[ident]
            raise DatasetError(
                item.path,
                f"{what} id {ident!r} appears twice (first at {prev.path}:{prev.line})"
                f"; give each {what} its own id",
                line=item.line,
                field=key,
            )
        first[ident] = item


def check_records(collection: Collection) -> None:
    """Refuse a collection without documents or queries, a repeated document or query id, and
    a query id that is empty or holds whitespace."""
    if not collection.docs:
        raise UserError(
            f"no document found in the {collection.format} input; check --docs / --source"
        )
    if not collection.queries:
        where = dict(collection.sources)
        path = where.get("queries", where.get("topics", "the queries file"))
        raise UserError(
            f"{path}: no query found in the {collection.format} input; give a file with at "
            "least one query"
        )
    _first_seen(collection.docs, "docid", "document")
    _first_seen(collection.queries, "qid", "query")
    for q in collection.queries:
        if not q.qid or _WHITESPACE.search(q.qid):
            raise DatasetError(
                q.path,
                f"query id {q.qid!r} is empty or holds whitespace; ids "
                "must be one word (run files are whitespace-separated)",
                line=q.line,
                field="qid",
            )


@dataclass(frozen=True)
class Graded:
    """The judgements that anchor to a known query and document, per qid in qrels order as
    (docid, code, grade), and how many were dropped for each reason."""

    by_query: dict[str, list[tuple[str, int, int]]]
    unknown_query: int
    unknown_document: int
    by_rule: int


def _grade(rule: GradeRule, j: Judgement) -> int | None:
    """`j`'s grade by `rule`; an error naming the line when the rule does not cover its code."""
    try:
        return rule.grade(j.code)
    except KeyError:
        named = ", ".join(str(c) for c, _ in rule.table)
        raise DatasetError(
            j.path,
            f"relevance code {j.code} is not in the grade map (it "
            f"names {named}); add {j.code}=GRADE or {j.code}=drop to "
            "--grade-map",
            line=j.line,
            field="code",
        ) from None


def grade_judgements(collection: Collection, safe: dict[str, str]) -> Graded:
    """Grade every judgement, dropping those whose query or document is not in the source or
    whose code the rule drops; refuse a pair judged twice, and qrels that match no query or no
    document at all (most likely files that do not belong together)."""
    query_ids = {q.qid for q in collection.queries}
    by_query: dict[str, list[tuple[str, int, int]]] = {}
    seen: dict[tuple[str, str], Judgement] = {}
    unknown_q = unknown_d = by_rule = 0
    for j in collection.judgements:
        key = (j.qid, j.docid)
        if key in seen:
            raise DatasetError(
                j.path,
                f"document {j.docid!r} is judged twice for query "
                f"{j.qid!r} (first on line {seen[key].line}); keep one judgement",
                line=j.line,
            )
        seen[key] = j
        grade = _grade(collection.rule, j)
        if j.qid not in query_ids:
            unknown_q += 1
        elif j.docid not in safe:
            unknown_d += 1
        elif grade is None:
            by_rule += 1
        else:
            by_query.setdefault(j.qid, []).append((j.docid, j.code, grade))
    if collection.judgements and unknown_q == len(collection.judgements):
        qs = ", ".join(sorted({j.qid for j in collection.judgements})[:5])
        known = ", ".join(q.qid for q in collection.queries[:5])
        raise UserError(
            f"no qrels query id matches a query (qrels: {qs}, ...; queries: {known}, ...); "
            "check that the qrels belong to these queries"
        )
    matched = [j for j in collection.judgements if j.qid in query_ids]
    if matched and unknown_d == len(matched):
        ds = ", ".join(sorted({j.docid for j in matched})[:5])
        known = ", ".join(d.docid for d in collection.docs[:5])
        raise UserError(
            f"no qrels document id matches a document (qrels: {ds}, ...; documents: {known}, "
            "...); check that the qrels belong to this corpus"
        )
    return Graded(by_query, unknown_q, unknown_d, by_rule)


@dataclass(frozen=True)
class Chosen:
    """The queries that become questions, in source order, with their one-line text; and the
    qids of the others: without any judgement, with no relevant one, with an empty text."""

    questions: tuple[tuple[SourceQuery, str], ...]
    unjudged: tuple[str, ...]
    no_relevant: tuple[str, ...]
    empty: tuple[str, ...]


def choose_questions(queries: Sequence[SourceQuery], graded: Graded) -> Chosen:
    """The queries with a text and at least one relevant label (grade >= 1); an error when
    none has."""
    questions: list[tuple[SourceQuery, str]] = []
    unjudged: list[str] = []
    no_relevant: list[str] = []
    empty: list[str] = []
    for q in queries:
        text = one_line(q.text)
        labels = graded.by_query.get(q.qid, [])
        if not text:
            empty.append(q.qid)
        elif not labels:
            unjudged.append(q.qid)
        elif max(g for _, _, g in labels) < 1:
            no_relevant.append(q.qid)
        else:
            questions.append((q, text))
    if not questions:
        raise UserError(
            f"none of the {len(queries)} queries has a relevant judgement (grade >= 1 "
            "after the grade rule), so nothing can be imported; check the qrels and --grade-map"
        )
    return Chosen(tuple(questions), tuple(unjudged), tuple(no_relevant), tuple(empty))


@dataclass(frozen=True)
class Slices:
    """Each question's slice, the slices in report order, and the rule in words."""

    assign: dict[str, str]
    order: tuple[str, ...]
    rule: str


def slices_from_file(chosen: Chosen, slicing: Slicing) -> Slices:
    """Slices from a `qid<TAB>slice` file: every question needs one, and every qid listed must
    be a query of the source (one skipped on import is allowed)."""
    kept = {q.qid for q, _ in chosen.questions}
    skipped = set(chosen.unjudged) | set(chosen.no_relevant) | set(chosen.empty)
    for qid in sorted(slicing.assign):
        if qid not in kept and qid not in skipped:
            raise DatasetError(
                slicing.path,
                f"qid {qid!r} is not a query of the source; check the slices file's ids",
                field="qid",
            )
    missing = [q.qid for q, _ in chosen.questions if q.qid not in slicing.assign]
    if missing:
        raise DatasetError(
            slicing.path,
            f"{len(missing)} imported question(s) have no slice "
            f"(first: {missing[0]!r}); give every question a slice",
        )
    assign = {q.qid: slicing.assign[q.qid] for q, _ in chosen.questions}
    used = set(assign.values())
    order = tuple(s for s in slicing.order if s in used)
    return Slices(assign, order, f"from {Path(slicing.path).name} (qid<TAB>slice)")


def slices_by_best_code(chosen: Chosen, graded: Graded, rule: GradeRule) -> Slices:
    """`--slice-by best-code`: each question's slice is the best source code among its
    relevant judgements, by the grade rule's notion of best; the best slice first."""
    assign = {}
    best_codes: set[int] = set()
    for q, _ in chosen.questions:
        best = min((c for _, c, g in graded.by_query[q.qid] if g >= 1), key=rule.best_key)
        best_codes.add(best)
        assign[q.qid] = rule.slice_name(best)
    codes = sorted(best_codes, key=rule.best_key)
    names = ", ".join(f"{rule.slice_name(c)} = {c}" for c in codes)
    return Slices(
        assign,
        tuple(rule.slice_name(c) for c in codes),
        f"best-code: the best source relevance code among a question's relevant "
        f"judgements ({names}); only to exercise per-slice reporting",
    )


def one_slice(chosen: Chosen) -> Slices:
    """No slice rule: every question in the slice `all`."""
    return Slices({q.qid: ALL_SLICE for q, _ in chosen.questions}, (ALL_SLICE,), "one slice 'all'")


def _json_file(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _jsonl_file(rows: Sequence[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")


def _wording(document: str, src: SourceDoc) -> tuple[dict[str, Any], bool]:
    """The wording object of one source document, and whether the source was empty."""
    heading = one_line(src.title)
    text = src.text.strip()
    empty = not heading and not text
    if not heading:
        heading = one_line(src.docid)
    if not text:
        text = heading
    number, title, kind = PART
    obj = {
        "document": document,
        "version": VERSION,
        "product": None,
        "form_code": None,
        "title": one_line(src.docid),
        "parts": [
            {
                "number": number,
                "title": title,
                "kind": kind,
                "clauses": [{"section": SECTION, "heading": heading, "text": text}],
            }
        ],
    }
    return obj, empty


def corpus_files(docs: Sequence[SourceDoc], safe: dict[str, str]) -> tuple[dict[str, bytes], int]:
    """`corpus/<safe id>@1.json` of every source document, and how many were empty."""
    files: dict[str, bytes] = {}
    n_empty = 0
    for src in docs:
        obj, was_empty = _wording(safe[src.docid], src)
        n_empty += was_empty
        files[f"corpus/{safe[src.docid]}@{VERSION}.json"] = _json_file(obj)
    return files, n_empty


def labelled_set_files(
    chosen: Chosen, graded: Graded, slices: Slices, safe: dict[str, str], added: str
) -> dict[str, bytes]:
    """questions.jsonl and labels.jsonl: each question, then its labels in qrels order."""
    questions = [
        {
            "qid": q.qid,
            "text": text,
            "slice": slices.assign[q.qid],
            "product": None,
            "version": None,
            "subset": "core",
            "added": added,
        }
        for q, text in chosen.questions
    ]
    labels = [
        {
            "qid": q.qid,
            "document": safe[docid],
            "section": SECTION,
            "version": VERSION,
            "grade": grade,
        }
        for q, _ in chosen.questions
        for docid, _code, grade in graded.by_query[q.qid]
    ]
    return {"questions.jsonl": _jsonl_file(questions), "labels.jsonl": _jsonl_file(labels)}


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def dataset_json(collection: Collection, report: ImportReport, slices: Slices, added: str) -> bytes:
    """dataset.json: the description, the slices, and notes on where the data came from and
    how it was mapped (source files with their sha256, grade and slice rules, the counts)."""
    rule = collection.rule
    source_names = ", ".join(p.name for _, p in collection.sources)
    description = (
        f"{report.questions} questions and {report.documents} documents imported from "
        f"{collection.format} files ({source_names}) by `ragsweep data import`. Each source "
        "document is one wording with a single clause (section 1, version 1); relevance codes "
        f"map to grades by the {rule.name} rule ({rule.describe()}); {report.skipped} source "
        "queries without a relevant judgement were skipped."
    )
    notes: dict[str, Any] = {
        "source_format": collection.format,
        **collection.details,
        "source_files": [
            {"role": role, "name": p.name, "sha256": _sha256_file(p)}
            for role, p in collection.sources
        ],
        "grade_rule": {"name": rule.name, "rule": rule.describe()},
        "slice_rule": slices.rule,
        "added": added,
        **report.notes(),
    }
    meta = {
        "schema_version": 1,
        "name": report.name,
        "description": description,
        "slices": list(slices.order),
        "generator": {"name": GENERATOR, "version": __version__, "seed": None},
        "notes": notes,
    }
    return _json_file(meta)


def convert(
    collection: Collection,
    *,
    name: str,
    added: str = DEFAULT_ADDED,
    slicing: Slicing | None = None,
    slice_by: str | None = None,
) -> Converted:
    """Map `collection` onto the dataset schema (see the module docstring); nothing is written.

    Slices: `slicing` (from a `qid<TAB>slice` file, keyed by the question ids written), or
    `slice_by="best-code"` (the best relevance code among a question's relevant judgements, by
    the grade rule's notion of best), or neither (one slice `all`). Raises DatasetError /
    UserError for input that cannot be imported, naming the file and line.
    """
    check_mapping(name, added, slicing, slice_by)
    check_records(collection)
    safe = safe_document_ids([d.docid for d in collection.docs])
    graded = grade_judgements(collection, safe)
    chosen = choose_questions(collection.queries, graded)
    if slicing is not None:
        slices = slices_from_file(chosen, slicing)
    elif slice_by == "best-code":
        slices = slices_by_best_code(chosen, graded, collection.rule)
    else:
        slices = one_slice(chosen)
    files, n_empty = corpus_files(collection.docs, safe)
    files |= labelled_set_files(chosen, graded, slices, safe, added)
    grades = Counter(g for q, _ in chosen.questions for _, _, g in graded.by_query[q.qid])
    report = ImportReport(
        name=name.strip(),
        documents=len(collection.docs),
        renamed_documents=sum(1 for d, s in safe.items() if d != s),
        empty_documents=n_empty,
        questions=len(chosen.questions),
        slices={s: sum(1 for v in slices.assign.values() if v == s) for s in slices.order},
        labels_per_grade={str(g): grades[g] for g in (2, 1, 0)},
        skipped_unjudged=chosen.unjudged,
        skipped_no_relevant=chosen.no_relevant,
        skipped_empty=chosen.empty,
        dropped_unknown_query=graded.unknown_query,
        dropped_unknown_document=graded.unknown_document,
        dropped_by_rule=graded.by_rule,
    )
    files["dataset.json"] = dataset_json(collection, report, slices, added)
    return Converted(files, report)
