"""Every clause of a corpus in flat arrays, for lookups by document id: what the coverage rule
(`ragsweep.chunking.anchors.coverage`, docs/anchoring.md) reads, so that mapping the few chunks
a run ranks takes time in proportion to them, not to the corpus. A `Dataset` builds its table
once, with its documents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np


@dataclass(frozen=True, eq=False)
class ClauseTable:
    """The clauses of `documents`, document by document, clause by clause within one.

    Documents sharing a `doc_id` (a `Dataset`'s never do) are one document here: its clauses
    are theirs, in their order."""

    documents: Sequence[Any]  # what the table was built from
    number: Mapping[str, int]  # doc_id -> document number, in order of first appearance
    first: np.ndarray  # (documents + 1,) int64: document k's clauses are rows first[k]:first[k+1]
    clause_ids: tuple[str, ...]  # row -> clause id
    spans: np.ndarray  # (rows, 2) int64: [start, end) of each clause in its document's text
    #: (rows,) int64: each clause id's place among the distinct ids sorted (equal ids, one place)
    rank: np.ndarray

    @classmethod
    def of(cls, documents: Sequence[Any]) -> ClauseTable:
        """The table of `documents` (objects with `doc_id`, `clauses` and aligned `spans`)."""
        grouped: dict[str, list[Any]] = {}
        for d in documents:
            grouped.setdefault(d.doc_id, []).append(d)
        docs = [d for group in grouped.values() for d in group]
        counts = [sum(len(d.clauses) for d in group) for group in grouped.values()]
        first = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=first[1:])
        clause_ids = tuple(c.clause_id for d in docs for c in d.clauses)
        spans = np.fromiter(
            chain.from_iterable(chain.from_iterable(d.spans for d in docs)), np.int64
        ).reshape(-1, 2)
        if len(spans) != len(clause_ids):
            raise ValueError("every document needs one span per clause (Document.spans)")
        place = {cid: i for i, cid in enumerate(sorted(set(clause_ids)))}
        rank = np.fromiter((place[c] for c in clause_ids), np.int64, len(clause_ids))
        number = {doc_id: k for k, doc_id in enumerate(grouped)}
        return cls(documents, number, first, clause_ids, spans, rank)
