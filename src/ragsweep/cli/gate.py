"""`ragsweep gate`: stop a release whose retrieval got worse. Exit 0 pass, 1 fail, 2 bad input.

    ragsweep gate --candidate release-a.jsonl --pin ci/baseline.json      # pin a baseline
    ragsweep gate --baseline ci/baseline.json --candidate release-b.jsonl \\
        --summary gate.md --junit gate.xml                                  # gate a release

The library calls are `ragsweep.experiment.gate` (read both sides, check they are like for
like, compare) and `ragsweep.compare.gate` (the rule, the Markdown summary, the JUnit XML).
Nothing is written until both sides are read and compared. docs/ci.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ragsweep.cli.options import add_qrels, add_tracking_uri
from ragsweep.cli.parser import Parser
from ragsweep.compare.gate import NEEDS_JUDGING_CHOICES
from ragsweep.errors import UserError

#: what a flipped question list shows per slice in the summary, by default
PER_SLICE = 3
#: the longest pull-request comment GitHub keeps (characters); a longer summary shows fewer
#: flipped questions per slice
COMMENT_LIMIT = 65536


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep gate",
        description=(
            "Gate a candidate release against a pinned baseline on the labelled set: exit 0 when "
            "neither the headline nor a guard slice is worse beyond noise, 1 when one is, 2 on "
            "bad input (docs/ci.md)."
        ),
    )
    source = (
        "a baseline file (.json, written by --pin), a passages run (.jsonl, docs/passages.md), "
        "a TREC run (with --qrels), or an MLflow run id"
    )
    parser.add_argument("--baseline", metavar="SOURCE", help=f"the baseline: {source}")
    parser.add_argument(
        "--candidate", required=True, metavar="SOURCE", help=f"the release gated: {source}"
    )
    parser.add_argument(
        "--pin",
        metavar="FILE",
        help="write the candidate's scores as the baseline file FILE (kept in the repository) "
        "instead of gating; no --baseline",
    )
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="dataset a passages run answers (default: the built-in sample)",
    )
    parser.add_argument(
        "--split",
        choices=("dev", "heldout", "all"),
        help="questions a passages run is scored on (default: the baseline's, else dev)",
    )
    add_qrels(parser, required=False)
    parser.add_argument(
        "--slices",
        metavar="FILE",
        help="with --qrels: 'qid<TAB>slice' per line (default: one slice)",
    )
    parser.add_argument(
        "--needs-judging",
        choices=NEEDS_JUDGING_CHOICES,
        default="fail",
        help="a headline or guard cell whose verdict turns on unjudged passages: fail the gate "
        "or only warn (default fail)",
    )
    parser.add_argument(
        "--summary",
        metavar="FILE",
        help="write the Markdown summary there (it is also appended to $GITHUB_STEP_SUMMARY "
        "when that is set, and printed)",
    )
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML there")
    parser.add_argument(
        "--out", metavar="DIR", help="also write the full report (markdown, HTML, CSV) into DIR"
    )
    parser.add_argument(
        "--flipped",
        type=int,
        default=PER_SLICE,
        metavar="N",
        help=f"questions lost and gained shown per slice in the summary (default {PER_SLICE})",
    )
    add_tracking_uri(parser)
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="KEY=VALUE",
        help="overrides of the eval, report and data blocks for a passages run "
        "(e.g. eval.k_prompt=6)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Run `ragsweep gate`: 0 pass (or pinned), 1 fail; bad input raises `UserError` (exit 2)."""
    args = _parser().parse_args(argv)
    from ragsweep.experiment import gate as g

    if args.flipped < 0:
        raise UserError(f"--flipped must be 0 or more, got {args.flipped}")
    if args.pin and args.baseline:
        raise UserError("--pin writes a baseline file from the candidate; give no --baseline")
    if not args.pin and not args.baseline:
        raise UserError(
            "give --baseline SOURCE to gate the candidate, or --pin FILE to make it the baseline"
        )
    sources = {"qrels": args.qrels, "slices": args.slices, "tracking_uri": args.tracking_uri}
    # a passages run on either side answers --data, scored with the overrides
    scoring = {"data": args.data, "overrides": args.overrides}
    # both named well before either is scored (seconds each)
    g.kind_of(args.candidate, qrels=args.qrels)
    if args.baseline:
        g.kind_of(args.baseline, qrels=args.qrels, option="--baseline")
    if args.pin:
        cand = g.read_side(args.candidate, split=args.split, **scoring, **sources)
        g.write_pinned(cand, Path(args.pin))
        print(f"pinned {cand.name} ({cand.kind} {cand.source}) as the baseline {args.pin}")
        return 0
    base = g.read_side(args.baseline, option="--baseline", split=args.split, **scoring, **sources)
    cand = g.read_side(args.candidate, split=args.split or base.split, **scoring, **sources)
    gate = g.run_gate(base, cand, needs_judging=args.needs_judging)
    _write(gate, args)
    return 0 if gate.passed else 1


def _write(gate, args: argparse.Namespace) -> None:  # noqa: ANN001 - compare.gate.Gate
    from ragsweep.compare.flips import flipped_markdown
    from ragsweep.compare.gate import gate_junit, gate_markdown
    from ragsweep.data.write import replace_file

    per_slice, flipped = args.flipped, ""
    while True:
        if per_slice:
            flipped = flipped_markdown(gate.report, gate.candidate, per_slice=per_slice)
        summary = gate_markdown(gate, flipped)
        if len(summary) <= COMMENT_LIMIT or per_slice == 0:
            break
        per_slice, flipped = per_slice - 1, ""
    if per_slice < args.flipped:
        note = (
            f"\n(what flipped shows {per_slice} question(s) per slice, not {args.flipped}: "
            f"more would pass GitHub's {COMMENT_LIMIT}-character comment; --out DIR writes "
            "every one to flipped.csv)\n"
        )
        summary += note
    if args.out:
        from ragsweep.compare.files import write_report

        write_report(gate.report, args.out)
    if args.summary:
        replace_file(Path(args.summary), summary)
    if args.junit:
        replace_file(Path(args.junit), gate_junit(gate, flipped))
    step = os.environ.get("GITHUB_STEP_SUMMARY")
    if step:
        with open(step, "a", encoding="utf-8") as fh:
            fh.write(summary + "\n")
    sys.stdout.write(summary)
