"""Retrieval measures over graded labels, vectorised over questions.

`score_gains` scores every question on every `ragsweep.measures.Measure` at once from per-rank
credit arrays. The same core serves the pipeline (chunks ranked, labels on clauses; see
`ragsweep.chunking.anchors.gain_arrays`) and TREC files (documents ranked and labelled; see
`ragsweep.scoring.trec.gain_arrays`). Conventions are in `docs/metrics.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ragsweep.errors import UserError
from ragsweep.measures import GAINS, Gain, Measure, relevance_level


def _discount(depth: int) -> np.ndarray:
    """1 / log2(rank + 1) for ranks 1..depth."""
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _gain_values(grades: np.ndarray, gain: Gain) -> np.ndarray:
    """nDCG gain of each grade; negative grades gain 0 (as trec_eval and ranx; docs/metrics.md)."""
    g = np.maximum(grades, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


def score_gains(
    gains: np.ndarray,
    new_rel: np.ndarray,
    n_rel: np.ndarray,
    ideal: np.ndarray,
    measures: Sequence[Measure],
    gain: Gain = "exp",
    unjudged: np.ndarray | None = None,
    rel_level: int = 1,
) -> np.ndarray:
    """Score every question on every measure; shape (n_queries, len(measures)), float64.

    - `gains[q, i]`: integer grade credited at rank i+1 (0 when nothing new is credited there;
      rows 0-padded beyond the ranked list). Negative grades are judged non-relevant.
    - `new_rel[q, i]`: relevant units (grade >= `rel_level`) newly credited at rank i+1.
    - `n_rel[q]`: relevant units (grade >= `rel_level`) labelled for the question.
    - `ideal[q, :]`: all judged grades of the question, sorted descending, 0-padded.
    - `unjudged[q, i]`: true when rank i+1 holds a passage that covers no unit judged for the
      question (any grade, 0 included); needed only for unjudged@k.

    Relevant means grade >= `rel_level` (trec_eval's `-l`, default 1) for P, RR and AP; the
    caller builds `new_rel` and `n_rel` with the same level. recall@k = sum(new_rel[:, :k]) /
    n_rel (0 when n_rel == 0); P@k = count(gains[:, :k] >= rel_level) / k (short lists count as
    padded with non-relevant); RR = 1 / first relevant rank (0 if none; RR@k looks within k);
    AP = sum over ranks i of new_rel[q, i] * P@i / n_rel (0 when n_rel == 0; AP@k sums the
    first k ranks and still divides by n_rel): trec_eval's `map` and `map_cut_k` for TREC runs,
    where new_rel is 1 exactly at the relevant ranks; a chunk newly crediting two relevant
    clauses adds P@i twice, and a chunk crediting nothing new counts as non-relevant in P@i.
    nDCG@k = DCG@k / IDCG@k, discount 1 / log2(rank + 1),
    gain 2^g - 1 (`exp`) or g (`linear`, trec_eval's), negative grades gain 0, and 0 when
    IDCG@k is 0; unjudged@k = count(unjudged[:, :k]) / k (a rank holding no passage is neither
    judged nor unjudged, as P@k's padding; with a full list it is 1 - trec_eval's judged@k).
    Cutoffs beyond the arrays' width read as 0-padding.
    """
    if gain not in GAINS:
        raise UserError(f"nDCG gain must be one of {', '.join(GAINS)}, got {gain!r}")
    gains = np.asarray(gains)
    new_rel = np.asarray(new_rel)
    n_rel = np.asarray(n_rel)
    ideal = np.asarray(ideal)
    if gains.ndim != 2 or new_rel.shape != gains.shape:
        raise ValueError(
            f"gains and new_rel must be 2-D of one shape, got {gains.shape} and {new_rel.shape}"
        )
    nq = gains.shape[0]
    if n_rel.shape != (nq,) or ideal.ndim != 2 or ideal.shape[0] != nq:
        raise ValueError(
            f"n_rel must be ({nq},) and ideal ({nq}, m); got {n_rel.shape} and {ideal.shape}"
        )
    out = np.zeros((nq, len(measures)), dtype=np.float64)
    if nq == 0:
        return out
    if unjudged is not None:
        unjudged = np.asarray(unjudged, dtype=bool)
        if unjudged.shape != gains.shape:
            raise ValueError(f"unjudged must be {gains.shape} like gains, got {unjudged.shape}")
    elif any(m.name == "unjudged" for m in measures):
        raise ValueError("unjudged@k needs the `unjudged` array")
    hit = gains >= relevance_level(rel_level)
    n_rel_f = n_rel.astype(np.float64)
    precision_sum = None  # AP's per-rank terms new_rel * P@i, summed along the ranks
    for j, m in enumerate(measures):
        k = m.k
        if m.name == "recall":
            found = new_rel[:, :k].sum(axis=1, dtype=np.float64)
            np.divide(found, n_rel_f, out=out[:, j], where=n_rel_f > 0)
        elif m.name == "P":
            out[:, j] = hit[:, :k].sum(axis=1) / k
        elif m.name == "RR":
            h = hit[:, :k] if k is not None else hit
            if h.shape[1]:
                first = np.argmax(h, axis=1)
                out[:, j] = np.where(h.any(axis=1), 1.0 / (first + 1.0), 0.0)
        elif m.name == "AP":
            if precision_sum is None:
                ranks = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
                at_rank = new_rel * (np.cumsum(hit, axis=1) / ranks)
                precision_sum = np.cumsum(at_rank, axis=1)
            width = precision_sum.shape[1]
            cut = width if k is None else min(k, width)
            if cut:
                np.divide(precision_sum[:, cut - 1], n_rel_f, out=out[:, j], where=n_rel_f > 0)
        elif m.name == "nDCG":
            g = gains[:, :k]
            dcg = _gain_values(g, gain) @ _discount(g.shape[1])
            best = ideal[:, :k]
            idcg = _gain_values(best, gain) @ _discount(best.shape[1])
            np.divide(dcg, idcg, out=out[:, j], where=idcg > 0)
        elif m.name == "unjudged" and unjudged is not None:
            out[:, j] = unjudged[:, :k].sum(axis=1) / k
        else:  # pragma: no cover - Measure.__post_init__ rejects other names
            raise ValueError(f"unsupported measure {m}")
    return out


class CreditArrays(Protocol):
    """Per-rank credit of a set of ranked lists, as `score_gains` reads it: the pipeline's
    (`ragsweep.chunking.anchors.GainArrays`) or a TREC run's (`scoring.trec.TrecArrays`)."""

    @property
    def gains(self) -> np.ndarray: ...
    @property
    def new_rel(self) -> np.ndarray: ...
    @property
    def n_rel(self) -> np.ndarray: ...
    @property
    def ideal(self) -> np.ndarray: ...
    @property
    def unjudged(self) -> np.ndarray: ...


def score_arrays(
    arrays: CreditArrays, measures: Sequence[Measure], gain: Gain = "exp", rel_level: int = 1
) -> np.ndarray:
    """`score_gains` over the credit arrays of a set of ranked lists: (n_queries, n_measures).
    `rel_level` must be the level the arrays' `new_rel` and `n_rel` were built with."""
    return score_gains(
        arrays.gains,
        arrays.new_rel,
        arrays.n_rel,
        arrays.ideal,
        measures,
        gain,
        unjudged=arrays.unjudged,
        rel_level=rel_level,
    )
