"""`ragsweep data import`: convert a BEIR, TREC or SMART collection, or a folder of policy
wordings (Markdown, HTML, Word, PDF) with a labelled set, into a dataset folder.

    ragsweep data import --format markdown --source wordings/ --questions questions.jsonl \\
        --labels labels.jsonl --out data/home
    ragsweep data import --format pdf --source wordings/ --dry-run
    ragsweep data import --format beir --source scifact/ --out data/scifact
    ragsweep data import --format trec --docs docs.trec --topics topics.txt --qrels qrels.txt \\
        --out data/mytrec
    ragsweep data import --format smart --docs cran.all.1400 --queries cran.qry \\
        --qrels cranqrel --qrels-format cranfield --slice-by best-code --out data/cranfield

Bad input raises `UserError` / `DatasetError` (one line: file, line, fix); the `ragsweep` script
turns it into exit code 2. docs/importing.md describes every mapping rule. The query texts of a
BEIR, TREC or SMART collection go through the scrubber (`labelling.scrub`, the one `labels
sample` uses) before anything else sees them: a user's queries may come from a live log.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace
from pathlib import Path

from ragsweep.cli.labels import scrubbed_kinds
from ragsweep.data.importers.common import (
    DEFAULT_ADDED,
    Collection,
    check_date,
    check_out,
    convert,
    parse_grade_map,
    read_slices,
    write_dataset,
)
from ragsweep.errors import UserError

PROG = "ragsweep data import"
#: wording formats: a folder of policy wordings whose clauses are found from their structure
STRUCTURED = ("markdown", "html", "docx", "pdf")
FORMATS = ("beir", "trec", "smart", *STRUCTURED)
_WORDINGS = (("source", "questions", "labels"), ("manifest", "dry_run"))
#: the input options each format takes (required ones first), for clear errors
_INPUTS = {
    "beir": (("source",), ("split", "grade_map", "slices", "slice_by", "added")),
    "trec": (
        ("docs", "queries", "qrels"),
        ("topic_field", "grade_map", "slices", "slice_by", "added"),
    ),
    "smart": (
        ("docs", "queries", "qrels"),
        ("qrels_format", "grade_map", "slices", "slice_by", "added"),
    ),
    **{fmt: _WORDINGS for fmt in STRUCTURED},
}
_FLAGS = {
    "source": "--source",
    "split": "--split",
    "docs": "--docs",
    "queries": "--topics/--queries",
    "qrels": "--qrels",
    "topic_field": "--topic-field",
    "qrels_format": "--qrels-format",
    "questions": "--questions",
    "labels": "--labels",
    "manifest": "--manifest",
    "dry_run": "--dry-run",
    "grade_map": "--grade-map",
    "slices": "--slices",
    "slice_by": "--slice-by",
    "added": "--added",
}
#: options whose default is not None: "given" means different from this
_DEFAULTS = {"dry_run": False}


def build_parser() -> argparse.ArgumentParser:
    """The `ragsweep data import` argument parser."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Convert a BEIR folder, TREC files or a SMART collection (e.g. Cranfield) "
        "into a ragsweep dataset folder (docs/schema.md): each source document becomes a "
        "single-clause document, qrels become graded labels, queries without a relevant "
        "judgement are skipped. Or convert a folder of policy wordings (markdown, html, docx, "
        "pdf) described by a manifest.yaml: headings and printed clause numbers become parts and "
        "clauses, the numbers being the clause ids, and --questions/--labels (JSON Lines in the "
        "schema, anchored to those ids) the labelled set. docs/importing.md has every rule.",
    )
    p.add_argument("--format", required=True, choices=FORMATS, help="source format")
    p.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="dataset folder to write (must not exist or be empty, unless --force); required "
        "except with --dry-run",
    )
    src = p.add_argument_group("inputs")
    src.add_argument(
        "--source",
        type=Path,
        metavar="DIR",
        help="beir: folder with corpus.jsonl, queries.jsonl, qrels/<split>.tsv; markdown, html, "
        "docx, pdf: folder of wording files (and manifest.yaml)",
    )
    src.add_argument(
        "--manifest",
        type=Path,
        metavar="FILE",
        help="wordings: yaml naming each file's document, version, product and effective date "
        "(default: manifest.yaml in --source; Markdown may use front matter instead)",
    )
    src.add_argument(
        "--questions",
        type=Path,
        metavar="FILE",
        help="wordings: questions.jsonl of the labelled set (docs/schema.md), copied as given",
    )
    src.add_argument(
        "--labels",
        type=Path,
        metavar="FILE",
        help="wordings: labels.jsonl anchored to the imported clause ids, copied as given",
    )
    src.add_argument(
        "--dry-run",
        action="store_true",
        help="wordings: print every clause id found, with its heading and place, and write "
        "nothing (no --out, --questions or --labels needed)",
    )
    src.add_argument("--split", default=None, help="beir: qrels split to import (default: test)")
    src.add_argument(
        "--docs",
        type=Path,
        metavar="FILE",
        help="trec: <DOC> SGML or docid<TAB>text; smart: .I/.T/.W records",
    )
    src.add_argument(
        "--topics",
        "--queries",
        dest="queries",
        type=Path,
        metavar="FILE",
        help="trec: <top> SGML or qid<TAB>text; smart: .I/.W records",
    )
    src.add_argument(
        "--qrels",
        type=Path,
        metavar="FILE",
        help="trec: qid iter docid grade; smart: see --qrels-format",
    )
    src.add_argument(
        "--topic-field",
        default=None,
        choices=("title", "desc", "title+desc"),
        help="trec: which SGML topic field is the question (default: title)",
    )
    src.add_argument(
        "--qrels-format",
        default=None,
        choices=("plain", "trec", "rel", "cranfield"),
        help="smart: plain = 'qid docid [code]' (default); trec = 'qid iter docid "
        "grade'; rel = 'qid docid 0 0.000000' (the .REL layout of CISI, CACM: listed "
        "means relevant); cranfield = 'qid docid code' with qid the query's position and "
        "codes 1 (best) .. 4, -1",
    )
    out = p.add_argument_group("mapping")
    out.add_argument(
        "--grade-map",
        metavar="SPEC",
        help="override the grade rule: CODE=GRADE pairs, e.g. '1=2,2=2,3=1,4=0,"
        "-1=drop' (GRADE 0, 1, 2 or drop; every code in the qrels must be "
        "named; write --grade-map=SPEC when SPEC starts with '-')",
    )
    sl = out.add_mutually_exclusive_group()
    sl.add_argument(
        "--slices",
        type=Path,
        metavar="FILE",
        help="qid<TAB>slice file (qids as written to questions.jsonl); default: one slice 'all'",
    )
    sl.add_argument(
        "--slice-by",
        choices=("best-code",),
        help="best-code: slice by each question's best relevance code (to exercise "
        "per-slice reporting on an unsliced collection)",
    )
    out.add_argument("--name", help="dataset name (default: the --out folder's name)")
    out.add_argument(
        "--added",
        default=None,
        metavar="YYYY-MM-DD",
        help=f"date written as every question's 'added' (default {DEFAULT_ADDED}, meaning unknown)",
    )
    out.add_argument(
        "--force",
        action="store_true",
        help="replace --out if it is a dataset folder (holds dataset.json)",
    )
    return p


def _given(args: argparse.Namespace, key: str) -> bool:
    return getattr(args, key) != _DEFAULTS.get(key)


def _check_inputs(args: argparse.Namespace) -> None:
    """Each format's required inputs present, other formats' inputs absent."""
    required, optional = _INPUTS[args.format]
    if args.format in STRUCTURED and args.dry_run:
        required = ("source",)  # a dry run only reads the wordings
    missing = [_FLAGS[k] for k in required if not _given(args, k)]
    if args.out is None and not (args.format in STRUCTURED and args.dry_run):
        missing.append("--out")
    if missing:
        raise UserError(f"--format {args.format} needs {', '.join(missing)}; see `{PROG} --help`")
    for key in sorted(_FLAGS):
        if key not in required and key not in optional and _given(args, key):
            owners = [f for f, (r, o) in _INPUTS.items() if key in r or key in o]
            raise UserError(
                f"{_FLAGS[key]} is an option of --format {'/'.join(owners)}, not "
                f"{args.format}; remove it"
            )


def read_collection(args: argparse.Namespace) -> Collection:
    """Read the source files the parsed arguments name."""
    if args.format == "beir":
        from ragsweep.data.importers.beir import read_beir

        return read_beir(args.source, args.split or "test")
    if args.format == "trec":
        from ragsweep.data.importers.trecfiles import read_trec

        return read_trec(args.docs, args.queries, args.qrels, args.topic_field or "title")
    from ragsweep.data.importers.smart import read_smart_collection

    return read_smart_collection(args.docs, args.queries, args.qrels, args.qrels_format or "plain")


def run(args: argparse.Namespace) -> str:
    """Import as the parsed arguments say; return what to print: the summary of what was
    written, or for a dry run of wordings the clause ids found."""
    _check_inputs(args)
    if args.format in STRUCTURED:
        return run_wordings(args)
    added = args.added if args.added is not None else DEFAULT_ADDED
    check_date(added)
    out: Path = args.out
    name = args.name if args.name is not None else out.resolve().name
    check_out(out, args.force)  # refuse early, before reading a large collection
    collection, found = scrub_queries(read_collection(args))
    if args.grade_map is not None:
        collection = replace(collection, rule=parse_grade_map(args.grade_map, collection.rule))
    slicing = read_slices(args.slices) if args.slices is not None else None
    converted = convert(collection, name=name, added=added, slicing=slicing, slice_by=args.slice_by)
    summary = write_dataset(converted, out, force=args.force).summary()
    return f"{summary}\npersonal data scrubbed from the query texts: {scrubbed_kinds(found)}"


def scrub_queries(collection: Collection) -> tuple[Collection, Counter[str]]:
    """`collection` with every query text scrubbed, and the items replaced per kind (never the
    values). The data layer reads and converts; the scrubber lives in labelling, above it."""
    from ragsweep.labelling.scrub import scrub_all

    texts, found = scrub_all(q.text for q in collection.queries)
    queries = tuple(replace(q, text=t) for q, t in zip(collection.queries, texts, strict=True))
    return replace(collection, queries=queries), found


def run_wordings(args: argparse.Namespace) -> str:
    """Import a folder of wordings (`ragsweep.data.importers.wordings`); the summary, or the
    clause outline for --dry-run."""
    from ragsweep.data.importers.wordings.convert import (
        convert_wordings,
        outline,
        read_wordings,
        write_wordings,
    )
    from ragsweep.data.importers.wordings.manifest import find_manifest

    if not args.dry_run:
        check_out(args.out, args.force)  # refuse early, before reading the wordings
    wordings = read_wordings(args.format, args.source, args.manifest)
    if args.dry_run:
        return outline(wordings)
    name = args.name if args.name is not None else args.out.resolve().name
    converted = convert_wordings(
        wordings,
        name=name,
        fmt=args.format,
        questions=args.questions,
        labels=args.labels,
        manifest=find_manifest(args.source, args.manifest),
    )
    return write_wordings(converted, args.out, force=args.force).summary()


def main(argv: list[str]) -> int:
    """Run `ragsweep data import ...`; returns the exit code (argparse usage errors give 2).

    Bad input raises `UserError`, which the `ragsweep` script prints on one line (exit 2).
    """
    try:
        args = build_parser().parse_args(list(argv))
    except SystemExit as exit_:  # --help (0) or a usage error (2), already printed
        code = exit_.code
        return code if isinstance(code, int) else 2
    print(run(args))
    return 0
