"""A query-log entry as parts, each plain text or one personal item of a known kind, joined into
the entry's text and its `(start, end, kind)` spans; and the log's wording tables
(`querylog.yaml`). See docs/sample.md.
"""

from __future__ import annotations

import re
from typing import Any

from ragsweep.data.samplegen import texts

Part = tuple[str, str | None]  # (text, PII kind or None)


def log_text(key: str, tp: Any = tuple[str, ...]) -> Any:
    """Table `key` of querylog.yaml: the log's wording around the questions, one line an entry."""
    return texts.load("querylog.yaml", key, tp)


def fill(template: str, values: dict[str, Part]) -> list[Part]:
    """`template` with `{name}` placeholders replaced by `values` (kept as separate parts)."""
    parts: list[Part] = []
    pos = 0
    for m in re.finditer(r"\{(\w+)\}", template):
        if m.start() > pos:
            parts.append((template[pos : m.start()], None))
        parts.append(values[m.group(1)])
        pos = m.end()
    if pos < len(template):
        parts.append((template[pos:], None))
    return parts


def join_parts(parts: list[Part]) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """The entry's text and the `(start, end, kind)` span of each personal part in it."""
    text, spans, pos = [], [], 0
    for chunk, kind in parts:
        if kind is not None:
            spans.append((pos, pos + len(chunk), kind))
        text.append(chunk)
        pos += len(chunk)
    return "".join(text), tuple(spans)
