"""Errors meant for the user: one line naming the file, the field and the fix; exit code 2."""

from __future__ import annotations

from pathlib import Path


class UserError(Exception):
    """Bad input from the user. The CLI prints it on one line and exits with code 2."""


class DatasetError(UserError):
    """A dataset file is malformed or inconsistent.

    The message always names the file and, where there is one, the line and the field, and says
    how to fix it: `questions.jsonl:12: field 'slice': unknown slice 'exclusion' (known: ...)`.
    """

    def __init__(
        self,
        path: str | Path,
        message: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.detail = message
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"field '{field}': " if field else ""
        super().__init__(f"{where}: {what}{message}")
