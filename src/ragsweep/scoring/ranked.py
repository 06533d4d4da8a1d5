"""Ranked passages scored: per-question rows (question, slice, one column per measure, what
each rank holds and its first words), the per-slice table with the traffic-weighted headline,
and its MLflow metric names. The coverage rule and the counted-once rule: docs/anchoring.md,
docs/metrics.md; what the question and words columns are for: docs/report.md, "What flipped".
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd

from ragsweep import conventions as cv
from ragsweep.chunking.anchors import coverage, gain_arrays, label_matrix
from ragsweep.chunking.chunkers import Chunk
from ragsweep.data import Dataset
from ragsweep.measures import Measure
from ragsweep.scoring import bounds
from ragsweep.scoring.eval_config import Scoring
from ragsweep.scoring.metrics import score_arrays


def summarise(
    per_question: pd.DataFrame,
    measures: Sequence[Measure],
    slices: Sequence[str],
    weights: dict[str, float],
) -> pd.DataFrame:
    """Per-slice means, the mean over all questions, and the traffic-weighted headline."""
    cols = [str(m) for m in measures]
    present = [s for s in slices if (per_question["slice"] == s).any()]
    by_slice = per_question.groupby("slice", sort=False)[cols].mean().reindex(present)
    table = by_slice.copy()
    table.loc[cv.ALL] = per_question[cols].mean()
    w = np.array([weights[s] for s in present])
    table.loc[cv.WEIGHTED] = (by_slice.to_numpy() * w[:, None]).sum(axis=0)
    table.index.name = "slice"
    return table


def metric_dict(summary: pd.DataFrame, measures: Sequence[Measure]) -> dict[str, float]:
    """MLflow metric names `<measure key>/<slice>` (e.g. recall_at_5/exclusions). Of the
    diagnostic measures only the first (unjudged@k_prompt, `measures_of`) is a metric: the
    deeper cutoff's share stays in the per-question rows, and a run page keeps under 150 metrics.
    """
    diagnostic = [m for m in measures if m.diagnostic]
    logged = [m for m in measures if not m.diagnostic] + diagnostic[:1]
    return {
        cv.metric_key(m, row): float(summary.loc[row, str(m)])
        for row in summary.index
        for m in logged
    }


@dataclass
class Scored:
    """Ranked passages scored: what `EvalResult` holds of the scores (see its fields)."""

    per_question: pd.DataFrame
    summary: pd.DataFrame
    metrics: dict[str, float]
    counts: dict[str, int]
    rankings: dict[str, list[str]]
    clause_rankings: dict[str, list[str]]
    qrels: dict[str, dict[str, int]]


#: per-question columns a person reads beside the ids: the question's text (the labelled set's,
#: scrubbed) and, per stored rank, the first words of its passage (a JSON list of strings)
QUESTION_COLUMN = "question"
WORDS_COLUMN = "first_words"
#: how many words of a passage `first_words` keeps
FIRST_WORDS = 12


def first_words(text: str, n: int = FIRST_WORDS) -> str:
    """The first `n` words of `text`, whitespace collapsed, ` ...` when there are more."""
    words = str(text).split(None, n)  # the first n words, and the rest if there is more
    return " ".join(words[:n]) + (" ..." if len(words) > n else "")


def words_column(texts: Sequence[Sequence[str | None]]) -> list[str]:
    """The `WORDS_COLUMN` cells: per question, the first words of each rank's passage (`""` for a
    rank without one), trailing empty ranks dropped, as JSON."""
    out = []
    for row in texts:
        kept = [first_words(t) if t else "" for t in row]
        while kept and not kept[-1]:
            kept.pop()
        out.append(json.dumps(kept))
    return out


def stored_depth(measures: Sequence[Measure]) -> int:
    """How many ranked passages a run's per-question rows keep (`ranked`, `clauses`): the
    deepest cutoff of its measures, at least 10."""
    return max([m.k or 10 for m in measures] + [10])


def score_ranked(
    ds: Dataset,
    how: Scoring,
    chunks: Sequence[Chunk],
    ranked: np.ndarray,
    texts: Sequence[Sequence[str | None]] | None = None,
) -> Scored:
    """Score `ranked` (one row per question of `how.questions`: indices into `chunks`, -1 for
    padding or a rank that holds nothing scorable) per question and per slice.

    The clause labels reach the chunks by the coverage rule (`ragsweep.chunking.anchors`), and
    the counted-once rule credits them; a -1 keeps its rank and credits nothing. The rows carry
    the question's text and each rank's first words: of its chunk, or of `texts` (per question,
    what each rank's passage says, when that is not a chunk's text: a run file's passages).
    """
    questions, measures = how.questions, how.measures
    # the ranked chunks only, their wordings looked up: the work follows the ranking's size
    cov = coverage(ds.clause_table, chunks, how.min_overlap, only=ranked[ranked >= 0])
    clause, grade = label_matrix(list(questions["qid"]), ds.labels, cov.clause_ids)
    arrays = gain_arrays(ranked, cov, clause, grade)
    scores = score_arrays(arrays, measures, how.gain)

    top = stored_depth(measures)
    covered = cov.clauses_of(cov.mapped)  # chunk -> clause ids, for every ranked chunk
    listed = ranked.tolist()
    shown = [_rank_clauses(row[:top], covered) for row in listed]
    columns = {str(m): scores[:, j] for j, m in enumerate(measures)}  # one frame, not N inserts
    columns["ranked"] = [
        json.dumps([chunks[i].chunk_id for i in row[:top] if i >= 0]) for row in listed
    ]
    columns["clauses"] = [json.dumps(ranks) for ranks in shown]
    if texts is None:
        texts = [[chunks[i].text if i >= 0 else None for i in row[:top]] for row in listed]
    columns[WORDS_COLUMN] = words_column([row[:top] for row in texts])
    asked_ids = set(questions["qid"].tolist())
    qrels: dict[str, dict[str, int]] = {}
    label_columns = (ds.labels[c].tolist() for c in ("qid", "clause_id", "grade"))
    for qid, cid, g in zip(*label_columns, strict=True):
        if qid in asked_ids:
            qrels.setdefault(qid, {})[cid] = int(g)
    columns["labels"] = [
        json.dumps(bounds.labels_needed(qrels.get(q, {}), ranks), sort_keys=True)
        for q, ranks in zip(questions["qid"], shown, strict=True)
    ]
    asked = questions[["qid", "slice", "subset"]].reset_index(drop=True)
    asked.insert(1, QUESTION_COLUMN, questions["text"].astype(object).to_numpy())
    per_q = pd.concat([asked, pd.DataFrame(columns)], axis=1)
    rankings: dict[str, list[str]] = {}
    clause_rankings: dict[str, list[str]] = {}
    for qid, row in zip(questions["qid"].tolist(), listed, strict=True):
        kept = [i for i in row if i >= 0]
        rankings[qid] = [chunks[i].chunk_id for i in kept]
        clause_rankings[qid] = list(
            dict.fromkeys(chain.from_iterable(map(covered.__getitem__, kept)))
        )
    summary = summarise(per_q, measures, ds.slices, how.weights)
    return Scored(
        per_question=per_q,
        summary=summary,
        metrics=metric_dict(summary, measures),
        counts={s: int((questions["slice"] == s).sum()) for s in how.weights},
        rankings=rankings,
        clause_rankings=clause_rankings,
        qrels=qrels,
    )


def _rank_clauses(row: Sequence[int], covered: dict[int, list[str]]) -> list[list[str]]:
    """The clause ids each rank's chunk covers, one list per rank (a -1 inside the ranking keeps
    its place as an empty list; trailing padding is dropped): the `clauses` column, which the
    bounds (`scoring.bounds`) score again rank by rank."""
    kept = list(row)
    while kept and kept[-1] < 0:
        kept.pop()
    return [covered[i] if i >= 0 else [] for i in kept]
