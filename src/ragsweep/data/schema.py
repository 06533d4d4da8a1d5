"""The dataset schema (docs/schema.md, version 1): file names, allowed values, id patterns, the
frozen `Clause`, `Document` and `Dataset` a loaded folder becomes, and the one rendering rule.

Conventions: clause ids are `document/section@version` (`home/5.3@2025`), document ids
`document@version`; character spans are Python string indices (code points, end exclusive) into a
document's rendered text; hashes are lowercase hex sha256.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ragsweep.data.clause_table import ClauseTable

SCHEMA_VERSION = 1
#: part kinds allowed in a wording (docs/schema.md)
PART_KINDS = ("definitions", "cover", "limits", "exclusions", "claims", "conditions", "other")
#: question subsets: `core` is frozen for trend lines, `rolling` is refreshed, `synthetic` was
#: generated from the corpus (`labels generate`) and is never scored with the real ones
SUBSETS = ("core", "rolling", "synthetic")
#: the subsets of questions people asked: what `eval.subset=all` scores
REAL_SUBSETS = ("core", "rolling")
SYNTHETIC = "synthetic"
GRADES = (0, 1, 2)
#: optional second-opinion files under review/, in the order they are reported
REVIEW_FILES = ("reviewer2", "prelabels")
#: optional record of a judging pool under review/ (qid, clause anchor, systems)
POOL_FILE = "pool.jsonl"
#: optional record of two judges' agreement under review/ (`ragsweep labels agreement --save`)
AGREEMENT_FILE = "agreement.json"

META_FILE = "dataset.json"
QUESTIONS_FILE = "questions.jsonl"
LABELS_FILE = "labels.jsonl"
QUERY_LOG_FILE = "query_log.jsonl"
#: the written relevance rule judges apply (optional; part of the labelled-set hash)
RELEVANCE_FILE = "relevance.md"
MANIFEST_FILE = "MANIFEST.sha256"
#: the files at the top of a dataset folder; any other .json/.jsonl file there is refused
ROOT_FILES = (
    META_FILE,
    QUESTIONS_FILE,
    LABELS_FILE,
    RELEVANCE_FILE,
    QUERY_LOG_FILE,
    MANIFEST_FILE,
)

DOCUMENT_RE = re.compile(r"[a-z0-9][a-z0-9_.-]*")
VERSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
SECTION_RE = re.compile(r"[^\s/@]+")
QID_RE = re.compile(r"\S+")
#: the name of a wording file in corpus/: `<document>@<version>.json`
CORPUS_FILE_RE = re.compile(
    rf"(?P<document>{DOCUMENT_RE.pattern})@(?P<version>{VERSION_RE.pattern})\.json"
)
#: the name of a file of many wordings in corpus/, one per line: `<name>.jsonl`
CORPUS_LINES_RE = re.compile(rf"(?P<name>{DOCUMENT_RE.pattern})\.jsonl")


def clause_id(document: str, section: str, version: str) -> str:
    """The string form of a clause anchor: `document/section@version`, e.g. `home/5.3@2025`."""
    return f"{document}/{section}@{version}"


def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key of a wording version: digit runs compare as numbers (`2024` < `2025`,
    `v9` < `v10`), other runs as text. `ragsweep labels check` carries labels from older to
    newer versions in this order."""
    parts = re.split(r"(\d+)", version)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p)


def admits(
    product: str | None, version: str | None, doc_product: str | None, doc_version: str
) -> bool:
    """Whether a question about `product` and `version` (None: any) may be answered from a
    document of `doc_product` in `doc_version`. One rule, two readers: the retriever's filter
    (`ragsweep.retrieval.pipeline.allowed_chunks`) never returns another passage, and the
    labelled set holds no relevant label on another clause (the relevance rule grades another
    version's or product's clause 0: a 2024 clause is no evidence of what a 2025 policy says)."""
    return (product is None or doc_product == product) and (
        version is None or doc_version == version
    )


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
    #: entries in query_log.jsonl (checked), None when the file is absent; the texts are not
    #: kept: a Dataset is pickled into sweep folders, and the raw log never leaves its file
    log_entries: int | None = None
    #: review files present, by name ("reviewer2", "prelabels"): label columns (+ model)
    reviews: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    #: review/pool.jsonl (qid, clause_id, systems): the candidates a judging pool showed
    pool: pd.DataFrame | None = None
    #: relevance.md as written (what grades 2, 1 and 0 mean here), None when the file is absent
    relevance: str | None = None
    #: review/agreement.json (two judges' kappa per slice, with intervals), None when absent
    agreement: Mapping[str, Any] | None = None
    #: the clauses of `documents` in flat arrays (`ClauseTable`), which the coverage rule reads
    #: to map a run's ranked chunks without walking the corpus. Built from `documents` when not
    #: given or given for other documents (`dataclasses.replace` keeps it): never None after init
    clause_table: ClauseTable | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.clause_table is None or self.clause_table.documents is not self.documents:
            object.__setattr__(self, "clause_table", ClauseTable.of(self.documents))

    def without_wordings(self) -> Dataset:
        """This dataset with no `documents` (`NO_WORDINGS`) but the same clause table, so a
        run that has chunked the wordings still scores by their clauses' spans. The wordings
        held 263 MiB of a 100,000-chunk run, beside its index builds, for nothing."""
        assert self.clause_table is not None  # set by __post_init__
        table = replace(self.clause_table, documents=NO_WORDINGS)
        return replace(self, documents=NO_WORDINGS, clause_table=table)


#: the `documents` of a dataset `Dataset.without_wordings` made: its clause table is the one
#: built from the wordings it had (the table's `documents` is this same object)
NO_WORDINGS: tuple[Document, ...] = ()


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
