"""`ragsweep labels import`, `agreement` and `audit`: judged grades into the set, and graders
compared, per slice (docs/labelling.md, "3. Judge, then import", "5. Two judges" and
"6. Auditing model pre-labels")."""

from __future__ import annotations

import argparse
from pathlib import Path

from ragsweep.cli.labels.common import (
    AddVerb,
    data_dir,
    kappa,
    now,
    scrubbed_kinds,
    whole,
    writable,
)


def _import(args: argparse.Namespace) -> int:
    from ragsweep.labelling.labelfiles import CHANGELOG_FILE
    from ragsweep.labelling.sheets import import_files

    data = writable(args)
    done = import_files(
        data,
        args.sheets,
        judge=args.judge,
        at=now(),
        reason=args.reason,
        candidates=Path(args.candidates) if args.candidates else None,
        limit=args.limit,
        adjudicated=args.adjudicated,
        by_model=args.model,
    )
    print(
        f"imported {len(args.sheets)} sheet(s) into {data / 'labels.jsonl'}: {done.added} "
        f"added, {done.changed} changed, {done.unchanged} unchanged, {done.skipped} rows not "
        f"judged; {len(done.changes)} change(s) in {data / CHANGELOG_FILE}"
    )
    if args.model:
        print(
            f"the model's grades are labels now (each with its model); {done.kept_people} "
            "pair(s) people had labelled kept their people's grade"
        )
    if done.judged_people:
        print(
            f"{done.judged_people} question(s) people had labelled: the model's grades of them "
            "went to review/prelabels.jsonl, so they count as audited"
            + (
                f" ({done.not_kept} grade(s) of pairs their labels do not judge left out)"
                if done.not_kept
                else ""
            )
        )
    if done.audited:
        print(
            f"{done.audited} model-made label(s) audited: people's grades replace the model's, "
            "whose grades of those questions are kept in review/prelabels.jsonl (every "
            "comparison on the set is corrected by them: docs/report.md, 'Model-judged labels')"
        )
    if done.by_rule:
        qid, doc, sec, ver = done.by_rule[0]
        print(
            f"{len(done.by_rule)} grade(s) of 1 or 2 on a clause of another version or product "
            f"than the question asks about (e.g. {qid} {doc}/{sec}@{ver}) imported as 0, as the "
            "relevance rule says (relevance.md)"
        )
    if done.same_text:
        print(
            f"{done.same_text} pair(s) graded through a row's same_text_clauses (the same clause "
            f"text for the same question; {done.same_text_by_rule} of them on another version or "
            "product, so 0 by the relevance rule)"
        )
    if done.confirmed or done.disputes:
        print(
            f"a further judge on pairs already labelled: {done.confirmed} confirmed, "
            f"{len(done.disputes)} disputed (labels kept, every grade in the changelog)"
        )
    if done.disputes:
        from ragsweep.data import load_dataset
        from ragsweep.labelling.adjudicate import write_adjudication

        out = write_adjudication(load_dataset(data), done.disputes, Path(args.adjudicate))
        print(
            f"adjudication sheet {out}: fill its grade column, then `ragsweep labels import "
            f"{out} --data {data} --adjudicated --judge NAME`"
        )
    if args.candidates:
        print(
            f"{done.questions_added} sampled question(s) joined the set as rolling questions; "
            f"{len(done.not_added)} graded without a relevant clause were left out"
        )
    if done.scrubbed:
        print(
            "personal data scrubbed from the joining texts and the notes: "
            + scrubbed_kinds(done.scrubbed)
        )
    return 0


def _agreement(args: argparse.Namespace) -> int:
    from ragsweep.labelling.agreement import agreement, render_agreement
    from ragsweep.labelling.graders import read_pair, save_agreement

    p = read_pair(data_dir(args), args.a, args.b)
    report = agreement(p.a, p.b, p.slices, args.threshold, order=p.order, names=p.names)
    print(render_agreement(report, max_items=args.show))
    if args.save:
        saved = save_agreement(writable(args), report, p, now())
        print(f"saved to {saved}: runs scored on this dataset carry it (ragsweep.kappa)")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from ragsweep.labelling.audit import audit, render_audit
    from ragsweep.labelling.graders import read_audit_pair

    p = read_audit_pair(data_dir(args), args.a, args.b)
    report = audit(p.a, p.b, p.slices, order=p.order, names=p.names)
    print(render_audit(report))
    return 0


def add_import(verb: AddVerb) -> None:
    p = verb("import", "merge judged sheets (or a reviewer's label file) into labels.jsonl")
    p.add_argument("sheets", nargs="+", metavar="SHEET")
    p.add_argument("--judge", default=None, help="who judged rows whose judge cell is empty")
    p.add_argument("--reason", default="judged sheet", help="recorded in the changelog")
    p.add_argument(
        "--candidates",
        default=None,
        metavar="FILE",
        help="sampled questions the sheet grades: those with a relevant clause join the set",
    )
    p.add_argument("--limit", type=whole(0), default=0, help=argparse.SUPPRESS)
    p.add_argument(
        "--adjudicated",
        action="store_true",
        help="the sheets hold final decisions on disputed pairs: their grades replace the labels'",
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="import a pre-labelled sheet's model grades (its prelabel column) as model-made"
        " labels; labels people made are kept (docs/labelling.md, 'A model judge at scale')",
    )
    p.add_argument(
        "--adjudicate",
        default="adjudicate.csv",
        metavar="FILE",
        help="where the pairs another judge graded otherwise go (default adjudicate.csv)",
    )
    p.set_defaults(run=_import)


def add_agreement_and_audit(verb: AddVerb) -> None:
    for name, help, run, a, b in (
        ("agreement", "Cohen's kappa between two graders, per slice", _agreement, "A", "B"),
        ("audit", "model pre-labels against human labels, per slice", _audit, "MODEL", "HUMAN"),
    ):
        p = verb(name, help)
        kinds = "label file (JSONL), sheet CSV or Label Studio JSON export"
        p.add_argument("a", metavar=a, help=kinds)
        p.add_argument(
            "b",
            metavar=b,
            nargs="?",
            default=None,
            help=kinds
            + (
                " (audit with one sheet: its prelabel against its grade)"
                if b == "HUMAN"
                else " (agreement with one file: the two judges it holds, e.g. a Label Studio "
                "export)"
            ),
        )
        if name == "agreement":
            p.add_argument(
                "--threshold", type=kappa, default=0.6, help="flag kappa below this, in [-1, 1]"
            )
            p.add_argument(
                "--show", type=whole(0), default=10, help="disagreements shown per slice"
            )
            p.add_argument(
                "--save",
                action="store_true",
                help="store the result in the dataset (review/agreement.json; needs --data)",
            )
        p.set_defaults(run=run)
    p = verb("audit-sheet", "draw the audit of a model-judged set: a blind sheet for people")
    p.add_argument("--share", type=float, default=0.2, help="of each slice audited (default 0.2)")
    p.add_argument("--seed", type=whole(0), default=0, help="the draw's seed (default 0)")
    p.add_argument("--out", default="audit.csv", metavar="FILE", help="default audit.csv")
    p.set_defaults(run=_audit_sheet)


def _audit_sheet(args: argparse.Namespace) -> int:
    from ragsweep.data import load_dataset
    from ragsweep.data.judge import judge_view
    from ragsweep.labelling.audit_draw import audit_sheet
    from ragsweep.labelling.sheetfile import write_sheet_frame

    data = data_dir(args)
    ds = load_dataset(data)
    sheet, counts = audit_sheet(ds, share=args.share, seed=args.seed)
    drawn = sum(c["drawn"] for c in counts.values())
    for s, c in counts.items():
        print(f"{s}: {c['questions']} questions, {c['audited']} audited, {c['drawn']} drawn now")
    _, why = judge_view(ds)
    if why is not None:
        print(f"no comparison on the set can be corrected yet: {why}")
    if not drawn:
        print(f"every slice has its share ({args.share:g}) audited already: no sheet written")
        return 0
    out = write_sheet_frame(sheet, Path(args.out))
    print(
        f"{drawn} question(s), {len(sheet)} pairs -> {out}: grade them blind (no grade is shown), "
        f"then `ragsweep labels import {out} --data {data} --judge NAME`"
    )
    return 0
