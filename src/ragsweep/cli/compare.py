"""`ragsweep compare`: the paired comparison report for TREC run files from any system.

    ragsweep compare --qrels qrels.txt --runs base.txt cand.txt [cand2.txt ...] \\
        [--slices slices.tsv [--weights shares.yaml]] [--metric recall@10] [--rel-level N]
        [--format table|json]

The first run is the baseline; the library call is `ragsweep.compare.run_files.compare_runs`,
with its defaults read here from the config tree a sweep composes (conf/report, conf/eval). No
MLflow: this path imports numpy, pandas, rich (and matplotlib only for --out). docs/report.md.
"""

from __future__ import annotations

import argparse
import json
import sys

from ragsweep.cli.options import add_format, add_gain, add_out, add_qrels, add_rel_level
from ragsweep.cli.parser import Parser
from ragsweep.compare.run_files import compare_json, compare_runs
from ragsweep.compare.stats import CORRECTIONS
from ragsweep.config import packaged_default
from ragsweep.conventions import UNJUDGED_CHOICES, decision_measure

#: the defaults a sweep's report and evaluation use (conf/report, conf/eval): one place
_REPORT, _EVAL = packaged_default("report"), packaged_default("eval")
#: the measure a sweep decides on, recall@k_prompt
DEFAULT_METRIC = str(decision_measure(int(_EVAL.k_prompt)))


def _defaulted(
    parser: argparse.ArgumentParser, flag: str, default: object, text: str, **kind: object
) -> None:
    """An option whose default (read from the config tree) its help states."""
    parser.add_argument(flag, default=default, help=f"{text} (default {default})", **kind)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep compare",
        description=(
            "Compare TREC runs with a baseline (the first run) per slice: paired "
            "intervals, a verdict per cell, guard slices and a decision per run "
            "(docs/report.md)."
        ),
    )
    add_qrels(parser)
    parser.add_argument(
        "--runs",
        required=True,
        nargs="+",
        metavar="RUN",
        help="run files, 'qid Q0 docid rank score tag' per line (later columns ignored); the "
        "first is the baseline",
    )
    parser.add_argument(
        "--slices", metavar="FILE", help="'qid<TAB>slice' per line (default: one slice, all)"
    )
    parser.add_argument(
        "--weights",
        metavar="FILE",
        help="traffic shares, a YAML mapping 'slice: share' summing to 1 (as `ragsweep labels "
        "sample` writes): adds the weighted headline, which then decides (needs --slices)",
    )
    parser.add_argument(
        "--metric",
        default=DEFAULT_METRIC,
        metavar="LIST",
        help="measure that decides, or a comma-separated list whose first "
        f"decides (default {DEFAULT_METRIC})",
    )
    add_gain(parser, _EVAL.gain)
    add_rel_level(parser)
    # a sweep's defaults (conf/report, conf/eval), each said in its help as it is
    _defaulted(
        parser,
        "--guard",
        ",".join(_REPORT.guard_slices),
        "guard slices, comma-separated: a run below the baseline there fails ('' for none)",
        metavar="LIST",
    )
    _defaulted(
        parser,
        "--correction",
        _REPORT.correction,
        "family-wise correction over the runs",
        choices=CORRECTIONS,
    )
    _defaulted(parser, "--level", _REPORT.level, "interval level", type=float)
    _defaulted(
        parser,
        "--target-gap",
        _REPORT.target_gap,
        "gap the questions-needed column plans for",
        type=float,
    )
    _defaulted(
        parser,
        "--unjudged",
        _EVAL.unjudged,
        "documents the qrels do not judge: bounds (score them as not relevant and as relevant; "
        "a verdict that differs reads 'needs judging') or assume_not_relevant (trec_eval's "
        "convention, printed as an assumption)",
        choices=UNJUDGED_CHOICES,
    )
    add_format(parser, table="rich tables", json="baseline, correction, rows")
    add_out(parser, "the report files (markdown, HTML, CSV, plots)")
    return parser


def main(argv: list[str]) -> int:
    """Run `ragsweep compare`; returns 0. Bad input raises `UserError` (the CLI exits 2)."""
    args = _parser().parse_args(argv)
    report = compare_runs(
        args.qrels,
        args.runs,
        metric=args.metric,
        gain=args.gain,
        guard_slices=[s.strip() for s in args.guard.split(",") if s.strip()],
        correction=args.correction,
        level=args.level,
        target_gap=args.target_gap,
        unjudged=args.unjudged,
        slices=args.slices,
        weights=args.weights,
        note=lambda line: print(line, file=sys.stderr),
        rel_level=args.rel_level,
    )
    from ragsweep.compare.files import write_report
    from ragsweep.compare.text import print_report

    if args.out:
        write_report(report, args.out)
    if args.format == "json":
        json.dump(compare_json(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print_report(report)
    return 0
