"""Ranked passages scored: per-question rows (question, slice, one column per measure, what
each rank holds and its first words), the per-slice table with the traffic-weighted headline,
and its MLflow metric names. The coverage rule and the counted-once rule: docs/anchoring.md,
docs/metrics.md; what the question and words columns are for: docs/report.md, "What flipped".
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ragsweep import conventions as cv
from ragsweep.chunking.anchors import Coverage, coverage, gain_arrays, label_matrix
from ragsweep.chunking.chunkers import Chunk
from ragsweep.data import Dataset
from ragsweep.data.judge import judge_view
from ragsweep.data.schema import SYNTHETIC
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
    """Per-slice means, the mean over all questions, and the traffic-weighted headline. An
    unsliced set's only slice is named `all`: its row is the mean over all questions."""
    cols = [str(m) for m in measures]
    by_slice = per_question.groupby("slice", sort=False)[cols].mean()
    present = [s for s in slices if s in by_slice.index]  # the slices with a question
    means = by_slice.reindex(present).to_numpy()
    w = np.array([weights[s] for s in present])
    rows = dict(zip(present, means, strict=True))
    rows[cv.ALL] = per_question[cols].mean().to_numpy()
    rows[cv.WEIGHTED] = (means * w[:, None]).sum(axis=0)
    return pd.DataFrame(
        np.array(list(rows.values())),
        index=pd.Index(list(rows), name="slice"),
        columns=by_slice.columns,
    )


def metric_dict(summary: pd.DataFrame, measures: Sequence[Measure]) -> dict[str, float]:
    """MLflow metric names `<measure key>/<slice>` (e.g. recall_at_5/exclusions). Of the
    diagnostic measures only the first (unjudged@k_prompt, `measures_of`) is a metric: the
    deeper cutoff's share stays in the per-question rows, and a run page keeps under 150 metrics.
    """
    diagnostic = [m for m in measures if m.diagnostic]
    logged = [m for m in measures if not m.diagnostic] + diagnostic[:1]
    values = summary[[str(m) for m in logged]].to_numpy()
    return {
        cv.metric_key(m, row): float(value)
        for row, line in zip(summary.index, values, strict=True)
        for m, value in zip(logged, line, strict=True)
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
    qids = questions["qid"].tolist()
    # the ranked chunks only, their wordings looked up: the work follows the ranking's size
    cov = coverage(ds.clause_table, chunks, how.min_overlap, only=ranked[ranked >= 0])
    clause, grade = label_matrix(qids, ds.labels, cov.clause_ids)
    scores = score_arrays(gain_arrays(ranked, cov, clause, grade), measures, how.gain)

    top = stored_depth(measures)
    valid = ranked >= 0
    ids = _split([chunks[i].chunk_id for i in ranked[valid].tolist()], valid.sum(axis=1))
    shown, clause_rankings = _ranked_clauses(cov, ranked, top)
    columns = {str(m): scores[:, j] for j, m in enumerate(measures)}  # one frame, not N inserts
    view, _ = judge_view(ds)
    if (questions["subset"] == SYNTHETIC).any():
        view = None  # synthetic questions are never corrected by an audit
    if view is not None:  # the same rankings on the judge's grades, for the correction
        j_clause, j_grade = label_matrix(qids, view.grades, cov.clause_ids)
        judged = score_arrays(gain_arrays(ranked, cov, j_clause, j_grade), measures, how.gain)
        columns[cv.AUDITED_COLUMN] = np.array([q in view.audited for q in qids], dtype=np.int64)
        columns |= {cv.JUDGE_PREFIX + str(m): judged[:, j] for j, m in enumerate(measures)}
    # the valid ranks among the first `top` lead each question's valid ranks
    columns["ranked"] = [
        json.dumps(row[:n]) for row, n in zip(ids, valid[:, :top].sum(axis=1).tolist(), strict=True)
    ]
    columns["clauses"] = [json.dumps(ranks) for ranks in shown]
    if texts is None:
        texts = [
            [chunks[i].text if i >= 0 else None for i in row] for row in ranked[:, :top].tolist()
        ]
    columns[WORDS_COLUMN] = words_column([row[:top] for row in texts])
    asked_ids = set(qids)
    qrels = _qrels(ds.labels, asked_ids)
    columns["labels"] = [
        json.dumps(bounds.labels_needed(qrels.get(q, {}), ranks), sort_keys=True)
        for q, ranks in zip(qids, shown, strict=True)
    ]
    if view is not None:  # the judge's labels, as `labels` keeps the set's (for the bounds)
        j_qrels = _qrels(view.grades, asked_ids)
        columns[cv.JUDGE_PREFIX + "labels"] = [
            json.dumps(bounds.labels_needed(j_qrels.get(q, {}), ranks), sort_keys=True)
            for q, ranks in zip(qids, shown, strict=True)
        ]
    asked = questions.reset_index(drop=True)
    per_q = pd.DataFrame(
        {
            "qid": asked["qid"],
            QUESTION_COLUMN: asked["text"].astype(object).to_numpy(),
            "slice": asked["slice"],
            "subset": asked["subset"],
            **columns,
        }
    )
    summary = summarise(per_q, measures, ds.slices, how.weights)
    asked_in = Counter(per_q["slice"].tolist())
    return Scored(
        per_question=per_q,
        summary=summary,
        metrics=metric_dict(summary, measures),
        counts={s: asked_in.get(s, 0) for s in how.weights},
        rankings=dict(zip(qids, ids, strict=True)),
        clause_rankings=dict(zip(qids, clause_rankings, strict=True)),
        qrels=qrels,
    )


def _qrels(labels: pd.DataFrame, asked: set[str]) -> dict[str, dict[str, int]]:
    """qid -> clause id -> grade of the `labels` rows (qid, clause_id, grade) of `asked`."""
    out: dict[str, dict[str, int]] = {}
    columns = (labels[c].tolist() for c in ("qid", "clause_id", "grade"))
    for qid, cid, g in zip(*columns, strict=True):
        if qid in asked:
            out.setdefault(qid, {})[cid] = int(g)
    return out


def _ranked_clauses(
    cov: Coverage, ranked: np.ndarray, top: int
) -> tuple[list[list[list[str]]], list[list[str]]]:
    """Per question of `ranked`: the clause ids each of its first `top` ranks covers, one list
    per rank (the `clauses` column, which the bounds (`scoring.bounds`) score again rank by
    rank; a -1 keeps its place as an empty list, trailing padding is dropped), and every clause
    its whole ranking covers, in order of first appearance (`Scored.clause_rankings`)."""
    nq = len(ranked)
    pair_q, pair_r, pair_clause = cov.ranked_pairs(ranked)
    clause_ids = cov.clause_ids
    kept = ranked[:, :top] >= 0
    width = np.where(kept.any(axis=1), kept.shape[1] - np.argmax(kept[:, ::-1], axis=1), 0)
    # the pairs of cell (question, rank < top) are names[at[cell]:at[cell + 1]], cell = q * top + r
    near = pair_r < top
    names = [clause_ids[c] for c in pair_clause[near].tolist()]
    at = np.zeros(nq * top + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_q[near] * top + pair_r[near], minlength=nq * top), out=at[1:])
    at_list = at.tolist()
    shown = [
        [names[at_list[q * top + r] : at_list[q * top + r + 1]] for r in range(w)]
        for q, w in enumerate(width.tolist())
    ]
    # a clause's first pair in its question: the first of its key's run, sorted stably
    key = pair_q * len(clause_ids) + pair_clause
    order = np.argsort(key, kind="stable")
    first = np.sort(order[np.diff(key[order], prepend=-1) != 0])
    distinct = _split(
        [clause_ids[c] for c in pair_clause[first].tolist()],
        np.bincount(pair_q[first], minlength=nq),
    )
    return shown, distinct


def _split(items: list[str], counts: np.ndarray) -> list[list[str]]:
    """`items` cut into consecutive runs of `counts[i]` items, one list per run."""
    ends = np.cumsum(counts).tolist()
    return [items[end - n : end] for n, end in zip(counts.tolist(), ends, strict=True)]
