"""The importers `ragsweep data import` offers, each declared by its own module.

A format module holds `IMPORTERS`: one `Importer` per `--format` name, with the options it reads
and either `read` (it returns a `Collection`, which the shared pipeline scrubs, converts and
writes, adding the `MAPPING_OPTIONS`) or `run` (it writes its own folder). `IMPORTER_MODULES`
lists those modules in the order `--format` offers them: a new format is one module and one line
here (docs/importing.md, "Adding a format").
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragsweep.data.importers.convert import DEFAULT_ADDED
from ragsweep.data.importers.records import Collection

#: the modules declaring `IMPORTERS`, in the order `--format` lists their formats
IMPORTER_MODULES: list[str] = [
    "ragsweep.data.importers.beir",
    "ragsweep.data.importers.trecfiles",
    "ragsweep.data.importers.smart",
    "ragsweep.data.importers.wordings.importer",
]


@dataclass(frozen=True)
class Option:
    """One command-line option of an importer: its flags, what it means to that importer
    (`help`), whether the import needs it, and argparse's keywords (`type`, `metavar`,
    `choices`, `action`, `default`, `dest`). Importers sharing a flag declare it with the same
    flags and keywords; only `help` and `required` may differ. Options with the same non-empty
    `exclusive` tag exclude each other."""

    flags: tuple[str, ...]
    help: str
    required: bool = False
    exclusive: str = ""
    argparse: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments holding the value."""
        return self.argparse.get("dest") or self.flags[0].lstrip("-").replace("-", "_")

    @property
    def default(self) -> Any:
        """The value when the option is not given."""
        store_true = self.argparse.get("action") == "store_true"
        return self.argparse.get("default", False if store_true else None)

    @property
    def shape(self) -> tuple[Any, ...]:
        """What importers sharing the option must agree on."""
        return self.flags, self.exclusive, sorted(self.argparse.items())


def path_option(
    *flags: str, help: str, metavar: str = "FILE", required: bool = False, dest: str = ""
) -> Option:
    """An option naming a file (or, with `metavar="DIR"`, a folder), read as a `Path`."""
    keywords = {"type": Path, "metavar": metavar, **({"dest": dest} if dest else {})}
    return Option(flags, help, required=required, argparse=keywords)


#: what every collection importer (one with `read`) takes besides its inputs: how its grades,
#: slices and dates map onto the schema
MAPPING_OPTIONS = (
    Option(
        ("--grade-map",),
        "override the grade rule: CODE=GRADE pairs, e.g. '1=2,2=2,3=1,4=0,-1=drop' (GRADE 0, "
        "1, 2 or drop; every code in the qrels must be named; write --grade-map=SPEC when SPEC "
        "starts with '-')",
        argparse={"metavar": "SPEC"},
    ),
    Option(
        ("--slices",),
        "qid<TAB>slice file (qids as written to questions.jsonl); default: one slice 'all'",
        exclusive="slices",
        argparse={"type": Path, "metavar": "FILE"},
    ),
    Option(
        ("--slice-by",),
        "best-code: slice by each question's best relevance code (to exercise per-slice "
        "reporting on an unsliced collection)",
        exclusive="slices",
        argparse={"choices": ("best-code",)},
    ),
    Option(
        ("--added",),
        f"date written as every question's 'added' (default {DEFAULT_ADDED}, meaning unknown)",
        argparse={"metavar": "YYYY-MM-DD"},
    ),
)


@dataclass(frozen=True)
class Importer:
    """One `--format`: its name, its own options, and how it imports.

    `read` returns the source as a `Collection` (the pipeline of `ragsweep data import` scrubs
    its query texts, maps it with `convert` and writes it); `run` imports by itself and returns
    what to print. `needs` names (by `dest`, `out` for `--out`) what this invocation must be
    given; by default the required options and `--out`.
    """

    name: str
    options: tuple[Option, ...]
    read: Callable[[argparse.Namespace], Collection] | None = None
    run: Callable[[argparse.Namespace], str] | None = None
    needs: Callable[[argparse.Namespace], tuple[str, ...]] | None = None

    def __post_init__(self) -> None:
        if (self.read is None) == (self.run is None):
            raise TypeError(f"importer {self.name!r}: give exactly one of read and run")

    def all_options(self) -> tuple[Option, ...]:
        """Its own options, and the mapping options when it reads a collection."""
        return self.options + (MAPPING_OPTIONS if self.read is not None else ())

    def needed(self, args: argparse.Namespace) -> tuple[str, ...]:
        """The dests this invocation must be given (see the class docstring)."""
        if self.needs is not None:
            return self.needs(args)
        return (*(o.dest for o in self.options if o.required), "out")


def load_importers() -> dict[str, Importer]:
    """Every declared importer by `--format` name, in `IMPORTER_MODULES` order."""
    found: dict[str, Importer] = {}
    for name in IMPORTER_MODULES:
        for importer in importlib.import_module(name).IMPORTERS:
            if importer.name in found:
                raise TypeError(f"two importers are called {importer.name!r} ({name})")
            found[importer.name] = importer
    return found


def dataset_name(args: argparse.Namespace) -> str:
    """`--name`, else the `--out` folder's name."""
    return args.name if args.name is not None else Path(args.out).resolve().name
