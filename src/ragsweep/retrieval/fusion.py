"""Reciprocal rank fusion (Cormack, Clarke and Buettcher, 2009).

    score(d) = sum over lists L that contain d of 1 / (k + rank_L(d))

`rank_L(d)` is d's 1-based position in L (its order is the ranking; its scores are not used);
a list that misses d contributes nothing. Each text's terms are added in ascending rank order, so
texts with the same multiset of ranks get bit-identical scores whatever the list order, and the
tie rule (text index ascending) then decides between them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragsweep.errors import UserError
from ragsweep.retrieval.base import PAD_ID, PAD_SCORE, Ranked, check_depth


class RRF:
    """Reciprocal rank fusion as a pipeline stage (the `fusion` config group): `k` > 0."""

    def __init__(self, k: float = 60.0) -> None:
        _check_k(k)
        self.k = float(k)

    def fuse(self, lists: Sequence[Ranked], depth: int) -> Ranked:
        return rrf(lists, k=self.k, depth=depth)

    def fingerprint(self) -> dict[str, Any]:
        return {"fusion": "rrf", "k": self.k}


def _check_k(k: Any) -> None:
    if isinstance(k, bool) or not isinstance(k, int | float) or not 0 < k < math.inf:
        raise UserError(f"fusion.k must be a finite number > 0, got {k!r}")


def rrf(lists: Sequence[Ranked], k: float = 60.0, depth: int | None = None) -> Ranked:
    """Fuse ranked lists of the same queries by reciprocal rank fusion with constant `k` > 0.

    Returns each query's fused list, score descending, ties by text index ascending, cut at
    `depth` (None: keep every text any list returned; the width is then the largest number of
    distinct texts over the queries).
    """
    _check_k(k)
    if depth is not None:
        depth = check_depth(depth, "fusion depth")
    if not lists:
        raise ValueError("rrf needs at least one ranked list")
    n_q = lists[0].n_queries
    if any(r.n_queries != n_q for r in lists):
        sizes = [r.n_queries for r in lists]
        raise ValueError(f"rrf lists cover different numbers of queries: {sizes}")

    qs, ids, ranks = [], [], []
    for r in lists:
        rows, cols = np.nonzero(r.ids != PAD_ID)  # padding is at the tail: col + 1 is the rank
        qs.append(rows.astype(np.int64))
        ids.append(r.ids[rows, cols])
        ranks.append(cols.astype(np.int64) + 1)
    q, d, rank = np.concatenate(qs), np.concatenate(ids), np.concatenate(ranks)

    order = np.lexsort((rank, d, q))  # by query, then text, then rank ascending
    q, d, rank = q[order], d[order], rank[order]
    new = np.ones(len(q), dtype=bool)
    new[1:] = (q[1:] != q[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    contrib = 1.0 / (float(k) + rank.astype(np.float64))
    score = np.add.reduceat(contrib, starts) if len(starts) else contrib
    gq, gd = q[starts], d[starts]

    order = np.lexsort((gd, -score, gq))  # by query, then score descending, then text index
    gq, gd, score = gq[order], gd[order], score[order]
    counts = np.bincount(gq, minlength=n_q)
    width = int(counts.max(initial=0)) if depth is None else depth
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pos = np.arange(len(gq)) - first[gq]
    keep = pos < width
    out_ids = np.full((n_q, width), PAD_ID, dtype=np.int64)
    out_scores = np.full((n_q, width), PAD_SCORE, dtype=np.float64)
    out_ids[gq[keep], pos[keep]] = gd[keep]
    out_scores[gq[keep], pos[keep]] = score[keep]
    return Ranked(out_ids, out_scores)
