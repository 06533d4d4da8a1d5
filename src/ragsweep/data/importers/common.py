"""What every importer shares: the source records, the grade rule, and writing the dataset folder.

A format reader (`beir`, `trecfiles`, `smart`) turns its files into a `Collection`: documents,
queries and judgements as the source wrote them, each remembering its file and line for errors.
`convert` maps a collection onto the dataset schema (docs/schema.md, docs/importing.md):

- every source document becomes one wording `<safe id>@1` with one part (kind `other`) holding
  one clause, section `1`: heading = the source title (whitespace collapsed), text = the body;
- every judgement becomes a label anchored to `(<safe id>, "1", "1")`, its grade given by the
  collection's `GradeRule`;
- every query with at least one label of grade >= 1 becomes a question (product and version null,
  subset `core`); the others are skipped and counted, as the schema needs a relevant label.

`write_dataset` writes the result into a temporary sibling folder, validates it with
`ragsweep.data.load_dataset` and only then swaps it into place, so no half-written or invalid
folder is ever left behind. Output bytes depend only on the inputs and the options.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any, Literal

from ragsweep import __version__
from ragsweep.conventions import ALL
from ragsweep.data.labels import judged_note
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
#: longest document id written; longer safe ids are cut and given a hash suffix
MAX_ID = 100

_SAFE_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_UNSAFE_RUN = re.compile(r"[^a-z0-9_.-]+")
_WHITESPACE = re.compile(r"\s")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


# --------------------------------------------------------------------------------------------
# Source records


@dataclass(frozen=True)
class SourceDoc:
    """One source document as read: id, title and body (either may be empty), and where it is."""

    docid: str
    title: str
    text: str
    path: str
    line: int


@dataclass(frozen=True)
class SourceQuery:
    """One source query as read (`text` may be empty), and where it is."""

    qid: str
    text: str
    path: str
    line: int


@dataclass(frozen=True)
class Judgement:
    """One qrels line: the source's relevance `code` for (qid, docid), and where it is."""

    qid: str
    docid: str
    code: int
    path: str
    line: int


@dataclass(frozen=True)
class GradeRule:
    """Maps a source relevance code to a schema grade (0, 1, 2) or None (the line is dropped).

    `table` lists exact codes; a code outside it is graded by the threshold rule (>= 2 -> 2,
    1 -> 1, <= 0 -> 0) when `threshold` is true, and is an error otherwise (a custom map must
    name every code the qrels use). `best` says which codes are better for `--slice-by
    best-code`: `higher` (TREC, BEIR) or `lower` (Cranfield, whose 1 is a complete answer);
    `names` gives those slices readable names (default `code<N>`).
    """

    name: str
    table: tuple[tuple[int, int | None], ...] = ()
    threshold: bool = True
    best: Literal["higher", "lower"] = "higher"
    names: tuple[tuple[int, str], ...] = ()

    def grade(self, code: int) -> int | None:
        """The schema grade of `code`; KeyError if the rule does not cover it."""
        for c, g in self.table:
            if c == code:
                return g
        if not self.threshold:
            raise KeyError(code)
        return 2 if code >= 2 else (1 if code == 1 else 0)

    def slice_name(self, code: int) -> str:
        """Name of the `--slice-by best-code` slice of questions whose best code is `code`."""
        return dict(self.names).get(code, f"code{code}")

    def best_key(self, code: int) -> int:
        """Sort key putting the best code first."""
        return code if self.best == "lower" else -code

    def describe(self) -> str:
        """The rule in words, for dataset.json and the import summary."""
        parts = [f"{c} -> {'dropped' if g is None else g}" for c, g in self.table]
        if self.threshold:
            parts.append(("other codes: " if self.table else "") + ">= 2 -> 2, 1 -> 1, <= 0 -> 0")
        return ", ".join(parts)


#: TREC and BEIR: grades above 2 collapse to 2; zero and negative grades are judged non-relevant
THRESHOLD_RULE = GradeRule("threshold")
#: Cranfield's codes run backwards (1 complete answer .. 4 minimum interest); -1 is judged not
#: relevant (the collection's notes do not explain it)
CRANFIELD_RULE = GradeRule(
    "cranfield",
    table=((1, 2), (2, 2), (3, 1), (4, 1), (-1, 0)),
    threshold=False,
    best="lower",
    names=((1, "complete"), (2, "high"), (3, "background"), (4, "minimum")),
)


def parse_grade_map(spec: str, base: GradeRule) -> GradeRule:
    """A custom rule from `--grade-map "1=2,2=2,3=1,4=0,-1=drop"` (every code used must be named).

    Keeps `base`'s notion of which code is best (for slicing) and its slice names.
    """
    table: list[tuple[int, int | None]] = []
    seen: set[int] = set()
    for item in spec.split(","):
        code_s, sep, grade_s = item.strip().partition("=")
        try:
            code = int(code_s.strip())
        except ValueError:
            code = None
        grade_s = grade_s.strip()
        if not sep or code is None or grade_s not in ("0", "1", "2", "drop"):
            raise UserError(
                f"--grade-map item {item.strip()!r} is not CODE=GRADE; write e.g. "
                "'1=2,2=2,3=1,4=0,-1=drop' (GRADE 0, 1, 2, or drop to ignore the line)"
            )
        if code in seen:
            raise UserError(f"--grade-map names code {code} twice; keep one")
        seen.add(code)
        table.append((code, None if grade_s == "drop" else int(grade_s)))
    return GradeRule("custom", tuple(table), threshold=False, best=base.best, names=base.names)


@dataclass(frozen=True)
class Collection:
    """A source collection as read by one format reader, before mapping to the schema.

    `sources` lists (role, file) pairs for provenance (dataset.json records their names and
    sha256); `details` holds format-specific facts for dataset.json's notes (JSON values).
    """

    format: str
    docs: tuple[SourceDoc, ...]
    queries: tuple[SourceQuery, ...]
    judgements: tuple[Judgement, ...]
    rule: GradeRule
    sources: tuple[tuple[str, Path], ...]
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Slicing:
    """Question slices: `assign` maps qid -> slice; `order` is the report order."""

    assign: Mapping[str, str]
    order: tuple[str, ...]
    path: str


# --------------------------------------------------------------------------------------------
# Reading helpers shared by the format readers


def read_text(path: str | Path, what: str) -> str:
    """A whole UTF-8 text file (a leading BOM dropped, line ends normalised to `\\n`)."""
    p = Path(path)
    if not p.exists():
        raise DatasetError(p, f"no such file; give the {what}")
    if p.is_dir():
        raise DatasetError(p, f"is a folder; give the {what} file")
    try:
        with p.open(encoding="utf-8-sig") as fh:  # universal newlines
            return fh.read()
    except UnicodeDecodeError as err:
        raise DatasetError(
            p, f"not UTF-8 (bad byte at offset {err.start}); save it as UTF-8"
        ) from None
    except OSError as err:
        raise DatasetError(p, f"cannot be read ({err.strerror})") from None


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its `\\n`) for every line of `text`."""
    yield from enumerate(text.split("\n"), start=1)


def one_line(text: str) -> str:
    """`text` with every run of whitespace (newlines included) made one space, and stripped."""
    return " ".join(text.split())


def read_slices(path: str | Path) -> Slicing:
    """Read a `qid<TAB>slice` file; slices are reported in order of first appearance. The one
    reader of the format: `ragsweep data import --slices` and `ragsweep compare --slices` alike.

    A line holding a tab is split at it (a slice name may then hold spaces); a line without one
    at its first run of spaces (`q1 limits`, as a hand-typed file has it). Blank lines are
    skipped. A qid listed twice, a line with more than one tab, or an empty qid or slice is an
    error naming the line.
    """
    name = str(path)
    assign: dict[str, str] = {}
    first: dict[str, int] = {}
    order: list[str] = []
    for number, line in numbered_lines(read_text(path, "slices file (qid<TAB>slice)")):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.strip().split(None, 1)
        if len(fields) != 2:
            raise DatasetError(
                name,
                f"{len(fields)} fields where 2 are expected; each line is 'qid<TAB>slice'",
                line=number,
            )
        qid, slice_ = fields[0].strip(), fields[1].strip()
        if not qid or not slice_:
            raise DatasetError(
                name, "empty qid or slice; each line is 'qid<TAB>slice'", line=number
            )
        if qid in assign:
            raise DatasetError(
                name,
                f"qid {qid!r} is listed twice (first on line {first[qid]}); "
                "give each question one slice",
                line=number,
                field="qid",
            )
        assign[qid] = slice_
        first[qid] = number
        if slice_ not in order:
            order.append(slice_)
    if not assign:
        raise DatasetError(name, "holds no 'qid<TAB>slice' line")
    return Slicing(assign, tuple(order), name)


def check_date(text: str) -> str:
    """`text` if it is a YYYY-MM-DD date, else a UserError."""
    try:
        ok = bool(_DATE.fullmatch(text)) and date.fromisoformat(text) is not None
    except ValueError:
        ok = False
    if not ok:
        raise UserError(f"--added {text!r} is not a date; write YYYY-MM-DD, e.g. 2025-03-31")
    return text


# --------------------------------------------------------------------------------------------
# Mapping to the schema


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def _clean(docid: str) -> str:
    s = _UNSAFE_RUN.sub("_", docid.lower())
    if not _SAFE_ID.match(s):
        s = "d" + s
    if len(s) > MAX_ID:
        s = f"{s[: MAX_ID - 9]}-{_short_hash(docid)}"
    return s


def safe_document_ids(docids: Sequence[str]) -> dict[str, str]:
    """Map source document ids to schema document ids (`[a-z0-9][a-z0-9_.-]*`), one to one.

    An id that already fits (and is at most `MAX_ID` characters) is kept. Otherwise it is
    lower-cased, every run of other characters becomes `_`, a `d` is put in front when it would
    not start with a letter or digit, and an id longer than `MAX_ID` is cut and ends with `-` and
    8 hex digits of its sha256. When that form equals another document's id, it gets the same
    `-<8 hex>` suffix. Depends only on the set of ids, never on their order.
    """
    distinct = sorted(set(docids))
    kept = {d for d in distinct if _SAFE_ID.fullmatch(d) and len(d) <= MAX_ID}
    cleaned = {d: _clean(d) for d in distinct if d not in kept}
    counts = Counter(cleaned.values())
    out: dict[str, str] = {d: d for d in kept}
    for d, s in cleaned.items():
        if s in kept or counts[s] > 1:
            s = f"{s[: MAX_ID - 9]}-{_short_hash(d)}"
        out[d] = s
    if len(set(out.values())) != len(out):  # pragma: no cover - a sha256 prefix collision
        raise UserError("two document ids map to the same safe id; rename one in the source")
    return {d: out[d] for d in docids}


@dataclass(frozen=True)
class ImportReport:
    """What an import did; `summary()` is what the CLI prints.

    Skipped questions: `unjudged` have no judgement at all, `no_relevant` only judgements of
    grade 0, `empty` no text. Dropped judgements: their query or document is not in the source
    files, or the grade rule drops their code.
    """

    name: str
    documents: int
    renamed_documents: int
    empty_documents: int
    questions: int
    slices: dict[str, int]
    labels_per_grade: dict[str, int]
    skipped_unjudged: tuple[str, ...]
    skipped_no_relevant: tuple[str, ...]
    skipped_empty: tuple[str, ...]
    dropped_unknown_query: int
    dropped_unknown_document: int
    dropped_by_rule: int
    out: Path | None = None

    @property
    def skipped(self) -> int:
        """Source queries that did not become questions."""
        return len(self.skipped_unjudged) + len(self.skipped_no_relevant) + len(self.skipped_empty)

    def notes(self) -> dict[str, Any]:
        """The counts as dataset.json records them."""
        return {
            "documents": self.documents,
            "renamed_documents": self.renamed_documents,
            "empty_documents": self.empty_documents,
            "questions": self.questions,
            "labels_per_grade": self.labels_per_grade,
            "skipped_questions": {
                "no_judgement": list(self.skipped_unjudged),
                "no_relevant_judgement": list(self.skipped_no_relevant),
                "empty_text": list(self.skipped_empty),
            },
            "dropped_judgements": {
                "unknown_query": self.dropped_unknown_query,
                "unknown_document": self.dropped_unknown_document,
                "dropped_by_grade_rule": self.dropped_by_rule,
            },
        }

    def summary(self) -> str:
        """A few lines saying what was written and what was left out."""
        where = f" to {self.out}" if self.out is not None else ""
        grades = ", ".join(f"grade {g}: {n}" for g, n in self.labels_per_grade.items())
        slices = ", ".join(f"{s} {n}" for s, n in self.slices.items())
        lines = [
            f"wrote dataset {self.name!r}{where}: {self.documents} documents, "
            f"{self.questions} questions, {sum(self.labels_per_grade.values())} labels "
            f"({grades})",
            f"slices: {slices}",
            f"skipped questions: {self.skipped} ({len(self.skipped_unjudged)} without any "
            f"judgement, {len(self.skipped_no_relevant)} without a relevant one, "
            f"{len(self.skipped_empty)} with empty text)",
            f"dropped judgements: {self.dropped_unknown_query} for unknown queries, "
            f"{self.dropped_unknown_document} for unknown documents, {self.dropped_by_rule} by "
            "the grade rule",
        ]
        warning = judged_note(self.labels_per_grade, self.questions)
        if warning:
            lines.append(f"note: {warning}")
            lines.append(
                "note: `ragsweep data check DIR` measures how much of a BM25 top k nobody "
                "judged on this folder"
            )
        if self.renamed_documents or self.empty_documents:
            lines.append(
                f"documents: {self.renamed_documents} ids made safe (the source id is each "
                f"wording's title), {self.empty_documents} empty in the source"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class Converted:
    """A collection mapped onto the schema, ready to write: file name -> bytes, plus a report."""

    files: dict[str, bytes]
    report: ImportReport


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


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
    rule = collection.rule
    if not name.strip():
        raise UserError("--name is empty; give the dataset a name")
    check_date(added)
    if slicing is not None and slice_by is not None:
        raise UserError("give either --slices FILE or --slice-by, not both")
    if slice_by not in (None, "best-code"):
        raise UserError(f"--slice-by {slice_by!r} is unknown; use best-code")
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

    safe = safe_document_ids([d.docid for d in collection.docs])
    query_ids = {q.qid for q in collection.queries}

    # judgements -> (qid, docid, grade), dropping what cannot be anchored
    by_query: dict[str, list[tuple[str, int, int]]] = {}
    seen: dict[tuple[str, str], Judgement] = {}
    unknown_q = unknown_d = by_rule = 0
    for j in collection.judgements:
        key = (j.qid, j.docid)
        if key in seen:
            prev = seen[key]
            raise DatasetError(
                j.path,
                f"document {j.docid!r} is judged twice for query "
                f"{j.qid!r} (first on line {prev.line}); keep one judgement",
                line=j.line,
            )
        seen[key] = j
        try:
            grade = rule.grade(j.code)
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

    # questions: the queries with at least one relevant label, in source order
    questions: list[tuple[SourceQuery, str]] = []  # (query, question text)
    unjudged: list[str] = []
    no_relevant: list[str] = []
    empty: list[str] = []
    for q in collection.queries:
        text = one_line(q.text)
        labels = by_query.get(q.qid, [])
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
            f"none of the {len(collection.queries)} queries has a relevant judgement (grade >= 1 "
            "after the grade rule), so nothing can be imported; check the qrels and --grade-map"
        )

    # slices
    if slicing is not None:
        kept = {q.qid for q, _ in questions}
        skipped = set(unjudged) | set(no_relevant) | set(empty)
        for qid in sorted(slicing.assign):
            if qid not in kept and qid not in skipped:
                raise DatasetError(
                    slicing.path,
                    f"qid {qid!r} is not a query of the source; check the slices file's ids",
                    field="qid",
                )
        missing = [q.qid for q, _ in questions if q.qid not in slicing.assign]
        if missing:
            raise DatasetError(
                slicing.path,
                f"{len(missing)} imported question(s) have no slice "
                f"(first: {missing[0]!r}); give every question a slice",
            )
        assign = {q.qid: slicing.assign[q.qid] for q, _ in questions}
        used = set(assign.values())
        order = tuple(s for s in slicing.order if s in used)
        slice_rule = f"from {Path(slicing.path).name} (qid<TAB>slice)"
    elif slice_by == "best-code":
        assign = {}
        best_codes: set[int] = set()
        for q, _ in questions:
            best = min((c for _, c, g in by_query[q.qid] if g >= 1), key=rule.best_key)
            best_codes.add(best)
            assign[q.qid] = rule.slice_name(best)
        order = tuple(rule.slice_name(c) for c in sorted(best_codes, key=rule.best_key))
        names = ", ".join(
            f"{rule.slice_name(c)} = {c}" for c in sorted(best_codes, key=rule.best_key)
        )
        slice_rule = (
            f"best-code: the best source relevance code among a question's relevant "
            f"judgements ({names}); only to exercise per-slice reporting"
        )
    else:
        assign = {q.qid: ALL_SLICE for q, _ in questions}
        order = (ALL_SLICE,)
        slice_rule = "one slice 'all'"

    # files
    files: dict[str, bytes] = {}
    n_empty = 0
    for src in collection.docs:
        obj, was_empty = _wording(safe[src.docid], src)
        n_empty += was_empty
        files[f"corpus/{safe[src.docid]}@{VERSION}.json"] = (
            json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
        ).encode("utf-8")
    q_lines: list[str] = []
    l_lines: list[str] = []
    grade_counts = Counter()
    for q, text in questions:
        q_lines.append(
            _dump(
                {
                    "qid": q.qid,
                    "text": text,
                    "slice": assign[q.qid],
                    "product": None,
                    "version": None,
                    "subset": "core",
                    "added": added,
                }
            )
        )
        for docid, _code, grade in by_query[q.qid]:
            grade_counts[grade] += 1
            l_lines.append(
                _dump(
                    {
                        "qid": q.qid,
                        "document": safe[docid],
                        "section": SECTION,
                        "version": VERSION,
                        "grade": grade,
                    }
                )
            )
    files["questions.jsonl"] = "".join(s + "\n" for s in q_lines).encode("utf-8")
    files["labels.jsonl"] = "".join(s + "\n" for s in l_lines).encode("utf-8")

    renamed = sum(1 for d, s in safe.items() if d != s)
    report = ImportReport(
        name=name.strip(),
        documents=len(collection.docs),
        renamed_documents=renamed,
        empty_documents=n_empty,
        questions=len(questions),
        slices={s: sum(1 for v in assign.values() if v == s) for s in order},
        labels_per_grade={str(g): grade_counts[g] for g in (2, 1, 0)},
        skipped_unjudged=tuple(unjudged),
        skipped_no_relevant=tuple(no_relevant),
        skipped_empty=tuple(empty),
        dropped_unknown_query=unknown_q,
        dropped_unknown_document=unknown_d,
        dropped_by_rule=by_rule,
    )
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
        "slice_rule": slice_rule,
        "added": added,
        **report.notes(),
    }
    meta = {
        "schema_version": 1,
        "name": report.name,
        "description": description,
        "slices": list(order),
        "generator": {"name": GENERATOR, "version": __version__, "seed": None},
        "notes": notes,
    }
    files["dataset.json"] = (json.dumps(meta, ensure_ascii=False, indent=2) + "\n").encode()
    return Converted(files, report)


# --------------------------------------------------------------------------------------------
# Writing


def check_out(out: Path, force: bool) -> None:
    """Refuse an --out that is a file, or a non-empty folder without --force; with --force,
    replace only an empty folder or a dataset folder (one holding dataset.json)."""
    if not out.exists():
        return
    if not out.is_dir():
        raise UserError(f"{out}: exists and is not a folder; choose another --out")
    if not any(out.iterdir()):
        return
    if not force:
        raise UserError(
            f"{out}: already exists and is not empty; pass --force to replace it, "
            "or choose another --out"
        )
    if not (out / "dataset.json").is_file():
        raise UserError(
            f"{out}: is not empty and holds no dataset.json, so --force will not "
            "replace it; choose another --out"
        )


def write_dataset(converted: Converted, out: str | Path, *, force: bool = False) -> ImportReport:
    """Write a converted collection to folder `out`, all or nothing; return its report.

    Files go to a temporary sibling folder, which is validated with `load_dataset` and then
    swapped in: an interrupted or failed import leaves `out` as it was. See `check_out` for when
    an existing `out` is replaced.
    """
    from ragsweep.data import load_dataset, swap_in_folder

    def validate(folder: Path) -> None:
        try:
            load_dataset(folder)
        except DatasetError as err:  # pragma: no cover - would be an importer bug
            raise UserError(
                f"the imported dataset does not pass validation ({err}); this is a "
                "bug in ragsweep's importer: please report it"
            ) from None

    out = Path(out)
    check_out(out, force)
    swap_in_folder(out, converted.files, validate)
    return replace(converted.report, out=out)
