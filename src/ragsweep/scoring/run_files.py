"""TREC run files scored against TREC qrels with trec_eval's conventions: the library behind
`ragsweep score` (`score_file`: the means and per-query values of one run) and `ragsweep
compare` (`score_runs`: per-question rows of several runs). Every qrels query is scored (a query
a run lacks scores 0); run queries absent from the qrels are ignored. numpy only at import: no
MLflow, pandas or torch (docs/metrics.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ragsweep.conventions import ALL, unjudged_measures
from ragsweep.errors import DatasetError, UserError
from ragsweep.measures import Measure, parse_measures, relevance_level
from ragsweep.scoring import trec
from ragsweep.scoring.metrics import score_arrays

if TYPE_CHECKING:
    import pandas as pd

#: what a caller does with a note (a line about the input that changes no number); default: drop
Note = Callable[[str], None]


def _preview(names: Sequence[str], n: int = 3) -> str:
    shown = ", ".join(repr(q) for q in names[:n])
    return shown + (", ..." if len(names) > n else "")


def _depth(measures: Sequence[Measure]) -> int | None:
    """Ranks needed to score `measures`: the largest cutoff, or None when RR looks at all."""
    cutoffs = [m.k for m in measures]
    return None if any(k is None for k in cutoffs) else max(k for k in cutoffs if k is not None)


def read_judged(path: str | Path) -> trec.Qrels:
    """The qrels file, refused when it judges nothing."""
    qrels = trec.read_qrels(path)
    if len(qrels) == 0:
        raise DatasetError(path, "holds no judgements; give a qrels file with at least one")
    return qrels


def _score_run(
    qrels: trec.Qrels,
    qrels_path: str | Path,
    run_path: str | Path,
    measures: Sequence[Measure],
    gain: str,
    rel_level: int,
) -> tuple[trec.Run, trec.TrecArrays, np.ndarray]:
    """One run read, checked to share queries with the qrels, and scored: (run, its arrays,
    scores of shape (n_queries, n_measures)); relevant means grade >= `rel_level`."""
    run = trec.read_run(run_path)
    arrays = trec.gain_arrays(qrels, run, depth=_depth(measures), rel_level=rel_level)
    if not arrays.in_run.any():
        found = f"its queries are {_preview(run.qid_names)}" if len(run) else "it has no lines"
        raise UserError(
            f"{run_path}: no query of the run is in {qrels_path} ({found}; the qrels' are "
            f"{_preview(arrays.qids)}); check that both files use the same query ids"
        )
    return run, arrays, score_arrays(arrays, measures, gain, rel_level)


def _missing(arrays: trec.TrecArrays, say: Note, prefix: str) -> int:
    """How many qrels queries the run has no line for, told to `say` (after `prefix`) if any."""
    missing = int((~arrays.in_run).sum())
    if missing:
        say(
            f"note: {prefix}{missing} of {len(arrays.qids)} qrels queries have no line in the "
            "run; each scores 0 and counts in the mean"
        )
    return missing


@dataclass(frozen=True)
class FileScores:
    """One run file scored: every qrels query on every measure asked for."""

    names: tuple[str, ...]  # the measures as the caller wrote them (`recall@10`, `R@10`)
    qids: tuple[str, ...]  # the qrels' queries, in string order
    scores: np.ndarray  # (n_queries, n_measures)
    missing: int  # qrels queries the run has no line for (each scored 0)
    #: unjudged@K at the deepest cutoff asked for (10 without one) and its mean, when no
    #: diagnostic measure was asked for: how much of the top K the qrels do not judge
    hole: tuple[str, float] | None

    def aggregate(self) -> dict[str, float]:
        """Each measure's mean over the qrels queries."""
        return {n: float(v) for n, v in zip(self.names, self.scores.mean(axis=0), strict=True)}

    def per_query(self) -> dict[str, dict[str, float]]:
        """qid -> measure -> value."""
        return {
            qid: {name: float(v) for name, v in zip(self.names, row, strict=True)}
            for qid, row in zip(self.qids, self.scores.tolist(), strict=True)
        }


def score_file(
    qrels_path: str | Path,
    run_path: str | Path,
    metrics: str,
    gain: str = "exp",
    note: Note | None = None,
    rel_level: int = 1,
) -> FileScores:
    """Score the TREC run at `run_path` against the qrels at `qrels_path` on `metrics` (a
    comma-separated list, `ragsweep.measures.parse_measures`); relevant means grade >=
    `rel_level` (trec_eval's `-l`; nDCG reads the grades). Queries the run lacks, run queries
    the qrels lack and documents listed twice are told to `note`."""
    say = note or (lambda line: None)
    names = tuple(t.strip() for t in metrics.split(","))
    measures = parse_measures(metrics)
    level = relevance_level(rel_level)
    qrels = read_judged(qrels_path)
    _, arrays, scores = _score_run(qrels, qrels_path, run_path, measures, gain, level)
    missing = _missing(arrays, say, "")
    if arrays.ignored_qids:
        say(
            f"note: {len(arrays.ignored_qids)} run queries are not in the qrels and are ignored "
            f"({_preview(arrays.ignored_qids)})"
        )
    if arrays.n_duplicates:
        say(
            f"note: {arrays.n_duplicates} run lines repeat a (qid, docid); each document "
            "counts once, at its highest-scored position"
        )
    hole = None
    if not any(m.diagnostic for m in measures):
        deepest = Measure("unjudged", max([m.k for m in measures if m.k is not None] or [10]))
        hole = (str(deepest), float(score_arrays(arrays, (deepest,)).mean()))
    return FileScores(names, arrays.qids, scores, missing, hole)


def run_names(paths: Sequence[str | Path]) -> list[str]:
    """Each run's file stem (`.gz` dropped), or its path as given when two stems coincide."""
    stems = []
    for p in paths:
        name = Path(p).name
        name = name[:-3] if name.endswith(".gz") else name
        stems.append(Path(name).stem or name)
    return [str(p) if stems.count(s) > 1 else s for s, p in zip(stems, paths, strict=True)]


def score_runs(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    measures: Sequence[Measure],
    gain: str,
    slices: Mapping[str, str] | None,
    note: Note | None = None,
    rel_level: int = 1,
) -> dict[str, pd.DataFrame]:
    """Per-question frames for every run, keyed by name (`run_names`): qid, slice (`slices`
    maps qid -> slice; None puts every query in `all`), one column per measure, unjudged@k at
    the first measure's cutoff and the deepest (`conventions.unjudged_measures`), and what the
    bounds read (`scoring.bounds`): `clauses` (each rank's document, as a list of one, down to
    the deepest cutoff or 10) and `labels` (the query's qrels). Relevant means grade >=
    `rel_level`. A run lacking qrels queries is told to `note`, before the next run is read."""
    import pandas as pd

    from ragsweep.scoring.bounds import labels_needed  # pandas: not on `ragsweep score`'s path

    say = note or (lambda line: None)
    level = relevance_level(rel_level)
    qrels = read_judged(qrels_path)
    names = run_names(run_paths)
    measures = (*measures, *unjudged_measures(measures[0].k or 10, measures))
    measures = tuple(dict.fromkeys(measures))
    top = max([m.k for m in measures if m.k is not None] + [10])
    judged: dict[str, dict[str, int]] = {}
    for q, d, g in zip(qrels.qid_codes, qrels.doc_codes, qrels.grades.tolist(), strict=True):
        judged.setdefault(qrels.qid_names[q], {})[qrels.doc_names[d]] = int(g)
    frames: dict[str, pd.DataFrame] = {}
    for name, path in zip(names, run_paths, strict=True):
        run, arrays, scores = _score_run(qrels, qrels_path, path, measures, gain, level)
        _missing(arrays, say, f"{name}: ")
        if slices is None:
            labels = [ALL] * len(arrays.qids)
        else:
            lacking = [q for q in arrays.qids if q not in slices]
            if lacking:
                shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
                raise UserError(
                    f"the slices file gives no slice for {len(lacking)} qrels "
                    f"query(ies) ({shown}); add a 'qid<TAB>slice' line for each"
                )
            labels = [slices[q] for q in arrays.qids]
        frame = pd.DataFrame({"qid": list(arrays.qids), "slice": labels})
        for j, m in enumerate(measures):
            frame[str(m)] = scores[:, j]
        frame["clauses"] = [
            json.dumps([[run.doc_names[c]] for c in row[:top] if c >= 0])
            for row in arrays.docs.tolist()
        ]
        frame["labels"] = [
            json.dumps(labels_needed(judged.get(q, {}), json.loads(c)), sort_keys=True)
            for q, c in zip(arrays.qids, frame["clauses"], strict=True)
        ]
        frames[name] = frame
    return frames
