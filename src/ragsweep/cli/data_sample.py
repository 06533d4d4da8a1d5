"""`ragsweep data sample [--out DIR] [--seed N] [--force]`: write the sample dataset to a folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ragsweep.cli.parser import Parser, whole
from ragsweep.data.write import check_out


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="ragsweep data sample",
        description="Write the built-in sample dataset (fictional insurance wordings and their"
        " schedules, summaries, FAQs and endorsement booklets, 400 labelled questions, a raw query"
        " log, review labels) to a folder. Seed 0 copies the built-in sample; another seed builds"
        " a new one with `labels sample` and `labels pool` (a few minutes). Same seed, same"
        " bytes.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("ragsweep-sample"),
        help="output folder (default: ./ragsweep-sample)",
    )
    parser.add_argument(
        "--seed", type=whole(0), default=0, help="generator seed (default: 0, the built-in sample)"
    )
    parser.add_argument(
        "--judged",
        action="store_true",
        help="a model-judged copy: a simulated judge of known bias labels 80%% of each slice's"
        " questions, people's labels stay on a random 20%% (the audit); every comparison on it"
        " is corrected by the audit (docs/statistics.md, 'Model-judged labels')",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace --out if it already holds a dataset (a folder with dataset.json)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Parse `argv`, generate, print one line saying what was written; `UserError` if refused."""
    args = _parser().parse_args(argv)
    out: Path = args.out
    check_out(out, args.force)  # before the minutes a new seed takes to build
    if args.seed == 0:
        _copy_builtin(out)
    else:
        from ragsweep.labelling.sample_build import generate

        generate(out, seed=args.seed, progress=lambda msg: print(msg, flush=True))
    notes = json.loads((out / "dataset.json").read_text(encoding="utf-8"))["notes"]
    corpus, questions = notes["corpus"], notes["questions"]
    print(
        f"wrote sample dataset (seed {args.seed}) to {out}: {corpus['documents']} documents,"
        f" {corpus['clauses']} sections, {questions['total']} questions,"
        f" {notes['query_log']['entries']} query log entries"
    )
    if args.judged:
        from ragsweep.data.samplegen.judged import judged_copy

        done = judged_copy(out, out, seed=args.seed)
        audited = sum(s["audited"] for s in done["slices"].values())
        total = sum(s["questions"] for s in done["slices"].values())
        print(
            f"model-judged: {total - audited} of {total} questions carry the labels of "
            f"{done['model']}, {audited} keep people's labels as the audit "
            f"(review/prelabels.jsonl holds the judge's grades there); "
            f"{done['labels_changed']} labels differ from people's"
        )
    return 0


def _copy_builtin(out: Path) -> None:
    """The committed sample's files (checked against its manifest), swapped in atomically."""
    from ragsweep.data.load import sample_path
    from ragsweep.data.manifest import check_manifest
    from ragsweep.data.samplegen.generate import write_dataset

    root = sample_path()
    check_manifest(root)
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    write_dataset(out, files)
