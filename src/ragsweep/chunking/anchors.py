"""Map clause-anchored labels onto a chunking, anew for every chunking.

The rule (docs/anchoring.md):

1. **Coverage.** A chunk *covers* a clause when they share at least `min_overlap` (default 0.5)
   of the shorter of the two spans, in characters. A small clause wholly inside a big chunk is
   covered; a big clause cut into small chunks is covered by each piece that lies mostly inside
   it; a chunk that only clips a clause's last line does not cover it.
2. **Chunk grade.** A chunk's grade is the highest grade among the labelled clauses it covers.
3. **Counted once.** A relevant clause is credited once, at the first rank whose chunk covers
   it. The gain at a rank is the highest grade among the clauses first credited there (0 when
   the chunk adds nothing new), so a clause split over two chunks is not counted twice, and a
   chunk holding two relevant clauses credits both for recall.

The ideal ranking for nDCG is one clause per rank, grades sorted descending (trec_eval's rule
with clauses as the documents): when chunks are exactly clauses, every measure equals trec_eval's.

Coverage is computed for all the chunks asked about at once, in numpy (`_covering_pairs`), from
the corpus's clauses in flat arrays (`ragsweep.data.clause_table`); scoring asks only about the
chunks it ranks (`coverage(..., only=...)`). Tests: tests/chunking/test_anchors.py,
test_coverage_keys.py and test_counted_once.py (both against the rule written pair by pair).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.chunking.chunkers import Chunk
from ragsweep.data.clause_table import ClauseTable
from ragsweep.errors import UserError


@dataclass(frozen=True)
class Coverage:
    """Which chunk covers which clause, as sorted int64 keys `chunk * n_clauses + clause`.

    Built with `coverage(..., only=...)` it maps only those chunks (`mapped`, sorted), and
    `clause_ids` holds only the clauses of their documents: asking about another chunk is a
    `ValueError`, not a silent "covers nothing"."""

    clause_ids: tuple[str, ...]  # clause index -> clause id, sorted
    keys: np.ndarray
    n_chunks: int
    mapped: np.ndarray | None = None  # the chunks mapped, sorted; None: every chunk

    def require(self, chunks: np.ndarray) -> None:
        """Raise `ValueError` unless every chunk index in `chunks` (-1 aside) was mapped."""
        if self.mapped is None:
            return
        asked = np.asarray(chunks, dtype=np.int64).ravel()
        asked = asked[asked >= 0]
        missing = asked[~self._is_mapped[np.minimum(asked, self.n_chunks)]]
        if missing.size:
            raise ValueError(
                f"chunk {int(missing[0])} was not mapped to its clauses: pass it in "
                "coverage(..., only=...)"
            )

    def chunk_clauses(self, chunk: int) -> list[str]:
        """Clause ids one chunk covers (for artifacts)."""
        return self.clauses_of(np.array([chunk]))[int(chunk)]

    def clauses_of(self, chunks: np.ndarray) -> dict[int, list[str]]:
        """Chunk index -> the clause ids it covers, sorted, for each chunk of `chunks` at once."""
        chunks = np.asarray(chunks, dtype=np.int64).ravel()
        self.require(chunks)
        n = len(self.clause_ids)
        lo = np.searchsorted(self.keys, chunks * n)
        hi = np.searchsorted(self.keys, (chunks + 1) * n)
        counts = hi - lo
        rows = _ranges(lo, counts)
        names = [self.clause_ids[k] for k in (self.keys[rows] % max(n, 1)).tolist()]
        out: dict[int, list[str]] = {}
        at = 0
        for chunk, count in zip(chunks.tolist(), counts.tolist(), strict=True):
            out[chunk] = names[at : at + count]
            at += count
        return out

    def ranked_pairs(self, ranked: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every (question, rank, clause index) the chunks of `ranked` (nq, depth; -1 padded)
        cover, as three arrays ordered by question, then rank, then clause (id order)."""
        self.require(ranked)
        q_of, r_of = np.nonzero(ranked >= 0)
        chunk = ranked[q_of, r_of].astype(np.int64)
        lo = self._first_key[np.minimum(chunk, self.n_chunks)]
        counts = self._first_key[np.minimum(chunk + 1, self.n_chunks)] - lo
        clause = self.keys[_ranges(lo, counts)] % max(len(self.clause_ids), 1)
        return np.repeat(q_of, counts), np.repeat(r_of, counts), clause

    # Two lookup tables, one entry a chunk, built on first use: looking up thousands of chunks
    # by `searchsorted` in random order cost milliseconds a time (measured on 22,500 ranks).

    @cached_property
    def _first_key(self) -> np.ndarray:
        """(n_chunks + 1,) int64: chunk c's keys are keys[_first_key[c] : _first_key[c + 1]]."""
        per_chunk = np.bincount(self.keys // max(len(self.clause_ids), 1), minlength=self.n_chunks)
        first = np.zeros(self.n_chunks + 1, dtype=np.int64)
        np.cumsum(per_chunk, out=first[1:])
        return first

    @cached_property
    def _is_mapped(self) -> np.ndarray:
        """(n_chunks + 1,) bool: was chunk c mapped; the last entry, for any index past the
        chunks, is False."""
        mapped = np.zeros(self.n_chunks + 1, dtype=bool)
        mapped[self.mapped if self.mapped is not None else slice(self.n_chunks)] = True
        return mapped

    def covers(self, chunks: np.ndarray, clauses: np.ndarray) -> np.ndarray:
        """Elementwise: does chunk `chunks[...]` cover clause `clauses[...]`? (-1 never does).
        Every chunk asked about must have been mapped (see `require`)."""
        n = len(self.clause_ids)
        valid = (chunks >= 0) & (clauses >= 0)
        return (
            valid & _find(self.keys, np.where(valid, chunks.astype(np.int64) * n + clauses, -1))[0]
        )


def coverage(
    documents: Sequence[Any] | ClauseTable,
    chunks: Sequence[Chunk],
    min_overlap: float = 0.5,
    only: np.ndarray | Sequence[int] | None = None,
) -> Coverage:
    """Compute the chunk -> clause coverage relation for a chunking of `documents`.

    `only` (indices into `chunks`, e.g. the ranked ones) maps just those chunks, against the
    clauses of their documents; with `documents` as a `ClauseTable` (a `Dataset`'s
    `clause_table`) the work is then proportional to those chunks, not to the corpus.
    """
    if not 0.0 < min_overlap <= 1.0:
        raise UserError(f"eval.min_overlap must be a share in (0, 1], got {min_overlap}")
    table = documents if isinstance(documents, ClauseTable) else ClauseTable.of(documents)
    mapped = None
    if only is None:
        rows = np.arange(len(chunks), dtype=np.int64)
        picked = chunks
    else:
        mapped = rows = _sorted_distinct(np.asarray(only, dtype=np.int64).ravel())
        if rows.size and (rows[0] < 0 or rows[-1] >= len(chunks)):
            raise ValueError(f"only= holds chunk indices outside [0, {len(chunks)})")
        picked = [chunks[i] for i in rows.tolist()]
    # list comprehensions, the fastest way over many objects; no tuple a chunk (each one
    # counts towards a garbage collection)
    number = table.number.get
    chunk_doc = np.fromiter([number(c.doc_id, -1) for c in picked], np.int64, len(picked))
    chunk_span = np.array([[c.start for c in picked], [c.end for c in picked]], np.int64).T
    known = chunk_doc >= 0  # a chunk of a document not in `documents` covers nothing
    if only is None:
        docs = np.arange(len(table.first) - 1, dtype=np.int64)
    else:
        docs = _sorted_distinct(chunk_doc[known])
    lo = table.first[docs]
    counts = table.first[docs + 1] - lo
    clause_row = _ranges(lo, counts)
    # clause indices in id order; an id held twice maps to the last of its copies, as a dict
    # built from the sorted ids would
    rank = table.rank[clause_row]
    order = np.argsort(rank, kind="stable")
    clause_index = np.searchsorted(rank[order], rank, side="right") - 1
    clause_ids = tuple(map(table.clause_ids.__getitem__, clause_row[order].tolist()))
    hit_chunk, hit_clause = _covering_pairs(
        chunk_doc[known],
        chunk_span[known],
        np.repeat(docs, counts),
        table.spans[clause_row],
        min_overlap,
    )
    keys = rows[known][hit_chunk] * len(clause_ids) + clause_index[hit_clause]
    return Coverage(clause_ids, _sorted_distinct(keys), len(chunks), mapped)


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The ranges [start, start + count) one after the other, as one int64 array."""
    ends = np.cumsum(counts)
    return np.repeat(starts - ends + counts, counts) + np.arange(ends[-1] if len(ends) else 0)


def _covering_pairs(
    chunk_doc: np.ndarray,
    chunk_span: np.ndarray,
    clause_doc: np.ndarray,
    clause_span: np.ndarray,
    min_overlap: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs (chunk, clause) of the same document where the chunk covers the clause, over
    all documents at once. Spans are [start, end) rows; documents are numbers >= 0.

    Covering needs a positive overlap (the share is > 0), so the candidates of a chunk
    [s, e) are the clauses of its document starting before e and ending after s. On one line
    (document * stride + offset), clauses sorted by start, the first bound is a `searchsorted` on
    the starts and the second one on the running maximum of the ends (clauses may overlap or
    nest, so the ends alone are not sorted); the candidates are expanded with `np.repeat` and
    the rule is applied to each pair.
    """
    empty = np.zeros(0, dtype=np.int64)
    if not len(chunk_doc) or not len(clause_doc):
        return empty, empty
    low = min(int(chunk_span.min()), int(clause_span.min()))
    stride = max(int(chunk_span.max()), int(clause_span.max())) - low + 1
    starts = clause_doc * stride + (clause_span[:, 0] - low)
    order = np.argsort(starts, kind="stable")
    starts = starts[order]
    reach = np.maximum.accumulate(clause_doc[order] * stride + (clause_span[order, 1] - low))
    line = chunk_doc * stride - low
    hi = np.searchsorted(starts, line + chunk_span[:, 1], side="left")
    lo = np.searchsorted(reach, line + chunk_span[:, 0], side="right")
    counts = np.maximum(hi - lo, 0)
    chunk_row = np.repeat(np.arange(len(chunk_doc)), counts)
    clause_row = order[_ranges(lo, counts)]
    cs, ks = chunk_span[chunk_row], clause_span[clause_row]
    shared = np.minimum(cs[:, 1], ks[:, 1]) - np.maximum(cs[:, 0], ks[:, 0])
    shorter = np.minimum(cs[:, 1] - cs[:, 0], ks[:, 1] - ks[:, 0])
    hit = shared >= min_overlap * np.maximum(shorter, 1)
    return chunk_row[hit], clause_row[hit]


def _find(sorted_values: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Elementwise: is `wanted[i]` in `sorted_values`, and the position of its first copy there
    (a valid index, meaningless where not found)."""
    at = np.minimum(np.searchsorted(sorted_values, wanted), max(len(sorted_values) - 1, 0))
    if not len(sorted_values):
        return np.zeros(wanted.shape, dtype=bool), at
    return sorted_values[at] == wanted, at


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """`np.unique(values)` by one sort: numpy 2's hash-based `unique` took 100 times as long
    on 200,000 int64 keys (measured)."""
    values = np.sort(values)
    if values.size:
        values = values[np.concatenate(([True], values[1:] != values[:-1]))]
    return values


@dataclass(frozen=True)
class GainArrays:
    """Per-rank credit of a set of ranked lists: the input of
    `ragsweep.scoring.metrics.score_gains`."""

    gains: np.ndarray  # (nq, depth) grade first credited at each rank, 0 if nothing new
    new_rel: np.ndarray  # (nq, depth) relevant clauses (grade >= 1) first credited at each rank
    n_rel: np.ndarray  # (nq,) relevant clauses labelled
    ideal: np.ndarray  # (nq, m) labelled grades sorted descending, 0-padded
    #: (nq, depth) the chunk at each rank covers no clause labelled for the question (any grade)
    unjudged: np.ndarray


def label_matrix(
    qids: Sequence[str], labels: pd.DataFrame, clause_ids: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Labels as padded (nq, m) arrays of clause index (-1 pad) and grade (0 pad).

    Columns are in clause-id order within a question, so results never depend on file order.
    `clause_ids` must be sorted (`Coverage.clause_ids` is): a label's clause is found by bisection,
    not through a dictionary of them all; an id held twice maps to its last copy.
    """
    by_q: dict[str, list[tuple[int, int]]] = {q: [] for q in qids}
    columns = (labels[c].tolist() for c in ("qid", "clause_id", "grade"))  # not pandas' iterator
    for qid, cid, grade in zip(*columns, strict=True):
        if qid in by_q:
            at = bisect_right(clause_ids, cid) - 1
            by_q[qid].append((at if at >= 0 and clause_ids[at] == cid else -1, int(grade)))
    width = max((len(v) for v in by_q.values()), default=0)
    clause = np.full((len(qids), max(width, 1)), -1, dtype=np.int64)
    grade = np.zeros((len(qids), max(width, 1)), dtype=np.int64)
    for row, q in enumerate(qids):
        pairs = sorted(by_q[q])
        for col, (c, g) in enumerate(pairs):
            clause[row, col] = c
            grade[row, col] = g
    return clause, grade


def gain_arrays(
    ranked: np.ndarray, cov: Coverage, clause: np.ndarray, grade: np.ndarray, rel_level: int = 1
) -> GainArrays:
    """Apply the counted-once rule to ranked chunk indices `ranked` (nq, depth; -1 padded).
    `new_rel` and `n_rel` count the clauses graded >= `rel_level` (1: every relevant clause).

    Vectorised: the (question, rank, clause) triples the ranked chunks cover meet the labels
    (question, clause) through one sort, whatever the number of labels a question has.
    """
    nq, depth = ranked.shape
    n = len(cov.clause_ids)
    # every (question, rank, clause) the ranking covers, question by question, rank by rank
    pair_q, pair_r, pair_clause = cov.ranked_pairs(ranked)
    pair_key = pair_q * n + pair_clause
    # each label's first covering rank: sorted stably by key, a key's first pair has its first rank
    label_q, label_j = np.nonzero(clause >= 0)
    label_key = label_q * n + clause[label_q, label_j]
    g = grade[label_q, label_j]
    order = np.argsort(pair_key, kind="stable")
    found, at = _find(pair_key[order], label_key)
    first = pair_r[order][at] if len(order) else np.zeros_like(label_key)
    gains = np.zeros((nq, depth), dtype=np.int64)
    sel = found & (g != 0)
    np.maximum.at(gains, (label_q[sel], first[sel]), g[sel])
    new_rel = np.zeros((nq, depth), dtype=np.int64)
    rel = found & (g >= rel_level)
    np.add.at(new_rel, (label_q[rel], first[rel]), 1)
    # a rank is judged when its chunk covers a clause labelled (any grade) for its question
    judged = np.zeros((nq, depth), dtype=bool)
    hit, _ = _find(np.sort(label_key), pair_key)
    judged[pair_q[hit], pair_r[hit]] = True
    n_rel = (grade >= rel_level).sum(axis=1)
    ideal = -np.sort(-grade, axis=1)
    return GainArrays(
        gains=gains, new_rel=new_rel, n_rel=n_rel, ideal=ideal, unjudged=(ranked >= 0) & ~judged
    )
