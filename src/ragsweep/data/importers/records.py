"""What a collection format reader (`beir`, `trecfiles`, `smart`) returns: the source's
documents, queries and judgements as written, each remembering its file and line for errors,
gathered in a `Collection` with its grade rule. `convert` maps one onto the dataset schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragsweep.data.importers.grades import GradeRule


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
