"""What the tests of `labels sample` share: a stand-in scrubber, log entries a minute apart, a
JSON Lines writer, the built-in slices."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragsweep.labelling.logreader import LogEntry, parse_when

SLICES = ("identifiers", "definitions", "procedures", "limits", "exclusions")


def scrub(text: str) -> str:
    """Stand-in scrubber: e-mail addresses and long digit runs."""
    return re.sub(r"\d{6,}", "<PHONE>", re.sub(r"\S+@\S+", "<EMAIL>", text))


def entries(*texts: str, month: int = 1) -> list[LogEntry]:
    """One entry a text, a minute apart, in the given order."""
    return [
        LogEntry(i + 1, scrub(t), parse_when(f"2025-{month:02d}-01T09:{i:02d}:00Z"), None)
        for i, t in enumerate(texts)
    ]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
