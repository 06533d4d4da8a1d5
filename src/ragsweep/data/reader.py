"""Reading and checking one file of a dataset folder, written once for every loader.

`DataFile` is a file (or folder) of the dataset, named by its path relative to the folder: it
reads the bytes, decodes UTF-8, parses JSON or JSON Lines (refusing repeated keys and NaN) and
checks fields and values. Every check raises `DatasetError` at the first problem, naming the
file and, where there is one, the line and the field, and saying how to fix it.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

from ragsweep.errors import DatasetError

#: field -> (JSON type: "str", "int", "list" or "object"; whether null is allowed)
Spec = Mapping[str, tuple[str, bool]]

_EXPECTED = {
    "str": ("a string", lambda v: isinstance(v, str)),
    "int": ("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "object": ("an object", lambda v: isinstance(v, dict)),
}


def describe(value: Any) -> str:
    """A JSON value as the user wrote it, for messages: `a number (2.5)`, `null`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    return "an object"


def hint(word: str, known: Sequence[str]) -> str:
    """`did you mean 'x'? ` for the closest of `known` to a misspelt `word`, else ``."""
    close = difflib.get_close_matches(word, known, n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def known(values: Sequence[str]) -> str:
    """The values a message offers instead, comma-separated, or `none`."""
    return ", ".join(values) if values else "none"


def table(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """Checked JSON Lines rows as a data frame of `columns`, in file order. A column holding a
    null keeps it as None (an object column): pandas 3 would turn the column into strings and
    the null into NaN, which no `is None` test catches (a question with no version would be
    filtered to the version "nan" and retrieve nothing)."""
    frame = {}
    for c in columns:
        values = [r[c] for r in rows]
        has_null = any(v is None for v in values)
        frame[c] = pd.Series(values, dtype=object) if has_null else values
    return pd.DataFrame(frame)


def entries(folder: Path) -> list[Path]:
    """The entries of a folder in name order, so the problem reported first does not depend
    on the file system's listing order."""
    return sorted(folder.iterdir(), key=lambda p: p.name)


#: a JSON object key: a string's closing quote, then the colon (also matches an escaped quote
#: followed by a colon inside a string value, which only sends the line to the careful parse)
_KEY_MARKER = re.compile(r'"\s*:')


class _Duplicate(ValueError):
    """A key repeated inside one JSON object (json.loads would silently keep the last)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise _Duplicate(key)
        obj[key] = value
    return obj


def _constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


#: the parse `parse` makes (json.loads with these hooks), as one reusable decoder
_DECODER = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant)
#: the first, quick parse of a JSON Lines line (NaN and Infinity refused, as in `parse`)
_FAST_DECODER = json.JSONDecoder(parse_constant=_constant)
#: Python types of the JSON types a `Spec` names (`bool` is not an `int` here)
_PY_TYPES = {"str": str, "int": int, "list": list, "object": dict}


class DataFile:
    """One file or folder of the dataset folder `root`, at `rel` (POSIX, relative to root)."""

    def __init__(self, root: Path, rel: str, *, private: bool = False) -> None:
        self._root, self._rel = root, rel
        #: the file holds raw user text (a query log): no message ever quotes a value of it
        self.private = private

    @functools.cached_property
    def path(self) -> Path:
        """The file's path (`root / rel`), built when first needed: a loader checking many
        files from bytes already read only needs it for an error."""
        return self._root / self._rel

    def describe(self, value: Any) -> str:
        """`describe(value)`, with a private file's strings not shown."""
        if self.private and isinstance(value, str):
            return "a string (not shown: log entries may hold personal data)"
        return describe(value)

    def fail(self, message: str, line: int | None = None, field: str | None = None) -> NoReturn:
        """Raise the `DatasetError` naming this file (and the line and field, if given)."""
        raise DatasetError(self.path, message, line=line, field=field)

    # -- reading ----------------------------------------------------------------------------

    def read(self, what: str) -> bytes:
        """Bytes of a required file; `what` says what it holds, for the error if it is absent."""
        p = self.path
        if not p.is_file():
            state = "is not a file" if p.exists() else "is missing"
            near = [q.name for q in p.parent.iterdir()] if p.parent.is_dir() else []
            close = difflib.get_close_matches(p.name, near, n=1)
            rename = f"; rename {close[0]!r} if that is it" if close and not p.exists() else ""
            self.fail(f"{state}; a dataset folder needs it ({what}){rename}; see docs/schema.md")
        return self.read_bytes()

    def read_optional(self) -> bytes | None:
        """Bytes of an optional file, None when it is absent."""
        if not self.path.exists():
            return None
        if not self.path.is_file():
            self.fail(
                "is not a file; remove it or replace it with the file docs/schema.md describes"
            )
        return self.read_bytes()

    def read_bytes(self) -> bytes:
        """Bytes of a file known to exist; an unreadable one is the user's to fix."""
        try:
            return self.path.read_bytes()
        except OSError as err:
            self.fail(f"cannot be read ({err.strerror}); check its permissions")

    # -- parsing ----------------------------------------------------------------------------

    def decode(self, data: bytes) -> str:
        """The file's text: it must be UTF-8."""
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as err:
            self.fail(f"is not UTF-8 (bad byte at offset {err.start}); save it as UTF-8")

    def lines(self, data: bytes) -> list[str]:
        """The lines of a text file, without their `\\n` (line n is element n - 1)."""
        lines = self.decode(data).split("\n")
        if lines[-1] == "":
            lines.pop()
        return lines

    def parse(self, text: str, line: int | None) -> Any:
        """One JSON value; `line` is the JSONL line, None for a whole JSON file."""
        try:
            return json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
        except _Duplicate as dup:
            self.fail(f"key {dup.args[0]!r} appears twice in one object; keep one", line)
        except json.JSONDecodeError as err:
            where = f"column {err.colno}" if line else f"line {err.lineno} column {err.colno}"
            shape = "each line must be one JSON object" if line else "fix the JSON syntax"
            self.fail(f"invalid JSON at {where}: {err.msg}; {shape}", line)
        except ValueError as err:
            self.fail(f"invalid JSON: {err}; use a number or null", line)

    def value(self, text: str, line: int | None) -> Any:
        """`parse`'s result, from one reused decoder; `parse` runs only to report a problem."""
        try:
            return _DECODER.decode(text)
        except ValueError:
            return self.parse(text, line)

    def json_object(self, data: bytes) -> dict[str, Any]:
        """The one JSON object a JSON file holds."""
        obj = self.value(self.decode(data), None)
        if not isinstance(obj, dict):
            self.fail(f"expected a JSON object, got {self.describe(obj)}")
        return obj

    def jsonl(self, data: bytes, *, flat: bool = True) -> list[dict[str, Any]]:
        """The objects of a JSON Lines file, one per line (line n is element n - 1).

        When the objects are `flat` (no object inside), a line is first parsed by `json.loads`
        alone; it is accepted as it is when it gives an object with as many keys as the line has
        `"...":` key markers (so no key can have been repeated: a repeated key leaves fewer keys
        than markers). Anything else (a nested object, a string holding `":`, a repeated key,
        bad JSON) is parsed again the careful way, which reports the problem. Same result, a
        fraction of the time on large files. Nested objects (wordings) go straight to the
        careful parse."""
        out = []
        decode, markers = _FAST_DECODER.raw_decode, _KEY_MARKER.findall
        for n, raw in enumerate(self.lines(data), start=1):
            if not raw.strip():
                self.fail(
                    "blank line; JSON Lines files hold one object per line, no blank lines: "
                    "remove it",
                    n,
                )
            obj, end = None, 0
            if flat:
                try:
                    obj, end = decode(raw)
                except ValueError:
                    pass
            if not (end == len(raw) and isinstance(obj, dict) and len(markers(raw)) == len(obj)):
                obj = self.value(raw, n)
            if not isinstance(obj, dict):
                self.fail(f"expected one JSON object per line, got {self.describe(obj)}", n)
            out.append(obj)
        return out

    # -- checking ---------------------------------------------------------------------------

    def fields(
        self,
        obj: dict[str, Any],
        spec: Spec,
        line: int | None = None,
        prefix: str = "",
        optional: Sequence[str] = (),
    ) -> None:
        """Check keys and JSON types against `spec`; unknown keys fail, as do missing ones
        unless listed in `optional`. `prefix` leads the field names (`parts[0].`)."""
        if obj.keys() == spec.keys():  # the common case, checked fast; anything odd below
            for key, (kind, nullable) in spec.items():
                value = obj[key]
                if type(value) is not _PY_TYPES[kind] and not (value is None and nullable):
                    break
            else:
                return
        for key in obj:
            if key not in spec:
                self.fail(
                    f"unknown field; {hint(key, list(spec))}allowed: {', '.join(spec)}",
                    line,
                    prefix + key,
                )
        for key, (kind, nullable) in spec.items():
            if key not in obj:
                if key in optional:
                    continue
                self.fail(
                    "missing; add it" + (" (null is allowed)" if nullable else ""),
                    line,
                    prefix + key,
                )
            value = obj[key]
            expected, ok = _EXPECTED[kind]
            if value is None and nullable:
                continue
            if not ok(value):
                also = " or null" if nullable else ""
                self.fail(
                    f"expected {expected}{also}, got {self.describe(value)}", line, prefix + key
                )

    def pattern(
        self, value: str, regex: re.Pattern[str], rule: str, line: int | None, field: str
    ) -> None:
        """`value` must match `regex` whole; `rule` names it for the message."""
        if not regex.fullmatch(value):
            shown = "the value" if self.private else repr(value)
            self.fail(f"{shown} is not a valid {rule}", line, field)

    def nonblank(self, value: str, line: int | None, field: str) -> None:
        """`value` must hold more than white space."""
        if not value.strip():
            self.fail("is empty; write the text", line, field)
