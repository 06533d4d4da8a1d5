"""Reading a raw query log (JSONL or CSV) for `labels sample`: each text goes through the injected
scrubber as it is read, and no error quotes a log entry (it names the file, line and field).
docs/labelling.md, "1. Sample questions from the query log".
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError
from ragsweep.labelling.jsonl import json_objects, kind_of
from ragsweep.labelling.slicerules import UNKNOWN

#: the injected scrubber: raw text in, text without personal data out
Scrub = Callable[[str], str]


@dataclass(frozen=True)
class LogEntry:
    """One log entry: `line` in the file (1-based; a CSV row's last line), the scrubbed text,
    the timestamp (UTC) when there is a timestamp field, and the slice column's value (`UNKNOWN`
    when empty; None when there is no slice column, so the classifier decides)."""

    line: int
    text: str
    ts: datetime | None
    slice: str | None


def parse_when(value: date | datetime | str, what: str = "--since") -> datetime:
    """A date or an ISO 8601 timestamp as an aware UTC datetime (naive: UTC; a date: midnight)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            raise UserError(
                f"{what}: {value!r} is not a date; write YYYY-MM-DD or an ISO 8601 timestamp"
            ) from None
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _decode(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise UserError(f"{path}: cannot read the log ({e.strerror}); fix the path") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise UserError(f"{path}:{line}: not UTF-8 text; save the log as UTF-8") from None


class _Fields:
    """Reads the named fields of one raw record into a LogEntry (scrubbing the text first)."""

    def __init__(
        self,
        path: Path,
        scrub: Scrub,
        text_field: str,
        ts_field: str | None,
        slice_field: str | None,
        known_slices: Sequence[str] | None,
    ) -> None:
        self.path, self.scrub = path, scrub
        self.text_field, self.ts_field, self.slice_field = text_field, ts_field, slice_field
        self.known = None if known_slices is None else frozenset(known_slices)

    def fail(self, line: int, field: str, message: str) -> UserError:
        return UserError(f"{self.path}:{line}: field '{field}': {message}")

    def entry(self, line: int, record: Mapping[str, Any]) -> LogEntry:
        raw = record.get(self.text_field)
        if not isinstance(raw, str):
            got = "missing" if raw is None else f"{kind_of(raw)}, not a string"
            raise self.fail(
                line, self.text_field, f"{got}; name the question field with --text-field"
            )
        text = self.scrub(raw)
        if not isinstance(text, str):
            raise TypeError(f"scrub must return str, got {type(text).__name__}")
        if not text.strip():
            raise self.fail(line, self.text_field, "empty; remove the line or fill in the question")
        ts = None
        if self.ts_field is not None:
            value = record.get(self.ts_field)
            try:
                ok = isinstance(value, str) and bool(value.strip())
                ts = parse_when(value) if ok else None
            except UserError:
                ok = False
            if not ok:
                raise self.fail(
                    line,
                    self.ts_field,
                    "missing or not an ISO 8601 timestamp (e.g. 2025-01-31T09:00:00Z); fix the "
                    "value, or name the timestamp field with --ts-field",
                )
        label = None
        if self.slice_field is not None:
            value = record.get(self.slice_field)
            if value is not None and not isinstance(value, str):
                raise self.fail(line, self.slice_field, f"{kind_of(value)}, not a slice name")
            label = value.strip() if value and value.strip() else UNKNOWN
            if label != UNKNOWN and self.known is not None:
                if label not in self.known:
                    raise self.fail(
                        line,
                        self.slice_field,
                        f"not one of the slices {', '.join(sorted(self.known))}; fix the label, "
                        f"or leave it empty for {UNKNOWN}",
                    )
        return LogEntry(line, text, ts, label)


def read_log(
    path: str | Path,
    scrub: Scrub,
    *,
    text_field: str = "text",
    ts_field: str | None = "ts",
    slice_field: str | None = None,
    known_slices: Sequence[str] | None = None,
) -> list[LogEntry]:
    """The entries of a JSONL (`.jsonl`, `.ndjson`: one object a line, blank lines skipped) or
    CSV (`.csv`, with a header) log, in file order, each text scrubbed as it is read.
    `ts_field=None`: no timestamps (file order is time order). `known_slices`: the values the
    slice column may hold besides empty and `unknown`. Bad input (an unknown format, a missing
    field, a log with no entry, bytes that are not UTF-8) raises UserError naming the file, line
    and field, never quoting the entry."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".ndjson", ".csv"):
        raise UserError(f"{path}: unknown log format '{suffix}'; give a .jsonl or .csv file")
    fields = _Fields(path, scrub, text_field, ts_field, slice_field, known_slices)
    text = _decode(path)
    records: list[tuple[int, Mapping[str, Any]]] = []
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        columns = reader.fieldnames or []
        for name, option in (
            (text_field, "--text-field"),
            (ts_field, "--ts-field"),
            (slice_field, "--slice-field"),
        ):
            if name is not None and name not in columns:
                raise UserError(
                    f"{path}:1: no column '{name}' ({_header(columns)}); name the column with "
                    f"{option}"
                )
        try:
            for record in reader:
                records.append((reader.line_num, record))
        except csv.Error:
            raise UserError(f"{path}:{reader.line_num}: not valid CSV; fix the quoting") from None
        return _some(path, _entries(fields, records), text_field)
    return _some(path, _entries(fields, json_objects(path, text)), text_field)


def _entries(fields: _Fields, records: Sequence[tuple[int, Mapping[str, Any]]]) -> list[LogEntry]:
    """Each record as a LogEntry. A scrubber with a `many` method (`scrub.Counting`) reads the
    texts in one batch first: a model reads a batch several times faster than one text at a
    time."""
    many = getattr(fields.scrub, "many", None)
    if many is not None:
        many(
            [r[fields.text_field] for _, r in records if isinstance(r.get(fields.text_field), str)]
        )
    return [fields.entry(line, record) for line, record in records]


#: a CSV header cell that reads as a column name; any other is quoted by count only (a log
#: without a header has a question where its header should be)
_COLUMN_NAME = re.compile(r"[A-Za-z_][\w.-]{0,39}")


def _header(columns: Sequence[str]) -> str:
    """The CSV header for an error message, without quoting a cell that may be log text."""
    if not columns:
        return "no header"
    if all(_COLUMN_NAME.fullmatch(c) for c in columns):
        return f"columns: {', '.join(columns)}"
    return f"{len(columns)} cells that are not column names: is the first line a header?"


def _some(path: Path, entries: list[LogEntry], text_field: str) -> list[LogEntry]:
    """`entries`, refused when there are none: an empty log has nothing to sample."""
    if not entries:
        raise UserError(
            f"{path}: field '{text_field}': no entries, the log is empty; give a log with at "
            "least one question"
        )
    return entries
