"""The `--format markdown|html|docx|pdf` importers: a folder of wordings and its labelled set
into a dataset folder, or with `--dry-run` the clause ids found (docs/importing.md, "Structured
wordings").
"""

from __future__ import annotations

import argparse

from ragsweep.data.importers.registry import Importer, Option, dataset_name, path_option
from ragsweep.data.importers.wordings.convert import (
    STRUCTURED_FORMATS,
    convert_wordings,
    outline,
    read_wordings,
    write_wordings,
)
from ragsweep.data.importers.wordings.manifest import find_manifest
from ragsweep.data.write import check_out


def run_wordings(args: argparse.Namespace) -> str:
    """Import the folder the parsed arguments name; the summary, or the clause outline for
    --dry-run."""
    if not args.dry_run:
        check_out(args.out, args.force)  # refuse early, before reading the wordings
    wordings = read_wordings(args.format, args.source, args.manifest)
    if args.dry_run:
        return outline(wordings)
    converted = convert_wordings(
        wordings,
        name=dataset_name(args),
        fmt=args.format,
        questions=args.questions,
        labels=args.labels,
        manifest=find_manifest(args.source, args.manifest),
    )
    return write_wordings(converted, args.out, force=args.force).summary()


def _needs(args: argparse.Namespace) -> tuple[str, ...]:
    """A dry run only reads the wordings; an import also needs the labelled set and --out."""
    return ("source",) if args.dry_run else ("source", "questions", "labels", "out")


OPTIONS = (
    path_option(
        "--source",
        help="folder of wording files (and manifest.yaml)",
        metavar="DIR",
        required=True,
    ),
    path_option(
        "--manifest",
        help="yaml naming each file's document, version, product and effective date (default: "
        "manifest.yaml in --source; Markdown may use front matter instead)",
    ),
    path_option(
        "--questions",
        help="questions.jsonl of the labelled set (docs/schema.md), copied as given",
        required=True,
    ),
    path_option(
        "--labels",
        help="labels.jsonl anchored to the imported clause ids, copied as given",
        required=True,
    ),
    Option(
        ("--dry-run",),
        "print every clause id found, with its heading and place, and write nothing (no --out, "
        "--questions or --labels needed)",
        argparse={"action": "store_true"},
    ),
)

IMPORTERS = tuple(
    Importer(fmt, OPTIONS, run=run_wordings, needs=_needs) for fmt in STRUCTURED_FORMATS
)
