"""`ragsweep report`: the paired comparison report of a logged sweep, or of any logged runs.

    ragsweep report fusion_k                      # a sweep by name (or its parent run id)
    ragsweep report --runs BASE_RUN CAND_RUN ...  # any logged configuration runs; first = baseline

A sweep's report is printed and logged to its runs (files under the parent's report/, each
configuration's delta|ci_low|ci_high/<measure>/<slice> on its own run); `--runs` logs nothing.
`--out DIR` also writes the files (markdown, HTML, CSV, JSON, forest plots) into DIR. How to
read it: docs/report.md.
"""

from __future__ import annotations

import argparse
import json
import sys

from ragsweep.cli.options import add_format, add_out, add_tracking_uri
from ragsweep.cli.parser import Parser
from ragsweep.errors import UserError


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep report",
        description=(
            "Compare each configuration of a sweep with its baseline, per slice, with paired "
            "intervals, guard slices and a decision per configuration (docs/report.md)."
        ),
    )
    parser.add_argument(
        "sweep",
        nargs="?",
        metavar="SWEEP",
        help="sweep name (MLflow experiment sweep:<name>) or its parent run id",
    )
    parser.add_argument(
        "--runs",
        nargs="+",
        metavar="RUN_ID",
        help="compare these logged configuration runs instead; the first is the "
        "baseline (nothing is logged)",
    )
    parser.add_argument(
        "--allow-mismatch",
        action="store_true",
        help="compare runs scored on another labelled set or corpus snapshot "
        "(the report then says it is not like for like)",
    )
    add_out(parser, "report.md, .html, .csv, .json, decisions.csv and the forest plots")
    add_format(parser, table="rich tables", json="the whole report as JSON")
    add_tracking_uri(parser)
    return parser


def main(argv: list[str]) -> int:
    """Run `ragsweep report`; returns 0. Bad input raises `UserError` (the CLI exits 2)."""
    args = _parser().parse_args(argv)
    if (args.sweep is None) == (args.runs is None):
        raise UserError(
            "give either a sweep (name or parent run id) or --runs BASE CAND ..., "
            "not both and not neither"
        )
    from ragsweep.compare.files import write_report
    from ragsweep.experiment import logged, tracking

    store = tracking.resolve_store(args.tracking_uri)
    table = args.format == "table"
    if args.runs is not None:
        built = logged.report_runs(
            args.runs, store=store, print_table=table, allow_mismatch=args.allow_mismatch
        )
    else:
        built = logged.report_sweep(
            args.sweep, store=store, print_table=table, allow_mismatch=args.allow_mismatch
        )
    if args.out:
        written = write_report(built, args.out)
        if table:
            print(f"wrote {len(written)} files to {args.out}")
    if not table:
        json.dump(built.to_json(), sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 0
