"""Reading the text files every importer reads: a whole UTF-8 file, its numbered lines, and the
`qid<TAB>slice` file (`--slices`, also read by `ragsweep compare --slices`). docs/importing.md
describes the formats.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ragsweep.errors import DatasetError


def read_text(path: str | Path, what: str) -> str:
    """A whole UTF-8 text file (a leading BOM dropped, line ends normalised to `\\n`)."""
    p = Path(path)
    if not p.exists():
        raise DatasetError(p, f"no such file; give the {what}")
    if p.is_dir():
        raise DatasetError(p, f"is a folder; give the {what} file")
    try:
        with p.open(encoding="utf-8-sig") as fh:  # universal newlines
            return fh.read()
    except UnicodeDecodeError as err:
        raise DatasetError(
            p, f"not UTF-8 (bad byte at offset {err.start}); save it as UTF-8"
        ) from None
    except OSError as err:
        raise DatasetError(p, f"cannot be read ({err.strerror})") from None


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its `\\n`) for every line of `text`."""
    yield from enumerate(text.split("\n"), start=1)


def one_line(text: str) -> str:
    """`text` with every run of whitespace (newlines included) made one space, and stripped."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Slicing:
    """Question slices: `assign` maps qid -> slice; `order` is the report order."""

    assign: Mapping[str, str]
    order: tuple[str, ...]
    path: str


def read_slices(path: str | Path) -> Slicing:
    """Read a `qid<TAB>slice` file; slices are reported in order of first appearance. The one
    reader of the format: `ragsweep data import --slices` and `ragsweep compare --slices` alike.

    A line holding a tab is split at it (a slice name may then hold spaces); a line without one
    at its first run of spaces (`q1 limits`, as a hand-typed file has it). Blank lines are
    skipped. A qid listed twice, a line with more than one tab, or an empty qid or slice is an
    error naming the line.
    """
    name = str(path)
    assign: dict[str, str] = {}
    first: dict[str, int] = {}
    order: list[str] = []
    for number, line in numbered_lines(read_text(path, "slices file (qid<TAB>slice)")):
        if not line.strip():
            continue
        fields = line.split("\t") if "\t" in line else line.strip().split(None, 1)
        if len(fields) != 2:
            raise DatasetError(
                name,
                f"{len(fields)} fields where 2 are expected; each line is 'qid<TAB>slice'",
                line=number,
            )
        qid, slice_ = fields[0].strip(), fields[1].strip()
        if not qid or not slice_:
            raise DatasetError(
                name, "empty qid or slice; each line is 'qid<TAB>slice'", line=number
            )
        if qid in assign:
            raise DatasetError(
                name,
                f"qid {qid!r} is listed twice (first on line {first[qid]}); "
                "give each question one slice",
                line=number,
                field="qid",
            )
        assign[qid] = slice_
        first[qid] = number
        if slice_ not in order:
            order.append(slice_)
    if not assign:
        raise DatasetError(name, "holds no 'qid<TAB>slice' line")
    return Slicing(assign, tuple(order), name)
