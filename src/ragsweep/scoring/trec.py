"""A TREC run scored against qrels: the arrays `ragsweep.scoring.metrics.score_gains` takes.

The files themselves are read and written by `ragsweep.data.trec` (re-exported here). Ties and
duplicates follow trec_eval (see docs/metrics.md): a run is ordered by score descending, ties by
document id descending (string order); relevant means grade >= 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from ragsweep.data.trec import Qrels, Run, read_qrels, read_run, write_run

#: `trec_order` sorts one composite int64 key while queries x scores x docs stays below this
_COMPOSITE_LIMIT = 2**62

__all__ = [
    "Qrels",
    "Run",
    "TrecArrays",
    "gain_arrays",
    "read_qrels",
    "read_run",
    "trec_order",
    "write_run",
]


@dataclass(frozen=True)
class TrecArrays:
    """A run scored against qrels, as the arrays `metrics.score_gains` takes (row q = qids[q])."""

    qids: tuple[str, ...]  # the qrels' queries, in string order of qid
    gains: np.ndarray  # (nq, depth) int64 grade of the document at each rank (0: unjudged/pad)
    new_rel: np.ndarray  # (nq, depth) int64 1 where that grade is >= 1
    n_rel: np.ndarray  # (nq,) int64 documents judged >= 1
    ideal: np.ndarray  # (nq, m) int64 judged grades sorted descending, 0-padded
    in_run: np.ndarray  # (nq,) bool: the run has at least one line for the query
    n_duplicates: int  # run lines dropped because their (qid, docid) came earlier in trec order
    ignored_qids: tuple[str, ...]  # run queries absent from the qrels (string order): not scored


def _positions(sorted_codes: np.ndarray) -> np.ndarray:
    """0-based position of each element within its run of equal values (input sorted)."""
    starts = np.searchsorted(sorted_codes, sorted_codes, side="left")
    return np.arange(sorted_codes.size) - starts


def _remap(names: tuple[str, ...], index: Mapping[str, int]) -> np.ndarray:
    """Global code of each local name (-1 if absent): one lookup per distinct name."""
    return np.fromiter(map(index.get, names, repeat(-1)), dtype=np.int64, count=len(names))


def trec_order(qcodes: np.ndarray, scores: np.ndarray, dcodes: np.ndarray) -> np.ndarray:
    """Row order of trec_eval: query code ascending, score descending, document code descending.

    Document codes must follow string order of the ids (so descending code = strcmp descending).
    One integer argsort on a composite key when it fits in int64, else a three-key lexsort.
    """
    if qcodes.size == 0:
        return np.zeros(0, dtype=np.int64)
    distinct, score_rank = np.unique(scores, return_inverse=True)
    n_s, n_d = distinct.size, int(dcodes.max()) + 1
    n_q = int(qcodes.max()) + 1
    if n_q * n_s * n_d < _COMPOSITE_LIMIT:
        key = (qcodes * n_s + (n_s - 1 - score_rank)) * n_d + (n_d - 1 - dcodes)
        return np.argsort(key)  # keys tie only for identical rows, so stability is moot
    return np.lexsort((-dcodes, -scores, qcodes))


def gain_arrays(qrels: Qrels, run: Run, depth: int | None = None) -> TrecArrays:
    """Rank `run` the trec_eval way and credit each rank with its judged grade.

    Rows are the qrels' queries in string order of qid (a query the run lacks gets an all-zero
    row, so it scores 0 and counts in the mean); run queries absent from the qrels are ignored and
    listed. A (qid, docid) repeated in the run is kept once, at its highest-scored position;
    unjudged documents get grade 0. `depth` keeps only the first `depth` ranks and ideal grades
    (enough for cutoffs <= depth); None keeps all. Vectorised: Python touches each distinct id
    once, never each row or query.
    """
    if depth is not None and depth <= 0:
        raise ValueError(f"depth must be positive or None, got {depth}")
    qid_names = tuple(sorted(qrels.qid_names))
    nq = len(qid_names)
    q_index = {q: i for i, q in enumerate(qid_names)}
    doc_names = sorted(set(qrels.doc_names).union(run.doc_names))  # code order = string order
    d_index = {d: i for i, d in enumerate(doc_names)}
    n_docs = max(len(doc_names), 1)

    # judgements, keyed by (query, document)
    jq = _remap(qrels.qid_names, q_index)[qrels.qid_codes]
    jd = _remap(qrels.doc_names, d_index)[qrels.doc_codes]
    jkey = jq * n_docs + jd
    jorder = np.argsort(jkey)
    jkey_sorted, jgrade_sorted = jkey[jorder], qrels.grades[jorder]

    # the run in trec_eval order, first occurrence of each (query, document) kept
    run_q = _remap(run.qid_names, q_index)
    ignored = tuple(sorted(n for n, c in zip(run.qid_names, run_q.tolist(), strict=True) if c < 0))
    rq = run_q[run.qid_codes]
    scored = rq >= 0
    rq = rq[scored]
    rd = _remap(run.doc_names, d_index)[run.doc_codes[scored]]
    order = trec_order(rq, run.scores[scored], rd)
    rq, rkey = rq[order], rq[order] * n_docs + rd[order]
    _, first = np.unique(rkey, return_index=True)
    first.sort()
    n_duplicates = int(rkey.size - first.size)
    rq, rkey = rq[first], rkey[first]
    rank = _positions(rq)

    if jkey_sorted.size:  # unjudged documents get grade 0
        at = np.minimum(np.searchsorted(jkey_sorted, rkey), jkey_sorted.size - 1)
        grade = np.where(jkey_sorted[at] == rkey, jgrade_sorted[at], 0)
    else:
        grade = np.zeros(rkey.size, dtype=np.int64)

    width = int(rank.max()) + 1 if rank.size else 0
    width = width if depth is None else min(width, depth)
    gains = np.zeros((nq, width), dtype=np.int64)
    inside = rank < width
    gains[rq[inside], rank[inside]] = grade[inside]

    iorder = np.lexsort((-qrels.grades, jq))
    iq, igrade = jq[iorder], qrels.grades[iorder]
    ipos = _positions(iq)
    iwidth = int(ipos.max()) + 1 if ipos.size else 0
    iwidth = iwidth if depth is None else min(iwidth, depth)
    ideal = np.zeros((nq, iwidth), dtype=np.int64)
    iinside = ipos < iwidth
    ideal[iq[iinside], ipos[iinside]] = igrade[iinside]

    return TrecArrays(
        qids=qid_names,
        gains=gains,
        new_rel=(gains >= 1).astype(np.int64),
        n_rel=np.bincount(jq[qrels.grades >= 1], minlength=nq).astype(np.int64),
        ideal=ideal,
        in_run=np.bincount(rq, minlength=nq) > 0,
        n_duplicates=n_duplicates,
        ignored_qids=ignored,
    )
