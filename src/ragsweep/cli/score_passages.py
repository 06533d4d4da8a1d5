"""`ragsweep score-passages`: score any system's ranked passages per slice and log the run.

    ragsweep score-passages --run release-a.jsonl [--data DIR] [--split dev] [--name release-a]
    ragsweep report --runs RELEASE_A_RUN RELEASE_B_RUN

The run file (JSON Lines, docs/passages.md) gives each question's passages best first, as text
or as a document and a span; they are placed in the snapshot's rendered documents, mapped to
clauses by the coverage rule and scored exactly as ragsweep's own chunks. Bad input is one line
naming the file, line, field and fix (exit 2), and nothing is logged.
"""

from __future__ import annotations

import argparse

from ragsweep.chunking.locate import MIN_SIMILARITY
from ragsweep.cli.options import add_tracking_uri
from ragsweep.cli.parser import Parser


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep score-passages",
        description=(
            "Score another system's ranked passages (a JSON Lines run file, docs/passages.md) "
            "per slice, exactly as ragsweep scores its own chunks, and log the run so `ragsweep "
            "report --runs A B` compares two of them."
        ),
    )
    parser.add_argument(
        "--run",
        required=True,
        metavar="FILE",
        help='the run file: one {"qid": ..., "passages": [...]} per line, passages best first',
    )
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="dataset folder the run answers (default: the built-in sample)",
    )
    parser.add_argument(
        "--split",
        choices=("dev", "heldout", "all"),
        default="dev",
        help="questions scored (default dev; held-out and all are allowed: nothing is tuned here)",
    )
    parser.add_argument(
        "--name",
        metavar="NAME",
        help="run name, shown by `ragsweep report` (default: the run file's name, no extension)",
    )
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=MIN_SIMILARITY,
        metavar="SCORE",
        help=f"fuzzy placing threshold, 0-100 (default {MIN_SIMILARITY:g})",
    )
    parser.add_argument(
        "--experiment",
        metavar="NAME",
        help="MLflow experiment (default: tracking.experiment, ragsweep)",
    )
    add_tracking_uri(parser)
    parser.add_argument(
        "--no-log",
        action="store_true",
        help="score and print only; log nothing",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="overrides of the eval, report, data and tracking blocks, as for `ragsweep` "
        "(e.g. eval.k_prompt=6 eval.traffic_weights=null)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Run `ragsweep score-passages`; returns 0. Bad input raises `UserError` (exit 2)."""
    args = _parser().parse_args(argv)
    from ragsweep.experiment.external import score_and_log

    score_and_log(
        args.run,
        data=args.data,
        split=args.split,
        overrides=args.overrides,
        min_similarity=args.min_similarity,
        name=args.name,
        log=not args.no_log,
        tracking_uri=args.tracking_uri,
        experiment=args.experiment,
    )
    return 0
