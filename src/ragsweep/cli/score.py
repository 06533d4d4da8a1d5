"""`ragsweep score`: score a TREC run file against TREC qrels with trec_eval's conventions.

    ragsweep score --qrels qrels.txt --run run.txt --metrics recall@10,P@10,RR,nDCG@10

Every query in the qrels is scored and counted in the mean (a query the run lacks scores 0);
run queries absent from the qrels are ignored. Notes about both, and about documents listed
twice in the run, go to stderr. The table always shows how much of the top K the qrels judge
(unjudged@K, trec_eval's 1 - judged@K), even when the measures asked for leave it out.
Imports only numpy and rich: no MLflow, pandas or torch.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from ragsweep.errors import DatasetError, UserError
from ragsweep.measures import GAINS, Measure, parse_measures
from ragsweep.scoring import trec
from ragsweep.scoring.metrics import score_gains

DEFAULT_METRICS = "recall@10,P@10,RR,nDCG@10,unjudged@10"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragsweep score",
        description=(
            "Score a TREC run against TREC qrels. Ranking as trec_eval: score descending, ties by "
            "docid descending; the rank column is ignored. Relevant means grade >= 1. See "
            "docs/metrics.md for every convention."
        ),
    )
    parser.add_argument(
        "--qrels",
        required=True,
        metavar="FILE",
        help="qrels file: 'qid 0 docid grade' per line (.gz read as gzip)",
    )
    parser.add_argument(
        "--run",
        required=True,
        metavar="FILE",
        help="run file: 'qid Q0 docid rank score tag' per line (.gz read as gzip)",
    )
    parser.add_argument(
        "--metrics",
        default=DEFAULT_METRICS,
        metavar="LIST",
        help="comma-separated measures: recall@K (R@K), P@K (precision@K), RR, "
        f"RR@K (MRR), nDCG@K, unjudged@K (hole@K: the share of the top K the qrels do not "
        f"judge); any case (default {DEFAULT_METRICS})",
    )
    parser.add_argument(
        "--gain",
        choices=GAINS,
        default="exp",
        help="nDCG gain: exp = 2^g - 1 (default), linear = g (trec_eval's)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table: the means; json: means and per-query values (default table)",
    )
    return parser


def _preview(names: tuple[str, ...] | list[str], n: int = 3) -> str:
    shown = ", ".join(repr(q) for q in names[:n])
    return shown + (", ..." if len(names) > n else "")


def _depth(measures: tuple[Measure, ...]) -> int | None:
    """Ranks needed to score `measures`: the largest cutoff, or None when RR looks at all."""
    cutoffs = [m.k for m in measures]
    return None if any(k is None for k in cutoffs) else max(k for k in cutoffs if k is not None)


def evaluate_files(
    qrels_path: str, run_path: str, measures: tuple[Measure, ...], gain: str
) -> tuple[trec.TrecArrays, np.ndarray]:
    """Read both files, check they share queries, and score: (arrays, (n_queries, n_measures))."""
    qrels = trec.read_qrels(qrels_path)
    if len(qrels) == 0:
        raise DatasetError(qrels_path, "holds no judgements; give a qrels file with at least one")
    run = trec.read_run(run_path)
    arrays = trec.gain_arrays(qrels, run, depth=_depth(measures))
    if not arrays.in_run.any():
        found = f"its queries are {_preview(run.qid_names)}" if len(run) else "it has no lines"
        raise UserError(
            f"{run_path}: no query of the run is in {qrels_path} ({found}; the qrels' are "
            f"{_preview(arrays.qids)}); check that both files use the same query ids"
        )
    scores = score_gains(
        arrays.gains,
        arrays.new_rel,
        arrays.n_rel,
        arrays.ideal,
        measures,
        gain,
        unjudged=arrays.unjudged,
    )
    return arrays, scores


def main(argv: list[str]) -> int:
    """Run `ragsweep score`; returns 0. Bad input raises `UserError` (the CLI exits 2)."""
    args = _parser().parse_args(argv)
    names = [t.strip() for t in args.metrics.split(",")]
    measures = parse_measures(args.metrics)
    arrays, scores = evaluate_files(args.qrels, args.run, measures, args.gain)

    missing = int((~arrays.in_run).sum())
    if missing:
        print(
            f"note: {missing} of {len(arrays.qids)} qrels queries have no line in the run; "
            "each scores 0 and counts in the mean",
            file=sys.stderr,
        )
    if arrays.ignored_qids:
        print(
            f"note: {len(arrays.ignored_qids)} run queries are not in the qrels and are ignored "
            f"({_preview(arrays.ignored_qids)})",
            file=sys.stderr,
        )
    if arrays.n_duplicates:
        print(
            f"note: {arrays.n_duplicates} run lines repeat a (qid, docid); each document "
            "counts once, at its highest-scored position",
            file=sys.stderr,
        )

    means = scores.mean(axis=0)
    aggregate = {name: float(v) for name, v in zip(names, means, strict=True)}
    hole = None
    if args.format == "table" and not any(m.diagnostic for m in measures):
        deepest = Measure("unjudged", max([m.k for m in measures if m.k is not None] or [10]))
        extra = score_gains(
            arrays.gains,
            arrays.new_rel,
            arrays.n_rel,
            arrays.ideal,
            (deepest,),
            unjudged=arrays.unjudged,
        )
        hole = (str(deepest), float(extra.mean()))
    if args.format == "json":
        per_query = {
            qid: {name: float(v) for name, v in zip(names, row, strict=True)}
            for qid, row in zip(arrays.qids, scores.tolist(), strict=True)
        }
        json.dump({"aggregate": aggregate, "per_query": per_query}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0

    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in aggregate.items():
        table.add_row(name, f"{value:.4f}")
    console = Console(file=sys.stdout)
    console.print(table)
    console.print(
        f"mean over the {len(arrays.qids)} qrels queries ({missing} missing from the run, scored "
        f"0); nDCG gain {args.gain}",
        highlight=False,
    )
    if hole is not None:
        console.print(
            f"{hole[0]} {hole[1]:.4f}: the share of the top passages the qrels do not judge, "
            "scored as not relevant (trec_eval's convention)",
            highlight=False,
        )
    return 0
