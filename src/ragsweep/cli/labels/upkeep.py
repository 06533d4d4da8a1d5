"""`ragsweep labels add-failure`, `check`, `move`, `freeze` and `rebaseline`: keeping the set alive
as the corpus and the questions change (docs/labelling.md, "4. Keep the set alive" and
"Re-baselining after a label change")."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ragsweep.cli.labels.common import AddVerb, data_dir, now, scrubbed_kinds, writable
from ragsweep.errors import UserError


def _add_failure(args: argparse.Namespace) -> int:
    from ragsweep.labelling.core import add_failure

    clauses = []
    for spec in args.clause:
        clause, _, grade = spec.rpartition("=")
        document, _, section = clause.partition("/")
        if not (document and section and grade.isdigit()):
            raise UserError(f"--clause {spec!r}: write DOCUMENT/SECTION=GRADE, e.g. home/4.4=2")
        clauses.append((document, section, int(grade)))
    done = add_failure(
        writable(args),
        text=args.text,
        slice=args.slice,
        product=args.product,
        version=args.version,
        clauses=clauses,
        at=now(),
        who=args.who,
        reason=args.reason,
    )
    print(
        f"added the production failure as core question {done.qid} with {len(clauses)} "
        f"label(s); personal data scrubbed from its text: {scrubbed_kinds(done.scrubbed)}"
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    return _upkeep(args, None)


def _move(args: argparse.Namespace) -> int:
    from ragsweep.labelling.upkeep import questions_to_move

    data = Path(args.data) if args.data else data_dir(args)
    if not (args.qids or args.all or args.from_version or args.product):
        raise UserError(
            "labels move: name the questions to move: QID ..., or --from VERSION and/or "
            "--product PRODUCT, or --all"
        )
    if args.qids and (args.all or args.from_version or args.product):
        raise UserError("labels move: give QIDs, or --from/--product/--all, not both")
    chosen = args.qids or questions_to_move(
        data, args.to, from_version=args.from_version, product=args.product
    )
    if not chosen:
        print(f"no question to move to version {args.to}: none matches")
        return 0
    print(f"moving {len(chosen)} question(s) to version {args.to}")
    return _upkeep(args, dict.fromkeys(chosen, args.to))


def _upkeep(args: argparse.Namespace, move: dict[str, str] | None) -> int:
    """`labels check` and `labels move`: what the check finds (with the questions in `move`
    asking about their new version), and with --apply, written with the person's decisions."""
    from ragsweep.labelling.decisions import decided_labels, decision_sheet
    from ragsweep.labelling.sheetfile import read_sheet, write_sheet_frame
    from ragsweep.labelling.upkeep import check_labels, check_lines, decided_questions
    from ragsweep.labelling.upkeep_apply import apply_check

    confirm = [_carry_spec(spec) for spec in args.carry]
    label = [_label_spec(spec) for spec in args.label]
    chosen = confirm or args.retire_question or label or args.decided or args.retire_unanswered
    if chosen and not args.apply:
        raise UserError(
            "--carry, --label, --decided, --retire-question and --retire-unanswered are "
            "decisions to apply; add --apply"
        )
    data = Path(args.data) if args.data else data_dir(args)
    if args.apply:  # a stale manifest refuses --apply before the long listing, not after it
        from ragsweep.data.manifest import check_manifest

        check_manifest(writable(args))
    found = check_labels(data, move)
    if args.decided:
        label += decided_labels(data, found, read_sheet(args.decided))
    decided = decided_questions(found, confirm, label, args.retire_question, args.retire_unanswered)
    lines, summary = check_lines(found, decided, applying=args.apply)
    for line in lines:
        print(line)
    print(summary)
    if args.sheet:
        rows = decision_sheet(data, found)
        write_sheet_frame(rows, args.sheet)
        print(
            f"{len(rows)} label(s) left for a person, with the clause each could go to: "
            f"{args.sheet}; fill its grade column, then add --apply --decided {args.sheet}"
        )
    if args.apply and (not found.clean or chosen or found.unanswered):
        changes = apply_check(
            writable(args),
            found,
            at=now(),
            who=args.who,
            confirm=confirm,
            retire_questions=args.retire_question,
            label=label,
            retire_unanswered=args.retire_unanswered,
        )
        print(f"applied: {len(changes)} change(s) recorded in the label changelog")
    return 0


def _label_spec(spec: str) -> tuple[str, str, str, int]:
    """`QID:DOCUMENT/SECTION=GRADE` as (qid, document, section, grade)."""
    clause, _, grade = spec.rpartition("=")
    qid, document, section = _carry_spec(clause, flag="--label") if clause else ("", "", "")
    if not grade.isdigit():
        raise UserError(f"--label {spec!r}: write QID:DOCUMENT/SECTION=GRADE, e.g. q05:home/4.9=2")
    return qid, document, section, int(grade)


def _carry_spec(spec: str, flag: str = "--carry") -> tuple[str, str, str]:
    """`QID:DOCUMENT/SECTION` (a 'not carried' line's label) as (qid, document, section)."""
    qid, _, clause = spec.partition(":")
    document, _, section = clause.partition("/")
    if not (qid and document and section):
        what = (
            "=GRADE, e.g. q05:home/4.9=2"
            if flag == "--label"
            else (", the label of a 'not carried' line, e.g. q05:home/4.1")
        )
        raise UserError(f"{flag} {spec!r}: write QID:DOCUMENT/SECTION{what}")
    return qid, document, section


def _freeze(args: argparse.Namespace) -> int:
    from ragsweep.labelling.core import freeze

    if bool(args.qids) == args.all_rolling:
        raise UserError("name the questions to freeze, or --all-rolling (not both)")
    which: Any = "all-rolling" if args.all_rolling else args.qids
    done = freeze(writable(args), which, at=now(), who=args.who)
    for qid in dict.fromkeys(args.qids):
        if qid not in done:  # known (an unknown qid is refused), so in the core already
            print(f"{qid} is already in the core")
    if done:
        print(f"froze {len(done)} question(s) into the core set: {', '.join(done)}")
    elif args.all_rolling:
        print("nothing to freeze: the set has no rolling question")
    else:
        print("nothing to freeze: every question named is in the core already")
    return 0


def _rebaseline(args: argparse.Namespace) -> int:
    from ragsweep.experiment.rebaseline import print_rebaseline, rebaseline

    print_rebaseline(rebaseline(args.sweep, uri=args.uri))
    return 0


def _upkeep_arguments(p: argparse.ArgumentParser) -> None:
    """The options `labels check` and `labels move` share: --apply and the person's decisions."""
    p.add_argument("--apply", action="store_true", help="write them (default: a dry run)")
    p.add_argument(
        "--carry",
        action="append",
        default=[],
        metavar="QID:DOC/SECTION",
        help="with --apply: carry this 'not carried' label all the same, having read the change "
        "(repeatable)",
    )
    p.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="QID:DOC/SECTION=GRADE",
        help="with --apply: grade a clause of the version the question asks about, e.g. a "
        "new clause that answers it (repeatable)",
    )
    p.add_argument(
        "--retire-question",
        action="append",
        default=[],
        metavar="QID",
        help="with --apply: take this question and its labels out of the set, e.g. when the "
        "new version deleted its answer (repeatable)",
    )
    p.add_argument(
        "--sheet",
        default=None,
        metavar="FILE",
        help="write the labels left for a person as a judging sheet (.csv or .xlsx): the "
        "clause each could go to, the old grade as prelabel, why it was not carried",
    )
    p.add_argument(
        "--decided",
        default=None,
        metavar="FILE",
        help="with --apply: the --sheet filled by a person; its grades are applied",
    )
    p.add_argument(
        "--retire-unanswered",
        action="store_true",
        help="with --apply: retire every question the decisions leave without a relevant label",
    )
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))


def add_failure_verb(verb: AddVerb) -> None:
    p = verb("add-failure", "a confirmed production failure as a permanent core question")
    p.add_argument("--text", required=True, help="the question as asked (scrubbed)")
    p.add_argument("--slice", required=True)
    p.add_argument("--product", required=True)
    p.add_argument("--version", required=True)
    p.add_argument(
        "--clause",
        action="append",
        required=True,
        metavar="DOC/SECTION=GRADE",
        help="a graded clause of the asked version (repeatable)",
    )
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))
    p.add_argument("--reason", default="confirmed production failure")
    p.set_defaults(run=_add_failure)


def add_check_and_move(verb: AddVerb) -> None:
    for name, help in (
        ("check", "labels whose clause vanished, and labels to carry to a new version"),
        ("move", "move questions to a new wording version, carrying and retiring their labels"),
    ):
        p = verb(name, help)
        _upkeep_arguments(p)
        if name == "move":
            p.add_argument("qids", nargs="*", metavar="QID", help="the questions to move")
            p.add_argument("--to", required=True, metavar="VERSION", help="the new version")
            p.add_argument(
                "--from",
                dest="from_version",
                default=None,
                metavar="VERSION",
                help="move the questions asking about this version",
            )
            p.add_argument("--product", default=None, help="move this product's questions")
            p.add_argument("--all", action="store_true", help="move every question")
        p.set_defaults(run=_move if name == "move" else _check)


def add_freeze(verb: AddVerb) -> None:
    p = verb("freeze", "promote rolling questions into the frozen core")
    p.add_argument("qids", nargs="*", metavar="QID")
    p.add_argument("--all-rolling", action="store_true")
    p.add_argument("--who", default=os.environ.get("USER", "unknown"))
    p.set_defaults(run=_freeze)


def add_rebaseline(verb: AddVerb) -> None:
    p = verb(
        "rebaseline",
        "score a sweep's baseline again on the current labels, and log it",
        data=False,
    )
    p.add_argument("sweep", metavar="SWEEP", help="sweep name or parent run id")
    p.add_argument(
        "--uri",
        default=None,
        help="tracking store (default: $MLFLOW_TRACKING_URI if set, else "
        "sqlite:///<cwd>/mlruns/mlflow.db, where a sweep logs by default)",
    )
    p.set_defaults(run=_rebaseline)
