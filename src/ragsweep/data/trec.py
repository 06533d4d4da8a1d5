"""TREC qrels and run files: read and write them (the file formats; scoring them is
`ragsweep.scoring.trec`).

Both files are read as trec_eval reads them (see docs/metrics.md): `#` comment lines, a run's
columns after the tag ignored. A run is ordered by score descending, ties by document id
descending (string order), and its rank column is ignored. Where trec_eval refuses a run that
lists a document twice for one query, ragsweep keeps the first occurrence in that order (the
highest-scored one) and counts it once.
"""

from __future__ import annotations

import gzip
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from ragsweep.errors import DatasetError

_QRELS_FORMAT = "each qrels line is 'qid 0 docid grade'"
_RUN_FORMAT = "each run line is 'qid Q0 docid rank score tag'"
_WHITESPACE = re.compile(r"\s")


def _encode(values: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray]:
    """Dictionary-encode strings: (distinct values in first-seen order, int64 code per value)."""
    index: dict[str, int] = {}
    codes = [index.setdefault(v, len(index)) for v in values]
    return tuple(index), np.array(codes, dtype=np.int64)


def _columns(
    rows: Iterable[tuple[str, str, Any]], cast: Callable[[Any], Any]
) -> tuple[list[str], list[str], list[Any]]:
    """(qids, docids, values) of (qid, docid, value) rows: ids as str, values through `cast`."""
    qids: list[str] = []
    docids: list[str] = []
    values: list[Any] = []
    for qid, docid, value in rows:
        qids.append(str(qid))
        docids.append(str(docid))
        values.append(cast(value))
    return qids, docids, values


@dataclass(frozen=True, eq=False)
class Qrels:
    """Graded judgements, one row per (query, document), dictionary-encoded.

    Row i judges query `qid_names[qid_codes[i]]` and document `doc_names[doc_codes[i]]` with
    `grades[i]` (int64; negative means judged non-relevant). `path` names the source in errors.
    """

    qid_names: tuple[str, ...]
    doc_names: tuple[str, ...]
    qid_codes: np.ndarray
    doc_codes: np.ndarray
    grades: np.ndarray
    path: str = "<qrels>"

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, int]], path: str = "<qrels>") -> Qrels:
        """Judgements from (qid, docid, grade) rows; a repeated (qid, docid) is a DatasetError."""
        qids, docids, grades = _columns(rows, int)
        lines = np.arange(1, len(grades) + 1)
        return _checked_qrels(qids, docids, grades, lines, path, "row")

    @property
    def qids(self) -> tuple[str, ...]:
        """The query id of every row."""
        return tuple(self.qid_names[c] for c in self.qid_codes.tolist())

    @property
    def docids(self) -> tuple[str, ...]:
        """The document id of every row."""
        return tuple(self.doc_names[c] for c in self.doc_codes.tolist())

    def __len__(self) -> int:
        return int(self.grades.size)


@dataclass(frozen=True, eq=False)
class Run:
    """Scored results, one row per run line in file order (not yet ranked), dictionary-encoded.

    Row i scores document `doc_names[doc_codes[i]]` for query `qid_names[qid_codes[i]]` with
    `scores[i]` (finite float64).
    """

    qid_names: tuple[str, ...]
    doc_names: tuple[str, ...]
    qid_codes: np.ndarray
    doc_codes: np.ndarray
    scores: np.ndarray
    path: str = "<run>"

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, float]], path: str = "<run>") -> Run:
        """Results from (qid, docid, score) rows; their order is irrelevant (see `gain_arrays`)."""
        qids, docids, scores = _columns(rows, float)
        arr = np.array(scores, dtype=np.float64)
        if not np.isfinite(arr).all():
            raise DatasetError(path, "every score must be a finite number", field="score")
        return _run(qids, docids, arr, path)

    @property
    def qids(self) -> tuple[str, ...]:
        """The query id of every row."""
        return tuple(self.qid_names[c] for c in self.qid_codes.tolist())

    @property
    def docids(self) -> tuple[str, ...]:
        """The document id of every row."""
        return tuple(self.doc_names[c] for c in self.doc_codes.tolist())

    def __len__(self) -> int:
        return int(self.scores.size)


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _lines(
    path: str | Path, n_fields: int, fmt: str, *, run: bool = False
) -> Iterator[tuple[int, list[str]]]:
    """(line number, first `n_fields` fields) of each line trec_eval reads, refusing fewer fields.

    Blank lines and comments are skipped: a qrels comment starts with `#`, a run comment may
    have blanks before it (`run`). A qrels line has exactly `n_fields`; a run line may have
    more, and the ones after `n_fields` are dropped.
    """
    p = Path(path)
    if not p.exists():
        raise DatasetError(p, "no such file; check the path")
    if p.is_dir():
        raise DatasetError(p, "is a directory, not a file; give the file's path")
    try:
        with _open_text(p) as fh:
            for number, line in enumerate(fh, start=1):
                fields = line.split()
                if len(fields) == n_fields and fields[0][0] != "#":  # the common line, at once
                    yield number, fields
                    continue
                if not fields or (fields[0][0] == "#" and (run or line[0] == "#")):
                    continue
                if len(fields) < n_fields or (len(fields) > n_fields and not run):
                    expected = f"at least {n_fields}" if run else str(n_fields)
                    raise DatasetError(
                        p, f"{len(fields)} fields where {expected} are expected; {fmt}", line=number
                    )
                yield number, fields[:n_fields]
    except UnicodeDecodeError as err:
        raise DatasetError(p, f"not UTF-8 text ({err.reason}); save it as UTF-8") from None
    except (OSError, EOFError) as err:
        raise DatasetError(p, f"cannot read: {err}") from None


def _run(qids: Sequence[str], docids: Sequence[str], scores: np.ndarray, path: str) -> Run:
    qid_names, qid_codes = _encode(qids)
    doc_names, doc_codes = _encode(docids)
    return Run(qid_names, doc_names, qid_codes, doc_codes, scores, path)


def _checked_qrels(
    qids: Sequence[str],
    docids: Sequence[str],
    grades: Sequence[int],
    lines: np.ndarray,
    path: str,
    unit: str,
) -> Qrels:
    """Qrels from columns, refusing a (qid, docid) judged twice (as trec_eval does)."""
    qid_names, qc = _encode(qids)
    doc_names, dc = _encode(docids)
    key = qc * max(len(doc_names), 1) + dc
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if repeated.size:
        # report the repeat that comes first in the file
        second = order[repeated + 1]
        at = int(np.argmin(lines[second]))
        i, j = int(order[repeated[at]]), int(second[at])
        raise DatasetError(
            path,
            f"document {docids[j]!r} is judged twice for query {qids[j]!r} (first on {unit} "
            f"{int(lines[i])}); keep one judgement per (qid, docid)",
            line=int(lines[j]),
            field="docid",
        )
    grade_arr = np.array(grades, dtype=np.int64)
    return Qrels(qid_names, doc_names, qc, dc, grade_arr, path)


def read_qrels(path: str | Path) -> Qrels:
    """Read a TREC qrels file (`qid iter docid grade`, whitespace separated; `.gz` read as gzip).

    Blank lines and comment lines (first character `#`; a `#` elsewhere, as in the docid
    `doc_50#13`, is part of the field) are skipped, as trec_eval skips them; every other line
    has exactly 4 fields. The iter column is ignored; grades are integers (negative allowed:
    judged non-relevant); a (qid, docid) judged twice is an error, as in trec_eval. Errors name
    the file, line and field.
    """
    name = str(path)
    qids: list[str] = []
    docids: list[str] = []
    grades: list[int] = []
    lines: list[int] = []
    for number, (qid, _iter, docid, grade) in _lines(path, 4, _QRELS_FORMAT):
        try:
            grades.append(int(grade))
        except ValueError:
            raise DatasetError(
                name,
                f"{grade!r} is not an integer; {_QRELS_FORMAT}",
                line=number,
                field="grade",
            ) from None
        qids.append(qid)
        docids.append(docid)
        lines.append(number)
    return _checked_qrels(qids, docids, grades, np.array(lines, dtype=np.int64), name, "line")


def read_run(path: str | Path) -> Run:
    """Read a TREC run file (`qid Q0 docid rank score tag`; `.gz` read as gzip).

    Blank lines and comment lines (`#` first after any leading blanks) are skipped, and fields
    after the sixth are ignored, as trec_eval does (a 9-column run reads as its first 6); fewer
    than 6 fields is an error. The Q0, rank and tag columns are ignored (the order comes from the
    scores, as in trec_eval); scores must be finite numbers. Errors name the file, line and field.
    """
    name = str(path)
    qids: list[str] = []
    docids: list[str] = []
    scores: list[float] = []
    for number, (qid, _q0, docid, _rank, score, _tag) in _lines(path, 6, _RUN_FORMAT, run=True):
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise DatasetError(
                name,
                f"{score!r} is not a finite number; {_RUN_FORMAT}",
                line=number,
                field="score",
            )
        scores.append(value)
        qids.append(qid)
        docids.append(docid)
    return _run(qids, docids, np.array(scores, dtype=np.float64), name)


def _check_id(kind: str, value: str) -> None:
    if not value or _WHITESPACE.search(value):
        raise ValueError(f"{kind} {value!r} cannot be written to a TREC file (empty or whitespace)")


def write_run(
    path: str | Path,
    rankings: Mapping[str, Sequence[str]],
    scores: Mapping[str, Sequence[float]] | None = None,
    tag: str = "ragsweep",
) -> None:
    """Write ranked lists as a TREC run file that trec_eval reads in exactly the given order.

    Queries are written in string order of qid, each list in its own order with ranks 1..n.
    Without `scores`, the score column is n - i for rank i (strictly decreasing), so ties cannot
    reorder anything. With `scores`, they are written as given and must imply the same order under
    trec_eval's rule (score descending, ties by docid descending); otherwise ValueError.
    """
    _check_id("tag", tag)
    lines: list[str] = []
    for qid in sorted(rankings):
        docs = [str(d) for d in rankings[qid]]
        _check_id("qid", qid)
        for d in docs:
            _check_id("docid", d)
        if len(set(docs)) != len(docs):
            raise ValueError(f"query {qid!r}: a document is ranked twice")
        if scores is None:
            column = [str(len(docs) - i) for i in range(len(docs))]
        else:
            given = [float(s) for s in scores[qid]]
            if len(given) != len(docs) or not all(math.isfinite(s) for s in given):
                raise ValueError(f"query {qid!r}: need one finite score per ranked document")
            for i in range(len(docs) - 1):
                a, b = (given[i], docs[i]), (given[i + 1], docs[i + 1])
                if not a > b:
                    raise ValueError(
                        f"query {qid!r}: trec_eval would rank {docs[i + 1]!r} above {docs[i]!r} "
                        f"(scores {given[i + 1]!r} >= {given[i]!r}, ties by docid descending); "
                        "pass scores=None to write rank-faithful scores"
                    )
            column = [repr(s) for s in given]
        lines.extend(
            f"{qid} Q0 {d} {rank} {s} {tag}\n"
            for rank, (d, s) in enumerate(zip(docs, column, strict=True), start=1)
        )
    Path(path).write_text("".join(lines), encoding="utf-8")
