"""JSON Lines files a person or a tool wrote (a query log, a label file): blank lines skipped,
every other line one JSON object. A bad line is one `UserError` naming the file and line and
never quoting it: a log line may hold personal data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragsweep.errors import UserError


def kind_of(value: Any) -> str:
    """What a JSON value is, for a message that must not show it: `a number`, `a list` ..."""
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def json_objects(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of `text`, the contents of `path`."""
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(
                f"{path}:{number}: not valid JSON (column {e.colno}); write one JSON object a line"
            ) from None
        if not isinstance(record, dict):
            raise UserError(
                f"{path}:{number}: {kind_of(record)}, not a JSON object; write one object a line"
            )
        out.append((number, record))
    return out
