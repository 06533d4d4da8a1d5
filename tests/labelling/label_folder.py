"""What the label-file tests share: copies of the tiny fixture, a folder's digest (all or
nothing: byte-identical after a refusal), JSON Lines rows, and label and changelog rows as the
labelling modules write them."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from ragsweep.labelling.labelfiles import CHANGELOG_FIELDS

TINY = Path(__file__).resolve().parents[1] / "fixtures" / "tiny"
AT = "2025-10-01T09:30:00+00:00"


def copy_tiny(tmp_path: Path) -> Path:
    """A fresh copy of the tiny fixture (10 questions, 16 labels, review files for q02, q04,
    q08), never the fixture itself."""
    return Path(shutil.copytree(TINY, tmp_path / "tiny"))


def digest(folder: Path) -> dict[str, str]:
    """sha256 of every file below `folder`, by relative path."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def lab(qid: str, document: str, section: str, version: str, grade: int) -> dict:
    return {
        "qid": qid,
        "document": document,
        "section": section,
        "version": version,
        "grade": grade,
    }


def log_row(kind: str, who: str, qid: str, clause, old, new, reason, source, note=None) -> dict:
    document, section, version = clause if clause else (None, None, None)
    values = (AT, kind, who, qid, document, section, version, old, new, reason, source, note)
    return dict(zip(CHANGELOG_FIELDS, values, strict=True))
