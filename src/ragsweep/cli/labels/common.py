"""What every `ragsweep labels` verb shares: the parser whose usage errors are one line, the
argument types, the dataset folder (`--data`) and the time stamp of a change."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path

from ragsweep.cli.parser import whole as whole  # shared with the other verbs
from ragsweep.errors import UserError

PROG = "ragsweep labels"

#: adds a verb's parser: verb(name, help, data=True); `data`: with --data DIR
AddVerb = Callable[..., argparse.ArgumentParser]


def kappa(text: str) -> float:
    """An argparse type: a kappa threshold, within kappa's range [-1, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not -1 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a kappa in [-1, 1], e.g. 0.6")
    return value


def scrubbed_kinds(counts: Mapping[str, int]) -> str:
    """`NAME 2, PHONE 1` (most first), or `none found`: kinds and counts, never the values."""
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return kinds or "none found"


def data_dir(args: argparse.Namespace) -> Path:
    """The dataset folder: --data, else the built-in sample."""
    from ragsweep.data.load import sample_path

    return Path(args.data) if args.data else sample_path()


def writable(args: argparse.Namespace) -> Path:
    """Verbs that change a dataset need it named: the built-in sample is never edited."""
    if not args.data:
        raise UserError(
            "name the dataset folder to change with --data DIR (the built-in sample is never "
            "edited: copy it first, e.g. `ragsweep data sample --out DIR`)"
        )
    return Path(args.data)


def now() -> str:
    """The time stamp of a change: UTC, to the second."""
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
