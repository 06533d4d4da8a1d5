"""`ragsweep data sample [--out DIR] [--seed N] [--force]`: write the sample dataset to a folder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ragsweep.data.samplegen.generate import generate
from ragsweep.errors import UserError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragsweep data sample",
        description="Write the built-in sample dataset (fictional insurance wordings, 400 labelled"
        " questions, a raw query log, review labels) to a folder. Same seed, same bytes.",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("ragsweep-sample"),
        help="output folder (default: ./ragsweep-sample)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="generator seed (default: 0, the built-in sample)"
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
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not args.force:
        raise UserError(
            f"{out}: already exists and is not empty; pass --force to replace it, or choose"
            " another --out"
        )
    generate(out, seed=args.seed)
    notes = json.loads((out / "dataset.json").read_text(encoding="utf-8"))["notes"]
    corpus, questions = notes["corpus"], notes["questions"]
    print(
        f"wrote sample dataset (seed {args.seed}) to {out}: {corpus['documents']} documents,"
        f" {corpus['clauses']} clauses, {questions['total']} questions,"
        f" {notes['query_log']['entries']} query log entries"
    )
    return 0
