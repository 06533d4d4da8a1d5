"""`ragsweep data import`: convert a BEIR, TREC or SMART collection, or a folder of policy
wordings (Markdown, HTML, Word, PDF) with a labelled set, into a dataset folder.

    ragsweep data import --format beir --source scifact/ --out data/scifact
    ragsweep data import --format smart --docs cran.all.1400 --queries cran.qry \\
        --qrels cranqrel --qrels-format cranfield --slice-by best-code --out data/cranfield
    ragsweep data import --format pdf --source wordings/ --dry-run

The formats and their options come from the importers' own declarations
(`ragsweep.data.importers.registry`). Bad input raises `UserError` / `DatasetError` (one line:
file, line, fix; exit code 2). A collection's query texts go through the scrubber
(`labelling.scrub`) before anything else sees them: a user's queries may come from a live log.
docs/importing.md describes every rule.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from ragsweep.cli.labels import scrubbed_kinds
from ragsweep.cli.parser import Parser
from ragsweep.data.importers.convert import DEFAULT_ADDED, check_date, convert
from ragsweep.data.importers.grades import parse_grade_map
from ragsweep.data.importers.reading import read_slices
from ragsweep.data.importers.records import Collection
from ragsweep.data.importers.registry import (
    MAPPING_OPTIONS,
    Importer,
    Option,
    dataset_name,
    load_importers,
)
from ragsweep.data.importers.write import write_dataset
from ragsweep.data.write import check_out
from ragsweep.errors import UserError

PROG = "ragsweep data import"
#: the dests of the options every format takes (not checked per format)
_OWN = ("format", "out", "name", "force")


def _declarations(importers: Mapping[str, Importer]) -> dict[str, list[tuple[str, Option]]]:
    """Each option's dest -> (format, option) for every format declaring it, in order; an
    option shared by several formats must be declared alike (else TypeError, a bug)."""
    found: dict[str, list[tuple[str, Option]]] = {}
    for name, importer in importers.items():
        for option in importer.all_options():
            if option.dest in _OWN:
                raise TypeError(f"importer {name!r} declares {option.flags[0]}, a common option")
            found.setdefault(option.dest, []).append((name, option))
    for dest, declared in found.items():
        if len({repr(o.shape) for _, o in declared}) > 1:
            names = ", ".join(n for n, _ in declared)
            raise TypeError(f"importers {names} declare the option {dest!r} differently")
    return found


def _help(declared: list[tuple[str, Option]]) -> str:
    """The mapping options' own help; a format's input option says which formats use it how:
    `trec: <DOC> SGML ...; smart: .I/.T/.W records`."""
    if declared[0][1] in MAPPING_OPTIONS:
        return declared[0][1].help
    by_help: dict[str, list[str]] = {}
    for name, option in declared:
        by_help.setdefault(option.help, []).append(name)
    return "; ".join(f"{', '.join(names)}: {text}" for text, names in by_help.items())


def build_parser(importers: Mapping[str, Importer] | None = None) -> argparse.ArgumentParser:
    """The `ragsweep data import` argument parser, built from the importers' declarations."""
    importers = load_importers() if importers is None else importers
    p = Parser(
        prog=PROG,
        description="Convert a BEIR folder, TREC files or a SMART collection (e.g. Cranfield) "
        "into a ragsweep dataset folder (docs/schema.md): each source document becomes a "
        "single-clause document, qrels become graded labels, queries without a relevant "
        "judgement are skipped. Or convert a folder of policy wordings (markdown, html, docx, "
        "pdf) described by a manifest.yaml: headings and printed clause numbers become parts and "
        "clauses, the numbers being the clause ids, and --questions/--labels (JSON Lines in the "
        "schema, anchored to those ids) the labelled set. docs/importing.md has every rule.",
    )
    p.add_argument("--format", required=True, choices=tuple(importers), help="source format")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="dataset folder to write (must not exist or be empty, unless --force); required "
        "except with --dry-run",
    )
    inputs, mapping = p.add_argument_group("inputs"), p.add_argument_group("mapping")
    exclusive: dict[str, argparse._MutuallyExclusiveGroup] = {}
    declarations = list(_declarations(importers).values())
    # the formats' inputs first, then the mapping options
    for declared in sorted(declarations, key=lambda d: d[0][1] in MAPPING_OPTIONS):
        option = declared[0][1]
        group = mapping if option in MAPPING_OPTIONS else inputs
        if option.exclusive:
            if option.exclusive not in exclusive:
                exclusive[option.exclusive] = group.add_mutually_exclusive_group()
            group = exclusive[option.exclusive]
        group.add_argument(*option.flags, help=_help(declared), **option.argparse)
    mapping.add_argument("--name", help="dataset name (default: the --out folder's name)")
    mapping.add_argument(
        "--force",
        action="store_true",
        help="replace --out if it is a dataset folder (holds dataset.json)",
    )
    return p


def check_options(args: argparse.Namespace, importers: Mapping[str, Importer]) -> Importer:
    """The importer of `--format`, once its needed options are given and no other format's."""
    importer = importers[args.format]
    declared = _declarations(importers)
    flags = {"out": "--out"} | {d: "/".join(o[0][1].flags) for d, o in declared.items()}

    def given(dest: str) -> bool:
        default = declared[dest][0][1].default if dest in declared else None
        return getattr(args, dest) != default

    missing = [flags[dest] for dest in importer.needed(args) if not given(dest)]
    if missing:
        raise UserError(f"--format {args.format} needs {', '.join(missing)}; see `{PROG} --help`")
    own = {o.dest for o in importer.all_options()}
    for dest in sorted(declared):
        if dest not in own and given(dest):
            owners = "/".join(name for name, _ in declared[dest])
            raise UserError(
                f"{flags[dest]} is an option of --format {owners}, not {args.format}; remove it"
            )
    return importer


def run(args: argparse.Namespace, importers: Mapping[str, Importer] | None = None) -> str:
    """Import as the parsed arguments say; return what to print: the summary of what was
    written (or what the format's own `run` returns, e.g. a dry run's clause ids)."""
    importers = load_importers() if importers is None else importers
    importer = check_options(args, importers)
    if importer.read is not None:
        return import_collection(importer.read, args)
    return importer.run(args)  # exactly one of read and run is set


def import_collection(
    read: Callable[[argparse.Namespace], Collection], args: argparse.Namespace
) -> str:
    """Read a collection, scrub its query texts, map it onto the schema and write it."""
    added = args.added if args.added is not None else DEFAULT_ADDED
    check_date(added)
    check_out(args.out, args.force)  # refuse early, before reading a large collection
    collection, found = scrub_queries(read(args))
    if args.grade_map is not None:
        collection = replace(collection, rule=parse_grade_map(args.grade_map, collection.rule))
    slicing = read_slices(args.slices) if args.slices is not None else None
    converted = convert(
        collection, name=dataset_name(args), added=added, slicing=slicing, slice_by=args.slice_by
    )
    summary = write_dataset(converted, args.out, force=args.force).summary()
    return f"{summary}\npersonal data scrubbed from the query texts: {scrubbed_kinds(found)}"


def scrub_queries(collection: Collection) -> tuple[Collection, Counter[str]]:
    """`collection` with every query text scrubbed, and the items replaced per kind (never the
    values). The data layer reads and converts; the scrubber lives in labelling, above it."""
    from ragsweep.labelling.scrub import scrub_all

    texts, found = scrub_all(q.text for q in collection.queries)
    queries = tuple(replace(q, text=t) for q, t in zip(collection.queries, texts, strict=True))
    return replace(collection, queries=queries), found


def main(argv: list[str]) -> int:
    """Run `ragsweep data import ...`; returns the exit code (argparse usage errors give 2).

    Bad input raises `UserError`, which the `ragsweep` script prints on one line (exit 2).
    """
    importers = load_importers()
    try:
        args = build_parser(importers).parse_args(list(argv))
    except SystemExit as exit_:  # --help (0) or a usage error (2), already printed
        code = exit_.code
        return code if isinstance(code, int) else 2
    print(run(args, importers))
    return 0
