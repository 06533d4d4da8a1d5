"""Scores with unjudged passages counted as relevant: the optimistic side of the bounds the report
draws before a verdict (docs/report.md, "Unjudged passages").

    optimistic = if_relevant({"baseline": base_frame, "256": frame_256}, measures)

Every measure scores a passage nobody judged as not relevant. The other bound takes the
unjudged passages (those covering no clause labelled for the question: what unjudged@k counts)
that any of the compared rankings puts in its top k, counts each (question, clause) pair they
cover as grade 1, the same assignment for every configuration (a pool of the compared rankings,
one per cutoff k), and scores every ranking again on those labels through the same counted-once rule
(`ragsweep.chunking.anchors.gain_arrays`) and `score_gains`. It reads the per-question columns
a configuration run writes: `clauses` (the clause ids each ranked chunk covers, one list per
rank) and `labels` (`labels_needed`: the question's relevant labels and the others its ranks
cover; together the frames hold every label a pool can meet).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ragsweep.chunking.anchors import Coverage, gain_arrays, label_matrix
from ragsweep.errors import UserError
from ragsweep.measures import Measure
from ragsweep.scoring.metrics import score_gains

#: per-question columns the bounds need (written by `scoring.ranked.score_ranked`)
BOUNDS_COLUMNS: tuple[str, ...] = ("clauses", "labels")
#: the grade an unjudged clause gets on the optimistic side (at least the relevance level)
ASSUMED_GRADE = 1


def labels_needed(labels: Mapping[str, int], ranks: Sequence[Sequence[str]]) -> dict[str, int]:
    """The labels a `labels` column keeps of a question: every relevant one (grade >= 1: what
    recall and IDCG count) and the others only for clauses its ranks cover. A pool holds only
    clauses some compared ranking covers, so the frames together keep every label it meets,
    and the sample's 65 grade-0 labels a question stay out of each row."""
    shown = {c for covered in ranks for c in covered}
    return {c: int(g) for c, g in labels.items() if g >= 1 or c in shown}


def has_bounds_columns(frame: pd.DataFrame) -> bool:
    """Whether `frame` carries what `if_relevant` reads."""
    return all(c in frame.columns for c in BOUNDS_COLUMNS)


def _parsed(frame: pd.DataFrame, name: str) -> dict[str, tuple[list[list[str]], dict[str, int]]]:
    """qid -> (clause ids per rank, labels); a `UserError` naming the question when a cell is
    not what a configuration run writes."""
    out = {}
    for qid, clauses, labels in zip(
        frame["qid"].astype(str), frame["clauses"], frame["labels"], strict=True
    ):
        try:
            ranks = [[str(c) for c in covered] for covered in json.loads(clauses)]
            judged = {str(c): int(g) for c, g in json.loads(labels).items()}
        except (TypeError, ValueError, AttributeError):
            raise UserError(
                f"configuration {name!r}, question {qid!r}: columns clauses and labels must "
                "hold JSON as a configuration run writes them (a list of clause-id lists; "
                "clause id -> grade); drop both columns to compare without bounds"
            ) from None
        out[qid] = (ranks, judged)
    return out


def _rescore(
    ranks: Mapping[str, Sequence[Sequence[str]]],
    labels: Mapping[str, Mapping[str, int]],
    qids: Sequence[str],
    measures: Sequence[Measure],
    gain: str,
    rel_level: int = 1,
) -> np.ndarray:
    """Score one configuration's clause lists on `labels`, (len(qids), len(measures)): each rank
    is one chunk covering the clauses listed, through the counted-once rule; relevant means
    grade >= `rel_level`."""
    depth = max((len(ranks[q]) for q in qids), default=0)
    clause_ids = sorted(
        {c for q in qids for r in ranks[q] for c in r} | {c for q in qids for c in labels[q]}
    )
    index = {c: i for i, c in enumerate(clause_ids)}
    n = max(len(clause_ids), 1)
    ranked = np.full((len(qids), max(depth, 1)), -1, dtype=np.int64)
    keys = []
    for row, q in enumerate(qids):
        for pos, covered in enumerate(ranks[q]):
            chunk = row * max(depth, 1) + pos
            ranked[row, pos] = chunk
            keys.extend(chunk * n + index[c] for c in covered)
    cov = Coverage(tuple(clause_ids), np.unique(np.array(keys, dtype=np.int64)), ranked.size)
    frame = pd.DataFrame(
        [(q, c, g) for q in qids for c, g in labels[q].items()],
        columns=["qid", "clause_id", "grade"],
    )
    clause, grade = label_matrix(list(qids), frame, clause_ids)
    a = gain_arrays(ranked, cov, clause, grade, rel_level)
    return score_gains(  # type: ignore[arg-type]
        a.gains, a.new_rel, a.n_rel, a.ideal, measures, gain, rel_level=rel_level
    )


def _deeper_ap(
    own: np.ndarray,
    stored: np.ndarray,
    labels: Mapping[str, Mapping[str, int]],
    assumed: Mapping[str, Mapping[str, int]],
    qids: Sequence[str],
    rel_level: int = 1,
) -> np.ndarray:
    """What the relevant ranks below the stored ones add to AP with the `assumed` labels: their
    share of the run's own AP (`own` less `stored`, its AP on the stored ranks alone), over the
    assumed labels' relevant count instead of the real one. Each keeps its own precision, which
    the assumed-relevant ranks above it would raise: a lower estimate, exact (0) when the
    stored ranks are the whole list."""
    real_n = np.array(
        [sum(g >= rel_level for g in labels[q].values()) for q in qids], dtype=np.float64
    )
    new_n = np.array(
        [sum(g >= rel_level for g in assumed[q].values()) for q in qids], dtype=np.float64
    )
    deeper = np.maximum(own - stored, 0.0) * real_n
    return np.divide(deeper, new_n, out=np.zeros_like(deeper), where=new_n > 0)


def if_relevant(
    frames: Mapping[str, pd.DataFrame],
    measures: Sequence[Measure],
    *,
    labels_from: str | None = None,
    gain: str = "exp",
    rel_level: int = 1,
) -> dict[str, pd.DataFrame]:
    """Each frame scored with unjudged passages as relevant: name -> frame (`qid`, `slice`, one
    column per measure, named `str(m)`).

    For a measure at cutoff k, the pool of a question is the clauses covered by the unjudged
    passages (no clause they cover is labelled) in the top k of any frame; all of them get
    grade `ASSUMED_GRADE` for every frame. A passage that covers a labelled clause is judged:
    its other clauses stay unlabelled (not relevant), as its grade is its labelled clauses'. Labels
    are every frame's `labels` merged, `labels_from`'s (default: the first frame's) first. RR
    without a cutoff looks as deep as the `clauses` column goes and never falls below the
    frame's own RR (its first relevant passage may lie deeper); AP without a cutoff adds the
    share of the frame's own AP that lies below the stored ranks (`_deeper_ap`). Diagnostic
    measures (unjudged@k) are copied, not rescored. With a relevance level above 1
    (`rel_level`, trec_eval's `-l`), relevant means grade >= `rel_level` and the unjudged
    clauses are assumed graded `rel_level`: relevant at that level, as the optimistic side must.
    """
    assumed_grade = max(ASSUMED_GRADE, rel_level)
    names = list(frames)
    parsed = {n: _parsed(f, n) for n, f in frames.items()}
    first = labels_from or names[0]
    qids = list(parsed[first])
    labels: dict[str, dict[str, int]] = {}
    for q in qids:
        merged: dict[str, int] = {}
        for n in [first, *(n for n in names if n != first)]:
            for c, g in parsed[n][q][1].items():
                merged.setdefault(c, g)
        labels[q] = merged
    out = {
        n: pd.DataFrame({"qid": f["qid"].astype(str), "slice": f["slice"]})
        for n, f in frames.items()
    }
    scored = [m for m in measures if not m.diagnostic]
    for m in measures:
        if m.diagnostic:
            for n, f in frames.items():
                out[n][str(m)] = f[str(m)].to_numpy()
    for k in dict.fromkeys(m.k for m in scored):
        group = [m for m in scored if m.k == k]
        assumed: dict[str, dict[str, int]] = {}
        for q in qids:
            judged = labels[q]
            pool = {
                c
                for n in names
                for covered in parsed[n][q][0][:k]
                if not any(c in judged for c in covered)  # an unjudged passage
                for c in covered
            }
            assumed[q] = {**judged, **dict.fromkeys(sorted(pool), assumed_grade)}
        for n in names:
            ranks = {q: parsed[n][q][0] for q in qids}
            scores = _rescore(ranks, assumed, qids, group, gain, rel_level)
            position = {q: i for i, q in enumerate(qids)}
            rows = [position[q] for q in out[n]["qid"]]
            for j, m in enumerate(group):
                values = scores[rows, j]
                if m.k is None and str(m) in frames[n].columns:  # beyond the stored depth
                    own = frames[n][str(m)].to_numpy(dtype=np.float64)
                    if m.name == "AP":
                        real = _rescore(ranks, labels, qids, [m], gain, rel_level)[rows, 0]
                        values = values + _deeper_ap(
                            own, real, labels, assumed, out[n]["qid"], rel_level
                        )
                    else:
                        values = np.maximum(values, own)
                out[n][str(m)] = values
    return out
