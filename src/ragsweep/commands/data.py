"""`ragsweep data`: work with dataset folders (docs/schema.md).

Subcommands:
- `check [DIR] [--format table|json]`: validate a dataset folder (default: the built-in sample)
  and print its statistics.
- `sample ...`: write a generated sample dataset (`ragsweep.sample.cli`; all arguments are passed
  through, so `ragsweep data sample --help` shows that command's own options).

`import` and `export-run` (later issues) get their own entry in `_SUBCOMMANDS` and a parser
builder below. A `DatasetError` propagates as a `UserError`: the top-level CLI prints it on one
line and exits with code 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

from ragsweep.errors import UserError

PROG = "ragsweep data"


def _check(args: argparse.Namespace) -> int:
    from ragsweep.dataset import check_dataset

    stats = check_dataset(args.dir)
    if args.format == "json":
        print(json.dumps(stats, indent=2, ensure_ascii=False))
    else:
        print(format_table(stats))
    return 0


#: subcommands with their own command-line parser: every argument is passed through
_DELEGATED: dict[str, str] = {
    "sample": "ragsweep.sample.cli",
    "import": "ragsweep.importers.cli",
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
    p = sub.add_parser(
        "check",
        prog=f"{PROG} check",
        help="validate a dataset folder and print its statistics",
        description="Validate a dataset folder against docs/schema.md and print its statistics. "
        "The first problem found is reported on one line (file, line, field, fix); exit code 2.",
    )
    p.add_argument(
        "dir",
        nargs="?",
        default=None,
        metavar="DIR",
        help="dataset folder (default: the built-in sample)",
    )
    p.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table: aligned text; json: one JSON object (default: table)",
    )
    p.set_defaults(run=_check)


def _add_sample(sub: Any) -> None:
    # Listed for `ragsweep data --help`; `main` dispatches `sample` before parsing.
    sub.add_parser(
        "sample", help="write a generated sample dataset (see `sample --help`)", add_help=False
    )


def _add_import(sub: Any) -> None:
    # Listed for `ragsweep data --help`; `main` dispatches `import` before parsing.
    sub.add_parser(
        "import", help="convert BEIR, TREC or SMART data (see `import --help`)", add_help=False
    )


#: subcommand -> parser builder; `import` and `export-run` will join here
_SUBCOMMANDS: dict[str, Callable[[Any], None]] = {
    "check": _add_check,
    "sample": _add_sample,
    "import": _add_import,
}


def build_parser() -> argparse.ArgumentParser:
    """The `ragsweep data` argument parser."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Validate, generate and convert ragsweep dataset folders."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _SUBCOMMANDS.values():
        add(sub)
    return parser


def format_table(stats: dict[str, Any]) -> str:
    """Statistics from `ragsweep.dataset.check_dataset` as aligned `name  value` lines."""

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
