"""`ragsweep data`: work with dataset folders (docs/schema.md).

Subcommands: `check [DIR]` validates a folder (default: the built-in sample) and prints its
statistics; `manifest DIR` writes its MANIFEST.sha256 again after a deliberate edit; `split`
finds a stratified dev / held-out salt; `export-run` writes a logged run as a TREC run file;
`sample` and `import` hand all their arguments to their own modules (`ragsweep.cli.data_sample`,
`ragsweep.cli.data_import`). A `DatasetError` is a `UserError`: the top-level CLI prints it on
one line and exits with code 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragsweep.cli.parser import Parser
from ragsweep.errors import UserError

PROG = "ragsweep data"


def _check(args: argparse.Namespace) -> int:
    from ragsweep.data import check_dataset

    stats = check_dataset(args.dir)
    if args.dir is not None:
        from ragsweep.labelling.scrub_rules import load_rules, rules_path

        own = rules_path(args.dir)
        if own is not None:  # a broken copy is named now, not at the first command that scrubs
            stats["scrub_rules"] = str(load_rules(own).source)
    if stats.get("unjudged_warning") and args.dir is not None:
        # only relevant passages are labelled: say how much of a first stage's top k that
        # leaves unjudged (BM25, the default chunks; seconds on a few thousand passages)
        from ragsweep.scoring.evaluate import first_stage_unjudged

        stats["first_stage_unjudged"] = first_stage_unjudged(args.dir)
    if args.format == "json":
        print(json.dumps(stats, indent=2, ensure_ascii=False))
    else:
        print(format_table(stats))
    return 0


def _manifest(args: argparse.Namespace) -> int:
    from ragsweep.data.manifest import write_manifest
    from ragsweep.data.schema import MANIFEST_FILE

    listed, changed = write_manifest(args.dir)
    path = Path(args.dir) / MANIFEST_FILE
    if changed:
        print(f"wrote {path}: {listed} files with their sha256")
    else:
        print(f"{path} already lists the {listed} files as they are; nothing written")
    return 0


def _command(
    sub: Any, name: str, run: Callable[[argparse.Namespace], int], *, help: str, description: str
) -> argparse.ArgumentParser:
    """The parser of `ragsweep data NAME`, whose parsed arguments go to `run`."""
    p = sub.add_parser(name, prog=f"{PROG} {name}", help=help, description=description)
    p.set_defaults(run=run)
    return p


def _optional_dir(p: argparse.ArgumentParser) -> None:
    """The optional DIR argument of the subcommands that default to the built-in sample."""
    p.add_argument(
        "dir",
        nargs="?",
        default=None,
        metavar="DIR",
        help="dataset folder (default: the built-in sample)",
    )


def _add_manifest(sub: Any) -> None:
    p = _command(
        sub,
        "manifest",
        _manifest,
        help="write a dataset folder's MANIFEST.sha256 again after a deliberate edit",
        description="Write DIR/MANIFEST.sha256 for every file below DIR as it is now (sha256sum "
        "format), after a deliberate edit such as a corpus wording replaced. It blesses whatever "
        "is there: run it only on edits you mean, then `ragsweep data check DIR`.",
    )
    p.add_argument("dir", metavar="DIR", help="dataset folder (the built-in sample is not edited)")


def _releases(args: argparse.Namespace) -> int:
    from ragsweep.scoring.sample_releases import write_releases

    for path in write_releases(Path(args.out)):
        print(f"wrote {path}")
    print(
        f"try the gate: ragsweep gate --candidate {Path(args.out) / 'release-a.jsonl'} --pin "
        "baseline.json, then ragsweep gate --baseline baseline.json --candidate "
        f"{Path(args.out) / 'release-b.jsonl'} (docs/ci.md)"
    )
    return 0


def _add_releases(sub: Any) -> None:
    p = _command(
        sub,
        "releases",
        _releases,
        help="write three example releases' passages runs on the built-in sample (docs/ci.md)",
        description="Write release-a.jsonl (the default configuration's top 10 per question), "
        "release-b.jsonl (the same after losing every 'What is not covered' part: it regresses "
        "the exclusions slice) and release-c.jsonl (release A re-extracted, ranks 6-10 "
        "reordered) into DIR: passages run files to try `ragsweep gate` on.",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write them into")


#: subcommands with their own command-line parser: every argument is passed through
_DELEGATED: dict[str, str] = {
    "sample": "ragsweep.cli.data_sample",
    "import": "ragsweep.cli.data_import",
}


def _delegate(command: str, argv: list[str]) -> int:
    """Hand every argument to the subcommand's own CLI module, imported only when used."""
    name = _DELEGATED[command]
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is None or not name.startswith(err.name):
            raise
        raise UserError(
            f"`ragsweep data {command}` ({name}) is not part of this installation; "
            "reinstall ragsweep"
        ) from None
    return int(module.main(argv) or 0)


def _add_check(sub: Any) -> None:
    p = _command(
        sub,
        "check",
        _check,
        help="validate a dataset folder and print its statistics",
        description="Validate a dataset folder against docs/schema.md and print its statistics. "
        "The first problem found is reported on one line (file, line, field, fix); exit code 2.",
    )
    _optional_dir(p)
    p.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table: aligned text; json: one JSON object (default: table)",
    )


def _add_sample(sub: Any) -> None:
    # Listed for `ragsweep data --help`; `main` dispatches `sample` before parsing.
    sub.add_parser(
        "sample", help="write a generated sample dataset (see `sample --help`)", add_help=False
    )


def _add_import(sub: Any) -> None:
    # Listed for `ragsweep data --help`; `main` dispatches `import` before parsing.
    sub.add_parser(
        "import",
        help="convert BEIR, TREC or SMART data, or a folder of wordings (see `import --help`)",
        add_help=False,
    )


def _export_run(args: argparse.Namespace) -> int:
    """Write a logged run's ranked lists as a TREC run file (and the clause qrels if asked)."""
    import shutil
    import tempfile

    from ragsweep.experiment import tracking
    from ragsweep.scoring.evaluate import TREC_FILES

    store = tracking.resolve_store(args.tracking_uri)
    mc = tracking.client(store)
    try:
        mc.get_run(args.run_id)
    except Exception:
        raise UserError(
            f"no run {args.run_id!r} in the tracking store {store.uri}; pass a run id from the "
            "MLflow UI (and --tracking-uri if the store is elsewhere)"
        ) from None
    out = Path(args.out or f"{args.run_id}.{args.level}.run")
    with tempfile.TemporaryDirectory(prefix="ragsweep-") as tmp:
        wanted = [("run", TREC_FILES[args.level], out)]
        if args.qrels:
            wanted.append(("qrels", TREC_FILES["qrels"], Path(args.qrels)))
        for what, name, dest in wanted:
            try:
                got = mc.download_artifacts(args.run_id, f"trec/{name}", tmp)
            except Exception:
                raise UserError(
                    f"run {args.run_id} has no trec/{name} artifact: it was logged by a ragsweep "
                    "version without run files, or is not a configuration run; reproduce it "
                    "(`ragsweep reproduce RUN_ID`) to get one"
                ) from None
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(got, dest)
            print(f"wrote the {what} file {dest}")
    return 0


def _add_export_run(sub: Any) -> None:
    p = _command(
        sub,
        "export-run",
        _export_run,
        help="write a logged run's ranked lists as a TREC run file",
        description="Write a logged configuration run's ranking as a TREC run file, to check "
        "its numbers with trec_eval, ranx or `ragsweep score`.",
    )
    p.add_argument("run_id", metavar="RUN_ID", help="the MLflow run id")
    p.add_argument("--out", metavar="FILE", help="run file to write (default RUN_ID.LEVEL.run)")
    p.add_argument(
        "--level",
        choices=("clause", "chunk"),
        default="clause",
        help="clause: clause ids in the order the chunks first cover them, the units the labels "
        "and measures use (default); chunk: the retriever's chunk ids",
    )
    p.add_argument("--qrels", metavar="FILE", help="also write the clause-level qrels here")
    p.add_argument(
        "--tracking-uri",
        metavar="URI",
        help="MLflow store (default: $MLFLOW_TRACKING_URI, else ./mlruns/mlflow.db)",
    )


def _split(args: argparse.Namespace) -> int:
    """Find (or check) a salt whose dev / held-out split is stratified per slice."""
    from ragsweep.data import load_dataset, split

    ds = load_dataset(args.dir)
    qids, slices = list(ds.questions["qid"]), list(ds.questions["slice"])
    if not 0 < args.heldout < 1:
        raise UserError(f"--heldout must be a share in (0, 1), got {args.heldout}")
    salt = args.salt or split.balanced_salt(
        qids, slices, args.heldout, args.base or str(ds.meta.get("name", "ragsweep"))
    )
    print(f"data.split.salt={salt} data.split.heldout={args.heldout}")
    for name, (n, held) in split.counts(qids, slices, salt, args.heldout).items():
        print(f"  {name:<20} {n:>5} questions  {held:>4} held out  {n - held:>5} dev")
    return 0


def _add_split(sub: Any) -> None:
    p = _command(
        sub,
        "split",
        _split,
        help="find a salt that holds out the same share of every slice",
        description="Print a dev / held-out split salt that holds out --heldout of every slice "
        "to within one question (or, with --salt, the counts of a given salt). Put it in the "
        "config (data.split.salt) once; adding questions later never moves the old ones.",
    )
    _optional_dir(p)
    p.add_argument("--heldout", type=float, default=0.25, help="held-out share (0.25)")
    p.add_argument("--base", default=None, help="salt prefix (default: the dataset's name)")
    p.add_argument("--salt", default=None, help="show the counts of this salt instead")


#: subcommand -> parser builder
_SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "check": _add_check,
    "sample": _add_sample,
    "import": _add_import,
    "export-run": _add_export_run,
    "split": _add_split,
    "manifest": _add_manifest,
    "releases": _add_releases,
}


def build_parser() -> argparse.ArgumentParser:
    """The `ragsweep data` argument parser."""
    parser = Parser(
        prog=PROG, description="Validate, generate and convert ragsweep dataset folders."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _SUBCOMMANDS.values():
        add(sub)
    return parser


def format_table(stats: dict[str, Any]) -> str:
    """Statistics from `ragsweep.data.check_dataset` as aligned `name  value` lines."""

    def fmt(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, list):
            return ", ".join(str(v) for v in value) if value else "-"
        return str(value)

    rows: list[tuple[str, str]] = []
    for key, value in stats.items():
        if isinstance(value, dict):
            rows.append((key, "" if value else "-"))
            rows.extend((f"  {k}", fmt(v)) for k, v in value.items())
        else:
            rows.append((key, fmt(value)))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}".rstrip() for k, v in rows)


def main(argv: list[str]) -> int:
    """Run `ragsweep data ...`; returns the exit code (argparse's usage errors give 2)."""
    argv = list(argv)
    if argv and argv[0] in _DELEGATED:
        return _delegate(argv[0], argv[1:])
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2), already printed
        code = exit_.code
        return code if isinstance(code, int) else 2
    return int(args.run(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
