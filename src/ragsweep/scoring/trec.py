"""A TREC run scored against qrels: the arrays `ragsweep.scoring.metrics.score_gains` takes.

The files themselves are read and written by `ragsweep.data.trec` (re-exported here). Ties and
duplicates follow trec_eval (see docs/metrics.md): a run is ordered by score descending, ties by
document id descending (string order); relevant means grade >= the relevance level (trec_eval's
`-l`, default 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import count, repeat

import numpy as np

from ragsweep.data.trec import Qrels, Run, read_qrels, read_run, write_run
from ragsweep.measures import relevance_level

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
    new_rel: np.ndarray  # (nq, depth) int64 1 where that grade is >= the relevance level
    n_rel: np.ndarray  # (nq,) int64 documents judged >= the relevance level
    ideal: np.ndarray  # (nq, m) int64 judged grades sorted descending, 0-padded
    in_run: np.ndarray  # (nq,) bool: the run has at least one line for the query
    n_duplicates: int  # run lines dropped because their (qid, docid) came earlier in trec order
    ignored_qids: tuple[str, ...]  # run queries absent from the qrels (string order): not scored
    unjudged: np.ndarray  # (nq, depth) bool: the rank holds a document the qrels do not judge
    docs: np.ndarray  # (nq, depth) int64 each rank's document: a code into run.doc_names, -1 pad


def _positions(sorted_codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """0-based position of each element among its equals (codes sorted; `counts` per code)."""
    return np.arange(sorted_codes.size) - (np.cumsum(counts) - counts)[sorted_codes]


def _remap(names: tuple[str, ...], index: Mapping[str, int]) -> np.ndarray:
    """Global code of each local name (-1 if absent): one lookup per distinct name."""
    return np.fromiter(map(index.get, names, repeat(-1)), dtype=np.int64, count=len(names))


def _distinct(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """The distinct values of `codes` (each in 0..n_codes-1), ascending."""
    present = np.zeros(n_codes, dtype=bool)
    present[codes] = True
    return np.flatnonzero(present)


def _string_ranks(names: Sequence[str], codes: np.ndarray) -> np.ndarray:
    """Rank of each of the distinct `codes` (ascending) in string order of its name."""
    by_name = sorted(range(codes.size), key=[names[c] for c in codes.tolist()].__getitem__)
    ranks = np.empty(codes.size, dtype=np.int64)
    ranks[by_name] = np.arange(codes.size)
    return ranks


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


def _in_trec_order(
    qcodes: np.ndarray, scores: np.ndarray, dcodes: np.ndarray, doc_names: Sequence[str]
) -> bool:
    """Whether rows grouped by query, in query code order, are in `trec_order` already.

    Within a query scores must not rise, and tied neighbours must have document ids in
    descending string order (equal ids allowed). Only the ids of tied neighbours are compared,
    so a run without ties costs a few vectorised comparisons and no string is touched.
    """
    same_query = qcodes[1:] == qcodes[:-1]
    if (same_query & (scores[1:] > scores[:-1])).any():
        return False
    tied = np.flatnonzero(same_query & (scores[1:] == scores[:-1]))
    if tied.size == 0:
        return True
    involved = _distinct(np.concatenate((dcodes[tied], dcodes[tied + 1])), len(doc_names))
    ranks = _string_ranks(doc_names, involved)
    above = ranks[np.searchsorted(involved, dcodes[tied])]
    below = ranks[np.searchsorted(involved, dcodes[tied + 1])]
    return bool((above >= below).all())


def _ranked_rows(
    rq: np.ndarray, rd: np.ndarray, scores: np.ndarray, doc_names: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """(query, document) codes of the rows in trec_eval order.

    Rows are grouped by query with a stable sort unless they already are; a run that is then in
    trec_eval order (checked by `_in_trec_order`) is kept as it is, any other is sorted by
    `trec_order`, with document codes replaced by ranks in string order of their ids.
    """
    if (rq[1:] < rq[:-1]).any():
        by_query = np.argsort(rq, kind="stable")
        rq, rd, scores = rq[by_query], rd[by_query], scores[by_query]
    if _in_trec_order(rq, scores, rd, doc_names):
        return rq, rd
    distinct = _distinct(rd, len(doc_names))
    string_codes = np.zeros(len(doc_names), dtype=np.int64)
    string_codes[distinct] = _string_ranks(doc_names, distinct)
    order = trec_order(rq, scores, string_codes[rd])
    return rq[order], rd[order]


def gain_arrays(qrels: Qrels, run: Run, depth: int | None = None, rel_level: int = 1) -> TrecArrays:
    """Rank `run` the trec_eval way and credit each rank with its judged grade.

    `new_rel` and `n_rel` count the documents graded >= `rel_level` (trec_eval's `-l`): score
    the arrays with the same level (`metrics.score_arrays`). The grades themselves (`gains`,
    `ideal`: what nDCG reads) do not depend on it, as in trec_eval.

    Rows are the qrels' queries in string order of qid (a query the run lacks gets an all-zero
    row, so it scores 0 and counts in the mean); run queries absent from the qrels are ignored and
    listed. A (qid, docid) repeated in the run is kept once, at its highest-scored position;
    unjudged documents get grade 0. `depth` keeps only the first `depth` ranks and ideal grades
    (enough for cutoffs <= depth); None keeps all. Vectorised: Python touches each distinct id
    once, never each row or query. A run already in trec_eval order (ragsweep's own rankings and
    `write_run`'s files are) is checked, not sorted, and its ids are not sorted either. Names in
    `qid_names` and `doc_names` must be distinct, as `Qrels`' and `Run`'s constructors make them.
    """
    if depth is not None and depth <= 0:
        raise ValueError(f"depth must be positive or None, got {depth}")
    level = relevance_level(rel_level)
    qid_names = tuple(sorted(qrels.qid_names))
    nq = len(qid_names)
    q_index = dict(zip(qid_names, count()))
    n_docs, n_judged_docs = max(len(run.doc_names), 1), max(len(qrels.doc_names), 1)
    # (query, document) keys: int32 when they fit, which halves the cost of sorting them
    key_type = np.int32 if nq * max(n_docs, n_judged_docs) < 2**31 else np.int64

    # the rows of the qrels' queries, in trec_eval order, first occurrence of each key kept
    run_q = _remap(run.qid_names, q_index)
    ignored = tuple(sorted(n for n, c in zip(run.qid_names, run_q.tolist(), strict=True) if c < 0))
    if np.array_equal(run_q, np.arange(run_q.size)):
        rq = run.qid_codes  # the run's query codes already are the qrels' string order
    else:
        rq = run_q[run.qid_codes]
    rd, scores = run.doc_codes, run.scores
    if ignored:
        scored = rq >= 0
        rq, rd, scores = rq[scored], rd[scored], scores[scored]
    rq, rd = _ranked_rows(rq, rd, scores, run.doc_names)
    rkey = rq.astype(key_type) * n_docs + rd.astype(key_type)
    sorted_keys = np.sort(rkey)
    n_duplicates = int(np.count_nonzero(sorted_keys[1:] == sorted_keys[:-1]))
    if n_duplicates:
        _, first = np.unique(rkey, return_index=True)
        first.sort()
        rq, rd = rq[first], rd[first]
    counts = np.bincount(rq, minlength=nq)
    width = int(counts.max(initial=0))
    width = width if depth is None else min(width, depth)
    uniform = bool((counts == width).all())  # every query fills every rank: rows are the cells
    if not uniform:
        rank = _positions(rq, counts)
        inside = rank < width
        rq, rd, rank = rq[inside], rd[inside], rank[inside]

    # each rank's grade (0: unjudged), looked up for the documents judged for some query only
    jq = _remap(qrels.qid_names, q_index)[qrels.qid_codes]
    jkey = jq.astype(key_type) * n_judged_docs + qrels.doc_codes.astype(key_type)
    jorder = np.argsort(jkey)
    jkey_sorted, jgrade_sorted = jkey[jorder], qrels.grades[jorder]
    judged_code = _remap(run.doc_names, dict(zip(qrels.doc_names, count()))).astype(key_type)[rd]
    candidates = np.flatnonzero(judged_code >= 0)
    grade = np.zeros(rq.size, dtype=np.int64)
    judged = np.zeros(rq.size, dtype=bool)
    if candidates.size:
        ckey = rq[candidates].astype(key_type) * n_judged_docs + judged_code[candidates]
        at = np.minimum(np.searchsorted(jkey_sorted, ckey), jkey_sorted.size - 1)
        judged[candidates] = jkey_sorted[at] == ckey
        grade[candidates] = np.where(judged[candidates], jgrade_sorted[at], 0)
    if uniform:
        gains = grade.reshape(nq, width)
        unjudged = ~judged.reshape(nq, width)
        docs = rd.astype(np.int64).reshape(nq, width)
    else:
        gains = np.zeros((nq, width), dtype=np.int64)
        gains.ravel()[rq * width + rank] = grade
        unjudged = np.zeros((nq, width), dtype=bool)
        unjudged.ravel()[rq * width + rank] = ~judged
        docs = np.full((nq, width), -1, dtype=np.int64)
        docs.ravel()[rq * width + rank] = rd

    iorder = np.lexsort((-qrels.grades, jq))
    iq, igrade = jq[iorder], qrels.grades[iorder]
    icounts = np.bincount(iq, minlength=nq)
    ipos = _positions(iq, icounts)
    iwidth = int(icounts.max(initial=0))
    iwidth = iwidth if depth is None else min(iwidth, depth)
    ideal = np.zeros((nq, iwidth), dtype=np.int64)
    iinside = ipos < iwidth
    ideal[iq[iinside], ipos[iinside]] = igrade[iinside]

    return TrecArrays(
        qids=qid_names,
        gains=gains,
        new_rel=(gains >= level).astype(np.int64),
        n_rel=np.bincount(jq[qrels.grades >= level], minlength=nq).astype(np.int64),
        ideal=ideal,
        in_run=counts > 0,
        n_duplicates=n_duplicates,
        ignored_qids=ignored,
        unjudged=unjudged,
        docs=docs,
    )
