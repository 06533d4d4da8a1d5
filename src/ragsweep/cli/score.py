"""`ragsweep score`: score a TREC run file against TREC qrels with trec_eval's conventions.

    ragsweep score --qrels qrels.txt --run run.txt --metrics recall@10,P@10,RR,AP,nDCG@10

Every query in the qrels is scored and counted in the mean (a query the run lacks scores 0);
run queries absent from the qrels are ignored. Notes about both, and about documents listed
twice in the run, go to stderr. The table always shows how much of the top K the qrels judge
(unjudged@K, trec_eval's 1 - judged@K), even when the measures asked for leave it out. The
library call is `ragsweep.scoring.run_files.score_file`. Imports only numpy and rich: no MLflow,
pandas or torch.
"""

from __future__ import annotations

import argparse
import json
import sys

from ragsweep.cli.options import add_format, add_gain, add_qrels, add_rel_level
from ragsweep.cli.parser import Parser
from ragsweep.scoring.run_files import score_file

DEFAULT_METRICS = "recall@10,P@10,RR,nDCG@10,unjudged@10"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep score",
        description=(
            "Score a TREC run against TREC qrels. Read and ranked as trec_eval: '#' lines are "
            "comments, run columns after the tag are ignored; score descending, ties by docid "
            "descending; the rank column is ignored. Relevant means grade >= 1 (--rel-level). "
            "See docs/metrics.md for every convention."
        ),
    )
    add_qrels(parser)
    parser.add_argument(
        "--run",
        required=True,
        metavar="FILE",
        help="run file: 'qid Q0 docid rank score tag' per line, later columns ignored (.gz "
        "read as gzip)",
    )
    parser.add_argument(
        "--metrics",
        default=DEFAULT_METRICS,
        metavar="LIST",
        help="comma-separated measures: recall@K (R@K), P@K (precision@K), RR, "
        "RR@K (MRR), AP, AP@K (MAP: trec_eval's map, map_cut_K), nDCG@K, unjudged@K (hole@K: "
        f"the share of the top K the qrels do not judge); any case (default {DEFAULT_METRICS})",
    )
    add_gain(parser, "exp")
    add_rel_level(parser)
    add_format(parser, table="the means", json="means and per-query values")
    return parser


def main(argv: list[str]) -> int:
    """Run `ragsweep score`; returns 0. Bad input raises `UserError` (the CLI exits 2)."""
    args = _parser().parse_args(argv)
    scored = score_file(
        args.qrels,
        args.run,
        args.metrics,
        args.gain,
        note=lambda line: print(line, file=sys.stderr),
        rel_level=args.rel_level,
    )
    if args.format == "json":
        out = {"aggregate": scored.aggregate(), "per_query": scored.per_query()}
        json.dump(out, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0

    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for name, value in scored.aggregate().items():
        table.add_row(name, f"{value:.4f}")
    console = Console(file=sys.stdout)
    console.print(table)
    console.print(
        f"mean over the {len(scored.qids)} qrels queries ({scored.missing} missing from the run, "
        f"scored 0); nDCG gain {args.gain}",
        highlight=False,
    )
    if args.rel_level > 1:
        console.print(
            f"relevant: grade >= {args.rel_level} for recall, P, RR and AP (--rel-level); nDCG "
            "reads the grades",
            highlight=False,
        )
    if scored.hole is not None:
        console.print(
            f"{scored.hole[0]} {scored.hole[1]:.4f}: the share of the top passages the qrels do "
            "not judge, scored as not relevant (trec_eval's convention)",
            highlight=False,
        )
    return 0
