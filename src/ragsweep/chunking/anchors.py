"""Map clause-anchored labels onto a chunking, anew for every chunking.

The rule (docs/anchoring.md, tested in tests/test_anchors.py):

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ragsweep.chunking.chunkers import Chunk
from ragsweep.errors import UserError


@dataclass(frozen=True)
class Coverage:
    """Which chunk covers which clause, as sorted int64 keys `chunk * n_clauses + clause`."""

    clause_ids: tuple[str, ...]  # clause index -> clause id, sorted
    keys: np.ndarray
    n_chunks: int

    def chunk_clauses(self, chunk: int) -> list[str]:
        """Clause ids one chunk covers (for artifacts)."""
        n = len(self.clause_ids)
        lo, hi = np.searchsorted(self.keys, [chunk * n, (chunk + 1) * n])
        return [self.clause_ids[int(k % n)] for k in self.keys[lo:hi]]

    def covers(self, chunks: np.ndarray, clauses: np.ndarray) -> np.ndarray:
        """Elementwise: does chunk `chunks[...]` cover clause `clauses[...]`? (-1 never does)."""
        n = len(self.clause_ids)
        valid = (chunks >= 0) & (clauses >= 0)
        keys = np.where(valid, chunks.astype(np.int64) * n + clauses, -1)
        pos = np.searchsorted(self.keys, keys)
        pos = np.minimum(pos, max(len(self.keys) - 1, 0))
        if len(self.keys) == 0:
            return np.zeros(keys.shape, dtype=bool)
        return valid & (self.keys[pos] == keys)


def coverage(
    documents: Sequence[Any], chunks: Sequence[Chunk], min_overlap: float = 0.5
) -> Coverage:
    """Compute the chunk -> clause coverage relation for a chunking of `documents`."""
    if not 0.0 < min_overlap <= 1.0:
        raise UserError(f"eval.min_overlap must be a share in (0, 1], got {min_overlap}")
    clause_ids = sorted(c.clause_id for d in documents for c in d.clauses)
    index = {cid: i for i, cid in enumerate(clause_ids)}
    n = len(clause_ids)
    chunk_pos: dict[str, list[int]] = {}
    for i, ch in enumerate(chunks):
        chunk_pos.setdefault(ch.doc_id, []).append(i)
    keys: list[np.ndarray] = []
    for doc in documents:
        rows = chunk_pos.get(doc.doc_id)
        if not rows or not doc.clauses:
            continue
        cs = np.array([(chunks[i].start, chunks[i].end) for i in rows], dtype=np.int64)
        ks = np.array(doc.spans, dtype=np.int64)
        shared = np.minimum(cs[:, None, 1], ks[None, :, 1]) - np.maximum(
            cs[:, None, 0], ks[None, :, 0]
        )
        shorter = np.minimum((cs[:, 1] - cs[:, 0])[:, None], (ks[:, 1] - ks[:, 0])[None, :])
        hit_chunk, hit_clause = np.nonzero(shared >= min_overlap * np.maximum(shorter, 1))
        clause_index = np.array([index[c.clause_id] for c in doc.clauses], dtype=np.int64)
        keys.append(np.asarray(rows, dtype=np.int64)[hit_chunk] * n + clause_index[hit_clause])
    all_keys = _sorted_distinct(np.concatenate(keys)) if keys else np.zeros(0, dtype=np.int64)
    return Coverage(tuple(clause_ids), all_keys, len(chunks))


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
    """
    index = {cid: i for i, cid in enumerate(clause_ids)}
    by_q: dict[str, list[tuple[int, int]]] = {q: [] for q in qids}
    for qid, cid, grade in zip(labels["qid"], labels["clause_id"], labels["grade"], strict=True):
        if qid in by_q:
            by_q[qid].append((index.get(cid, -1), int(grade)))
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

    Vectorised over questions and ranks; loops only over label columns (a handful).
    """
    nq, depth = ranked.shape
    gains = np.zeros((nq, depth), dtype=np.int64)
    new_rel = np.zeros((nq, depth), dtype=np.int64)
    rows = np.arange(nq)
    judged = np.zeros((nq, depth), dtype=bool)
    for j in range(clause.shape[1]):
        hit = cov.covers(ranked, np.broadcast_to(clause[:, j : j + 1], ranked.shape))
        judged |= hit
        found = hit.any(axis=1)
        first = np.argmax(hit, axis=1)
        g = grade[:, j]
        sel = found & (g != 0)
        gains[rows[sel], first[sel]] = np.maximum(gains[rows[sel], first[sel]], g[sel])
        rel = found & (g >= rel_level)
        np.add.at(new_rel, (rows[rel], first[rel]), 1)
    n_rel = (grade >= rel_level).sum(axis=1)
    ideal = -np.sort(-grade, axis=1)
    return GainArrays(
        gains=gains, new_rel=new_rel, n_rel=n_rel, ideal=ideal, unjudged=(ranked >= 0) & ~judged
    )
