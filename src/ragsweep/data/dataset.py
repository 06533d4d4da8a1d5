"""Load and validate a ragsweep dataset folder (docs/schema.md, schema version 1).

`load_dataset` reads every file, checks it against the schema and the cross-file rules (labels
anchored to clauses that exist, versions that exist, one label per pair, ...) and returns a frozen
`Dataset`. The first problem found raises `ragsweep.errors.DatasetError`, whose one-line message
names the file, the line (JSON Lines files) and the field, and says how to fix it; bad data never
produces a traceback. `check_dataset` adds the statistics that `ragsweep data check` prints.

Conventions: clause ids are `document/section@version` (`home/5.3@2025`), document ids
`document@version`; character spans are Python string indices (code points, end exclusive) into a
document's rendered text; hashes are lowercase hex sha256.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn

import pandas as pd

from ragsweep.errors import DatasetError

SCHEMA_VERSION = 1
#: part kinds allowed in a wording (docs/schema.md)
PART_KINDS = ("definitions", "cover", "limits", "exclusions", "claims", "conditions", "other")
#: question subsets: `core` is frozen for trend lines, `rolling` is refreshed
SUBSETS = ("core", "rolling")
GRADES = (0, 1, 2)
#: optional second-opinion files under review/, in the order they are reported
REVIEW_FILES = ("reviewer2", "prelabels")

_DOCUMENT_RE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_SECTION_RE = re.compile(r"[^\s/@]+")
_QID_RE = re.compile(r"\S+")
_CORPUS_FILE_RE = re.compile(
    r"(?P<document>[a-z0-9][a-z0-9_.-]*)@(?P<version>[A-Za-z0-9][A-Za-z0-9_.-]*)\.json"
)
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MANIFEST_RE = re.compile(r"(?P<hex>[0-9a-f]{64}) [ *](?P<path>.+)")
_KNOWN_ROOT_FILES = (
    "dataset.json",
    "questions.jsonl",
    "labels.jsonl",
    "query_log.jsonl",
    "MANIFEST.sha256",
)


def clause_id(document: str, section: str, version: str) -> str:
    """The string form of a clause anchor: `document/section@version`, e.g. `home/5.3@2025`."""
    return f"{document}/{section}@{version}"


@dataclass(frozen=True)
class Clause:
    """One clause of one wording version, identified by (document, section, version)."""

    document: str
    version: str
    section: str
    heading: str
    text: str
    part: str  # number of the part holding the clause, e.g. "5"
    kind: str  # kind of that part, one of PART_KINDS

    @property
    def clause_id(self) -> str:
        """`document/section@version`, e.g. `home/5.3@2025`."""
        return clause_id(self.document, self.section, self.version)


@dataclass(frozen=True)
class Document:
    """One policy wording in one version, with its rendered text and each clause's span in it."""

    document: str
    version: str
    product: str | None
    form_code: str | None
    title: str
    clauses: tuple[Clause, ...]
    text: str  # rendered by `render` (docs/schema.md)
    spans: tuple[tuple[int, int], ...]  # [start, end) of each clause in `text`, aligned

    @property
    def doc_id(self) -> str:
        """`document@version`, e.g. `home@2025`."""
        return f"{self.document}@{self.version}"


@dataclass(frozen=True, eq=False)
class Dataset:
    """A validated dataset folder.

    `eq=False`: the data frames make value equality ambiguous; compare `snapshot_hash` and
    `labels_hash` instead. Data frames keep file order.
    """

    root: Path
    meta: dict[str, Any]  # dataset.json as read
    slices: tuple[str, ...]
    documents: tuple[Document, ...]  # sorted by doc_id (plain string order)
    questions: pd.DataFrame  # qid, text, slice, product, version, subset, added
    labels: pd.DataFrame  # qid, document, section, version, grade, clause_id
    snapshot_hash: str
    labels_hash: str
    #: query_log.jsonl (ts, session, text), None when the file is absent
    query_log: pd.DataFrame | None = None
    #: review files present, by name ("reviewer2", "prelabels"): label columns (+ model)
    reviews: Mapping[str, pd.DataFrame] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# Public helpers


def sample_path() -> Path:
    """Folder of the built-in sample shipped inside the package (`ragsweep/data/sample`)."""
    return Path(str(resources.files("ragsweep") / "data" / "sample"))


def render(title: str, parts: Sequence[Mapping[str, Any]]) -> tuple[str, list[tuple[int, int]]]:
    """Render a wording as text and return it with the [start, end) span of every clause.

    `parts` is the schema's list `{"number", "title", "clauses": [{"section", "heading",
    "text"}]}`. Layout (docs/schema.md): the title, then per part `<number>. <title>`, then per
    clause `<section> <heading>` and its text on the next line; blocks are separated by one blank
    line. A span starts at the clause's section number and ends after its text (the blank line
    that follows is outside it). Spans are string indices (code points), in clause order.
    """
    pieces = [title, "\n\n"]
    pos = len(title) + 2
    spans: list[tuple[int, int]] = []
    for part in parts:
        head = f"{part['number']}. {part['title']}\n\n"
        pieces.append(head)
        pos += len(head)
        for clause in part["clauses"]:
            block = f"{clause['section']} {clause['heading']}\n{clause['text']}"
            spans.append((pos, pos + len(block)))
            pieces.append(block)
            pieces.append("\n\n")
            pos += len(block) + 2
    return "".join(pieces), spans


def snapshot_hash(corpus_dir: str | Path) -> str:
    """sha256 of a corpus snapshot: over `<path>\\t<file sha256>\\n` for every file below
    `corpus_dir`, paths relative to it in POSIX form, sorted by path (code point order)."""
    corpus_dir = Path(corpus_dir)
    files = sorted(
        (p.relative_to(corpus_dir).as_posix(), p) for p in corpus_dir.rglob("*") if p.is_file()
    )
    h = hashlib.sha256()
    for rel, p in files:
        h.update(f"{rel}\t{hashlib.sha256(p.read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest()


def labels_hash(questions: bytes, labels: bytes) -> str:
    """sha256 of the labelled set: `questions.jsonl\\n` + its bytes + `labels.jsonl\\n` + its
    bytes."""
    h = hashlib.sha256()
    h.update(b"questions.jsonl\n")
    h.update(questions)
    h.update(b"labels.jsonl\n")
    h.update(labels)
    return h.hexdigest()


def load_dataset(path: str | Path | None = None) -> Dataset:
    """Read and fully validate a dataset folder (None: the built-in sample).

    Raises `DatasetError` naming the file, line and field of the first problem found.
    """
    if path is None:
        root = sample_path()
        if not (root / "dataset.json").is_file():
            raise DatasetError(
                root,
                "the built-in sample is missing from this installation; reinstall ragsweep, or "
                "write one with `ragsweep data sample --out DIR` and pass DIR",
            )
    else:
        root = Path(path)
    return _Loader(root).load()


def check_dataset(path: str | Path | None = None) -> dict[str, Any]:
    """Validate a dataset folder (None: the built-in sample) and return its statistics.

    Keys, in print order: name, path, schema_version, documents (distinct wording ids),
    document_versions (corpus files), clauses, words (`len(s.split())` summed over clause
    headings and texts), versions, products, questions, questions_per_slice (every slice, in
    report order), questions_per_subset, multi_relevant_questions (2+ clauses with grade >= 1),
    labels_per_grade (keys "0", "1", "2"), log_entries (None without a query log),
    review_questions (distinct qids per review file present), snapshot_hash, labels_hash.
    """
    return statistics(load_dataset(path))


def statistics(ds: Dataset) -> dict[str, Any]:
    """The statistics of a loaded dataset (see `check_dataset`); JSON-serialisable."""
    clauses = [c for d in ds.documents for c in d.clauses]
    q = ds.questions
    lab = ds.labels
    relevant = lab.loc[lab["grade"] >= 1, "qid"].value_counts()
    grade_counts = lab["grade"].value_counts()
    return {
        "name": ds.meta["name"],
        "path": str(ds.root),
        "schema_version": ds.meta["schema_version"],
        "documents": len({d.document for d in ds.documents}),
        "document_versions": len(ds.documents),
        "clauses": len(clauses),
        "words": sum(len(c.heading.split()) + len(c.text.split()) for c in clauses),
        "versions": sorted({d.version for d in ds.documents}),
        "products": sorted({d.product for d in ds.documents if d.product is not None}),
        "questions": len(q),
        "questions_per_slice": {s: int((q["slice"] == s).sum()) for s in ds.slices},
        "questions_per_subset": {s: int((q["subset"] == s).sum()) for s in SUBSETS},
        "multi_relevant_questions": int((relevant >= 2).sum()),
        "labels_per_grade": {str(g): int(grade_counts.get(g, 0)) for g in GRADES},
        "log_entries": None if ds.query_log is None else len(ds.query_log),
        "review_questions": {name: int(df["qid"].nunique()) for name, df in ds.reviews.items()},
        "snapshot_hash": ds.snapshot_hash,
        "labels_hash": ds.labels_hash,
    }


# --------------------------------------------------------------------------------------------
# Field checks shared by every file


def _describe(value: Any) -> str:
    """A JSON value as the user wrote it, for messages: `a number (2.5)`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    return "an object"


_EXPECTED = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "int": ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "object": ("an object", lambda v: isinstance(v, dict)),
}


class _Duplicate(ValueError):
    """A key repeated inside one JSON object (json.loads would silently keep the last)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Duplicate(key)
        obj[key] = value
    return obj


def _constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _hint(word: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def _known(values: Sequence[str]) -> str:
    return ", ".join(values) if values else "none"


class _Loader:
    """Reads one dataset folder; every check raises at the first problem it finds."""

    def __init__(self, root: Path) -> None:
        self.root = root

    # -- errors and reading ------------------------------------------------------------------

    def fail(
        self, rel: str, message: str, line: int | None = None, field: str | None = None
    ) -> NoReturn:
        raise DatasetError(self.root / rel, message, line=line, field=field)

    def read(self, rel: str, what: str) -> bytes:
        """Bytes of a required file; `what` says what it holds, for the error if it is absent."""
        p = self.root / rel
        if not p.is_file():
            state = "is not a file" if p.exists() else "is missing"
            near = [q.name for q in p.parent.iterdir()] if p.parent.is_dir() else []
            close = difflib.get_close_matches(p.name, near, n=1)
            rename = f"; rename {close[0]!r} if that is it" if close and not p.exists() else ""
            self.fail(
                rel, f"{state}; a dataset folder needs it ({what}){rename}; see docs/schema.md"
            )
        return self.read_bytes(rel)

    def read_optional(self, rel: str) -> bytes | None:
        """Bytes of an optional file, None when it is absent."""
        p = self.root / rel
        if not p.exists():
            return None
        if not p.is_file():
            self.fail(
                rel, "is not a file; remove it or replace it with the file docs/schema.md describes"
            )
        return self.read_bytes(rel)

    def read_bytes(self, rel: str) -> bytes:
        try:
            return (self.root / rel).read_bytes()
        except OSError as err:
            self.fail(rel, f"cannot be read ({err.strerror}); check its permissions")

    def decode(self, rel: str, data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            self.fail(rel, f"is not UTF-8 (bad byte at offset {err.start}); save it as UTF-8")

    def parse(self, rel: str, text: str, line: int | None) -> Any:
        """One JSON value; `line` is the JSONL line, None for a whole JSON file."""
        try:
            return json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
        except _Duplicate as dup:
            self.fail(rel, f"key {dup.args[0]!r} appears twice in one object; keep one", line)
        except json.JSONDecodeError as err:
            where = f"column {err.colno}" if line else f"line {err.lineno} column {err.colno}"
            shape = "each line must be one JSON object" if line else "fix the JSON syntax"
            self.fail(rel, f"invalid JSON at {where}: {err.msg}; {shape}", line)
        except ValueError as err:
            self.fail(rel, f"invalid JSON: {err}; use a number or null", line)

    def jsonl(self, rel: str, data: bytes) -> list[dict[str, Any]]:
        """The objects of a JSON Lines file, one per line (line n is element n - 1)."""
        lines = self.decode(rel, data).split("\n")
        if lines[-1] == "":
            lines.pop()
        out = []
        for n, raw in enumerate(lines, start=1):
            if not raw.strip():
                self.fail(
                    rel,
                    "blank line; JSON Lines files hold one object per line, no blank "
                    "lines: remove it",
                    n,
                )
            obj = self.parse(rel, raw, n)
            if not isinstance(obj, dict):
                self.fail(rel, f"expected one JSON object per line, got {_describe(obj)}", n)
            out.append(obj)
        return out

    def fields(
        self,
        rel: str,
        obj: dict[str, Any],
        spec: Mapping[str, tuple[str, bool]],
        line: int | None = None,
        prefix: str = "",
        optional: Sequence[str] = (),
    ) -> None:
        """Check keys and JSON types: spec maps field -> (type, nullable); unknown keys fail."""
        for key in obj:
            if key not in spec:
                self.fail(
                    rel,
                    f"unknown field; {_hint(key, list(spec))}allowed: {', '.join(spec)}",
                    line,
                    prefix + key,
                )
        for key, (kind, nullable) in spec.items():
            if key not in obj:
                if key in optional:
                    continue
                self.fail(
                    rel,
                    "missing; add it" + (" (null is allowed)" if nullable else ""),
                    line,
                    prefix + key,
                )
            value = obj[key]
            expected, ok = _EXPECTED[kind]
            if value is None and nullable:
                continue
            if not ok(value):
                also = " or null" if nullable else ""
                self.fail(
                    rel, f"expected {expected}{also}, got {_describe(value)}", line, prefix + key
                )

    def pattern(
        self,
        rel: str,
        value: str,
        regex: re.Pattern[str],
        rule: str,
        line: int | None,
        field: str,
    ) -> None:
        if not regex.fullmatch(value):
            self.fail(rel, f"{value!r} is not a valid {rule}", line, field)

    def nonblank(self, rel: str, value: str, line: int | None, field: str) -> None:
        if not value.strip():
            self.fail(rel, "is empty; write the text", line, field)

    # -- files ------------------------------------------------------------------------------

    def load(self) -> Dataset:
        root = self.root
        if not root.exists():
            raise DatasetError(
                root,
                "no such folder; give the path of a dataset folder (the one holding dataset.json)",
            )
        if not root.is_dir():
            raise DatasetError(
                root,
                "is a file, not a folder; give the dataset folder (the one holding dataset.json)",
            )
        meta = self.meta()
        slices = tuple(meta["slices"])
        documents = self.corpus()
        questions_raw = self.read("questions.jsonl", "the questions of the labelled set")
        labels_raw = self.read("labels.jsonl", "the graded labels")
        questions = self.questions(questions_raw, slices, documents)
        labels, judged = self.labels(labels_raw, questions, documents)
        query_log = self.query_log()
        reviews = self.reviews(judged, documents)
        self.root_files()
        self.manifest()
        return Dataset(
            root=root,
            meta=meta,
            slices=slices,
            documents=documents,
            questions=questions,
            labels=labels,
            snapshot_hash=snapshot_hash(root / "corpus"),
            labels_hash=labels_hash(questions_raw, labels_raw),
            query_log=query_log,
            reviews=reviews,
        )

    def meta(self) -> dict[str, Any]:
        rel = "dataset.json"
        data = self.read(rel, "name, slices, schema_version")
        meta = self.parse(rel, self.decode(rel, data), None)
        if not isinstance(meta, dict):
            self.fail(rel, f"expected a JSON object, got {_describe(meta)}")
        version = meta.get("schema_version")
        if "schema_version" not in meta:
            self.fail(
                rel, f'missing; add "schema_version": {SCHEMA_VERSION}', None, "schema_version"
            )
        if version != SCHEMA_VERSION or isinstance(version, bool):
            self.fail(
                rel,
                f"unknown schema version {version!r}: this ragsweep reads version "
                f"{SCHEMA_VERSION}; upgrade ragsweep or convert the dataset",
                None,
                "schema_version",
            )
        spec = {
            "schema_version": ("int", False),
            "name": ("str", False),
            "description": ("str", False),
            "slices": ("list", False),
            "generator": ("object", True),
            "notes": ("object", False),
        }
        self.fields(rel, meta, spec, optional=("notes",))
        self.nonblank(rel, meta["name"], None, "name")
        slices = meta["slices"]
        if not slices:
            self.fail(
                rel,
                'is empty; list at least one slice (an unsliced set uses ["all"])',
                None,
                "slices",
            )
        seen: set[str] = set()
        for i, s in enumerate(slices):
            if not isinstance(s, str) or not s.strip():
                self.fail(
                    rel, f"expected a non-empty string, got {_describe(s)}", None, f"slices[{i}]"
                )
            if s in seen:
                self.fail(rel, f"slice {s!r} is listed twice; list each once", None, f"slices[{i}]")
            # reports add the rows `all` (every question) and `weighted` (the headline)
            if s == "weighted" or (s == "all" and len(slices) > 1):
                self.fail(
                    rel,
                    f"slice name {s!r} is reserved for the report's summary rows"
                    + (" (allowed only as the only slice)" if s == "all" else "")
                    + "; rename the slice",
                    None,
                    f"slices[{i}]",
                )
            seen.add(s)
        gen = meta["generator"]
        if gen is not None:
            gspec = {"name": ("str", False), "version": ("str", False), "seed": ("int", True)}
            self.fields(rel, gen, gspec, prefix="generator.")
        return meta

    def corpus(self) -> tuple[Document, ...]:
        corpus = self.root / "corpus"
        if not corpus.is_dir():
            state = "is not a folder" if corpus.exists() else "is missing"
            self.fail(
                "corpus",
                f"{state}; a dataset folder needs corpus/ holding one "
                "<document>@<version>.json per wording version",
            )
        docs = []
        for p in sorted(corpus.iterdir(), key=lambda p: p.name):
            rel = f"corpus/{p.name}"
            if p.is_dir():
                self.fail(
                    rel,
                    "is a folder; corpus/ holds only <document>@<version>.json files: move it out",
                )
            m = _CORPUS_FILE_RE.fullmatch(p.name)
            if m is None:
                self.fail(
                    rel,
                    "is not named <document>@<version>.json (document "
                    "[a-z0-9][a-z0-9_.-]*, version [A-Za-z0-9][A-Za-z0-9_.-]*): rename it "
                    "or move it out of corpus/",
                )
            data = self.read(rel, "a wording")
            docs.append(self.document(rel, data, m["document"], m["version"]))
        if not docs:
            self.fail("corpus", "holds no wording; add <document>@<version>.json files")
        return tuple(sorted(docs, key=lambda d: d.doc_id))

    def document(self, rel: str, data: bytes, document: str, version: str) -> Document:
        obj = self.parse(rel, self.decode(rel, data), None)
        if not isinstance(obj, dict):
            self.fail(rel, f"expected a JSON object, got {_describe(obj)}")
        spec = {
            "document": ("str", False),
            "version": ("str", False),
            "product": ("str", True),
            "form_code": ("str", True),
            "title": ("str", False),
            "parts": ("list", False),
        }
        self.fields(rel, obj, spec)
        for key, expected in (("document", document), ("version", version)):
            if obj[key] != expected:
                self.fail(
                    rel,
                    f"{obj[key]!r} does not match the file name {document}@{version}"
                    ".json; fix the field or rename the file",
                    None,
                    key,
                )
        self.nonblank(rel, obj["title"], None, "title")
        pspec = {
            "number": ("str", False),
            "title": ("str", False),
            "kind": ("str", False),
            "clauses": ("list", False),
        }
        cspec = {"section": ("str", False), "heading": ("str", False), "text": ("str", False)}
        clauses: list[Clause] = []
        first: dict[str, str] = {}
        for i, part in enumerate(obj["parts"]):
            where = f"parts[{i}]"
            if not isinstance(part, dict):
                self.fail(rel, f"expected an object, got {_describe(part)}", None, where)
            self.fields(rel, part, pspec, prefix=where + ".")
            self.nonblank(rel, part["number"], None, where + ".number")
            if part["kind"] not in PART_KINDS:
                self.fail(
                    rel,
                    f"unknown part kind {part['kind']!r}; "
                    f"{_hint(part['kind'], PART_KINDS)}use one of {', '.join(PART_KINDS)}",
                    None,
                    where + ".kind",
                )
            for j, c in enumerate(part["clauses"]):
                cw = f"{where}.clauses[{j}]"
                if not isinstance(c, dict):
                    self.fail(rel, f"expected an object, got {_describe(c)}", None, cw)
                self.fields(rel, c, cspec, prefix=cw + ".")
                section = c["section"]
                self.pattern(
                    rel,
                    section,
                    _SECTION_RE,
                    "section number (no spaces, '/' or '@')",
                    None,
                    cw + ".section",
                )
                if section in first:
                    self.fail(
                        rel,
                        f"section {section!r} appears twice (first at {first[section]})"
                        "; sections are unique within a wording version: renumber one",
                        None,
                        cw + ".section",
                    )
                first[section] = cw
                if not c["heading"].strip() or "\n" in c["heading"]:
                    self.fail(rel, "must be one non-empty line", None, cw + ".heading")
                self.nonblank(rel, c["text"], None, cw + ".text")
                clauses.append(
                    Clause(
                        document,
                        version,
                        section,
                        c["heading"],
                        c["text"],
                        part["number"],
                        part["kind"],
                    )
                )
        text, spans = render(obj["title"], obj["parts"])
        return Document(
            document,
            version,
            obj["product"],
            obj["form_code"],
            obj["title"],
            tuple(clauses),
            text,
            tuple(spans),
        )

    def questions(
        self, data: bytes, slices: tuple[str, ...], documents: tuple[Document, ...]
    ) -> pd.DataFrame:
        rel = "questions.jsonl"
        rows = self.jsonl(rel, data)
        if not rows:
            self.fail(rel, "holds no question; add one JSON object per line")
        spec = {
            "qid": ("str", False),
            "text": ("str", False),
            "slice": ("str", False),
            "product": ("str", True),
            "version": ("str", True),
            "subset": ("str", False),
            "added": ("str", False),
        }
        products = sorted({d.product for d in documents if d.product is not None})
        versions_of: dict[str | None, list[str]] = {None: sorted({d.version for d in documents})}
        for p in products:
            versions_of[p] = sorted({d.version for d in documents if d.product == p})
        first: dict[str, int] = {}
        for n, q in enumerate(rows, start=1):
            self.fields(rel, q, spec, n)
            qid = q["qid"]
            self.pattern(rel, qid, _QID_RE, "question id (non-empty, no spaces)", n, "qid")
            if qid in first:
                self.fail(
                    rel,
                    f"duplicate qid {qid!r} (first on line {first[qid]}); give each "
                    "question its own id",
                    n,
                    "qid",
                )
            first[qid] = n
            self.nonblank(rel, q["text"], n, "text")
            if q["slice"] not in slices:
                self.fail(
                    rel,
                    f"unknown slice {q['slice']!r}; {_hint(q['slice'], slices)}"
                    f"known (dataset.json): {', '.join(slices)}",
                    n,
                    "slice",
                )
            product, version = q["product"], q["version"]
            if product is not None and product not in products:
                self.fail(
                    rel,
                    f"no wording in corpus/ has product {product!r}; "
                    f"{_hint(product, products)}products: {_known(products)}",
                    n,
                    "product",
                )
            if version is not None and version not in versions_of[product]:
                whose = "no wording" if product is None else f"no wording of product {product!r}"
                self.fail(
                    rel,
                    f"{whose} has version {version!r} in corpus/; versions: "
                    f"{_known(versions_of[product])}",
                    n,
                    "version",
                )
            if q["subset"] not in SUBSETS:
                self.fail(
                    rel,
                    f"{q['subset']!r} is not a subset; use 'core' (frozen) or "
                    "'rolling' (refreshed)",
                    n,
                    "subset",
                )
            added = q["added"]
            if not _DATE_RE.fullmatch(added) or not _is_date(added):
                self.fail(
                    rel, f"{added!r} is not a date; write YYYY-MM-DD, e.g. 2025-03-31", n, "added"
                )
        columns = ("qid", "text", "slice", "product", "version", "subset", "added")
        return pd.DataFrame({c: [q[c] for q in rows] for c in columns})

    def anchors(
        self,
        rel: str,
        rows: list[dict[str, Any]],
        documents: tuple[Document, ...],
        extra: Mapping[str, tuple[str, bool]] | None = None,
    ) -> list[tuple[str, str]]:
        """Check label-shaped rows (labels.jsonl, review files); return (qid, clause id)s."""
        spec: dict[str, tuple[str, bool]] = {
            "qid": ("str", False),
            "document": ("str", False),
            "section": ("str", False),
            "version": ("str", False),
            "grade": ("int", False),
        }
        spec.update(extra or {})
        sections = {(d.document, d.version): {c.section for c in d.clauses} for d in documents}
        versions: dict[str, list[str]] = {}
        for d in documents:
            versions.setdefault(d.document, []).append(d.version)
        doc_names = sorted(versions)
        pairs: list[tuple[str, str]] = []
        first: dict[tuple[str, str], int] = {}
        for n, lab in enumerate(rows, start=1):
            self.fields(rel, lab, spec, n)
            grade = lab["grade"]
            if grade not in GRADES:
                self.fail(
                    rel,
                    f"grade {grade} is outside {{0, 1, 2}} (2 answers fully, 1 "
                    "supports, 0 judged not relevant)",
                    n,
                    "grade",
                )
            doc, sec, ver = lab["document"], lab["section"], lab["version"]
            cid = clause_id(doc, sec, ver)
            missing = f"clause {cid} is not in the corpus snapshot: "
            if doc not in versions:
                self.fail(
                    rel,
                    f"{missing}there is no document {doc!r} at all; "
                    f"{_hint(doc, doc_names)}documents: {_known(doc_names)}",
                    n,
                    "document",
                )
            if (doc, ver) not in sections:
                self.fail(
                    rel,
                    f"{missing}document {doc!r} has no version {ver!r}; versions: "
                    f"{_known(sorted(versions[doc]))}",
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
                self.fail(
                    rel,
                    f"{missing}corpus/{doc}@{ver}.json has no section {sec!r}; {also}",
                    n,
                    "section",
                )
            key = (lab["qid"], cid)
            if key in first:
                self.fail(
                    rel,
                    f"duplicate label for question {lab['qid']!r} and clause {cid} "
                    f"(first on line {first[key]}); keep one row per pair",
                    n,
                    "qid",
                )
            first[key] = n
            pairs.append(key)
        return pairs

    def labels(
        self, data: bytes, questions: pd.DataFrame, documents: tuple[Document, ...]
    ) -> tuple[pd.DataFrame, dict[str, set[str]]]:
        rel = "labels.jsonl"
        rows = self.jsonl(rel, data)
        pairs = self.anchors(rel, rows, documents)
        qids = set(questions["qid"])
        judged: dict[str, set[str]] = {}
        relevant: set[str] = set()
        for n, (lab, (qid, cid)) in enumerate(zip(rows, pairs, strict=True), start=1):
            if qid not in qids:
                self.fail(
                    rel,
                    f"unknown qid {qid!r}: no such question in questions.jsonl; add "
                    "the question or remove the label",
                    n,
                    "qid",
                )
            judged.setdefault(qid, set()).add(cid)
            if lab["grade"] >= 1:
                relevant.add(qid)
        for n, qid in enumerate(questions["qid"], start=1):
            if qid not in relevant:
                self.fail(
                    "questions.jsonl",
                    f"question {qid!r} has no label with grade >= 1 in "
                    "labels.jsonl; label the clause(s) that answer it, or remove it",
                    n,
                    "qid",
                )
        frame = pd.DataFrame(
            {c: [r[c] for r in rows] for c in ("qid", "document", "section", "version", "grade")}
        )
        frame["grade"] = frame["grade"].astype("int64")
        frame["clause_id"] = [cid for _, cid in pairs]
        return frame, judged

    def query_log(self) -> pd.DataFrame | None:
        rel = "query_log.jsonl"
        data = self.read_optional(rel)
        if data is None:
            return None
        rows = self.jsonl(rel, data)
        spec = {"ts": ("str", False), "session": ("str", False), "text": ("str", False)}
        for n, entry in enumerate(rows, start=1):
            self.fields(rel, entry, spec, n)
            try:
                datetime.fromisoformat(entry["ts"])
            except ValueError:
                self.fail(
                    rel,
                    f"{entry['ts']!r} is not an ISO timestamp; write e.g. 2025-06-01T09:13:22Z",
                    n,
                    "ts",
                )
        return pd.DataFrame({c: [e[c] for e in rows] for c in ("ts", "session", "text")})

    def reviews(
        self, judged: dict[str, set[str]], documents: tuple[Document, ...]
    ) -> dict[str, pd.DataFrame]:
        review = self.root / "review"
        if not review.exists():
            return {}
        if not review.is_dir():
            self.fail(
                "review", "is not a folder; review/ holds reviewer2.jsonl and prelabels.jsonl"
            )
        allowed = [f"{name}.jsonl" for name in REVIEW_FILES]
        for p in sorted(review.iterdir(), key=lambda p: p.name):
            if p.name not in allowed:
                self.fail(
                    f"review/{p.name}",
                    f"unknown file in review/; {_hint(p.name, allowed)}"
                    f"review/ holds only {' and '.join(allowed)}",
                )
        out: dict[str, pd.DataFrame] = {}
        for name in REVIEW_FILES:
            rel = f"review/{name}.jsonl"
            data = self.read_optional(rel)
            if data is None:
                continue
            rows = self.jsonl(rel, data)
            extra = {"model": ("str", False)} if name == "prelabels" else None
            pairs = self.anchors(rel, rows, documents, extra)
            seen: dict[str, int] = {}
            by_q: dict[str, set[str]] = {}
            for n, (qid, cid) in enumerate(pairs, start=1):
                if cid not in judged.get(qid, set()):
                    self.fail(
                        rel,
                        f"question {qid!r} and clause {cid} are not judged in "
                        "labels.jsonl; review files grade only pairs labels.jsonl judges "
                        "(add a label there, grade 0 if rejected, or drop this row)",
                        n,
                        "qid",
                    )
                seen.setdefault(qid, n)
                by_q.setdefault(qid, set()).add(cid)
            for qid, n in seen.items():
                left = sorted(judged[qid] - by_q[qid])
                if left:
                    self.fail(
                        rel,
                        f"question {qid!r} is reviewed but not every pair labels.jsonl "
                        f"judges for it is graded here (missing: {', '.join(left)}); grade "
                        "them all",
                        n,
                        "qid",
                    )
            columns = ["qid", "document", "section", "version", "grade"]
            columns += ["model"] if extra else []
            frame = pd.DataFrame({c: [r[c] for r in rows] for c in columns})
            frame["grade"] = frame["grade"].astype("int64")
            frame["clause_id"] = [cid for _, cid in pairs]
            out[name] = frame
        return out

    def root_files(self) -> None:
        """Unknown .json/.jsonl files at the top are most likely misnamed: refuse them."""
        for p in sorted(self.root.iterdir(), key=lambda p: p.name):
            if p.is_file() and p.suffix in (".json", ".jsonl") and p.name not in _KNOWN_ROOT_FILES:
                self.fail(
                    p.name,
                    f"unknown dataset file; {_hint(p.name, _KNOWN_ROOT_FILES)}"
                    "rename it or move it out of the dataset folder (docs/schema.md lists "
                    "the files)",
                )

    def manifest(self) -> None:
        rel = "MANIFEST.sha256"
        data = self.read_optional(rel)
        if data is None:
            return
        listed: dict[str, int] = {}
        lines = self.decode(rel, data).split("\n")
        if lines[-1] == "":
            lines.pop()
        for n, raw in enumerate(lines, start=1):
            m = _MANIFEST_RE.fullmatch(raw)
            if m is None:
                self.fail(rel, "expected `<sha256 hex>  <relative path>` (sha256sum format)", n)
            path = m["path"]
            pure = PurePosixPath(path)
            if pure.is_absolute() or ".." in pure.parts or "\\" in path:
                self.fail(rel, f"{path!r} is not a relative path inside the dataset folder", n)
            if path in listed:
                self.fail(rel, f"{path!r} is listed twice (first on line {listed[path]})", n)
            listed[path] = n
            target = self.root / path
            if not target.is_file():
                self.fail(
                    rel,
                    f"lists {path}, which is missing from the dataset folder; restore "
                    "it or regenerate the manifest",
                    n,
                )
            if hashlib.sha256(self.read_bytes(path)).hexdigest() != m["hex"]:
                self.fail(
                    rel,
                    f"sha256 of {path} does not match: the file changed after the "
                    "manifest was written; restore it or regenerate the manifest",
                    n,
                )
        for p in sorted(self.root.rglob("*")):
            r = p.relative_to(self.root).as_posix()
            if p.is_file() and r != rel and r not in listed:
                self.fail(rel, f"{r} is not listed; add it (sha256sum) or remove the file")


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


__all__ = [
    "Clause",
    "Dataset",
    "Document",
    "PART_KINDS",
    "SCHEMA_VERSION",
    "SUBSETS",
    "check_dataset",
    "clause_id",
    "labels_hash",
    "load_dataset",
    "render",
    "sample_path",
    "snapshot_hash",
    "statistics",
]


def swap_in_folder(
    out: Path, files: Mapping[str, bytes], check: Callable[[Path], None] | None = None
) -> None:
    """Write `files` (relative path -> bytes) into a temporary sibling of `out`, run `check` on
    it, then swap it in place of `out`: a crash or a failed check leaves `out` as it was, never
    half-written. The caller decides whether an existing `out` may be replaced."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(4)
    tmp = out.parent / f".{out.name}.tmp-{token}"
    old = out.parent / f".{out.name}.old-{token}"
    tmp.mkdir()
    try:
        for rel, data in sorted(files.items()):
            path = tmp / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if check is not None:
            check(tmp)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not out.exists():
            os.replace(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
